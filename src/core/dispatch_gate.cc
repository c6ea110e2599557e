#include "core/dispatch_gate.h"

#include <fcntl.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>

#include "core/dispatch_deadline.h"

namespace dagu {
namespace {

constexpr std::string_view kGo = "go ";

}  // namespace

std::string GateOpenMessage(MonoTime deadline) { return std::string(kGo) + EncodeDispatchDeadline(deadline) + "\n"; }

DispatchGate::~DispatchGate() {
  if (fd_ >= 0) ::close(fd_);
}

DispatchGate::DispatchGate(DispatchGate&& other) noexcept : fd_(other.fd_), limit_(other.limit_) { other.fd_ = -1; }

DispatchGate& DispatchGate::operator=(DispatchGate&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    limit_ = other.limit_;
    other.fd_ = -1;
  }
  return *this;
}

Status DispatchGate::Await(MonoTime* deadline) {
  if (fd_ < 0) return Status::Aborted("no dispatch gate");
  const int fd = fd_;
  fd_ = -1;
  std::string got;
  const MonoTime until = Clock::Real()->Monotonic() + limit_;
  Status result = Status::Aborted("released: the scheduler closed the gate");
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::Real()->Monotonic()).count();
    if (left <= 0) {
      result = Status::Aborted("released: no word from the scheduler in time");
      break;
    }
    pollfd p{fd, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 60'000)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;  // re-checks the limit
    char buf[64];
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r <= 0) break;  // closed (or an error): released
    got.append(buf, static_cast<size_t>(r));
    const size_t nl = got.find('\n');
    if (nl == std::string::npos) {
      if (got.size() > 64) {
        result = Status::Aborted("released: not a gate message");
        break;
      }
      continue;
    }
    std::optional<MonoTime> d;
    if (got.compare(0, kGo.size(), kGo) == 0) d = DecodeDispatchDeadline(std::string_view(got).substr(kGo.size(), nl - kGo.size()));
    if (d) {
      *deadline = *d;
      result = Status::OK();
    } else {
      result = Status::Aborted("released: not a gate message");
    }
    break;
  }
  ::close(fd);
  return result;
}

DispatchGate TakeDispatchGate() {
  const char* value = std::getenv(kDispatchGateEnv);
  if (value == nullptr) return DispatchGate();
  std::string text = value;
  ::unsetenv(kDispatchGateEnv);
  const size_t colon = text.find(':');
  int fd = -1;
  long long limit_ms = -1;
  bool ok = colon != std::string::npos;
  if (ok) {
    auto [e1, ec1] = std::from_chars(text.data(), text.data() + colon, fd);
    auto [e2, ec2] = std::from_chars(text.data() + colon + 1, text.data() + text.size(), limit_ms);
    ok = ec1 == std::errc() && e1 == text.data() + colon && ec2 == std::errc() && e2 == text.data() + text.size() &&
         fd >= 0 && limit_ms >= 0;
  }
  if (!ok) {
    spdlog::error("{}={} is not a dispatch gate; not starting", kDispatchGateEnv, text);
    return DispatchGate(::open("/dev/null", O_RDONLY | O_CLOEXEC), std::chrono::milliseconds(0));
  }
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // never inherited by a step
  return DispatchGate(fd, std::chrono::milliseconds(limit_ms));
}

std::string DispatchGateValue(int fd, std::chrono::milliseconds limit) {
  return std::to_string(fd) + ":" + std::to_string(limit.count());
}

}  // namespace dagu
