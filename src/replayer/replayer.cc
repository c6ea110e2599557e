#include "replayer/replayer.h"

#include <spdlog/spdlog.h>

#include "core/time_format.h"
#include "replayer/replay_window.h"
#include "ticker/slot_id.h"
#include "ticker/start_rules.h"

namespace dagu {
namespace {

const char* KindName(Activation::Kind kind) {
  switch (kind) {
    case Activation::Kind::kFreshLock:
      return "fresh lock";
    case Activation::Kind::kReleasedLock:
      return "released lock";
    case Activation::Kind::kStaleTakeover:
      return "stale takeover";
  }
  return "?";
}

}  // namespace

Replayer::Replayer(const Clock* clock, DagCatalog* dags, const SuspendFlags* suspend, RunCatalog* runs,
                   CatchupEnqueuer* enqueuer, const TickLedger* ledger, ReplayerOptions options)
    : clock_(clock),
      dags_(dags),
      suspend_(suspend),
      runs_(runs),
      enqueuer_(enqueuer),
      ledger_(ledger),
      options_(std::move(options)) {}

void Replayer::Start(const Activation& activation, const Lease* lease) {
  ReplayContext ctx;
  ctx.kind = activation.kind;
  ctx.at = activation.at == WallTime() ? clock_->Now() : activation.at;
  ctx.failover_recovery_window = options_.failover_recovery_window;
  TickRecord previous;
  bool found = false;
  Status s = ledger_->Read(&previous, &found);
  if (!s.ok()) {
    spdlog::warn("replay: {}; replaying by the windows alone", s.ToString());
  } else if (found) {
    ctx.previous = previous;
  }
  Status rescanned = dags_->Refresh();
  if (!rescanned.ok()) spdlog::error("replay: {}", rescanned.ToString());

  std::map<std::string, CatchupBuffer> buffers;
  size_t total = 0;
  for (const DagPtr& dag : dags_->Snapshot()) {
    std::vector<WallTime> slots = SlotsToReplay(ctx, *dag);
    if (!slots.empty()) {
      std::optional<WallTime> existed = ExistedSince(*dag, slots.front());
      if (existed) {
        std::vector<WallTime> bounded = SlotsToReplay(ctx, *dag, existed);
        if (bounded.size() < slots.size()) {
          spdlog::info("DAG {}: {} missed slot(s) before {} not replayed: the DAG is not known to have existed "
                       "before then (its file's mtime; no run of it is older)",
                       dag->name, slots.size() - bounded.size(), FormatRFC3339UTC(*existed));
        }
        slots = std::move(bounded);
      }
    }
    if (slots.empty()) continue;
    if (!options_.queues_enabled) {
      spdlog::warn("DAG {}: {} missed slot(s) from {} not replayed: queues are disabled", dag->name, slots.size(),
                   FormatRFC3339UTC(slots.front()));
      continue;
    }
    spdlog::info("DAG {}: {} missed slot(s) to replay, {} to {} (overlap_policy {})", dag->name, slots.size(),
                 FormatRFC3339UTC(slots.front()), FormatRFC3339UTC(slots.back()),
                 OverlapPolicyName(dag->overlap_policy));
    total += slots.size();
    buffers.emplace(dag->name, CatchupBuffer(dag->overlap_policy, std::move(slots)));
  }
  size_t carried = ctx.previous ? ctx.previous->backlog.size() : 0;
  spdlog::info("active by {} at {}; last recorded tick {}{}; {} slot(s) to replay", KindName(ctx.kind),
               FormatRFC3339UTC(ctx.at), ctx.previous ? FormatRFC3339UTC(ctx.previous->last_tick) : "none",
               carried > 0 ? " with " + std::to_string(carried) + " catch-up slot(s) still owed" : std::string(), total);

  std::lock_guard<std::mutex> l(mu_);
  lease_ = lease;
  buffers_ = std::move(buffers);
  owed_ = Owed(buffers_);
}

void Replayer::Stop() {
  std::lock_guard<std::mutex> l(mu_);
  lease_ = nullptr;
  buffers_.clear();
  owed_.clear();
}

std::vector<BacklogSlot> Replayer::Backlog() const {
  std::lock_guard<std::mutex> l(mu_);
  return owed_;
}

std::vector<BacklogSlot> Replayer::Owed(const std::map<std::string, CatchupBuffer>& buffers) {
  std::vector<BacklogSlot> out;
  for (const auto& [name, buffer] : buffers) {
    for (WallTime slot : buffer.slots()) out.push_back({name, slot});
  }
  return out;
}

std::optional<WallTime> Replayer::ExistedSince(const DagHeader& dag, WallTime oldest_slot) {
  std::optional<WallTime> mtime = dags_->FileMtime(dag.name);
  if (!mtime || *mtime <= oldest_slot) return std::nullopt;  // no bound needed
  WallTime existed = *mtime;
  RunSummary latest;
  Status s = runs_->LatestRun(dag, &latest);
  if (s.ok()) {
    std::optional<WallTime> t = RunTime(latest);
    if (t && *t < existed) existed = *t;
  } else if (!s.IsNotFound()) {
    // Replaying too much never runs a slot twice (run IDs); replaying too
    // little loses slots: without the evidence, no bound.
    spdlog::warn("DAG {}: existing runs cannot be read ({}); its replay is not bounded by its file's date", dag.name,
                 s.ToString());
    return std::nullopt;
  }
  return existed;
}

std::map<std::string, std::deque<WallTime>> Replayer::Pending() const {
  std::lock_guard<std::mutex> l(mu_);
  std::map<std::string, std::deque<WallTime>> out;
  for (const auto& [name, buffer] : buffers_) out[name] = buffer.slots();
  return out;
}

void Replayer::AfterTick(WallTime /*tick*/) {
  // The buffers are taken out while storage is read and written (no lock is
  // held over a storage call), and put back unless Stop() came in between.
  const Lease* lease = nullptr;
  std::map<std::string, CatchupBuffer> buffers;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (lease_ == nullptr || buffers_.empty()) return;
    lease = lease_;
    buffers.swap(buffers_);
  }
  if (lease->VerifyHeld()) {  // one batch per tick: the lock must still be ours
    for (auto it = buffers.begin(); it != buffers.end();) {
      if (!lease->MayDispatch()) break;
      ReleaseOne(it->first, &it->second, lease);
      it = it->second.empty() ? buffers.erase(it) : std::next(it);
    }
  }
  std::lock_guard<std::mutex> l(mu_);
  if (lease_ != lease) return;  // stopped meanwhile: the backlog goes with the role
  for (auto& [name, buffer] : buffers) buffers_.insert_or_assign(name, std::move(buffer));
  owed_ = Owed(buffers_);
}

void Replayer::SlotNotStarted(const std::string& dag_name, WallTime slot) {
  const std::string slot_text = FormatRFC3339UTC(slot);
  if (!options_.queues_enabled) {
    spdlog::warn("DAG {} slot {}: its run never started; not replayed: queues are disabled", dag_name, slot_text);
    return;
  }
  DagPtr dag = dags_->Find(dag_name);
  if (!dag) return;
  std::lock_guard<std::mutex> l(mu_);
  if (lease_ == nullptr) return;
  auto it = buffers_.find(dag_name);
  if (it == buffers_.end()) {
    buffers_.emplace(dag_name, CatchupBuffer(dag->overlap_policy, {slot}));
  } else {
    it->second.Add(slot);
  }
  spdlog::info("DAG {} slot {}: its run never started; buffered for replay (overlap_policy {})", dag_name, slot_text,
               OverlapPolicyName(dag->overlap_policy));
}

void Replayer::ReleaseOne(const std::string& name, CatchupBuffer* buffer, const Lease* lease) {
  DagPtr dag = dags_->Find(name);
  if (!dag) {
    spdlog::info("DAG {} is gone; {} missed slot(s) dropped", name, buffer->slots().size());
    *buffer = CatchupBuffer(OverlapPolicy::kSkip, {});
    return;
  }
  bool suspended = true;
  Status s = suspend_->IsSuspended(*dag, &suspended);
  if (!s.ok()) {
    spdlog::error("DAG {}: {}; replay held back", name, s.ToString());
    return;
  }
  if (suspended) {
    spdlog::info("DAG {} is suspended; {} missed slot(s) dropped", name, buffer->slots().size());
    *buffer = CatchupBuffer(OverlapPolicy::kSkip, {});
    return;
  }
  std::optional<bool> busy = ReadBusy(*dag);
  if (!busy) return;
  std::optional<WallTime> slot;
  // A slot that has its run already (one a predecessor enqueued before it
  // died, carried over in its backlog) costs no tick: the next one is looked
  // at. Still at most one enqueue per DAG per tick.
  for (;;) {
    std::vector<WallTime> dropped;
    slot = buffer->Release(*busy, &dropped);
    for (WallTime d : dropped) {
      spdlog::info("DAG {} slot {}: not replayed (overlap_policy {}, DAG busy or a newer slot pending)", name,
                   FormatRFC3339UTC(d), OverlapPolicyName(buffer->policy()));
    }
    if (!slot) return;
    bool unreadable = false;
    if (AlreadyHandled(*dag, *slot, &unreadable)) continue;
    if (unreadable) {
      buffer->PutBack(*slot);
      return;
    }
    break;
  }

  std::string slot_text = FormatRFC3339UTC(*slot);
  std::string run_id = ScheduledRunId(options_.data_dir, name, *slot);
  s = enqueuer_->EnqueueCatchup(*dag, run_id, *slot, [lease] { return lease->MayDispatch(); });
  if (s.ok()) {
    SchedulerCounters::Bump(options_.counters, &SchedulerCounters::slots_replayed);
    spdlog::info("DAG {} slot {}: replayed as queued catch-up run {}", name, slot_text, run_id);
  } else if (s.IsAlreadyExists()) {
    spdlog::info("DAG {} slot {}: run {} exists already; not replayed", name, slot_text, run_id);
  } else if (s.code() == Status::Code::kInvalidArgument) {
    spdlog::error("DAG {} slot {}: catch-up run {} not enqueued: {}; the slot is dropped", name, slot_text, run_id,
                  s.ToString());
  } else if (!lease->MayDispatch()) {
    SchedulerCounters::Bump(options_.counters, &SchedulerCounters::fenced_refusals);
    spdlog::warn("DAG {} slot {}: catch-up run {} not enqueued: this instance may no longer dispatch", name,
                 slot_text, run_id);
    buffer->PutBack(*slot);
  } else {
    spdlog::error("DAG {} slot {}: enqueueing catch-up run {} failed ({}); retrying at the next tick", name,
                  slot_text, run_id, s.ToString());
    buffer->PutBack(*slot);
  }
}

std::optional<bool> Replayer::ReadBusy(const DagHeader& dag) {
  auto unknown = [&](const Status& s) -> std::optional<bool> {
    spdlog::error("DAG {}: cannot tell whether it is busy ({}); replay held back", dag.name, s.ToString());
    return std::nullopt;
  };
  StatusOr<int> alive = runs_->CountAlive(dag);
  if (!alive.ok()) return unknown(alive.status());
  if (*alive > 0) return true;
  StatusOr<bool> queued = runs_->IsQueued(dag);
  if (!queued.ok()) return unknown(queued.status());
  if (*queued) return true;
  RunSummary latest;
  Status s = runs_->LatestRun(dag, &latest);
  if (s.IsNotFound()) return false;
  if (!s.ok()) return unknown(s);
  return latest.status == RunStatus::kRunning;
}

bool Replayer::AlreadyHandled(const DagHeader& dag, WallTime slot, bool* unreadable) {
  std::string slot_text = FormatRFC3339UTC(slot);
  StatusOr<bool> exists = runs_->AnyRunExists(dag, SlotRunIds(options_.data_dir, dag.name, slot));
  if (!exists.ok()) {
    spdlog::error("DAG {} slot {}: existing runs cannot be read ({}); no run is created", dag.name, slot_text,
                  exists.status().ToString());
    *unreadable = true;
    return false;
  }
  if (*exists) {
    spdlog::info("DAG {} slot {}: a run for this slot exists already; not replayed", dag.name, slot_text);
    return true;
  }
  RunSummary latest;
  Status s = runs_->LatestRun(dag, &latest);
  if (s.ok() && ReferenceTime(latest) == slot) {
    spdlog::info("DAG {} slot {}: latest run {} is this slot's; not replayed", dag.name, slot_text, latest.run_id);
    return true;
  }
  if (!s.ok() && !s.IsNotFound()) {
    spdlog::error("DAG {} slot {}: existing runs cannot be read ({}); no run is created", dag.name, slot_text,
                  s.ToString());
    *unreadable = true;
  }
  return false;
}

}  // namespace dagu
