#include "distributed/task_board.h"

#include <algorithm>
#include <utility>

namespace dagu::distributed {

bool MatchesSelector(const Labels& worker, const Labels& selector) {
  for (const auto& [key, value] : selector) {
    auto it = worker.find(key);
    // 1.30.2 compares workerLabels[key] (empty when absent) with the value.
    const std::string& have = it == worker.end() ? std::string() : it->second;
    if (have != value) return false;
  }
  return true;
}

WorkerHealth HealthAfter(std::chrono::system_clock::duration since) {
  if (since < kHealthyWorkerWithin) return WorkerHealth::kHealthy;
  if (since < kWarningWorkerWithin) return WorkerHealth::kWarning;
  return WorkerHealth::kUnhealthy;
}

const char* DispatchErrorMessage(DispatchError e) {
  switch (e) {
    case DispatchError::kNone:
      return "";
    case DispatchError::kNoMatchingWorker:
      return "no workers match the required selector";
    case DispatchError::kNoWorkers:
      return "no available workers";
    case DispatchError::kDuplicate:
      return "dag-run is already dispatched to a worker";
    case DispatchError::kNotRecorded:
      return "the task could not be recorded";
  }
  return "";
}

TaskBoard::TaskBoard(TaskStore* store, Now now) : store_(store), now_(std::move(now)) {
  if (!now_) now_ = [] { return std::chrono::system_clock::now(); };
}

uint64_t TaskBoard::AddPoller(const std::string& worker_id, const std::string& poller_id, Labels labels,
                              Deliver deliver) {
  uint64_t token;
  std::string run_id;
  {
    MutexLock l(&mu_);
    token = next_token_++;
    if (auto it = token_of_.find(poller_id); it != token_of_.end()) waiting_.erase(it->second);
    token_of_[poller_id] = token;
    run_id = WaitingTaskFor(labels);
    waiting_.emplace(token, Waiting{worker_id, poller_id, std::move(labels), std::move(deliver)});
    if (!run_id.empty()) tasks_[run_id].in_flight = true;
  }
  if (!run_id.empty()) HandOut(run_id, /*acknowledged=*/true);
  return token;
}

bool TaskBoard::RemovePoller(const std::string& poller_id, uint64_t token) {
  MutexLock l(&mu_);
  if (waiting_.erase(token) == 0) return false;
  if (auto it = token_of_.find(poller_id); it != token_of_.end() && it->second == token) token_of_.erase(it);
  return true;
}

DispatchError TaskBoard::Dispatch(const Labels& selector, const std::string& task, const std::string& run_id) {
  if (store_ != nullptr && !run_id.empty()) {
    {
      MutexLock l(&mu_);
      if (auto it = tasks_.find(run_id); it != tasks_.end()) {
        return it->second.record.state == TaskRecord::State::kWaiting ? DispatchError::kNone
                                                                       : DispatchError::kDuplicate;
      }
      SystemTime now = now_();
      bool poller = false;
      for (const auto& [token, w] : waiting_) poller = poller || MatchesSelector(w.labels, selector);
      if (!poller && !LiveWorkerMatches(selector, now)) {
        return selector.empty() ? DispatchError::kNoWorkers : DispatchError::kNoMatchingWorker;
      }
      Tracked& t = tasks_[run_id];
      t.record.run_id = run_id;
      t.record.selector = selector;
      t.record.task = task;
      t.record.recorded_at = now;
      t.in_flight = true;
    }
    return HandOut(run_id, /*acknowledged=*/false);
  }
  for (;;) {
    Deliver deliver;
    {
      MutexLock l(&mu_);
      uint64_t token;
      Waiting w;
      if (TakePoller(selector, &token, &w)) deliver = std::move(w.deliver);
    }
    if (!deliver) return selector.empty() ? DispatchError::kNoWorkers : DispatchError::kNoMatchingWorker;
    if (deliver(task)) return DispatchError::kNone;
  }
}

DispatchError TaskBoard::HandOut(const std::string& run_id, bool acknowledged) {
  for (;;) {
    uint64_t token = 0;
    Waiting poller;
    bool have = false;
    TaskRecord record;
    {
      MutexLock l(&mu_);
      TaskRecord& r = tasks_[run_id].record;
      have = TakePoller(r.selector, &token, &poller);
      if (have) {
        r.state = TaskRecord::State::kDispatched;
        r.worker_id = poller.worker_id;
        r.dispatched_at = now_();
        tasks_[run_id].watch_from = r.dispatched_at;
      } else {
        r.state = TaskRecord::State::kWaiting;
        r.worker_id.clear();
        r.dispatched_at = SystemTime{};
      }
      record = r;
    }
    std::string error;
    if (!store_->Put(record, &error)) {
      MutexLock l(&mu_);
      if (have) PutBackPoller(token, std::move(poller));
      if (!acknowledged) {
        tasks_.erase(run_id);
        return DispatchError::kNotRecorded;
      }
      // Recorded before (in an older state): it stays ours, waiting in memory.
      Tracked& t = tasks_[run_id];
      t.record.state = TaskRecord::State::kWaiting;
      t.record.worker_id.clear();
      t.in_flight = false;
      return DispatchError::kNone;
    }
    acknowledged = true;
    if (!have) {
      MutexLock l(&mu_);
      Tracked& t = tasks_[run_id];
      // A poller that came while the task was in flight could not take it.
      bool poller_now = false;
      for (const auto& [tok, w] : waiting_) poller_now = poller_now || MatchesSelector(w.labels, t.record.selector);
      if (poller_now) continue;
      t.in_flight = false;
      return DispatchError::kNone;
    }
    if (poller.deliver(record.task)) {
      MutexLock l(&mu_);
      tasks_[run_id].in_flight = false;
      return DispatchError::kNone;
    }
    // The poll ended meanwhile: the next poller, or wait (rewritten first).
  }
}

bool TaskBoard::TakePoller(const Labels& selector, uint64_t* token, Waiting* out) {
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    if (!MatchesSelector(it->second.labels, selector)) continue;
    *token = it->first;
    *out = std::move(it->second);
    if (auto t = token_of_.find(out->poller_id); t != token_of_.end() && t->second == it->first) token_of_.erase(t);
    waiting_.erase(it);
    return true;
  }
  return false;
}

void TaskBoard::PutBackPoller(uint64_t token, Waiting w) {
  // A newer poll with the same poller ID replaced it meanwhile: it stays gone.
  if (token_of_.count(w.poller_id) != 0) return;
  token_of_[w.poller_id] = token;
  waiting_.emplace(token, std::move(w));
}

bool TaskBoard::LiveWorkerMatches(const Labels& selector, SystemTime now) const {
  for (const auto& [id, w] : workers_) {
    if (w.last_heartbeat_at >= now - kStaleWorkerAfter && MatchesSelector(w.labels, selector)) return true;
  }
  return false;
}

std::string TaskBoard::WaitingTaskFor(const Labels& labels) const {
  const Tracked* best = nullptr;
  for (const auto& [id, t] : tasks_) {
    if (t.in_flight || t.record.state != TaskRecord::State::kWaiting) continue;
    if (!MatchesSelector(labels, t.record.selector)) continue;
    if (best == nullptr || t.record.recorded_at < best->record.recorded_at) best = &t;
  }
  return best == nullptr ? std::string() : best->record.run_id;
}

bool TaskBoard::Load(std::string* error) {
  if (store_ == nullptr) return true;
  std::vector<TaskRecord> records;
  std::vector<std::string> skipped;
  if (!store_->LoadAll(&records, &skipped, error)) return false;
  SystemTime now = now_();
  MutexLock l(&mu_);
  for (TaskRecord& r : records) {
    std::string id = r.run_id;
    tasks_[id] = Tracked{std::move(r), false, false, now};
  }
  return true;
}

TaskCounts TaskBoard::Counts() const {
  MutexLock l(&mu_);
  TaskCounts c;
  for (const auto& [id, t] : tasks_) {
    (t.record.state == TaskRecord::State::kWaiting ? c.waiting : c.dispatched)++;
  }
  return c;
}

bool TaskBoard::Recorded(const std::string& run_id, TaskRecord* out) const {
  MutexLock l(&mu_);
  auto it = tasks_.find(run_id);
  if (it == tasks_.end()) return false;
  *out = it->second.record;
  return true;
}

size_t TaskBoard::WaitingPollers() const {
  MutexLock l(&mu_);
  return waiting_.size();
}

void TaskBoard::Heartbeat(const std::string& worker_id, Labels labels, std::string stats, SystemTime now,
                          const std::vector<std::string>& running) {
  std::vector<std::string> ended;
  {
    MutexLock l(&mu_);
    workers_[worker_id] = WorkerRecord{worker_id, std::move(labels), std::move(stats), now, WorkerHealth::kHealthy};
    for (auto it = workers_.begin(); it != workers_.end();) {
      if (it->second.last_heartbeat_at < now - kStaleWorkerAfter) {
        it = workers_.erase(it);
      } else {
        ++it;
      }
    }
    for (auto& [id, t] : tasks_) {
      if (t.in_flight || t.record.state != TaskRecord::State::kDispatched) continue;
      bool listed = t.record.worker_id == worker_id &&
                    std::find(running.begin(), running.end(), id) != running.end();
      if (listed) {
        t.seen_running = true;
        continue;
      }
      bool ended_on_its_worker = t.record.worker_id == worker_id && t.seen_running;
      bool unseen_too_long = now - t.watch_from > kUnseenDispatchLimit &&
                             (t.record.worker_id == worker_id || workers_.count(t.record.worker_id) == 0 ||
                              !t.seen_running);
      if (ended_on_its_worker || unseen_too_long) {
        t.in_flight = true;  // being removed: a Dispatch of it meanwhile is still a duplicate
        ended.push_back(id);
      }
    }
  }
  for (const std::string& id : ended) {
    std::string error;
    bool removed = store_->Remove(id, &error);
    MutexLock l(&mu_);
    if (removed) {
      tasks_.erase(id);
    } else {
      tasks_[id].in_flight = false;  // tried again at the next heartbeat
    }
  }
}

std::vector<WorkerRecord> TaskBoard::Workers(SystemTime now) const {
  MutexLock l(&mu_);
  std::vector<WorkerRecord> out;
  out.reserve(workers_.size());
  for (const auto& [id, w] : workers_) {
    out.push_back(w);
    out.back().health = HealthAfter(now - w.last_heartbeat_at);
  }
  return out;
}

}  // namespace dagu::distributed
