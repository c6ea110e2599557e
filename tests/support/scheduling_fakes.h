// In-memory fakes of the scheduling parts' narrow interfaces (Lease,
// RunCatalog, RunDispatcher, TickListener), shared by the ticker's and the
// replayer's unit tests. Header-only; each fake records what it was asked.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "launcher/run_dispatcher.h"
#include "role/lease.h"
#include "ticker/run_catalog.h"
#include "ticker/tick_listener.h"

namespace dagu::testing {

class FakeLease final : public Lease {
 public:
  bool MayDispatch() const override {
    ++checks;
    return may.load();
  }
  MonoTime Deadline() const override { return MonoTime(std::chrono::nanoseconds(deadline_ns.load())); }
  bool VerifyHeld() const override {
    ++verifications;
    if (!held.load()) may = false;  // as the real lease: finding the lock not ours ends the role
    return may.load();
  }
  mutable std::atomic<bool> may{true};
  std::atomic<bool> held{true};  // what a look at the lock would find
  std::atomic<int64_t> deadline_ns{std::chrono::nanoseconds::max().count()};
  mutable std::atomic<int> checks{0};
  mutable std::atomic<int> verifications{0};
};

// Per DAG name: which run IDs exist, the latest run, live and queued state,
// and errors to return.
class FakeRunCatalog final : public RunCatalog {
 public:
  struct DagState {
    std::set<std::string> runs;
    std::optional<RunSummary> latest;
    int alive = 0;
    bool queued = false;
  };

  StatusOr<bool> AnyRunExists(const DagHeader& dag, const std::vector<std::string>& run_ids) override {
    std::lock_guard<std::mutex> l(mu);
    exists_checks.push_back(run_ids);
    if (!exists_error.ok()) return exists_error;
    bool exists = false;
    for (const std::string& id : run_ids) exists = exists || dags[dag.name].runs.count(id) > 0;
    return exists;
  }
  Status LatestRun(const DagHeader& dag, RunSummary* out) override {
    std::lock_guard<std::mutex> l(mu);
    if (!latest_error.ok()) return latest_error;
    const auto& st = dags[dag.name];
    if (!st.latest) return Status::NotFound("no runs of " + dag.name);
    *out = *st.latest;
    return Status::OK();
  }
  StatusOr<int> CountAlive(const DagHeader& dag) override {
    if (on_read) on_read();
    std::lock_guard<std::mutex> l(mu);
    if (!alive_error.ok()) return alive_error;
    return dags[dag.name].alive;
  }
  StatusOr<bool> IsQueued(const DagHeader& dag) override {
    std::lock_guard<std::mutex> l(mu);
    if (!queued_error.ok()) return queued_error;
    return dags[dag.name].queued;
  }

  std::mutex mu;
  std::map<std::string, DagState> dags;
  Status exists_error, latest_error, alive_error, queued_error;
  std::function<void()> on_read;  // runs (outside the lock) at every CountAlive, e.g. to end the lease mid-read
  std::vector<std::vector<std::string>> exists_checks;
};

class FakeDispatcher final : public RunDispatcher {
 public:
  struct Call {
    std::string kind;  // "start", "stop", "restart"
    std::string dag;
    std::string run_id;
    WallTime slot;
    MonoTime not_after = MonoTime::max();
  };
  Status StartSlot(const DagHeader& dag, const std::string& run_id, WallTime slot, MonoTime not_after) override {
    return Record({"start", dag.name, run_id, slot, not_after});
  }
  Status StopDag(const DagHeader& dag, MonoTime not_after) override {
    return Record({"stop", dag.name, "", WallTime(), not_after});
  }
  Status RestartSlot(const DagHeader& dag, const std::string& run_id, WallTime slot, RestartGuards guards) override {
    std::lock_guard<std::mutex> l(mu);
    last_guards = std::move(guards);
    calls.push_back({"restart", dag.name, run_id, slot, MonoTime::max()});
    return fail;
  }
  Status ArmSlot(const DagHeader& dag, const std::string& run_id, WallTime slot, MonoTime not_after) override {
    std::lock_guard<std::mutex> l(mu);
    armed.push_back({"arm", dag.name, run_id, slot, not_after});
    return Status::OK();
  }
  void ReleaseArmed(WallTime up_to) override {
    std::lock_guard<std::mutex> l(mu);
    released.push_back(up_to);
  }
  std::vector<EndedSlotRun> TakeEndedSlotRuns() override {
    std::lock_guard<std::mutex> l(mu);
    std::vector<EndedSlotRun> out;
    out.swap(ended);
    return out;
  }
  std::vector<Call> Calls() {
    std::lock_guard<std::mutex> l(mu);
    return calls;
  }
  std::vector<Call> Armed() {
    std::lock_guard<std::mutex> l(mu);
    return armed;
  }
  std::vector<WallTime> Released() {
    std::lock_guard<std::mutex> l(mu);
    return released;
  }

  std::mutex mu;
  std::vector<Call> calls;
  std::vector<Call> armed;        // ArmSlot calls (kind "arm")
  std::vector<WallTime> released;  // ReleaseArmed calls
  std::vector<EndedSlotRun> ended;  // handed out by TakeEndedSlotRuns
  Status fail;  // returned by every call when not OK
  RestartGuards last_guards;
  std::function<void()> on_call;  // run after each call is recorded (outside the lock)

 private:
  Status Record(Call c) {
    Status result;
    {
      std::lock_guard<std::mutex> l(mu);
      calls.push_back(std::move(c));
      result = fail;
    }
    if (on_call) on_call();
    return result;
  }
};

class RecordingTickListener final : public TickListener {
 public:
  void AfterTick(WallTime tick) override {
    std::lock_guard<std::mutex> l(mu);
    ticks.push_back(tick);
  }
  void SlotNotStarted(const std::string& dag_name, WallTime slot) override {
    std::lock_guard<std::mutex> l(mu);
    not_started.emplace_back(dag_name, slot);
  }
  std::vector<WallTime> Ticks() {
    std::lock_guard<std::mutex> l(mu);
    return ticks;
  }
  std::vector<std::pair<std::string, WallTime>> NotStarted() {
    std::lock_guard<std::mutex> l(mu);
    return not_started;
  }
  std::vector<BacklogSlot> Backlog() const override {
    std::lock_guard<std::mutex> l(mu);
    return backlog;
  }
  mutable std::mutex mu;
  std::vector<WallTime> ticks;
  std::vector<std::pair<std::string, WallTime>> not_started;
  std::vector<BacklogSlot> backlog;  // what Backlog() reports
};

}  // namespace dagu::testing
