#include "distributed/worker.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <spdlog/spdlog.h>

#include "store/run_layout.h"

namespace dagu::distributed {
namespace {

constexpr std::chrono::seconds kHealthTimeout{3};
constexpr std::chrono::seconds kHeartbeatTimeout{5};
constexpr std::chrono::seconds kHeartbeatInterval{1};
// A poll the coordinator answered without a task (1.30.2's never does) is
// followed by this pause, so a coordinator that ends polls at once cannot
// make the pollers spin.
constexpr std::chrono::milliseconds kEmptyPollPause{200};

std::string Describe(const CoordinatorEndpoint& e) { return e.id + " at " + e.Target(); }

}  // namespace

Duration RetryBackoff::NextDelay(double uniform01) {
  ++failures_;
  double ceiling = static_cast<double>(kFirst.count());
  for (int i = 1; i < failures_ && ceiling < kMax.count(); ++i) ceiling *= 2;
  ceiling = std::min(ceiling, static_cast<double>(kMax.count()));
  double ms = ceiling / 2 + (ceiling / 2) * std::clamp(uniform01, 0.0, 1.0);
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double, std::milli>(ms));
}

bool LinkState::Set(State s, const std::string& coordinator) {
  std::lock_guard<std::mutex> l(mu_);
  if (state_ == s && coordinator_ == coordinator) return false;
  state_ = s;
  coordinator_ = coordinator;
  return true;
}

bool LinkState::Connected(const std::string& coordinator) { return Set(State::kConnected, coordinator); }
bool LinkState::NoCoordinator() { return Set(State::kNoCoordinator, ""); }
bool LinkState::Unreachable(const std::string& coordinator) { return Set(State::kUnreachable, coordinator); }

LinkState::State LinkState::state() const {
  std::lock_guard<std::mutex> l(mu_);
  return state_;
}

std::string DefaultWorkerId(const std::string& hostname, int64_t pid) {
  return (hostname.empty() ? std::string("unknown") : hostname) + "@" + std::to_string(pid);
}

Worker::Worker(WorkerOptions options, CoordinatorDiscovery* discovery, ChannelFactory connect, TaskRunner* runner,
               const Clock* clock)
    : options_(std::move(options)), discovery_(discovery), connect_(std::move(connect)), runner_(runner),
      clock_(clock) {}

Worker::~Worker() {
  StopPolling();
  Wait();
  Shutdown();
}

void Worker::Start() {
  const int pollers = std::max(1, options_.max_active_runs);
  for (int i = 0; i < pollers; ++i) pollers_.emplace_back([this, i] { PollLoop(i); });
  heartbeat_ = std::thread([this] { HeartbeatLoop(); });
}

void Worker::StopPolling() {
  std::vector<std::shared_ptr<CoordinatorChannel>> channels;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stop_polling_.exchange(true)) return;
    for (auto& [target, channel] : channels_) channels.push_back(channel);
  }
  wake_.notify_all();
  for (auto& c : channels) c->CancelPolls();  // ends the waiting polls

}

void Worker::Wait() {
  for (std::thread& t : pollers_) {
    if (t.joinable()) t.join();
  }
}

void Worker::Shutdown() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_heartbeat_ = true;
  }
  wake_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
}

int Worker::busy_pollers() const {
  std::lock_guard<std::mutex> l(mu_);
  return static_cast<int>(running_.size());
}

bool Worker::Sleep(Duration d, const std::atomic<bool>& stop) {
  std::unique_lock<std::mutex> l(mu_);
  wake_.wait_for(l, d, [&] { return stop.load(); });
  return !stop.load();
}

std::shared_ptr<CoordinatorChannel> Worker::ChannelFor(const CoordinatorEndpoint& endpoint) {
  const std::string target = endpoint.Target();
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = channels_.find(target);
    if (it != channels_.end()) return it->second;
  }
  // Creating a channel only builds objects (gRPC connects lazily); loading
  // the module the first time reads files, so it happens unlocked.
  StatusOr<std::unique_ptr<CoordinatorChannel>> made = connect_(target);
  std::lock_guard<std::mutex> l(mu_);
  if (!made.ok()) {
    if (!module_error_logged_) spdlog::error("Worker cannot call coordinators: {}", made.status().ToString());
    module_error_logged_ = true;
    return nullptr;
  }
  auto it = channels_.find(target);
  if (it != channels_.end()) return it->second;
  std::shared_ptr<CoordinatorChannel> channel(std::move(made).value().release());
  if (stop_polling_) channel->CancelPolls();
  channels_[target] = channel;
  return channel;
}

void Worker::NoteFailure(const CoordinatorEndpoint& endpoint, const CallResult& result) {
  if (link_.Unreachable(endpoint.id)) {
    spdlog::warn("Coordinator {} failed ({}: {}); retrying with backoff (up to {} s)", Describe(endpoint),
                 result.code, result.message, RetryBackoff::kMax.count() / 1000);
  }
}

bool Worker::Healthy(uint64_t rotate, CoordinatorEndpoint* endpoint, std::shared_ptr<CoordinatorChannel>* channel) {
  std::vector<CoordinatorEndpoint> found;
  Status s = discovery_->Find(&found);
  if (!s.ok() || found.empty()) {
    if (link_.NoCoordinator()) {
      spdlog::warn("No coordinator registered in the service registry{}; retrying with backoff (up to {} s)",
                   s.ok() ? "" : " (" + s.ToString() + ")", RetryBackoff::kMax.count() / 1000);
    }
    return false;
  }
  std::string preferred;
  {
    std::lock_guard<std::mutex> l(mu_);
    preferred = last_healthy_;
  }
  std::optional<std::pair<CoordinatorEndpoint, CallResult>> first_failure;
  for (size_t i : HealthCheckOrder(found, rotate, preferred)) {
    const CoordinatorEndpoint& e = found[i];
    std::shared_ptr<CoordinatorChannel> c = ChannelFor(e);
    if (c == nullptr) return false;
    CallResult health = c->CheckHealth(kHealthTimeout);
    if (health.ok()) {
      std::lock_guard<std::mutex> l(mu_);
      last_healthy_ = e.id;
      *endpoint = e;
      *channel = std::move(c);
      return true;
    }
    if (!first_failure) first_failure.emplace(e, health);
    Abandon(e);
  }
  if (first_failure) NoteFailure(first_failure->first, first_failure->second);
  discovery_->Invalidate();
  return false;
}

void Worker::Abandon(const CoordinatorEndpoint& endpoint) {
  std::shared_ptr<CoordinatorChannel> gone;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = channels_.find(endpoint.Target());
    if (it == channels_.end()) return;
    gone = std::move(it->second);
    channels_.erase(it);
  }
  gone->CancelPolls();  // unlocked: the pollers it wakes take mu_
}

std::vector<size_t> HealthCheckOrder(const std::vector<CoordinatorEndpoint>& found, uint64_t rotate,
                                     const std::string& preferred) {
  std::vector<size_t> order;
  if (found.empty()) return order;
  for (size_t i = 0; i < found.size(); ++i) {
    if (!preferred.empty() && found[i].id == preferred) order.push_back(i);
  }
  for (size_t i = 0; i < found.size(); ++i) {
    const size_t index = (rotate + i) % found.size();
    if (order.empty() || order.front() != index) order.push_back(index);
  }
  return order;
}

void Worker::PollLoop(int slot) {
  std::mt19937_64 rng(std::random_device{}() ^ static_cast<uint64_t>(slot));
  std::uniform_real_distribution<double> jitter(0.0, 1.0);
  RetryBackoff backoff;
  while (!stop_polling_) {
    CoordinatorEndpoint endpoint;
    std::shared_ptr<CoordinatorChannel> channel;
    if (!Healthy(rng(), &endpoint, &channel)) {
      if (!Sleep(backoff.NextDelay(jitter(rng)), stop_polling_)) break;
      continue;
    }
    WireTask task;
    bool got_task = false;
    CallResult r = channel->Poll(options_.id, NewUuidV7(clock_->Now()), options_.labels, &task, &got_task);
    if (!r.ok()) {
      if (stop_polling_) break;
      poll_failures_.fetch_add(1, std::memory_order_relaxed);
      NoteFailure(endpoint, r);
      discovery_->Invalidate();
      if (!Sleep(backoff.NextDelay(jitter(rng)), stop_polling_)) break;
      continue;
    }
    backoff.Reset();
    polls_.fetch_add(1, std::memory_order_relaxed);
    if (link_.Connected(endpoint.id)) spdlog::info("Connected to coordinator {}", Describe(endpoint));
    if (!got_task) {
      Sleep(kEmptyPollPause, stop_polling_);
      continue;
    }
    // A task handed over is run even when stopping has begun meanwhile.
    spdlog::info("Task received: {} {} run {} (poller {}, coordinator {})",
                 task.operation == TaskOperation::kRetry ? "RETRY" : task.operation == TaskOperation::kStart ? "START"
                                                                                                              : "?",
                 task.root_dag_run_name.empty() ? task.target : task.root_dag_run_name, task.dag_run_id, slot,
                 endpoint.id);
    WireRunningTask running;
    running.dag_run_id = task.dag_run_id;
    running.dag_name = task.target;
    running.started_at = std::chrono::duration_cast<std::chrono::seconds>(clock_->Now().time_since_epoch()).count();
    running.root_dag_run_name = task.root_dag_run_name;
    running.root_dag_run_id = task.root_dag_run_id;
    running.parent_dag_run_name = task.parent_dag_run_name;
    running.parent_dag_run_id = task.parent_dag_run_id;
    {
      std::lock_guard<std::mutex> l(mu_);
      running_[slot] = running;
    }
    Status done = runner_->Run(task);
    {
      std::lock_guard<std::mutex> l(mu_);
      running_.erase(slot);
    }
    (done.ok() ? tasks_succeeded_ : tasks_failed_).fetch_add(1, std::memory_order_relaxed);
    if (done.ok()) {
      spdlog::info("Task finished: run {}", task.dag_run_id);
    } else {
      spdlog::error("Task failed: run {}: {}", task.dag_run_id, done.ToString());
    }
  }
}

WorkerStats Worker::Stats() const {
  WorkerStats s;
  s.id = options_.id;
  s.total_pollers = std::max(1, options_.max_active_runs);
  s.busy_pollers = busy_pollers();
  s.coordinator_connected = link_.state() == LinkState::State::kConnected;
  s.polls = polls_.load(std::memory_order_relaxed);
  s.poll_failures = poll_failures_.load(std::memory_order_relaxed);
  s.tasks_succeeded = tasks_succeeded_.load(std::memory_order_relaxed);
  s.tasks_failed = tasks_failed_.load(std::memory_order_relaxed);
  return s;
}

WireHeartbeat Worker::MakeHeartbeat() const {
  WireHeartbeat hb;
  hb.worker_id = options_.id;
  hb.labels = options_.labels;
  hb.total_pollers = std::max(1, options_.max_active_runs);
  std::lock_guard<std::mutex> l(mu_);
  hb.busy_pollers = static_cast<int32_t>(running_.size());
  for (const auto& [slot, task] : running_) hb.running_tasks.push_back(task);
  return hb;
}

void Worker::HeartbeatLoop() {
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> jitter(0.0, 1.0);
  RetryBackoff backoff;
  while (!stop_heartbeat_) {
    CoordinatorEndpoint endpoint;
    std::shared_ptr<CoordinatorChannel> channel;
    bool sent = false;
    if (Healthy(0, &endpoint, &channel)) {
      CallResult r = channel->Heartbeat(MakeHeartbeat(), kHeartbeatTimeout);
      sent = r.ok();
      if (!sent) {
        NoteFailure(endpoint, r);
        Abandon(endpoint);
      }
    }
    if (sent) {
      backoff.Reset();
      if (link_.Connected(endpoint.id)) spdlog::info("Connected to coordinator {}", Describe(endpoint));
    }
    Duration next = sent ? Duration(kHeartbeatInterval) : backoff.NextDelay(jitter(rng));
    if (!Sleep(next, stop_heartbeat_)) break;
  }
}

}  // namespace dagu::distributed
