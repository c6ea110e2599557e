#include "core/dispatch_deadline.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>

namespace dagu {
namespace {

template <typename T>
bool ParseDecimal(std::string_view text, T* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

// The value of `name`, removed from the environment; nullopt when unset.
std::optional<std::string> TakeEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  std::string text = value;
  ::unsetenv(name);
  return text;
}

}  // namespace

std::string EncodeDispatchDeadline(MonoTime deadline) {
  return std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count());
}

std::optional<MonoTime> DecodeDispatchDeadline(std::string_view text) {
  long long ns = 0;
  if (!ParseDecimal(text, &ns) || ns < 0) return std::nullopt;
  return MonoTime(std::chrono::nanoseconds(ns));
}

Status DispatchFence::Check(MonoTime now, std::string_view what) const {
  if (!deadline_ || now < *deadline_) return Status::OK();
  if (beacon_) {
    std::optional<MonoTime> renewed = beacon_->DeadlineOf(term_);
    if (renewed && now < *renewed) return Status::OK();
  }
  return Status::Aborted(std::string(what) +
                         ": refused: the scheduler that dispatched it lost its lease before it started");
}

DispatchFence TakeDispatchFence() {
  std::optional<std::string> deadline_text = TakeEnv(kDispatchDeadlineEnv);
  std::optional<std::string> lease_text = TakeEnv(kDispatchLeaseEnv);
  // The beacon's descriptor is closed whatever else is wrong, so that no
  // step inherits it.
  std::shared_ptr<const LeaseBeacon> beacon;
  uint64_t term = 0;
  if (lease_text) {
    const size_t colon = lease_text->find(':');
    int fd = -1;
    if (colon == std::string::npos || !ParseDecimal(std::string_view(*lease_text).substr(0, colon), &fd) || fd < 0 ||
        !ParseDecimal(std::string_view(*lease_text).substr(colon + 1), &term)) {
      spdlog::error("{}={} is not a lease beacon; ignoring it", kDispatchLeaseEnv, *lease_text);
    } else if (StatusOr<std::unique_ptr<LeaseBeacon>> b = LeaseBeacon::Attach(fd); b.ok()) {
      beacon = std::move(b).value();
    } else {
      spdlog::error("{}: {}; the dispatch deadline alone applies", kDispatchLeaseEnv, b.status().ToString());
    }
  }
  if (!deadline_text) return DispatchFence();
  if (std::optional<MonoTime> d = DecodeDispatchDeadline(*deadline_text)) return DispatchFence(*d, beacon, term);
  spdlog::error("{}={} is not a deadline; treating it as passed", kDispatchDeadlineEnv, *deadline_text);
  return DispatchFence(MonoTime{});
}

std::map<std::string, std::string> DispatchEnvironment(MonoTime not_after, const LeaseBeacon* beacon) {
  std::map<std::string, std::string> env;
  env[kDispatchDeadlineEnv] = EncodeDispatchDeadline(not_after);
  if (beacon != nullptr) env[kDispatchLeaseEnv] = std::to_string(kDispatchLeaseFd) + ":" + std::to_string(beacon->term());
  return env;
}

}  // namespace dagu
