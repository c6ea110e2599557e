#include "core/log_context.h"

#include <mutex>

namespace dagu {
namespace {

std::mutex& Mu() {
  static std::mutex mu;
  return mu;
}

LogContextValues& Values() {
  static LogContextValues values;
  return values;
}

}  // namespace

void SetLogInstance(const std::string& instance_id) {
  std::lock_guard<std::mutex> l(Mu());
  Values().instance = instance_id;
}

void SetLogRole(const std::string& role) {
  std::lock_guard<std::mutex> l(Mu());
  Values().role = role;
}

LogContextValues CurrentLogContext() {
  std::lock_guard<std::mutex> l(Mu());
  return Values();
}

}  // namespace dagu
