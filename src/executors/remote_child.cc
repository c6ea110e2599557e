#include "executors/remote_child.h"

#include <algorithm>
#include <random>

namespace dagu {
namespace {

double RandomJitter() {
  thread_local std::mt19937 gen{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.5, 1.0)(gen);
}

std::string SelectorText(const std::map<std::string, std::string>& selector) {
  std::string out;
  for (const auto& [k, v] : selector) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

}  // namespace

RemoteChild::RemoteChild(TaskDispatcher* dispatcher, RunStore* runs, SubRunStore* subs, const Clock* clock,
                         DispatchTask task, RunRef root, RemoteChildOptions options, LogFn log)
    : dispatcher_(dispatcher),
      runs_(runs),
      subs_(subs),
      clock_(clock),
      task_(std::move(task)),
      root_(std::move(root)),
      options_(std::move(options)),
      log_(std::move(log)),
      next_(clock->Monotonic()) {}

void RemoteChild::Log(bool error, const std::string& message, RunLogFields fields) const {
  if (!log_) return;
  fields.insert(fields.begin(), {{"sub-dag", task_.target}, {"sub-run-id", task_.run_id}});
  log_(error, message, fields);
}

Duration RemoteChild::Backoff() const {
  Duration d = options_.first_retry;
  for (int i = 1; i < tries_ && d < options_.max_retry; ++i) d *= 2;
  d = std::min(d, options_.max_retry);
  double f = options_.jitter ? options_.jitter() : RandomJitter();
  f = std::clamp(f, 0.5, 1.0);
  return std::chrono::duration_cast<Duration>(d * f);
}

void RemoteChild::End(std::string error) {
  state_ = State::kEnded;
  error_ = std::move(error);
}

bool RemoteChild::Step() {
  const MonoTime now = clock_->Monotonic();
  if (state_ == State::kEnded) return true;
  if (now < next_) return false;
  if (state_ == State::kDispatching) {
    TryDispatch(now);
  } else {
    Follow(now);
  }
  return state_ == State::kEnded;
}

void RemoteChild::TryDispatch(MonoTime now) {
  if (cancelled_) {
    End("");
    return;
  }
  if (!dispatcher_) {
    End("distributed execution failed: no coordinator client configured for distributed execution");
    return;
  }
  if (tries_ == 0) {
    Log(false, "Dispatching task to coordinator", {{"worker-selector", SelectorText(task_.worker_selector)}});
  }
  ++tries_;
  Status s = dispatcher_->Dispatch(task_);
  if (s.ok()) {
    dispatched_ = true;
    accepted_at_ = clock_->Monotonic();
    state_ = State::kFollowing;
    next_ = accepted_at_;
    last_refusal_.clear();
    Log(false, "Distributed sub DAG dispatched; awaiting completion", {{"tries", std::to_string(tries_)}});
    return;
  }
  if (tries_ >= options_.max_dispatch_tries) {
    Log(true, "Distributed sub DAG dispatch failed", {{"tries", std::to_string(tries_)}, {"err", s.message()}});
    End("distributed execution failed: failed to dispatch task: " + s.message());
    return;
  }
  // Once per change of reason, not per try (1.30.2 logs every try).
  const std::string reason = std::string(CodeName(s.code())) + ": " + s.message();
  if (reason != last_refusal_) {
    last_refusal_ = reason;
    Log(true, "Sub DAG not dispatched yet; trying again with back-off",
        {{"err", s.message()}, {"tries", std::to_string(tries_)},
         {"max-tries", std::to_string(options_.max_dispatch_tries)}});
  }
  next_ = now + Backoff();
}

void RemoteChild::Follow(MonoTime now) {
  next_ = now + options_.follow_interval;
  RunDir run;
  AttemptDir attempt;
  RunRecord record;
  Status s = subs_->ReadSubRun(root_, task_.run_id, &run, &attempt, &record);
  if (cancelled_ && !cancel_written_ && s.ok()) {
    Status w = runs_->RequestCancel(attempt);
    if (w.ok()) {
      cancel_written_ = true;
      Log(false, "Requested distributed sub DAG cancellation", {{"file", attempt.CancelPath()}});
    }
  }
  if (s.ok() && !IsActive(record.status)) {
    record_ = std::move(record);
    Log(false, "Distributed execution completed", {{"status", RunStatusLabel(record_->status)}});
    End("");
    return;
  }
  if (cancelled_ && now >= cancel_deadline_) {
    End("distributed execution cancellation timed out for dag-run ID " + task_.run_id);
    return;
  }
  if (!s.ok() && s.IsNotFound() && !cancelled_ && now - accepted_at_ >= options_.redispatch_after) {
    Log(true, "Dispatched sub DAG never started; dispatching it again",
        {{"waited", std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now - accepted_at_).count()) +
                        "s"}});
    state_ = State::kDispatching;
    dispatched_ = false;
    next_ = now;
  }
}

void RemoteChild::Cancel() {
  if (cancelled_ || state_ == State::kEnded) return;
  cancelled_ = true;
  const MonoTime now = clock_->Monotonic();
  if (state_ == State::kDispatching) {
    Log(false, "Cancellation requested for distributed sub DAG dispatch");
    End("");
    return;
  }
  Log(false, "Cancellation requested for distributed sub DAG run; waiting for termination");
  cancel_deadline_ = now + options_.cancel_wait;
  next_ = now;  // write the request at the next Step
}

}  // namespace dagu
