#include "core/dispatch_deadline.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <cstdlib>

namespace dagu {

std::string EncodeDispatchDeadline(MonoTime deadline) {
  return std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count());
}

std::optional<MonoTime> DecodeDispatchDeadline(std::string_view text) {
  long long ns = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ns);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || ns < 0) return std::nullopt;
  return MonoTime(std::chrono::nanoseconds(ns));
}

std::optional<MonoTime> TakeDispatchDeadline() {
  const char* value = std::getenv(kDispatchDeadlineEnv);
  if (value == nullptr) return std::nullopt;
  std::string text = value;
  ::unsetenv(kDispatchDeadlineEnv);
  if (std::optional<MonoTime> d = DecodeDispatchDeadline(text)) return d;
  spdlog::error("{}={} is not a deadline; treating it as passed", kDispatchDeadlineEnv, text);
  return MonoTime{};
}

Status CheckDispatchDeadline(const std::optional<MonoTime>& deadline, MonoTime now, std::string_view what) {
  if (!deadline || now < *deadline) return Status::OK();
  return Status::Aborted(std::string(what) +
                         ": refused: the scheduler that dispatched it lost its lease before it started");
}

}  // namespace dagu
