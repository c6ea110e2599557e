// Stalls (docs/reliability.md): the active is stopped with SIGSTOP for
// lengths around its lease length L = T - I and around T, then continued.
// Stopped for less than L - I (its lease cannot have ended): it carries on
// and nobody takes over. Stopped for more than L: its lease ended while it
// was stopped, so it exits 75 at once, never touching the successor's lock.
// Stopped past T: the standby took over meanwhile. Also SIGTERM while
// stopped: a stop request does not beat a lost lease (exit 75, nothing
// released).
#include <signal.h>

#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "chaos_support.h"

namespace dagu::chaos {
namespace {

constexpr Ms kT = 3000ms;
constexpr Ms kR = 500ms;
constexpr Ms kI = 750ms;
constexpr Ms kLease = kT - kI;

int OwnerPid(const std::string& data) {
  return OwnerRecord(data).value("pid", 0);
}

class Stalls : public ChaosTest {
 protected:
  struct Outcome {
    std::optional<int> exit;  // of the stopped active
    bool standby_active = false;
    int owner_pid = 0;
  };

  // A fresh pair on a fresh home; a stopped for `stop`, then continued
  // (after a SIGTERM when `term_while_stopped`).
  Outcome StopAndContinue(Ms stop, bool term_while_stopped) {
    Outcome o;
    dt::TempDir dir;
    Cluster c(dir.Sub("home"), dir.Sub("home"), dir.Sub("scratch"));
    auto& a = c.Start("a", nullptr, kT, kR);
    EXPECT_TRUE(Cluster::WaitForRole(a, "active", 10s)) << a.Describe();
    auto& b = c.Start("b", nullptr, kT, kR);
    EXPECT_TRUE(Cluster::WaitForRole(b, "standby", 10s)) << b.Describe();
    a.Signal(SIGSTOP);
    std::this_thread::sleep_for(stop);
    if (term_while_stopped) a.Signal(SIGTERM);
    a.Signal(SIGCONT);
    o.exit = a.Wait(term_while_stopped ? 10s : 3s);
    if (!o.exit) {
      // Still running: it must still be the one active, b still standby,
      // for a while (two renewals and a standby's full T).
      std::this_thread::sleep_for(kT + 500ms);
      o.exit = a.exit_status();
    }
    o.standby_active = Cluster::WaitForRole(b, "active", o.exit ? kT + 2s : 0ms).has_value();
    o.owner_pid = OwnerPid(c.data_backing());
    if (::testing::Test::HasFailure()) std::cerr << c.Evidence();
    if (!o.exit) {
      a.Signal(SIGTERM);
      EXPECT_EQ(a.Wait(10s), 0) << a.Describe();
      o.owner_pid = OwnerPid(c.data_backing());
    } else {
      // The stopped one never touched the successor's lock.
      EXPECT_EQ(OwnerPid(c.data_backing()), b.pid()) << "the lock is not the successor's";
    }
    b.Signal(SIGTERM);
    (void)b.Wait(10s);
    return o;
  }
};

TEST_F(Stalls, StoppedActivesKeepTheirPromisesAroundLAndT) {
  CHAOS_REQUIRE(false);
  ChaosRandom rnd;
  struct Case {
    Ms stop;
    const char* where;
  };
  // Clearly inside the lease whatever the renewal phase, just past L, just
  // before T, just after T, well past T, and one at random in (L, 2T).
  std::vector<Case> cases{{kLease - kI - 900ms, "well inside L - I"},
                          {kLease + 200ms, "L + 0.2 s"},
                          {kT - 200ms, "T - 0.2 s"},
                          {kT + 300ms, "T + 0.3 s"},
                          {2 * kT, "2T"},
                          {rnd.UniformMs(kLease + 100ms, 2 * kT), "random in (L, 2T)"}};
  for (const auto& k : cases) {
    SCOPED_TRACE(std::string(k.where) + ": stopped " + std::to_string(k.stop.count()) + " ms");
    Outcome o = StopAndContinue(k.stop, false);
    if (k.stop < kLease - kI) {
      EXPECT_FALSE(o.exit) << "a stall inside the lease ended the instance";
      EXPECT_FALSE(o.standby_active);
    } else {
      // Its lease ended while it was stopped: it must not carry on.
      ASSERT_TRUE(o.exit) << "carried on after its lease ended";
      EXPECT_EQ(*o.exit, 75);
      EXPECT_TRUE(o.standby_active);
    }
  }
}

TEST_F(Stalls, SigtermWhileStoppedPastTheLeaseExits75AndReleasesNothing) {
  CHAOS_REQUIRE(false);
  Outcome o = StopAndContinue(kT + 500ms, true);
  ASSERT_TRUE(o.exit);
  EXPECT_EQ(*o.exit, 75);
  EXPECT_TRUE(o.standby_active);
}

TEST_F(Stalls, SigtermWhileStoppedInsideTheLeaseIsAnOrdinaryStop) {
  CHAOS_REQUIRE(false);
  Outcome o = StopAndContinue(300ms, true);
  ASSERT_TRUE(o.exit);
  EXPECT_EQ(*o.exit, 0);
  EXPECT_TRUE(o.standby_active) << "the lock was not released to the standby";
}

}  // namespace
}  // namespace dagu::chaos
