#include "distributed/task_board.h"

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
  }
  return "";
}

uint64_t TaskBoard::AddPoller(const std::string& worker_id, const std::string& poller_id, Labels labels,
                              Deliver deliver) {
  MutexLock l(&mu_);
  uint64_t token = next_token_++;
  if (auto it = token_of_.find(poller_id); it != token_of_.end()) waiting_.erase(it->second);
  token_of_[poller_id] = token;
  waiting_.emplace(token, Waiting{worker_id, poller_id, std::move(labels), std::move(deliver)});
  return token;
}

bool TaskBoard::RemovePoller(const std::string& poller_id, uint64_t token) {
  MutexLock l(&mu_);
  if (waiting_.erase(token) == 0) return false;
  if (auto it = token_of_.find(poller_id); it != token_of_.end() && it->second == token) token_of_.erase(it);
  return true;
}

DispatchError TaskBoard::Dispatch(const Labels& selector, const std::string& task) {
  for (;;) {
    Deliver deliver;
    {
      MutexLock l(&mu_);
      for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
        if (!MatchesSelector(it->second.labels, selector)) continue;
        deliver = std::move(it->second.deliver);
        token_of_.erase(it->second.poller_id);
        waiting_.erase(it);
        break;
      }
    }
    if (!deliver) return selector.empty() ? DispatchError::kNoWorkers : DispatchError::kNoMatchingWorker;
    if (deliver(task)) return DispatchError::kNone;
  }
}

size_t TaskBoard::WaitingPollers() const {
  MutexLock l(&mu_);
  return waiting_.size();
}

void TaskBoard::Heartbeat(const std::string& worker_id, Labels labels, std::string stats, SystemTime now) {
  MutexLock l(&mu_);
  workers_[worker_id] = WorkerRecord{worker_id, std::move(labels), std::move(stats), now, WorkerHealth::kHealthy};
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->second.last_heartbeat_at < now - kStaleWorkerAfter) {
      it = workers_.erase(it);
    } else {
      ++it;
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
