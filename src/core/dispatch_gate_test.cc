#include "core/dispatch_gate.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <thread>
#include <vector>

namespace dagu {
namespace {

using namespace std::chrono_literals;

bool IsOpen(int fd) { return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

struct Pair {
  Pair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0); }
  ~Pair() {
    if (fds[0] >= 0) ::close(fds[0]);
  }
  void Send(const std::string& text) const { ASSERT_EQ(::write(fds[0], text.data(), text.size()), ssize_t(text.size())); }
  void CloseScheduler() {
    ::close(fds[0]);
    fds[0] = -1;
  }
  int fds[2] = {-1, -1};  // [0] the scheduler's end, [1] the run's
};

TEST(DispatchGateTest, OpensWithTheDeadlineTheSchedulerSends) {
  Pair p;
  const MonoTime deadline = MonoTime(123456789s);
  p.Send(GateOpenMessage(deadline));
  DispatchGate gate(p.fds[1], 5s);
  MonoTime got;
  ASSERT_TRUE(gate.Await(&got).ok());
  EXPECT_EQ(got, deadline);
  EXPECT_FALSE(IsOpen(p.fds[1])) << "the run's end is closed once used";
}

TEST(DispatchGateTest, WaitsForAMessageSentInPieces) {
  Pair p;
  std::string message = GateOpenMessage(MonoTime(42s));
  std::thread sender([&] {
    std::this_thread::sleep_for(30ms);
    p.Send(message.substr(0, 4));
    std::this_thread::sleep_for(30ms);
    p.Send(message.substr(4));
  });
  DispatchGate gate(p.fds[1], 5s);
  MonoTime got;
  Status s = gate.Await(&got);
  sender.join();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(got, MonoTime(42s));
}

TEST(DispatchGateTest, ASchedulerThatClosesOrGarblesOrSaysNothingReleasesTheRun) {
  {
    Pair p;
    p.CloseScheduler();  // a guard said no, the role was lost, or it died
    DispatchGate gate(p.fds[1], 5s);
    MonoTime got;
    Status s = gate.Await(&got);
    EXPECT_EQ(s.code(), Status::Code::kAborted) << s.ToString();
    EXPECT_NE(s.message().find("closed"), std::string::npos) << s.ToString();
  }
  for (const std::string& garbage : std::vector<std::string>{"go\n", "go -5\n", "stop 12\n", "go 12x\n", std::string(100, 'g')}) {
    Pair p;
    p.Send(garbage);
    DispatchGate gate(p.fds[1], 5s);
    MonoTime got;
    Status s = gate.Await(&got);
    EXPECT_EQ(s.code(), Status::Code::kAborted) << garbage << ": " << s.ToString();
  }
  {
    Pair p;  // a scheduler that hangs: the limit lets the run go
    DispatchGate gate(p.fds[1], 50ms);
    MonoTime got;
    Status s = gate.Await(&got);
    EXPECT_EQ(s.code(), Status::Code::kAborted) << s.ToString();
    EXPECT_NE(s.message().find("in time"), std::string::npos) << s.ToString();
  }
}

TEST(DispatchGateTest, TakenFromTheEnvironmentWhichItLeavesClean) {
  ::unsetenv(kDispatchGateEnv);
  EXPECT_TRUE(TakeDispatchGate().empty());

  Pair p;
  ::setenv(kDispatchGateEnv, DispatchGateValue(p.fds[1], 5000ms).c_str(), 1);
  DispatchGate gate = TakeDispatchGate();
  EXPECT_EQ(::getenv(kDispatchGateEnv), nullptr);
  ASSERT_FALSE(gate.empty());
  EXPECT_TRUE(::fcntl(p.fds[1], F_GETFD) & FD_CLOEXEC) << "a step must not inherit the gate";
  p.Send(GateOpenMessage(MonoTime(7s)));
  MonoTime got;
  ASSERT_TRUE(gate.Await(&got).ok());
  EXPECT_EQ(got, MonoTime(7s));

  ::setenv(kDispatchGateEnv, "four", 1);  // unreadable: the safe side is to not run
  DispatchGate bad = TakeDispatchGate();
  ASSERT_FALSE(bad.empty());
  EXPECT_EQ(bad.Await(&got).code(), Status::Code::kAborted);
}

}  // namespace
}  // namespace dagu
