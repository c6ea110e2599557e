#include "scheduler/systemd_notify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

#include <spdlog/spdlog.h>

namespace dagu {

bool NotifySystemd(const std::string& state) {
  const char* path = std::getenv("NOTIFY_SOCKET");
  if (path == nullptr || (path[0] != '/' && path[0] != '@')) return false;
  struct sockaddr_un addr {};
  addr.sun_family = AF_UNIX;
  size_t len = std::strlen(path);
  if (len >= sizeof addr.sun_path) return false;
  std::memcpy(addr.sun_path, path, len);
  if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';  // abstract namespace
  int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  socklen_t addr_len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + len);
  ssize_t sent = ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL, reinterpret_cast<struct sockaddr*>(&addr),
                          addr_len);
  ::close(fd);
  return sent == static_cast<ssize_t>(state.size());
}

std::optional<std::chrono::microseconds> SystemdWatchdogTimeout() {
  const char* usec = std::getenv("WATCHDOG_USEC");
  if (usec == nullptr || *usec == '\0') return std::nullopt;
  char* end = nullptr;
  unsigned long long v = std::strtoull(usec, &end, 10);
  if (*end != '\0' || v == 0) return std::nullopt;
  if (const char* pid = std::getenv("WATCHDOG_PID"); pid != nullptr && *pid != '\0') {
    if (std::strtoll(pid, nullptr, 10) != static_cast<long long>(::getpid())) return std::nullopt;
  }
  return std::chrono::microseconds(v);
}

SystemdWatchdog::SystemdWatchdog(std::chrono::nanoseconds interval, Check check)
    : interval_(interval), check_(std::move(check)) {}

void SystemdWatchdog::Start() {
  worker_.Start([this] { Beat(); }, interval_);
}

void SystemdWatchdog::Beat() {
  std::string why = check_();
  if (why.empty()) {
    NotifySystemd(withheld_.empty() ? "WATCHDOG=1" : "WATCHDOG=1\nSTATUS=healthy again");
    withheld_.clear();
    return;
  }
  if (why != withheld_) {
    spdlog::warn("Withholding the systemd watchdog ping: {}", why);
    NotifySystemd("STATUS=unhealthy, watchdog pings withheld: " + why);
    withheld_ = why;
  }
}

}  // namespace dagu
