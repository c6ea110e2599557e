// The sd_notify protocol of `dagu scheduler` as systemd sees it with
// Type=notify and WatchdogSec= (issue 17): the test plays the manager's side
// of $NOTIFY_SOCKET (a datagram socket) and sets $WATCHDOG_USEC. Expected:
// READY=1 with STATUS= once the first lock attempt is done, WATCHDOG=1 every
// third of WATCHDOG_USEC while the role machine is healthy, no pings once it
// is not (a wedged tick loop: the tick ledger's read blocks, through the test hook DAGU_TEST_HOOK_WEDGE_TICK_LEDGER), and
// STOPPING=1 when the instance stops or loses its role.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <thread>

#include "ha_cluster.h"

namespace dagu::testing {
namespace {

// The manager's end of NOTIFY_SOCKET: every datagram received, with the time.
class NotifyManager {
 public:
  explicit NotifyManager(std::string path) : path_(std::move(path)) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr {};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path_.c_str(), sizeof addr.sun_path - 1);
    bound_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<struct sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~NotifyManager() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool bound() const { return bound_; }
  const std::string& path() const { return path_; }

  struct Message {
    Steady::time_point at;
    std::string text;
  };

  // Reads whatever has arrived.
  void Drain() {
    char buf[4096];
    while (true) {
      ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
      if (n <= 0) return;
      messages_.push_back({Steady::now(), std::string(buf, static_cast<size_t>(n))});
    }
  }
  // Drains and returns the index of the first message from `from` containing `needle`, or -1.
  int Find(const std::string& needle, size_t from = 0) {
    Drain();
    for (size_t i = from; i < messages_.size(); ++i) {
      if (messages_[i].text.find(needle) != std::string::npos) return static_cast<int>(i);
    }
    return -1;
  }
  int Count(const std::string& needle, size_t from = 0) {
    Drain();
    int n = 0;
    for (size_t i = from; i < messages_.size(); ++i) n += messages_[i].text.find(needle) != std::string::npos;
    return n;
  }
  const std::vector<Message>& messages() const { return messages_; }
  std::string Dump() const {
    std::string out;
    for (const Message& m : messages_) out += "  [" + m.text + "]\n";
    return out;
  }

 private:
  std::string path_;
  int fd_ = -1;
  bool bound_ = false;
  std::vector<Message> messages_;
};

class OpsSystemdTest : public HaCluster {
 protected:
  // WatchdogSec=1.5s: a ping every 500 ms.
  std::map<std::string, std::string> NotifyEnv(const NotifyManager& m) {
    return {{"NOTIFY_SOCKET", m.path()}, {"WATCHDOG_USEC", "1500000"}};
  }
};

TEST_F(OpsSystemdTest, ReadyStatusWatchdogPingsAndStopping) {
  NotifyManager manager(home_.Scratch("notify.sock"));
  ASSERT_TRUE(manager.bound());
  DaguProcess& a = Start("a", {"scheduler"}, NotifyEnv(manager));
  ASSERT_TRUE(PollUntil([&] { return manager.Find("READY=1") >= 0; }, 10s)) << manager.Dump();
  int ready = manager.Find("READY=1");
  EXPECT_NE(manager.messages()[ready].text.find("STATUS=active"), std::string::npos) << manager.Dump();
  EXPECT_EQ(manager.Find("WATCHDOG=1"), manager.Find("WATCHDOG=1", ready)) << "a ping before READY\n" << manager.Dump();

  // Pings keep coming while healthy: at least 4 in 3 s (one every 500 ms).
  size_t mark = manager.messages().size();
  std::this_thread::sleep_for(3s);
  EXPECT_GE(manager.Count("WATCHDOG=1", mark), 4) << manager.Dump();
  EXPECT_LE(manager.Count("WATCHDOG=1", mark), 8) << manager.Dump();

  a.Signal(SIGTERM);
  std::optional<int> status = a.Wait(10s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 0);
  int stopping = manager.Find("STOPPING=1");
  ASSERT_GE(stopping, 0) << manager.Dump();
  EXPECT_EQ(manager.Find("WATCHDOG=1", static_cast<size_t>(stopping) + 1), -1)
      << "pinged after STOPPING\n" << manager.Dump();
}

TEST_F(OpsSystemdTest, NoPingsWhileTheTickLoopIsWedgedThenStopping) {
  const std::string ledger = home_.data_dir() + "/scheduler/tick_ledger.json";
  std::filesystem::create_directories(home_.data_dir() + "/scheduler");
  std::ofstream(ledger + ".wedge") << "wedged while this file exists\n";  // the test hook's file
  NotifyManager manager(home_.Scratch("notify.sock"));
  ASSERT_TRUE(manager.bound());
  auto env = NotifyEnv(manager);
  env["DAGU_TEST_HOOK_WEDGE_TICK_LEDGER"] = ledger + ".wedge";
  DaguProcess& a = Start("a", {"scheduler"}, env);
  ASSERT_TRUE(PollUntil([&] { return manager.Find("READY=1") >= 0; }, 10s)) << manager.Dump();

  // Unhealthy after max(T, 10 s) = 10 s: the pings stop and STATUS says why.
  ASSERT_TRUE(PollUntil([&] { return manager.Find("watchdog pings withheld") >= 0; }, 20s, 100ms))
      << manager.Dump();
  int withheld = manager.Find("watchdog pings withheld");
  EXPECT_NE(manager.messages()[withheld].text.find("tick loop"), std::string::npos) << manager.Dump();
  // Until the role is given up (2 x 10 s after start), no ping.
  ASSERT_TRUE(PollUntil([&] { return manager.Find("STOPPING=1") >= 0; }, 20s, 100ms)) << manager.Dump();
  int stopping = manager.Find("STOPPING=1");
  EXPECT_GT(stopping, withheld);
  double silent = std::chrono::duration<double>(manager.messages()[stopping].at - manager.messages()[withheld].at).count();
  EXPECT_GE(silent, 2.0) << "the silent stretch is too short to prove anything\n" << manager.Dump();
  EXPECT_EQ(manager.Find("WATCHDOG=1", static_cast<size_t>(withheld)), -1) << manager.Dump();
  EXPECT_NE(manager.messages()[stopping].text.find("STATUS=lost"), std::string::npos) << manager.Dump();

  ::unlink((ledger + ".wedge").c_str());  // let the stuck read end
  std::optional<int> status = a.Wait(15s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 75);
  EXPECT_EQ(manager.Find("WATCHDOG=1", static_cast<size_t>(withheld)), -1) << manager.Dump();
}

}  // namespace
}  // namespace dagu::testing
