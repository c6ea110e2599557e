// Spec 085, "Roles": an instance that stops being active because the lock is
// no longer its own or cannot be renewed exits with a non-zero status (75),
// and `dagu start-all` exits too rather than leaving its web UI up. The loss
// is caused for real, on the lock directory itself.
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "ha_scenario.h"

namespace dagu::conformance {
namespace {

namespace fs = std::filesystem;

enum class Command { kScheduler, kStartAll };
enum class Cause {
  kForeignOwner,        // another instance took the lock over (aside + fresh dir + its owner record)
  kOwnerRemoved,        // the owner record vanished
  kLockReplacedByFile,  // the lock directory became a regular file: renewal impossible
  kLockImmutable,       // the lock directory cannot be written: renewal impossible, owner still ours
};

// The owner record of some other instance, in the same format as `ours`: the
// identity fields (instance ID, host, token) get foreign values, the pid is 1,
// the renewal counter restarts; everything else is kept.
std::string ForeignOwnerRecord(const std::string& ours) {
  auto j = nlohmann::json::parse(ours, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return "conformance-foreign-host-1-ffffff\n";
  for (auto& [key, value] : j.items()) {
    bool identity = key.find("id") != std::string::npos || key.find("host") != std::string::npos ||
                    key.find("token") != std::string::npos;
    if (identity && value.is_string()) value = "conformance-foreign-" + value.get<std::string>();
    if (key == "pid" && value.is_number()) value = 1;
    if (key == "counter" && value.is_number()) value = 0;
  }
  return j.dump() + "\n";
}

// Sets or clears the immutable attribute of a directory (root cannot write
// into an immutable directory). False with `err` set when unsupported.
bool SetImmutable(const std::string& path, bool on, std::string* err) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) {
    *err = "open " + path + ": " + std::strerror(errno);
    return false;
  }
  int flags = 0;
  bool ok = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
  if (ok) {
    flags = on ? (flags | FS_IMMUTABLE_FL) : (flags & ~FS_IMMUTABLE_FL);
    ok = ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
  }
  if (!ok) *err = "chattr " + std::string(on ? "+i " : "-i ") + path + ": " + std::strerror(errno);
  ::close(fd);
  return ok;
}

// A scenario that may make the lock directory immutable; never leaves it so.
class LockFaultScenario : public HaScenario {
 protected:
  void TearDown() override {
    std::string ignored;
    if (immutable_) SetImmutable(home_.lock_dir(), false, &ignored);
    HaScenario::TearDown();
  }
  bool MakeLockImmutable(bool on, std::string* err) {
    bool ok = SetImmutable(home_.lock_dir(), on, err);
    if (ok) immutable_ = on;
    return ok;
  }
  bool immutable_ = false;
};

using LostLockParam = std::tuple<Command, Cause>;

class Spec085LostLock : public LockFaultScenario, public ::testing::WithParamInterface<LostLockParam> {};

TEST_P(Spec085LostLock, EndsTheProcessWithStatus75) {
  auto [command, cause] = GetParam();
  Clause(
      "Roles: the active instance stops being active once it has gone T - I without a renewal or finds the lock "
      "is no longer its own; an instance that stops being active this way exits with a non-zero status "
      "(docs/decisions.md §4: 75), and dagu start-all exits too rather than leaving its web UI running.");
  auto& p = command == Command::kScheduler ? StartScheduler("a") : StartAll("a");
  ASSERT_TRUE(WaitForRole(p, "active", 15s)) << "the instance never became active";
  if (command == Command::kStartAll) {
    ASSERT_TRUE(dt::PollUntil([&] { return p.Web("/").status != 0; }, 10s))
        << "start-all's web server never answered on port " << p.web_port;
  }
  std::string ours = ReadFile(home_.owner_file());
  ASSERT_FALSE(ours.empty()) << "no owner record at " << home_.owner_file();

  std::string foreign;
  std::string aside = home_.lock_dir() + ".taken-aside-by-conformance";
  auto caused = Steady::now();
  switch (cause) {
    case Cause::kForeignOwner:
      // What a standby does when it takes over: rename aside, fresh dir, its owner record.
      foreign = ForeignOwnerRecord(ours);
      fs::rename(home_.lock_dir(), aside);
      fs::create_directory(home_.lock_dir());
      std::ofstream(home_.owner_file(), std::ios::binary) << foreign;
      Note("lock taken over by a foreign owner: " + foreign);
      break;
    case Cause::kOwnerRemoved:
      fs::remove(home_.owner_file());
      Note("owner record removed");
      break;
    case Cause::kLockReplacedByFile:
      fs::rename(home_.lock_dir(), aside);
      std::ofstream(home_.lock_dir()) << "not a directory\n";
      Note("lock directory replaced by a regular file");
      break;
    case Cause::kLockImmutable: {
      std::string err;
      if (!MakeLockImmutable(true, &err)) GTEST_SKIP() << "filesystem cannot do this: " << err;
      Note("lock directory made immutable: no renewal can succeed, the owner record is still ours");
      break;
    }
  }

  auto st = p.Wait(kT + kStopBound);
  ASSERT_TRUE(st.has_value()) << "the instance kept running " << Seconds(kT + kStopBound) << " after losing the lock";
  auto took = Steady::now() - caused;
  Measure("lost_lock_exit", "lost lock -> exit " + std::to_string(*st), took, "bound T + 10 s");
  EXPECT_EQ(*st, 75) << "losing the lock must end the process with 75 (EX_TEMPFAIL)";
  if (cause == Cause::kLockImmutable) {
    // The owner record is still ours: it may only give up once T - I has
    // passed without a renewal (the last one was at most I before the cause).
    EXPECT_GE(took, kT - kI - kI) << "gave up before T - I had passed without a renewal";
  }
  if (command == Command::kStartAll) {
    EXPECT_EQ(p.Web("/").status, 0) << "start-all's web port still answers after the process exited";
  }
  if (cause == Cause::kForeignOwner) {
    EXPECT_EQ(ReadFile(home_.owner_file()), foreign)
        << "the instance that lost the lock changed or removed the new owner's lock on its way out";
  }
}

class Spec085RenewalErrors : public LockFaultScenario {};

TEST_F(Spec085RenewalErrors, ActiveKeepsRunningThroughAFailedRenewal) {
  Clause(
      "Roles: the active instance keeps running through renewal errors (here: one failed renewal), and stops "
      "being active only once it has gone T - I without a renewal; a standby keeps waiting for as long as the "
      "active instance renews the lock.");
  auto [pa, pb] = StartActiveAndStandby();
  ASSERT_FALSE(HasFailure());
  auto& a = *pa;
  auto& b = *pb;
  // Fail exactly one renewal attempt: the fault starts right after a renewal
  // has completed and ends between the next attempt (I later) and the one
  // after (2I later), which must then succeed well before the deadline
  // (T - I = 3I after the last success). A renewal changes the lock
  // directory's mtime several times within milliseconds (temp file, rename,
  // touch); it is complete once the mtime has been quiet for 50 ms.
  int64_t last = MtimeNs(home_.lock_dir());
  ASSERT_TRUE(dt::PollUntil([&] { return MtimeNs(home_.lock_dir()) != last; }, 2 * kI, 1ms)) << "no renewal seen";
  auto renewed = Steady::now();
  auto quiet_since = renewed;
  last = MtimeNs(home_.lock_dir());
  ASSERT_TRUE(dt::PollUntil(
      [&] {
        int64_t now = MtimeNs(home_.lock_dir());
        if (now != last) {
          last = now;
          quiet_since = Steady::now();
        }
        return Steady::now() - quiet_since >= 50ms;
      },
      kI / 2, 1ms))
      << "the renewal never completed";
  std::string before = ReadFile(home_.owner_file());
  std::string err;
  if (!MakeLockImmutable(true, &err)) GTEST_SKIP() << "filesystem cannot do this: " << err;
  Note("lock directory immutable right after a renewal: the next renewal fails");
  std::this_thread::sleep_until(renewed + kI + kI / 2);  // the length of the storage fault
  ASSERT_TRUE(MakeLockImmutable(false, &err)) << err;
  Note("lock directory writable again");
  EXPECT_EQ(ReadFile(home_.owner_file()), before) << "no renewal attempt failed during the fault";
  auto until = Steady::now() + 2 * kT;
  while (Steady::now() < until) {
    ASSERT_TRUE(a.running()) << "the active instance exited on a renewal error shorter than T - I";
    ASSERT_EQ(a.Health().role, "active") << "the active instance gave up its role on a short renewal error";
    ASSERT_EQ(b.Health().role, "standby") << "the standby took over a lock whose holder was only briefly failing";
    std::this_thread::sleep_for(100ms);  // the cadence of the watch
  }
  EXPECT_NE(ReadFile(home_.owner_file()), before) << "renewals did not resume after the fault";
}

std::string ParamName(const ::testing::TestParamInfo<LostLockParam>& info) {
  auto [command, cause] = info.param;
  std::string name = command == Command::kScheduler ? "Scheduler_" : "StartAll_";
  switch (cause) {
    case Cause::kForeignOwner: return name + "ForeignOwner";
    case Cause::kOwnerRemoved: return name + "OwnerRemoved";
    case Cause::kLockReplacedByFile: return name + "LockReplacedByFile";
    case Cause::kLockImmutable: return name + "LockImmutable";
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cause, Spec085LostLock,
                         ::testing::Combine(::testing::Values(Command::kScheduler, Command::kStartAll),
                                            ::testing::Values(Cause::kForeignOwner, Cause::kOwnerRemoved,
                                                              Cause::kLockReplacedByFile, Cause::kLockImmutable)),
                         ParamName);

}  // namespace
}  // namespace dagu::conformance
