#include "core/lease_beacon.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>

#include "core/dispatch_deadline.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<LeaseBeacon> NewBeacon() {
  StatusOr<std::unique_ptr<LeaseBeacon>> b = LeaseBeacon::Create();
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? std::move(b).value() : nullptr;
}

bool IsOpen(int fd) { return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

const MonoTime kT0 = MonoTime(std::chrono::hours(100));

TEST(LeaseBeaconTest, ATermsDeadlineIsSeenUntilItEndsOrANewTermBegins) {
  auto beacon = NewBeacon();
  ASSERT_NE(beacon, nullptr);
  EXPECT_GE(beacon->fd(), 10);
  EXPECT_TRUE(::fcntl(beacon->fd(), F_GETFD) & FD_CLOEXEC);
  EXPECT_EQ(beacon->DeadlineOf(beacon->term()), std::nullopt) << "no term yet";

  const uint64_t t1 = beacon->BeginTerm(kT0 + 5s);
  EXPECT_EQ(beacon->term(), t1);
  EXPECT_EQ(beacon->DeadlineOf(t1), std::optional<MonoTime>(kT0 + 5s));
  beacon->Extend(kT0 + 8s);
  EXPECT_EQ(beacon->DeadlineOf(t1), std::optional<MonoTime>(kT0 + 8s));
  beacon->Extend(kT0 + 6s);  // never backwards
  EXPECT_EQ(beacon->DeadlineOf(t1), std::optional<MonoTime>(kT0 + 8s));

  beacon->End();
  EXPECT_EQ(beacon->DeadlineOf(t1), std::nullopt);
  beacon->Extend(kT0 + 20s);  // a renewal racing the end does not revive it
  EXPECT_EQ(beacon->DeadlineOf(t1), std::nullopt);

  const uint64_t t2 = beacon->BeginTerm(kT0 + 30s);
  EXPECT_NE(t2, t1);
  EXPECT_EQ(beacon->DeadlineOf(t1), std::nullopt);
  EXPECT_EQ(beacon->DeadlineOf(t2), std::optional<MonoTime>(kT0 + 30s));
}

TEST(LeaseBeaconTest, AnAttachedBeaconSeesTheWritersChangesAndClosesItsDescriptor) {
  auto writer = NewBeacon();
  ASSERT_NE(writer, nullptr);
  const uint64_t term = writer->BeginTerm(kT0 + 5s);
  int fd = ::dup(writer->fd());
  ASSERT_GE(fd, 0);
  StatusOr<std::unique_ptr<LeaseBeacon>> reader = LeaseBeacon::Attach(fd);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_FALSE(IsOpen(fd)) << "the reader kept the descriptor (a step would inherit it)";
  EXPECT_EQ(reader.value()->fd(), -1);
  EXPECT_EQ(reader.value()->DeadlineOf(term), std::optional<MonoTime>(kT0 + 5s));
  writer->Extend(kT0 + 9s);
  EXPECT_EQ(reader.value()->DeadlineOf(term), std::optional<MonoTime>(kT0 + 9s));
  writer->End();
  EXPECT_EQ(reader.value()->DeadlineOf(term), std::nullopt);
}

TEST(LeaseBeaconTest, AttachingSomethingElseFailsAndClosesIt) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  StatusOr<std::unique_ptr<LeaseBeacon>> r = LeaseBeacon::Attach(fds[0]);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("not a lease beacon"), std::string::npos) << r.status().ToString();
  EXPECT_FALSE(IsOpen(fds[0]));
  ::close(fds[1]);
  EXPECT_FALSE(LeaseBeacon::Attach(1000).ok());  // not open at all
}

TEST(DispatchFenceTest, TheDeadlineOrTheSameTermsRenewedDeadline) {
  EXPECT_TRUE(DispatchFence().Check(kT0, "run r").ok());
  EXPECT_TRUE(DispatchFence(kT0 + 1s).Check(kT0, "run r").ok());
  Status late = DispatchFence(kT0).Check(kT0, "run r");
  EXPECT_TRUE(late.code() == Status::Code::kAborted);
  EXPECT_NE(late.ToString().find("run r: refused: the scheduler that dispatched it lost its lease"), std::string::npos)
      << late.ToString();

  std::shared_ptr<LeaseBeacon> beacon = NewBeacon();
  ASSERT_NE(beacon, nullptr);
  const uint64_t term = beacon->BeginTerm(kT0 + 1s);
  DispatchFence fence(kT0 - 1s, beacon, term);
  EXPECT_TRUE(fence.Check(kT0, "run r").ok()) << "the lease was renewed after the spawn";
  EXPECT_TRUE(fence.Check(kT0 + 1s, "run r").code() == Status::Code::kAborted) << "past the renewed deadline too";
  beacon->BeginTerm(kT0 + 60s);
  EXPECT_TRUE(fence.Check(kT0, "run r").code() == Status::Code::kAborted) << "a new term's lease is not the run's";
}

TEST(DispatchFenceTest, TakenFromTheEnvironmentWhichItLeavesClean) {
  auto beacon = NewBeacon();
  ASSERT_NE(beacon, nullptr);
  beacon->BeginTerm(kT0 + 10s);
  int fd = ::dup(beacon->fd());
  ASSERT_GE(fd, 0);
  std::map<std::string, std::string> env = DispatchEnvironment(kT0, beacon.get());
  ASSERT_EQ(env.count(kDispatchLeaseEnv), 1u);
  EXPECT_EQ(env[kDispatchLeaseEnv], std::to_string(kDispatchLeaseFd) + ":" + std::to_string(beacon->term()));
  ::setenv(kDispatchDeadlineEnv, env[kDispatchDeadlineEnv].c_str(), 1);
  ::setenv(kDispatchLeaseEnv, (std::to_string(fd) + ":" + std::to_string(beacon->term())).c_str(), 1);
  DispatchFence fence = TakeDispatchFence();
  EXPECT_EQ(::getenv(kDispatchDeadlineEnv), nullptr);
  EXPECT_EQ(::getenv(kDispatchLeaseEnv), nullptr);
  EXPECT_FALSE(IsOpen(fd));
  EXPECT_FALSE(fence.empty());
  EXPECT_TRUE(fence.Check(kT0 + 5s, "run r").ok());
  EXPECT_TRUE(fence.Check(kT0 + 10s, "run r").code() == Status::Code::kAborted);

  // Garbage: the deadline counts as passed, the beacon is ignored.
  ::setenv(kDispatchDeadlineEnv, "soon", 1);
  ::setenv(kDispatchLeaseEnv, "three:1", 1);
  DispatchFence bad = TakeDispatchFence();
  EXPECT_TRUE(bad.Check(kT0, "run r").code() == Status::Code::kAborted);
  EXPECT_TRUE(TakeDispatchFence().empty()) << "nothing set: no fence";
}

}  // namespace
}  // namespace dagu
