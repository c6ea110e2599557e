// HaScenario: the GoogleTest fixture every spec 085 conformance test uses.
//
// Each test gets its own temporary DAGU_HOME and free loopback ports, starts
// the real `dagu` binary (DAGU_BINARY) as separate processes with short lock
// settings (T = 3s, R = 500ms, so I = min(7s, T/4) = 750ms), drives them with
// signals and HTTP, and reads the data directory, as an operator would.
//
// A test first names the spec clause it proves (Clause()), records what it
// does (Note()), and on failure TearDown() prints everything it saw: each
// instance's command line, exit status and output, the lock directory and
// owner record, the service registry, the scheduler's other files, the queue
// and every run record.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/dagu_process.h"
#include "support/ha_settings.h"
#include "support/run_records.h"

namespace dagu::conformance {

using namespace std::chrono_literals;
namespace dt = dagu::testing;
using Steady = std::chrono::steady_clock;
using SysTime = dt::SysTime;
using Ms = std::chrono::milliseconds;

// The lock settings every scenario runs with (spec: T, R; I = min(7s, T/4)).
inline constexpr Ms kT = dt::kHaT;
inline constexpr Ms kR = dt::kHaR;
inline constexpr Ms kI = dt::kHaI;
// What the spec's "plus startup" is allowed to add to a takeover bound.
inline constexpr Ms kStartup = dt::kHaStartup;
// The spec's bound on stopping: a stop that does not finish in 10 s is ended.
inline constexpr Ms kStopBound = 10000ms;

// A DAG file (current dialect) with one `* * * * *` schedule and one step.
std::string EveryMinuteDag(const std::string& command, const std::string& extra_root_keys = "");
// A DAG file without a schedule whose steps run `commands` one after another.
std::string SequentialDag(const std::vector<std::string>& commands, const std::string& extra_root_keys = "");

class HaScenario : public ::testing::Test {
 protected:
  void TearDown() override;

  // Names the spec clause(s) the test proves: printed and recorded as the
  // test's "spec_clause" property.
  void Clause(const std::string& text);
  // Records (and prints) a timestamped event of the scenario.
  void Note(const std::string& text);

  // The environment of an instance: DAGU_HOME, T, R, its scheduler.port and
  // a failover recovery window of 5m.
  std::map<std::string, std::string> BaseEnv(int health_port) const;
  // Starts `dagu scheduler` (plus extra args) on the home. Fails the test
  // (ADD_FAILURE) when the process cannot be started.
  dt::DaguProcess& StartScheduler(const std::string& name, const std::map<std::string, std::string>& extra_env = {},
                                  const std::vector<std::string>& extra_args = {});
  // Starts `dagu start-all` with its web server on a free port.
  dt::DaguProcess& StartAll(const std::string& name, const std::map<std::string, std::string>& extra_env = {});
  // Runs a short `dagu` command to completion (e.g. enqueue); its exit status
  // or nullopt when it did not finish within `timeout`.
  std::optional<int> RunCommand(const std::string& name, const std::vector<std::string>& args,
                                Ms timeout = 20000ms);

  // Polls /health of `p` until it reports `role` ("active" or "standby").
  // Returns the moment it was first seen, nullopt at the deadline.
  std::optional<Steady::time_point> WaitForRole(dt::DaguProcess& p, const std::string& role, Ms timeout);
  // Polls until `p` reports role standby and has started waiting for the
  // lock (/health state "standby": it answers from before its first attempt
  // at the lock, with state "starting").
  bool WaitUntilWaiting(dt::DaguProcess& p, Ms timeout);
  // Sends `sig` to `from` and waits until `to` reports role active; returns
  // how long that took, nullopt when it did not happen within T + 2R + 10 s.
  std::optional<Steady::duration> TakeoverAfter(dt::DaguProcess& from, int sig, dt::DaguProcess& to);
  // Starts "a" (with `a_env` added) and waits until it is active, then "b"
  // until it is standby and has started waiting (its /health state is
  // "standby", not "starting"). Failures are recorded (check HasFailure());
  // returns {a, b}.
  std::pair<dt::DaguProcess*, dt::DaguProcess*> StartActiveAndStandby(
      const std::map<std::string, std::string>& a_env = {});
  // Samples /health of `p` every 100 ms for `how_long`; fails (ADD_FAILURE,
  // false) at the first answer whose role is not `role` or once p exited.
  bool KeepsRole(dt::DaguProcess& p, const std::string& role, Ms how_long);
  // Polls until exactly one of `procs` reports role active; returns it.
  dt::DaguProcess* WaitForOneActive(const std::vector<dt::DaguProcess*>& procs, Ms timeout);

  // Slot run IDs and run records of this home.
  std::string SlotId(const std::string& dag, SysTime slot) const;
  std::vector<dt::RunRecord> Runs(const std::string& dag) const;
  // Polls until there is a run `run_id` of `dag` for which `pred` holds
  // (the newest such directory); nullopt at the deadline.
  std::optional<dt::RunRecord> WaitForRun(const std::string& dag, const std::string& run_id,
                                          const std::function<bool(const dt::RunRecord&)>& pred, Ms timeout);
  // As WaitForRun, until the run has a final status (not queued/running/not started).
  std::optional<dt::RunRecord> WaitForFinished(const std::string& dag, const std::string& run_id, Ms timeout);

  // Fails the test unless each of `slots` has exactly one run of `dag`, every
  // run of `dag` carries a slot ID of this home (sched-<h>-<slot>), and no run
  // ID has two run directories.
  void ExpectSlotsRanOnce(const std::string& dag, const std::vector<SysTime>& slots);

  // Wall clock helpers for minute-boundary scenarios.
  static SysTime Now() { return std::chrono::system_clock::now(); }
  // Sleeps until the wall clock reaches `t` (waiting for a wall-clock moment is
  // the scenario's precondition, not a stand-in for polling a condition).
  static void SleepUntil(SysTime t);
  // If fewer than `lead` remain in the current minute, waits until the next
  // minute has begun; returns the start of the minute we are then in.
  static SysTime EnsureMinuteLeft(Ms lead);
  // Waits until the wall clock is at least `earliest` into a minute with at
  // least `lead` of it left; returns the start of that minute.
  static SysTime EnsureMinuteWindow(Ms earliest, Ms lead);

  // Prints "[measure] <what>: <took> (<bound>)" and records the figure as the
  // test property <key>_ms.
  void Measure(const std::string& key, const std::string& what, Steady::duration took, const std::string& bound);

  // Everything this test saw (see the header comment).
  std::string Evidence();

  dt::DaguHome home_;
  std::vector<std::unique_ptr<dt::DaguProcess>> procs_;

 private:
  dt::DaguProcess& Launch(const std::string& name, const std::vector<std::string>& args,
                          const std::map<std::string, std::string>& env, int health_port, int web_port);
  std::vector<std::string> notes_;
  Steady::time_point started_ = Steady::now();
};

// Milliseconds as a decimal seconds string ("3.412s").
std::string Seconds(Steady::duration d);
// The whole contents of a file ("" when it cannot be read).
std::string ReadFile(const std::string& path);
// The modification time of `path` in nanoseconds, -1 when it cannot be read.
int64_t MtimeNs(const std::string& path);

}  // namespace dagu::conformance
