#include "executors/subdag_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>

#include "core/clock.h"
#include "core/file_system.h"
#include "core/go_format.h"
#include "dag/dag_loader.h"
#include "executors/child_dag.h"
#include "executors/child_process.h"
#include "executors/remote_child.h"
#include "executors/subdag_plan.h"
#include "executors/subdag_result.h"
#include "store/run_store.h"
#include "store/sub_runs.h"

namespace dagu {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(20);
constexpr size_t kStderrTail = 1024;

// Appends to a file (created if missing); a no-op for path "".
void AppendTo(const std::string& path, const std::string& text) {
  if (path.empty()) return;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const char* p = text.data();
  size_t n = text.size();
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w <= 0) break;
    p += w;
    n -= static_cast<size_t>(w);
  }
  ::close(fd);
}

// The record a child left, or why there is none.
struct ChildOutcome {
  std::optional<RunRecord> record;
  std::string error;  // when there is no record (or the child could not start)
};

class SubDagStep final : public RunningStep {
 public:
  SubDagStep(const SubDagRunnerOptions& options, const StepInvocation& inv) : options_(options), inv_(inv) {
    plan_status_ = PlanChildRuns(inv_, &plan_);
  }

  std::vector<SubRunRef> SubRuns() const override {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<SubRunRef> out;
    if (dag_missing_) return out;  // as Dagu: no child when the DAG is not there
    for (const ChildRunPlan& p : plan_) out.push_back({p.run_id, p.params});
    return out;
  }

  void Signal(int sig) override {
    std::lock_guard<std::mutex> l(mu_);
    if (!stopped_) {
      stopped_ = true;
      for (ChildProcess* c : running_) c->Signal(SIGTERM);
    }
    if (sig == SIGKILL) abandoned_ = true;
    cv_.notify_all();
  }

  StepResult Wait() override {
    // Both log files exist from the start, as for any step (stderr stays empty).
    AppendTo(inv_.stdout_path, "");
    AppendTo(inv_.stderr_path, "");
    StepResult result;
    result.started = true;
    if (!plan_status_.ok()) return Fail(plan_status_.message());
    ChildDagFile file;
    Status s = LocateChildDag(*inv_.dag, inv_.step->call, options_.dags_dir, options_.temp_dir, &file);
    if (!s.ok()) {
      std::lock_guard<std::mutex> l(mu_);
      dag_missing_ = true;
      return Fail(s.message());
    }
    if (parallel()) {
      Log(false, "Starting parallel execution",
          {{"total", std::to_string(plan_.size())}, {"max-concurrent", std::to_string(Limit())},
           {"dag", inv_.step->call}});
    }
    std::vector<ChildOutcome> outcomes(plan_.size());
    Dag child;
    const bool remote = RemoteChildDag(file, &child);
    bool all_ended = remote ? RunRemoteChildren(child, &outcomes) : RunChildren(file, &outcomes);
    if (file.temporary) Log(false, "Cleaning up temporary DAG file", {{"file", file.path}});
    ReleaseChildDag(file);
    return Judge(outcomes, all_ended);
  }

 private:
  bool parallel() const { return inv_.step->parallel.enabled; }
  size_t Limit() const {
    return parallel() ? static_cast<size_t>(std::max(1, inv_.step->parallel.max_concurrent)) : 1;
  }

  // 1.30.2 repeats the step's field on these lines (`step=x step=x`).
  void Log(bool error, const std::string& message, const RunLogFields& fields) const {
    if (!inv_.log) return;
    RunLogFields f = {{"step", inv_.step_name}};
    f.insert(f.end(), fields.begin(), fields.end());
    inv_.log(error, message, f);
  }

  // 1.30.2's run-log lines for a child's start and end (its process's exit
  // status decides, as Go's exec error does).
  RunLogFields ChildFields(const ChildRunPlan& plan) const {
    return {{"sub-dag", inv_.step->call}, {"sub-run-id", plan.run_id}};
  }
  void LogChildEnd(const ChildRunPlan& plan, const ChildProcess& proc) const {
    if (proc.exit_code() == 0 && proc.term_signal() == 0) {
      Log(false, "Sub DAG completed successfully", ChildFields(plan));
      return;
    }
    const std::string err = GoExitErrorText(proc.exit_code(), proc.term_signal());
    RunLogFields f = ChildFields(plan);
    f.emplace_back("err", err);
    Log(true, "Sub DAG execution returned error", f);
    if (parallel()) Log(true, "Sub DAG execution failed", {{"run-id", plan.run_id}, {"err", err}});
  }

  StepResult Fail(const std::string& why) {
    StepResult r;
    r.started = true;
    r.exit_code = 1;
    r.error = why;
    return r;
  }

  std::vector<std::string> ChildArgv(const ChildDagFile& file, const ChildRunPlan& plan) const {
    std::vector<std::string> argv{options_.executable.empty() ? "dagu" : options_.executable, "start",
                                  "--root=" + inv_.root_dag_name + ":" + inv_.root_dag_run_id,
                                  "--parent=" + inv_.dag->name + ":" + inv_.dag_run_id, "--run-id=" + plan.run_id};
    if (!inv_.working_dir.empty()) argv.push_back("--default-working-dir=" + inv_.working_dir);
    if (!options_.config_file.empty()) {
      argv.push_back("--config");
      argv.push_back(options_.config_file);
    }
    argv.push_back(file.path);
    if (!plan.params.empty()) {
      argv.push_back("--");
      argv.push_back(plan.params);
    }
    return argv;
  }

  // Starts the children (at most max_concurrent at a time) and waits for
  // them. False when abandoned (SIGKILL) before every child had ended.
  bool RunChildren(const ChildDagFile& file, std::vector<ChildOutcome>* outcomes) {
    const size_t limit = Limit();
    std::vector<ChildProcess> procs(plan_.size());
    std::vector<size_t> active;  // plan indexes with a live process
    size_t next = 0;
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      while (!stopped_ && next < plan_.size() && active.size() < limit) {
        size_t i = next++;
        l.unlock();
        Log(false, "Executing sub DAG locally", ChildFields(plan_[i]));
        Status s = procs[i].Start(ChildArgv(file, plan_[i]), inv_.working_dir);
        l.lock();
        if (!s.ok()) {
          (*outcomes)[i].error = "failed to start sub dag-run: " + s.message();
          continue;
        }
        running_.push_back(&procs[i]);
        active.push_back(i);
        if (stopped_) procs[i].Signal(SIGTERM);  // a stop came while it started
      }
      if (abandoned_) {
        for (size_t i : active) procs[i].Detach();
        running_.clear();
        return false;
      }
      for (auto it = active.begin(); it != active.end();) {
        ChildProcess& p = procs[*it];
        if (!p.Poll()) {
          ++it;
          continue;
        }
        running_.erase(std::find(running_.begin(), running_.end(), &p));
        size_t i = *it;
        it = active.erase(it);
        l.unlock();
        LogChildEnd(plan_[i], p);
        Collect(plan_[i], p, &(*outcomes)[i]);
        l.lock();
      }
      if (active.empty() && (stopped_ || next >= plan_.size())) return true;
      cv_.wait_for(l, kPollInterval);
    }
  }

  // Whether the child DAG has a workerSelector (its children then go to
  // workers); *out is the DAG as loaded. A DAG that does not load runs
  // locally, where its own start reports the problem.
  bool RemoteChildDag(const ChildDagFile& file, Dag* out) const {
    LoadDagOptions o;
    o.metadata_only = true;
    o.base_config = options_.base_config;
    std::vector<DagError> errors;
    if (!LoadDag(file.path, o, out, &errors).ok()) return false;
    return !out->worker_selector.empty();
  }

  DispatchTask ChildTask(const Dag& child, const ChildRunPlan& plan) const {
    DispatchTask t;
    t.operation = TaskOperation::kStart;
    t.root_name = inv_.root_dag_name;
    t.root_id = inv_.root_dag_run_id;
    t.parent_name = inv_.dag->name;
    t.parent_id = inv_.dag_run_id;
    t.run_id = plan.run_id;
    t.target = child.name;
    t.params = plan.params;
    t.worker_selector = child.worker_selector;
    t.definition = child.yaml_data;
    return t;
  }

  // As RunChildren, for a child DAG with a workerSelector: each child is a
  // RemoteChild (dispatched, then followed through its record).
  bool RunRemoteChildren(const Dag& child, std::vector<ChildOutcome>* outcomes) {
    const size_t limit = Limit();
    RunStore runs(PosixFileSystem(), Clock::Real(), options_.dag_runs_dir);
    SubRunStore subs(PosixFileSystem(), Clock::Real(), &runs);
    const RunRef root{inv_.root_dag_name, inv_.root_dag_run_id};
    auto log = [this](bool error, const std::string& message, const RunLogFields& fields) { Log(error, message, fields); };
    std::vector<std::unique_ptr<RemoteChild>> children(plan_.size());
    std::vector<size_t> active;
    size_t next = 0;
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      while (!stopped_ && next < plan_.size() && active.size() < limit) {
        size_t i = next++;
        Log(false, "Executing sub DAG via distributed execution", ChildFields(plan_[i]));
        children[i] = std::make_unique<RemoteChild>(options_.dispatcher, &runs, &subs, Clock::Real(),
                                                    ChildTask(child, plan_[i]), root, RemoteChildOptions{}, log);
        active.push_back(i);
      }
      if (abandoned_) {
        // Wait() returns now; a child already on a worker still gets its
        // cancel request (written at once when its record exists).
        l.unlock();
        for (size_t i : active) {
          children[i]->Cancel();
          children[i]->Step();
        }
        return false;
      }
      const bool stop = stopped_;
      l.unlock();  // a dispatch call blocks for its deadline
      for (auto it = active.begin(); it != active.end();) {
        RemoteChild& c = *children[*it];
        if (stop) c.Cancel();
        if (!c.Step()) {
          ++it;
          continue;
        }
        ChildOutcome& o = (*outcomes)[*it];
        o.record = c.record();
        o.error = c.error();
        if (!o.record.has_value() && o.error.empty()) o.error = "sub DAG execution cancelled";
        it = active.erase(it);
      }
      l.lock();
      if (active.empty() && (stopped_ || next >= plan_.size())) return true;
      cv_.wait_for(l, kPollInterval);
    }
  }

  // Reads the record of a child whose process ended.
  void Collect(const ChildRunPlan& plan, const ChildProcess& proc, ChildOutcome* out) {
    RunStore runs(PosixFileSystem(), Clock::Real(), options_.dag_runs_dir);
    SubRunStore subs(PosixFileSystem(), Clock::Real(), &runs);
    const RunRef root{inv_.root_dag_name, inv_.root_dag_run_id};
    RunDir run;
    AttemptDir attempt;
    RunRecord record;
    Status s = subs.ReadSubRun(root, plan.run_id, &run, &attempt, &record);
    if (s.ok() && IsActive(record.status)) {
      // The process is gone but its record says running: it died.
      bool changed = false;
      subs.MarkZombie(run, attempt.attempt_id, &changed)
          .LogIfError("marking the dead sub dag-run \"" + plan.run_id + "\" failed");
      s = runs.ReadStatus(attempt, &record);
    }
    if (s.ok()) {
      out->record = std::move(record);
      return;
    }
    out->error = "failed to find result for the sub dag-run \"" + plan.run_id + "\": " + s.message() +
                 " (process: exit status " + std::to_string(proc.exit_code()) + ")";
    std::string tail = proc.StderrTail(kStderrTail);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    if (!tail.empty()) out->error += "; stderr: " + tail;
  }

  StepResult Judge(const std::vector<ChildOutcome>& outcomes, bool all_ended) {
    StepResult r;
    r.started = true;
    bool stopped;
    {
      std::lock_guard<std::mutex> l(mu_);
      stopped = stopped_;
    }
    std::string output;
    if (parallel()) {
      std::vector<std::optional<RunRecord>> records;
      for (const auto& o : outcomes) records.push_back(o.record);
      output = GoJsonIndent(ParallelResultJson(plan_.size(), records));
    } else if (outcomes[0].record.has_value() && all_ended && !stopped) {
      output = GoJsonIndent(ChildResultJson(*outcomes[0].record));
    }
    AppendTo(inv_.stdout_path, output);
    AppendTo(inv_.extra_stdout_path, output);
    r.captured_stdout = output.substr(0, inv_.capture_limit);
    r.output_too_large = output.size() > inv_.capture_limit;
    if (stopped || !all_ended) {
      r.exit_code = 1;
      r.term_signal = SIGTERM;
      r.error = parallel() ? "parallel execution cancelled" : "sub DAG execution cancelled: context canceled";
      return r;
    }
    std::vector<std::string> errors;
    for (const auto& o : outcomes) {
      if (!o.record.has_value()) errors.push_back(o.error);
    }
    if (!errors.empty()) {
      r.exit_code = 1;
      r.error = parallel() ? "parallel execution failed with " + std::to_string(errors.size()) +
                                 " errors: sub DAG failed: " + errors[0]
                           : errors[0];
      return r;
    }
    bool waiting = false;
    for (const auto& o : outcomes) {
      const RunRecord& rec = *o.record;
      if (rec.status == RunStatus::kPartiallySucceeded) r.partially_succeeded = true;
      if (IsSuccess(rec.status)) continue;
      if (rec.status == RunStatus::kWaiting) {  // a child waits for an approval: so does this step
        waiting = true;
        continue;
      }
      r.exit_code = 1;
      r.error = "sub DAG run " + rec.dag_run_id +
                (parallel() ? " is still in progress with status: " : " failed with status: ") +
                RunStatusLabel(rec.status);
      r.partially_succeeded = false;
      return r;
    }
    if (waiting) {
      r.waiting = true;
      r.partially_succeeded = false;
    }
    return r;
  }

  const SubDagRunnerOptions& options_;
  StepInvocation inv_;
  Status plan_status_;
  std::vector<ChildRunPlan> plan_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool dag_missing_ = false;
  std::vector<ChildProcess*> running_;
  bool stopped_ = false;
  bool abandoned_ = false;
};

}  // namespace

std::unique_ptr<RunningStep> SubDagRunner::Start(const StepInvocation& invocation) {
  return std::make_unique<SubDagStep>(options_, invocation);
}

int SubDagRunner::Capture(const std::string&, const std::string&, const std::vector<std::string>&,
                          const std::string&, std::string* out) {
  out->clear();
  return -1;
}

}  // namespace dagu
