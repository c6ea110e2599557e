// LogContext: the facts every log line of a scheduler process carries in
// the JSON log format (log_format: json): this process's scheduler instance
// ID and its current role. Set by the scheduler service (the instance at
// start, the role on every role change); empty in other commands, whose
// lines then carry neither field. Thread-safe; reads never block on
// anything but a short internal lock.
#pragma once

#include <string>

namespace dagu {

void SetLogInstance(const std::string& instance_id);
void SetLogRole(const std::string& role);

struct LogContextValues {
  std::string instance;
  std::string role;
};
LogContextValues CurrentLogContext();

}  // namespace dagu
