#include "ticker/ticker.h"

#include <spdlog/spdlog.h>

#include "core/time_format.h"
#include "ticker/slot_id.h"
#include "ticker/slots.h"
#include "ticker/start_rules.h"

namespace dagu {

using std::chrono::minutes;

namespace {

constexpr int kMaxBackToBackTicks = 60;

}  // namespace

struct Ticker::Plan {
  DagPtr dag;
  PlannedSlot slot;
};

Ticker::Ticker(const Clock* clock, DagCatalog* dags, const SuspendFlags* suspend, RunCatalog* runs,
               RunDispatcher* dispatcher, const TickLedger* ledger, TickListener* listener, TickerOptions options)
    : clock_(clock),
      dags_(dags),
      suspend_(suspend),
      runs_(runs),
      dispatcher_(dispatcher),
      ledger_(ledger),
      listener_(listener),
      options_(std::move(options)),
      due_(dags) {}

Ticker::~Ticker() { Stop(); }

void Ticker::Start(const Activation& activation, const Lease* lease) {
  WallTime now = clock_->Now();
  WallTime first = activation.at == WallTime() ? now : std::min(activation.at, now);
  NoteProgress();
  looping_ = true;
  thread_.Start([this, first, lease](StoppableThread& self) { Loop(self, first, lease); });
}

void Ticker::Stop() {
  thread_.Stop();
  looping_ = false;
  dispatcher_->ReleaseArmed(WallTime::max());
}

void Ticker::NoteProgress() {
  progress_ns_.store(
      std::chrono::duration_cast<std::chrono::nanoseconds>(clock_->Monotonic().time_since_epoch()).count());
}

std::optional<MonoTime> Ticker::LastProgress() const {
  if (!looping_.load()) return std::nullopt;
  return MonoTime(std::chrono::nanoseconds(progress_ns_.load()));
}

void Ticker::Loop(StoppableThread& self, WallTime first, const Lease* lease) {
  WallTime next = FloorToMinute(first);
  std::optional<WallTime> armed_for;  // the slot whose runs were armed
  const bool arming = options_.arm_lead > Duration::zero();
  for (;;) {
    NoteProgress();
    WallTime now = clock_->Now();
    if (next > now + minutes(1)) {
      spdlog::warn("wall clock went back to {}; ticking from the current minute", FormatRFC3339UTC(now));
      next = FloorToMinute(now);
    }
    if (now < next) {
      Duration wait = next - now;
      if (arming && armed_for != next) {
        const WallTime arm_at = next - options_.arm_lead;
        if (now >= arm_at) {
          Arm(next, lease);
          armed_for = next;
          continue;
        }
        wait = arm_at - now;
      }
      if (!self.WaitFor(std::min<Duration>(wait, options_.max_wait))) return;
      continue;
    }
    if (now - next > minutes(kMaxBackToBackTicks)) {
      WallTime current = FloorToMinute(now);
      spdlog::warn("ticks from {} to {} were not handled in time (paused process or clock step); skipping to {}",
                   FormatRFC3339UTC(next), FormatRFC3339UTC(current - minutes(1)), FormatRFC3339UTC(current));
      next = current;
    }
    RunTick(next, lease);
    dispatcher_->ReleaseArmed(next);  // the ones the tick did not start
    next += minutes(1);
    if (!self.WaitFor(Duration::zero())) return;
  }
}

void Ticker::RunTick(WallTime tick, const Lease* lease) {
  SchedulerCounters* counters = options_.counters;
  if (!lease->MayDispatch()) {
    SchedulerCounters::Bump(counters, &SchedulerCounters::fenced_refusals);
    if (!fenced_logged_) {
      spdlog::warn("tick {}: this instance may not dispatch (lease deadline passed); nothing is scheduled",
                   FormatRFC3339UTC(tick));
      fenced_logged_ = true;
    }
    return;
  }
  fenced_logged_ = false;
  SchedulerCounters::Bump(counters, &SchedulerCounters::ticks);
  const std::string tick_text = FormatRFC3339UTC(tick);

  Status rescanned = dags_->Refresh();
  if (!rescanned.ok()) spdlog::error("tick {}: {}", tick_text, rescanned.ToString());

  std::vector<Plan> plans;
  for (const DagPtr& dag : due_.Candidates(tick)) PlanDag(dag, tick, &plans);

  // The batch: the lock must still be ours (not removed or replaced), and
  // each write below is fenced right before it.
  if (!lease->VerifyHeld()) {
    SchedulerCounters::Bump(counters, &SchedulerCounters::fenced_refusals);
    spdlog::warn("tick {}: the scheduler lock is not confirmed ours; nothing is recorded or dispatched", tick_text);
    return;
  }
  TickRecord record;
  record.instance = options_.instance_id;
  record.last_tick = tick;
  for (const Plan& p : plans) record.planned.push_back(p.slot);
  if (listener_ != nullptr) record.backlog = listener_->Backlog();
  if (!lease->MayDispatch()) {
    SchedulerCounters::Bump(counters, &SchedulerCounters::fenced_refusals);
    spdlog::warn("tick {}: lease deadline passed; nothing is recorded or dispatched", tick_text);
    return;
  }
  // After the plans (record.planned[i] is plans[i]).
  const std::vector<PlannedSlot> not_started = CheckEndedSlotRuns(tick);
  record.planned.insert(record.planned.end(), not_started.begin(), not_started.end());
  Status written = ledger_->Write(record);
  if (!written.ok()) spdlog::error("tick {}: {}", tick_text, written.ToString());

  if (!plans.empty()) {
    for (size_t i = 0; i < plans.size(); ++i) {
      if (!lease->MayDispatch()) {
        SchedulerCounters::Bump(counters, &SchedulerCounters::fenced_refusals);
        spdlog::warn("tick {}: lease deadline passed; {} planned slot(s) not dispatched", FormatRFC3339UTC(tick),
                     plans.size() - i);
        break;
      }
      Status s = Dispatch(plans[i], lease);
      if (s.ok()) {
        record.planned[i].started = true;
        if (plans[i].slot.kind != "stop") SchedulerCounters::Bump(counters, &SchedulerCounters::runs_dispatched);
      } else {
        spdlog::error("tick {}: {} of DAG {} failed: {}", FormatRFC3339UTC(tick), plans[i].slot.kind,
                      plans[i].dag->name, s.ToString());
      }
    }
    if (lease->MayDispatch()) {
      written = ledger_->Write(record);
      if (!written.ok()) spdlog::error("tick {}: {}", tick_text, written.ToString());
    }
  }

  if (listener_ != nullptr) {
    for (const PlannedSlot& p : not_started) listener_->SlotNotStarted(p.dag, p.slot);
    listener_->AfterTick(tick);
  }
}

std::vector<PlannedSlot> Ticker::CheckEndedSlotRuns(WallTime tick) {
  for (EndedSlotRun& r : dispatcher_->TakeEndedSlotRuns()) ended_.push_back({std::move(r), 0});
  std::vector<PlannedSlot> not_started;
  for (auto it = ended_.begin(); it != ended_.end();) {
    const EndedSlotRun& r = it->run;
    const std::string slot_text = FormatRFC3339UTC(r.slot);
    DagPtr dag = dags_->Find(r.dag_name);
    if (!dag || r.slot >= tick) {  // gone from the catalog (nothing to replay), or not a past slot
      it = ended_.erase(it);
      continue;
    }
    StatusOr<bool> exists = runs_->AnyRunExists(*dag, SlotRunIds(options_.data_dir, r.dag_name, r.slot));
    if (!exists.ok()) {
      spdlog::error("DAG {} slot {}: whether its run {} left a record cannot be read ({}); asked again at the next "
                    "tick",
                    r.dag_name, slot_text, r.run_id, exists.status().ToString());
      ++it;
      continue;
    }
    if (!*exists) {
      spdlog::warn("DAG {} slot {}: its run {} exited (wait status {}) without writing a record; the slot counts as "
                   "planned, not started, and is replayed",
                   r.dag_name, slot_text, r.run_id, r.exit_status);
      not_started.push_back({r.dag_name, "start", r.slot, r.run_id, false});
      it = ended_.erase(it);
      continue;
    }
    it = ++it->looks >= 2 ? ended_.erase(it) : std::next(it);
  }
  return not_started;
}

void Ticker::PlanDag(const DagPtr& dag_ptr, WallTime tick, std::vector<Plan>* plans) {
  const DagHeader& dag = *dag_ptr;
  bool start_due = AnyDueAt(dag.schedules.start, tick);
  bool stop_due = AnyDueAt(dag.schedules.stop, tick);
  bool restart_due = AnyDueAt(dag.schedules.restart, tick);
  if (!start_due && !stop_due && !restart_due) return;

  std::string slot_text = FormatRFC3339UTC(tick);
  bool suspended = true;
  Status s = suspend_->IsSuspended(dag, &suspended);
  if (!s.ok()) {
    spdlog::error("DAG {} slot {}: {}; treated as suspended", dag.name, slot_text, s.ToString());
    return;
  }
  if (suspended) {
    spdlog::info("DAG {} slot {}: suspended, not scheduled", dag.name, slot_text);
    return;
  }
  std::string run_id = ScheduledRunId(options_.data_dir, dag.name, tick);

  if (stop_due && HasLiveRun(dag, tick, "stop")) {
    plans->push_back({dag_ptr, {dag.name, "stop", tick, "", false}});
  }
  if (restart_due && HasLiveRun(dag, tick, "restart")) {
    StatusOr<bool> exists = runs_->AnyRunExists(dag, SlotRunIds(options_.data_dir, dag.name, tick));
    if (!exists.ok()) {
      spdlog::error("DAG {} slot {}: existing runs cannot be read ({}); no restart is created", dag.name, slot_text,
                    exists.status().ToString());
    } else if (*exists) {
      spdlog::info("DAG {} slot {}: a run for this slot exists already; restart skipped", dag.name, slot_text);
    } else {
      plans->push_back({dag_ptr, {dag.name, "restart", tick, run_id, false}});
    }
  }
  if (start_due && StartAllowed(dag, tick)) {
    plans->push_back({dag_ptr, {dag.name, "start", tick, run_id, false}});
  }
}

bool Ticker::HasLiveRun(const DagHeader& dag, WallTime slot, const char* what) {
  StatusOr<int> alive = runs_->CountAlive(dag);
  if (!alive.ok()) {
    spdlog::error("DAG {} slot {}: cannot tell whether it is running ({}); {} skipped", dag.name,
                  FormatRFC3339UTC(slot), alive.status().ToString(), what);
    return false;
  }
  if (*alive > 0) return true;
  spdlog::info("DAG {} slot {}: not running; {} skipped", dag.name, FormatRFC3339UTC(slot), what);
  return false;
}

// Why a start is not made (empty: it may be), and whether the reason is an
// error (something could not be read) rather than a rule.
struct Ticker::StartCheck {
  std::string why;
  bool error = false;
  bool allowed() const { return why.empty(); }
};

Ticker::StartCheck Ticker::CheckStart(const DagHeader& dag, WallTime slot) {
  auto unreadable = [&](const char* what, const Status& s) {
    return StartCheck{std::string(what) + " cannot be read (" + s.ToString() + ")", true};
  };
  StatusOr<int> alive = runs_->CountAlive(dag);
  if (!alive.ok()) return unreadable("heartbeat files", alive.status());
  if (*alive > 0) return {"already running"};
  if (options_.queues_enabled) {
    StatusOr<bool> queued = runs_->IsQueued(dag);
    if (!queued.ok()) return unreadable("the queue", queued.status());
    if (*queued) return {"a run is queued"};
  }
  RunSummary latest;
  std::optional<RunSummary> have;
  Status s = runs_->LatestRun(dag, &latest);
  if (s.ok()) {
    have = latest;
  } else if (!s.IsNotFound()) {
    return unreadable("existing runs", s);
  }
  if (have && have->status == RunStatus::kRunning) return {"latest run " + have->run_id + " is running"};
  if (have && StampedAhead(*have, clock_->Now()) && future_logged_[dag.name] != have->run_id) {
    future_logged_[dag.name] = have->run_id;
    spdlog::warn("DAG {}: latest run {} is stamped {}, more than {} s ahead of this scheduler's clock; a clock ahead "
                 "wrote it, so it does not count as a slot's run",
                 dag.name, have->run_id, FormatRFC3339UTC(*RunTime(*have)), kFutureRunTolerance.count());
  }
  StartRule rule = CheckStartRules(dag, slot, have, clock_->Now());
  if (rule != StartRule::kStart) return {std::string(StartRuleName(rule)) + " (run " + have->run_id + ")"};

  StatusOr<bool> exists = runs_->AnyRunExists(dag, SlotRunIds(options_.data_dir, dag.name, slot));
  if (!exists.ok()) return unreadable("existing runs", exists.status());
  if (*exists) return {"a run for this slot exists already"};
  return {};
}

bool Ticker::StartAllowed(const DagHeader& dag, WallTime slot) {
  StartCheck check = CheckStart(dag, slot);
  if (check.allowed()) return true;
  const std::string slot_text = FormatRFC3339UTC(slot);
  if (check.error) {
    spdlog::error("DAG {} slot {}: {}; no run is created", dag.name, slot_text, check.why);
  } else {
    spdlog::info("DAG {} slot {}: {}; not started", dag.name, slot_text, check.why);
  }
  return false;
}

void Ticker::Arm(WallTime slot, const Lease* lease) {
  if (!lease->MayDispatch()) return;
  Status rescanned = dags_->Refresh();
  if (!rescanned.ok()) spdlog::error("arming slot {}: {}", FormatRFC3339UTC(slot), rescanned.ToString());
  int armed = 0;
  for (const DagPtr& dag_ptr : due_.Candidates(slot)) {
    const DagHeader& dag = *dag_ptr;
    // Only a plain start: a stop or restart due in the same slot orders the
    // start after it, which a cold start at the slot keeps.
    if (!AnyDueAt(dag.schedules.start, slot) || AnyDueAt(dag.schedules.stop, slot) ||
        AnyDueAt(dag.schedules.restart, slot)) {
      continue;
    }
    if (armed >= options_.max_armed) break;
    bool suspended = true;
    if (!suspend_->IsSuspended(dag, &suspended).ok() || suspended) continue;
    if (!CheckStart(dag, slot).allowed()) continue;  // the tick decides (and logs) at the slot
    if (!lease->MayDispatch()) return;
    Status s = dispatcher_->ArmSlot(dag, ScheduledRunId(options_.data_dir, dag.name, slot), slot, lease->Deadline());
    if (s.ok()) {
      ++armed;
    } else {
      spdlog::warn("DAG {} slot {}: not armed ({}); it starts at the slot", dag.name, FormatRFC3339UTC(slot),
                   s.ToString());
    }
  }
}

Status Ticker::Dispatch(const Plan& plan, const Lease* lease) {
  const DagHeader& dag = *plan.dag;
  const PlannedSlot& slot = plan.slot;
  if (slot.kind == "stop") return dispatcher_->StopDag(dag, lease->Deadline());
  if (slot.kind == "restart") {
    RestartGuards guards;
    guards.may_dispatch = [lease] { return lease->MayDispatch(); };
    guards.deadline = [lease] { return lease->Deadline(); };
    RunCatalog* runs = runs_;
    DagPtr keep = plan.dag;
    guards.still_running = [runs, keep] {
      return runs->CountAlive(*keep).value_or(1) > 0;  // unknown counts as running
    };
    return dispatcher_->RestartSlot(dag, slot.run_id, slot.slot, std::move(guards));
  }
  return dispatcher_->StartSlot(dag, slot.run_id, slot.slot, lease->Deadline());
}

}  // namespace dagu
