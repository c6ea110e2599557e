#include "scheduler/systemd_notify.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>
#include <cstring>

#include "support/temp_dir.h"

namespace dagu {
namespace {

TEST(SystemdNotifyTest, SendsTheStateToNotifySocket) {
  testing::TempDir dir;
  std::string path = dir.Sub("notify.sock");
  int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  struct sockaddr_un addr {};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<struct sockaddr*>(&addr), sizeof addr), 0);
  ::setenv("NOTIFY_SOCKET", path.c_str(), 1);
  EXPECT_TRUE(NotifySystemd("READY=1\nSTATUS=active"));
  char buf[256] = {};
  ssize_t n = ::recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "READY=1\nSTATUS=active");
  ::unsetenv("NOTIFY_SOCKET");
  EXPECT_FALSE(NotifySystemd("READY=1"));
  ::close(fd);
}

// A bound datagram socket standing for systemd, and NOTIFY_SOCKET set to it.
class FakeManager {
 public:
  FakeManager() : path_(dir_.Sub("notify.sock")) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un addr {};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path_.c_str(), sizeof addr.sun_path - 1);
    bound_ = ::bind(fd_, reinterpret_cast<struct sockaddr*>(&addr), sizeof addr) == 0;
    ::setenv("NOTIFY_SOCKET", path_.c_str(), 1);
  }
  ~FakeManager() {
    ::unsetenv("NOTIFY_SOCKET");
    ::close(fd_);
  }
  bool bound() const { return bound_; }
  std::vector<std::string> Received() {
    std::vector<std::string> out;
    char buf[512];
    ssize_t n;
    while ((n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT)) > 0) out.emplace_back(buf, static_cast<size_t>(n));
    return out;
  }

 private:
  testing::TempDir dir_;
  std::string path_;
  int fd_ = -1;
  bool bound_ = false;
};

TEST(SystemdWatchdogTest, TimeoutFromTheEnvironment) {
  ::unsetenv("WATCHDOG_PID");
  ::unsetenv("WATCHDOG_USEC");
  EXPECT_FALSE(SystemdWatchdogTimeout());
  ::setenv("WATCHDOG_USEC", "30000000", 1);
  EXPECT_EQ(SystemdWatchdogTimeout(), std::chrono::seconds(30));
  ::setenv("WATCHDOG_PID", std::to_string(::getpid()).c_str(), 1);
  EXPECT_EQ(SystemdWatchdogTimeout(), std::chrono::seconds(30));
  ::setenv("WATCHDOG_PID", std::to_string(::getpid() + 1).c_str(), 1);
  EXPECT_FALSE(SystemdWatchdogTimeout()) << "meant for another process";
  ::unsetenv("WATCHDOG_PID");
  for (const char* bad : {"0", "abc", "12x", ""}) {
    ::setenv("WATCHDOG_USEC", bad, 1);
    EXPECT_FALSE(SystemdWatchdogTimeout()) << bad;
  }
  ::unsetenv("WATCHDOG_USEC");
}

TEST(SystemdWatchdogTest, PingsOnlyWhileTheCheckPasses) {
  FakeManager manager;
  ASSERT_TRUE(manager.bound());
  std::atomic<bool> healthy{true};
  SystemdWatchdog dog(std::chrono::milliseconds(20), [&] { return healthy ? std::string() : std::string("wedged"); });
  dog.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  healthy = false;
  std::this_thread::sleep_for(std::chrono::milliseconds(60));  // let a beat in flight finish
  std::vector<std::string> first = manager.Received();
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  std::vector<std::string> withheld = manager.Received();
  healthy = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  dog.Stop();
  std::vector<std::string> again = manager.Received();
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_TRUE(manager.Received().empty()) << "a ping after Stop()";

  int pings = 0;
  for (const std::string& m : first) pings += m == "WATCHDOG=1";
  EXPECT_GE(pings, 2);
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first.back(), "STATUS=unhealthy, watchdog pings withheld: wedged");
  EXPECT_TRUE(withheld.empty()) << withheld.front();  // the reason is told once, and no ping
  ASSERT_FALSE(again.empty());
  EXPECT_EQ(again.front(), "WATCHDOG=1\nSTATUS=healthy again");
}

}  // namespace
}  // namespace dagu
