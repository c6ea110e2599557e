#include "agent/executor.h"

#include <signal.h>

#include <algorithm>
#include <tuple>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <filesystem>

#include "agent/node_rules.h"
#include "core/duration.h"
#include "core/file_system.h"
#include "core/go_format.h"
#include "core/strings.h"

namespace dagu {
namespace {

// A step's error when its own timeout stopped it, in 1.30.2's words.
std::string StepTimeoutError(Duration elapsed, Duration timeout) {
  return "step timed out after " + FormatDuration(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed)) +
         " (timeout: " + FormatDuration(timeout) + "): context deadline exceeded";
}

// The error a step's execution ends with, as Dagu's executor reports it ("" =
// none): the start failure, the killing signal, or the exit status with the
// tail of stderr.
std::string RawError(const StepResult& r) {
  if (!r.started) return r.start_error;
  std::string e;
  if (!r.error.empty()) {
    e = r.error;  // a runner's own words (jq, http, a sub-DAG call)
  } else if (r.term_signal != 0) {
    e = SignalText(r.term_signal);
  } else if (r.exit_code != 0) {
    e = "exit status " + std::to_string(r.exit_code);
    if (!r.stderr_tail.empty()) e += "\nrecent stderr (tail):\n" + r.stderr_tail;
  } else {
    return "";
  }
  if (r.failed_command > 0) e = "command " + std::to_string(r.failed_command) + " failed: " + e;
  return e;
}

// Go's strconv.Atoi, with its error text.
bool GoAtoi(const std::string& text, int* out, std::string* error) {
  size_t i = text.size() > 0 && (text[0] == '+' || text[0] == '-') ? 1 : 0;
  bool digits = i < text.size();
  for (size_t k = i; k < text.size(); ++k) digits = digits && text[k] >= '0' && text[k] <= '9';
  if (!digits) {
    *error = "strconv.Atoi: parsing " + GoQuote(text) + ": invalid syntax";
    return false;
  }
  errno = 0;
  long long v = std::strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE || v > INT32_MAX || v < INT32_MIN) {
    *error = "strconv.Atoi: parsing " + GoQuote(text) + ": value out of range";
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

constexpr const char* kDeadlineExceeded = "context deadline exceeded";
constexpr const char* kDeadlock = "deadlock detected: no runnable nodes but DAG not finished";

}  // namespace

// A process running now, as Cancel and the timers see it.
struct Executor::Proc {
  RunningStep* step = nullptr;
  ProcKind kind = ProcKind::kStep;
  int stop_signal = 0;    // the step's signal_on_stop (0 = none)
  bool repeating = false; // a step under a repeat policy: a stop lets it finish
  std::optional<MonoTime> deadline;  // step timeout
  std::optional<MonoTime> kill_at;   // SIGKILL after a stop signal
  bool stopped = false;
  bool timed_out = false;            // the step's own timeout
  bool dag_timeout = false;          // killed by the DAG's timeout
};

// The outcome of one process.
struct Executor::Exec {
  StepResult result;
  Duration elapsed{0};
  bool stopped = false;
  bool timed_out = false;
  bool dag_timeout = false;
  bool output_matches = false;  // continue_on.output found in its stdout
};

Executor::Executor(const Dag& dag, const Params& params, ExecutorOptions options)
    : dag_(dag), params_(params), opt_(std::move(options)), env_(dag_, params_, opt_.default_shell) {
  for (size_t i = 0; i < dag_.steps.size(); ++i) {
    NodeState n;
    n.step = dag_.steps[i];
    state_.nodes.push_back(std::move(n));
    index_[dag_.steps[i].name] = i;
  }
  deps_.resize(dag_.steps.size());
  for (size_t i = 0; i < dag_.steps.size(); ++i) {
    for (const auto& dep : dag_.steps[i].depends) {
      auto it = index_.find(dep);
      if (it != index_.end()) deps_[i].push_back(it->second);
    }
  }
  auto handler = [](const HeapOptional<Step>& s, const char* name) -> std::optional<NodeState> {
    if (!s.has_value()) return std::nullopt;
    NodeState n;
    n.step = *s;
    n.step.name = name;
    return n;
  };
  state_.on_init = handler(dag_.handler_on.init, "onInit");
  state_.on_success = handler(dag_.handler_on.success, "onSuccess");
  state_.on_failure = handler(dag_.handler_on.failure, "onFailure");
  state_.on_cancel = handler(dag_.handler_on.abort, "onCancel");
  state_.on_exit = handler(dag_.handler_on.exit, "onExit");
  state_.on_wait = handler(dag_.handler_on.wait, "onWait");
}

Executor::~Executor() {
  {
    MutexLock l(&mu_);
    cancelled_ = true;
    for (auto& p : procs_) p.step->Signal(SIGKILL);
    cv_.NotifyAll();
  }
  JoinWorkers();
}

// ---------------------------------------------------------------------------
// State, observers

ExecutionState Executor::state() const {
  MutexLock l(&mu_);
  return state_;
}

std::string Executor::last_error() const {
  MutexLock l(&mu_);
  return last_error_;
}

bool Executor::stop_requested() const {
  MutexLock l(&mu_);
  return stop_requested_;
}

void Executor::Publish() {
  MutexLock p(&publish_mu_);
  ExecutionState copy;
  {
    MutexLock l(&mu_);
    if (version_ == published_) return;
    published_ = version_;
    copy = state_;
  }
  if (opt_.observer != nullptr) opt_.observer->OnStateChanged(copy);
}

void Executor::StartWorker(std::function<void()> body) {
  auto w = std::make_unique<Worker>();
  w->thread = std::thread(std::move(body));
  workers_.push_back(std::move(w));
}

void Executor::JoinWorkers() {
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
  }
}

// ---------------------------------------------------------------------------
// Retry of an earlier attempt

void Executor::SetPreviousNodes(const std::vector<NodeState>& previous, const std::string& only_step) {
  MutexLock l(&mu_);
  only_step_ = only_step;
  std::vector<bool> reset(state_.nodes.size(), false);
  for (size_t i = 0; i < state_.nodes.size(); ++i) {
    NodeState& n = state_.nodes[i];
    const NodeState* prev = nullptr;
    for (const auto& p : previous) {
      if (p.step.name == n.step.name) prev = &p;
    }
    bool keep;
    if (!only_step.empty()) keep = n.step.name != only_step;
    else keep = prev != nullptr && (prev->status == NodeStatus::kSucceeded || prev->status == NodeStatus::kSkipped ||
                                    prev->status == NodeStatus::kPartiallySucceeded ||
                                    prev->status == NodeStatus::kWaiting);  // still waiting for its approval
    if (!keep || prev == nullptr) {
      reset[i] = true;
      continue;
    }
    Step step = n.step;
    n = *prev;
    n.step = step;
    n.continued = ShouldContinue(step.continue_on, n.status, n.exit_code, false);
  }
  if (only_step.empty()) {
    // Everything downstream of a reset step runs again too.
    bool changed = true;
    while (changed) {
      changed = false;
      for (size_t i = 0; i < state_.nodes.size(); ++i) {
        if (reset[i]) continue;
        for (size_t d : deps_[i]) {
          if (reset[d]) {
            reset[i] = changed = true;
            break;
          }
        }
      }
    }
  }
  for (size_t i = 0; i < state_.nodes.size(); ++i) {
    if (!reset[i]) continue;
    NodeState& n = state_.nodes[i];
    Step step = n.step;
    n = NodeState();
    n.step = step;
  }
}

// ---------------------------------------------------------------------------
// Processes

Executor::Exec Executor::RunProcess(StepRunner* runner, const StepInvocation& inv, ProcKind kind, Duration timeout,
                                    bool repeating, std::vector<SubRunRef>* children) {
  Exec exec;
  const bool step_timeout = kind == ProcKind::kStep && timeout.count() > 0;
  if (step_timeout) {  // 1.30.2's lines about a step's own timeout
    RunLogLine(inv.step_name, false, "Step execution started with timeout",
               {{"step", inv.step_name}, {"timeout", FormatDuration(timeout)}});
  }
  std::unique_ptr<RunningStep> step = runner->Start(inv);
  std::vector<SubRunRef> started_children = step->SubRuns();
  std::list<Proc>::iterator it;
  {
    MutexLock l(&mu_);
    SetChildren(children, std::move(started_children));
    Proc p;
    p.step = step.get();
    p.kind = kind;
    p.repeating = repeating;
    p.stop_signal = inv.step != nullptr ? SignalNumber(inv.step->signal_on_stop) : 0;
    MonoTime now = opt_.clock->Monotonic();
    if (timeout.count() > 0) p.deadline = now + timeout;
    it = procs_.insert(procs_.end(), p);
    // A stop that came while this process was being prepared reaches it now.
    if (cancelled_ && kind == ProcKind::kHelper) {
      it->stopped = true;
      step->Signal(SIGKILL);
    } else if (stop_requested_ && kind == ProcKind::kStep && !repeating) {
      int sig = use_step_signal_ && it->stop_signal != 0 ? it->stop_signal : cancel_signal_;
      it->stopped = true;
      it->kill_at = now + dag_.max_clean_up_time;
      step->Signal(sig);
    }
    if (timed_out_ && kind != ProcKind::kHandler) {
      it->dag_timeout = true;
      step->Signal(SIGKILL);
    }
    cv_.NotifyAll();  // the loop learns a new deadline
  }
  const MonoTime started = opt_.clock->Monotonic();
  exec.result = step->Wait();
  exec.elapsed = opt_.clock->Monotonic() - started;
  std::vector<SubRunRef> finished_children = step->SubRuns();
  {
    MutexLock l(&mu_);
    SetChildren(children, std::move(finished_children));
    exec.stopped = it->stopped;
    exec.timed_out = it->timed_out;
    exec.dag_timeout = it->dag_timeout;
    procs_.erase(it);
  }
  if (step_timeout && exec.timed_out && exec.result.started) {
    const std::string limit = FormatDuration(timeout);
    RunLogLine(inv.step_name, true, "Step execution timed out",
               {{"step", inv.step_name}, {"timeout", limit}, {"duration", FormatDuration(exec.elapsed)}});
    RunLogLine(inv.step_name, false, "Step timed out (step-level timeout)",
               {{"step", inv.step_name},
                {"timeout", limit},
                {"err", "failed to execute step \"" + inv.step_name + "\": " + StepTimeoutError(exec.elapsed, timeout)}});
  }
  return exec;
}

void Executor::SetChildren(std::vector<SubRunRef>* children, std::vector<SubRunRef> now) {
  if (children == nullptr || *children == now) return;
  *children = std::move(now);
  Touch();
}

int Executor::CaptureAs(ProcKind kind, const std::string& shell, const std::string& command, const VarList& env,
                        const std::string& dir, std::string* out) {
  out->clear();
  StepInvocation inv;
  inv.commands = {command};
  inv.shell = shell;
  inv.step_shell = true;  // no -e: the command's own exit status decides
  inv.working_dir = dir;
  inv.env = env.ToEnvp();
  Exec exec = RunProcess(opt_.runner, inv, kind, Duration(0), false);
  if (exec.stopped || exec.dag_timeout || !exec.result.started) return -1;
  std::string text = exec.result.captured_stdout;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) {
    text.pop_back();
  }
  *out = text;
  return exec.result.exit_code;
}

CommandRunner Executor::Runner(ProcKind kind) {
  return [this, kind](const std::string& shell, const std::string& command, const VarList& env,
                      const std::string& dir, std::string* out) {
    return CaptureAs(kind, shell, command, env, dir, out);
  };
}

bool Executor::ConditionsMet(const std::vector<Condition>& conditions, ProcKind kind, const std::string& shell,
                             const OwnedVars& owned, const VarList& env, const std::string& dir, std::string* error,
                             std::string* reason) {
  error->clear();
  for (const auto& c : conditions) {
    bool met;
    std::string text = Substitute(c.condition, owned);
    std::string value;
    std::string not_met;  // 1.30.2's words for why it was not met
    if (c.expected.empty()) {
      int code = CaptureAs(kind, shell, text, env, dir, &value);
      met = code == 0;
      not_met = "exit status " + std::to_string(code);
    } else {
      value = env_.EvalValue(text, env, dir, Runner(kind));
      met = MatchesExpected(value, c.expected);
      not_met = "expected " + GoQuote(c.expected) + ", got " + GoQuote(value);
    }
    {
      MutexLock l(&mu_);
      if (kind == ProcKind::kHelper && cancelled_) return false;
    }
    if (c.negate) {
      met = !met;
      not_met = "condition matched but negate is true";
    }
    if (!met) {
      if (reason != nullptr) *reason = "condition was not met: " + not_met;
      return false;
    }
  }
  return true;
}

StepRunner* Executor::RunnerFor(const Step& step) const {
  if (step.executor_type.empty()) return opt_.runner;
  if (opt_.executors == nullptr) {
    static const ExecutorRegistry kNone;
    return kNone.FindOrMissing(step.executor_type);
  }
  return opt_.executors->FindOrMissing(step.executor_type);
}

Executor::CommandText Executor::EvalCommands(const Step& def, ProcKind kind, const OwnedVars& owned,
                                             const VarList& env, const std::string& dir) {
  CommandText text;
  const CommandRunner run = Runner(kind);
  for (const auto& line : def.commands) text.commands.push_back(env_.EvalCommand(line, owned, env, dir, run));
  if (!def.script.empty()) text.script = env_.EvalCommand(def.script, owned, env, dir, run);
  return text;
}

StepRefs Executor::StepRefsNow() const {
  StepRefs refs;
  for (const auto& n : state_.nodes) {
    if (n.step.id.empty()) continue;
    refs[n.step.id] = {n.stdout_path, n.stderr_path, std::to_string(n.exit_code)};
  }
  return refs;
}

void Executor::RunLogLine(const std::string& step, bool error, const std::string& message,
                          const RunLogFields& fields) const {
  if (opt_.step_log) opt_.step_log(step, error, message, fields);
}

bool Executor::CheckStepConditions(const Step& def, ProcKind kind, const OwnedVars& owned, const VarList& env,
                                   const std::string& dir, std::string* why) {
  if (def.preconditions.empty()) return true;
  // 1.30.2's lines, with the step's context field (a handler's have none).
  const std::string field = kind == ProcKind::kHandler ? "" : def.name;
  RunLogLine(field, false, "Checking preconditions for \"" + def.name + "\"", {});
  const bool met = ConditionsMet(def.preconditions, kind, env_.ShellFor(def), owned, env, dir, why);
  if (!met) RunLogLine(field, false, "Preconditions failed for \"" + def.name + "\"", {});
  return met;
}

StepInvocation Executor::MakeInvocation(const Step& def, const NodeState& node, const VarList& env, CommandText text,
                                        const OwnedVars& owned) const {
  StepInvocation inv;
  inv.step_name = def.name;
  inv.commands = std::move(text.commands);
  inv.script = std::move(text.script);
  inv.shell = env_.ShellFor(def);
  inv.shell_args = env_.ShellArgsFor(def);
  inv.step_shell = !def.shell.empty();
  inv.working_dir = env_.WorkingDirFor(def, env);
  inv.dag_working_dir = env_.WorkingDirFor(Step{}, env);
  inv.env = env.ToEnvp();
  inv.stdout_path = node.stdout_path;
  inv.stderr_path = node.stderr_path;
  // A relative stdout:/stderr: file is in the step's working directory, as in 1.30.2.
  auto in_working_dir = [&](const std::string& path) {
    std::string p = ExpandVars(path, env.Lookup());
    return p.empty() || p[0] == '/' || inv.working_dir.empty() ? p : JoinPath(inv.working_dir, p);
  };
  inv.extra_stdout_path = in_working_dir(def.stdout_file);
  inv.extra_stderr_path = in_working_dir(def.stderr_file);
  inv.capture_limit = static_cast<size_t>(dag_.max_output_size > 0 ? dag_.max_output_size : 1 << 20);
  inv.executor_type = def.executor_type;
  inv.executor_config_json = def.executor_config_json;
  inv.run_container_id = opt_.run_container_id;
  inv.run_container_exec_json = opt_.run_container_exec_json;
  inv.dag = &dag_;
  inv.step = &def;
  inv.expand = [owned](const std::string& value) { return Substitute(value, owned); };
  if (opt_.step_log) {
    inv.log = [log = opt_.step_log, name = def.name](bool error, const std::string& message,
                                                      const RunLogFields& fields) { log(name, error, message, fields); };
  }
  SetRunRefs(def, node, &inv);
  return inv;
}

void Executor::SetRunRefs(const Step& def, const NodeState& node, StepInvocation* inv) const {
  inv->dag_run_id = opt_.run_id;
  inv->messages_dir = opt_.messages_dir;
  inv->root_dag_name = opt_.root_name.empty() ? dag_.name : opt_.root_name;
  inv->root_dag_run_id = opt_.root_run_id.empty() ? opt_.run_id : opt_.root_run_id;
  inv->repeated = node.done_count > 0 && def.repeat_policy.enabled;
}

// ---------------------------------------------------------------------------
// A node's life

VarList Executor::OutputsVisibleTo(size_t index) const {
  // The outputs of every step this one depends on, directly or not.
  std::vector<bool> seen(state_.nodes.size(), false);
  std::vector<size_t> queue = deps_[index];
  std::vector<size_t> order;
  while (!queue.empty()) {
    size_t d = queue.front();
    queue.erase(queue.begin());
    if (seen[d]) continue;
    seen[d] = true;
    order.push_back(d);
    queue.insert(queue.end(), deps_[d].begin(), deps_[d].end());
  }
  std::sort(order.begin(), order.end());
  VarList out;
  for (size_t d : order) {
    for (const auto& [name, kv] : state_.nodes[d].output_variables) {
      auto eq = kv.find('=');
      out.Set(name, eq == std::string::npos ? kv : kv.substr(eq + 1));
    }
  }
  return out;
}

VarList Executor::AllOutputs() const {
  VarList out;
  for (const auto& n : state_.nodes) {
    for (const auto& [name, kv] : n.output_variables) {
      auto eq = kv.find('=');
      out.Set(name, eq == std::string::npos ? kv : kv.substr(eq + 1));
    }
  }
  return out;
}

std::string Executor::ResolveRetryPolicy(RetryPolicy* policy) const {
  int limit = policy->limit;
  int interval = static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(policy->interval).count());
  const std::tuple<const std::string*, const char*, int*> values[] = {{&policy->limit_text, "limit", &limit},
                                                                       {&policy->interval_text, "interval", &interval}};
  for (const auto& [text_ptr, what, out] : values) {
    const std::string& text = *text_ptr;
    if (text.empty()) continue;
    std::string value = ShellExpand(text, env_.vars_without_params().Lookup());
    std::string why;
    if (!GoAtoi(value, out, &why)) {
      return "failed to setup retry policy: failed to substitute retry " + std::string(what) + " " + GoQuote(text) +
             ": failed to convert " + GoQuote(value) + " to int: " + why;
    }
  }
  policy->limit = limit;
  policy->interval = std::chrono::seconds(interval);
  return "";
}

bool Executor::ApplyExecution(size_t index, const Exec& exec, const RetryPolicy& retry) {
  NodeState& n = state_.nodes[index];
  const Step& def = dag_.steps[index];
  const StepResult& r = exec.result;
  n.exit_code = r.exit_code;
  const bool too_large = r.started && r.output_too_large && !def.output.empty();
  if (r.started && !def.output.empty() && !too_large) {
    n.output_variables[def.output] = def.output + "=" + std::string(TrimSpace(r.captured_stdout));
  }
  std::string raw = RawError(r);
  if (r.started && exec.timed_out) {
    raw = StepTimeoutError(exec.elapsed, def.timeout);
    n.exit_code = 124;
  } else if (too_large && raw.empty()) {
    raw = "failed to capture output: output exceeded maximum size limit of " + std::to_string(dag_.max_output_size) +
          " bytes";
  }
  if (raw.empty()) {
    if (exec.stopped) n.status = NodeStatus::kAborted;
    else if (r.waiting) n.status = NodeStatus::kWaiting;
    else if (r.partially_succeeded) n.status = NodeStatus::kPartiallySucceeded;
    return false;
  }
  if (r.deadline_exceeded) {
    // The runner's own deadline (an http timeout): aborted, its error as is.
    n.status = NodeStatus::kAborted;
    n.error = raw;
    last_error_ = raw;
    return false;
  }
  const std::string exec_error = "failed to execute step \"" + def.name + "\": " + raw;
  n.error = raw;
  if (exec.stopped || exec.dag_timeout) {
    n.status = NodeStatus::kAborted;
    last_error_ = exec_error;
    return false;
  }
  if (exec.timed_out) {
    n.status = NodeStatus::kFailed;
    last_error_ = exec_error;
  } else if (ShouldRetry(retry, n.retry_count, n.exit_code)) {
    n.retry_count++;
    return true;
  } else {
    n.status = NodeStatus::kFailed;
  }
  bool cont = ShouldContinue(def.continue_on, NodeStatus::kFailed, n.exit_code, exec.output_matches);
  if (RecordsContinueDecision(def.continue_on)) {
    const std::string var = ContinueOnVariable(def.name);
    n.output_variables[var] = var + "=" + (cont ? "true" : "false");
  }
  n.continued = cont;
  if (exec.timed_out) return false;
  if (cont && def.continue_on.mark_success) {
    n.status = NodeStatus::kSucceeded;
  } else {
    n.error = exec_error;
    last_error_ = exec_error;
    last_error_owner_ = static_cast<int>(index);
  }
  return false;
}

void Executor::WaitUntil(MonoTime when) {
  while (!cancelled_ && !timed_out_ && opt_.clock->Monotonic() < when) {
    cv_.WaitFor(&mu_, std::min<Duration>(opt_.poll_interval, when - opt_.clock->Monotonic()));
  }
}

void Executor::RunNode(size_t index) {
  const Step& def = dag_.steps[index];
  StepLogPaths paths = opt_.log_paths ? opt_.log_paths(def.name) : StepLogPaths{};
  VarList outputs;
  StepRefs refs;
  {
    MutexLock l(&mu_);
    NodeState& n = state_.nodes[index];
    n.stdout_path = paths.stdout_path;
    n.stderr_path = paths.stderr_path;
    n.started_at = opt_.clock->Now();
    n.finished_at.reset();
    n.error.clear();
    outputs = OutputsVisibleTo(index);
    refs = StepRefsNow();
    Touch();
  }
  // The node shows as started at once when its preconditions (commands) are
  // evaluated first; otherwise the record written just before its process
  // starts (below) is the first to show it: one synced record less a step.
  if (!def.preconditions.empty()) Publish();
  const StepEnv::Logs logs{paths.stdout_path, paths.stderr_path};
  const VarList env = env_.ForStep(def, outputs, &logs, "", Runner(ProcKind::kHelper), refs);
  const std::string dir = env_.WorkingDirFor(def, env);
  const OwnedVars owned = env_.Owned(def, outputs, env, refs);
  std::string why;
  const bool met = CheckStepConditions(def, ProcKind::kHelper, owned, env, dir, &why);
  if (met && !dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
  }
  const CommandText text = met ? EvalCommands(def, ProcKind::kHelper, owned, env, dir) : CommandText();
  const bool repeating = def.repeat_policy.enabled;

  RetryPolicy retry = def.retry_policy;
  std::string setup_error;
  if (met) setup_error = ResolveRetryPolicy(&retry);

  mu_.Lock();
  NodeState& n = state_.nodes[index];
  if (!met) {
    n.status = cancelled_ ? NodeStatus::kAborted : NodeStatus::kSkipped;
    n.error = why;
  } else if (!setup_error.empty()) {
    n.status = NodeStatus::kFailed;
    n.error = setup_error;
    last_error_ = setup_error;
    const std::string var = ContinueOnVariable(def.name);
    n.continued = ShouldContinue(def.continue_on, NodeStatus::kFailed, n.exit_code, false);
    if (RecordsContinueDecision(def.continue_on)) n.output_variables[var] = var + (n.continued ? "=true" : "=false");
  }
  while (met && setup_error.empty() && !cancelled_ && !timed_out_) {
    // Each execution starts clean: no error, no continue decision.
    n.error.clear();
    n.output_variables.erase(ContinueOnVariable(def.name));
    StepInvocation inv = MakeInvocation(def, n, env, text, owned);
    n.step.commands = inv.commands;
    n.step.script = inv.script;
    Touch();
    mu_.Unlock();
    Publish();
    Exec exec = RunProcess(RunnerFor(def), inv, ProcKind::kStep, def.timeout, repeating, &n.children);
    if (!def.continue_on.output.empty()) {
      std::string log;
      if (!n.stdout_path.empty() && PosixFileSystem()->ReadFile(n.stdout_path, &log).ok()) {
        exec.output_matches = OutputMatches(def.continue_on.output, log);
      }
    }
    mu_.Lock();
    if (ApplyExecution(index, exec, retry)) {
      // The retry is due its interval after the failure was recorded, not
      // after the publish below (read under the same lock as retry_count).
      const RetryPolicy& rp = retry;
      const MonoTime retry_due =
          opt_.clock->Monotonic() + BackoffInterval(rp.interval, rp.backoff, rp.max_interval, n.retry_count - 1);
      Touch();
      mu_.Unlock();
      Publish();
      mu_.Lock();
      WaitUntil(retry_due);
      n.retried_at = opt_.clock->Now();
      n.status = NodeStatus::kRunning;
      continue;
    }
    if (n.status != NodeStatus::kAborted) n.done_count++;
    if (!repeating || cancelled_ || n.status == NodeStatus::kAborted) break;
    RepeatInput in;
    in.done_count = n.done_count;
    in.failed = !RawError(exec.result).empty() || exec.timed_out;
    in.exit_code = n.exit_code;
    if (def.repeat_policy.condition && !(def.repeat_policy.limit > 0 && n.done_count >= def.repeat_policy.limit)) {
      // The step's own outputs, read under the lock, are in scope for the
      // condition.
      VarList own_outputs;
      for (const auto& [name, kv] : n.output_variables) {
        auto eq = kv.find('=');
        own_outputs.Set(name, eq == std::string::npos ? kv : kv.substr(eq + 1));
      }
      VarList scope = env;
      for (const auto& [name, value] : own_outputs.items()) scope.Set(name, value);
      OwnedVars with_own = owned;
      with_own.maps.push_back(own_outputs);
      mu_.Unlock();
      std::string ignored;
      in.condition_met = ConditionsMet({*def.repeat_policy.condition}, ProcKind::kHelper, env_.ShellFor(def),
                                       with_own, scope, dir, &ignored);
      mu_.Lock();
    }
    if (!ShouldRepeat(def.repeat_policy, in) || cancelled_) break;
    n.status = NodeStatus::kRunning;
    if (last_error_owner_ == static_cast<int>(index)) {
      last_error_.clear();
      last_error_owner_ = -1;
    }
    Touch();
    mu_.Unlock();
    Publish();
    const RepeatPolicy& rp = def.repeat_policy;
    // 1.30.2's lines (the configured interval, not the backoff's).
    RunLogLine(def.name, false, "Step will be repeated", {{"step", def.name}, {"interval", FormatDuration(rp.interval)}});
    mu_.Lock();
    WaitUntil(opt_.clock->Monotonic() + BackoffInterval(rp.interval, rp.backoff, rp.max_interval, n.done_count));
    if (!cancelled_) {
      mu_.Unlock();
      RunLogLine(def.name, false, "Repeating step", {{"step", def.name}});
      mu_.Lock();
    }
  }
  if (n.status == NodeStatus::kRunning) {
    n.status = (!repeating && (cancelled_ || timed_out_)) ? NodeStatus::kAborted : NodeStatus::kSucceeded;
  }
  n.finished_at = opt_.clock->Now();
  if (n.status != NodeStatus::kFailed) n.continued = ShouldContinue(def.continue_on, n.status, n.exit_code, false);
  running_--;
  Touch();
  cv_.NotifyAll();
  mu_.Unlock();
  Publish();
}

void Executor::HandlerWorker(NodeState* node, std::string status_label, bool* ok) {
  StepLogPaths paths = opt_.log_paths ? opt_.log_paths(node->step.name) : StepLogPaths{};
  VarList outputs;
  bool timed_out;
  {
    MutexLock l(&mu_);
    node->stdout_path = paths.stdout_path;
    node->stderr_path = paths.stderr_path;
    node->started_at = opt_.clock->Now();
    outputs = AllOutputs();
    timed_out = timed_out_;
    Touch();
  }
  Publish();
  const Step& def = node->step;
  StepRefs refs;
  {
    MutexLock l(&mu_);
    refs = StepRefsNow();
  }
  VarList env = env_.ForStep(def, outputs, nullptr, status_label, Runner(ProcKind::kHandler), refs);
  {
    MutexLock l(&mu_);
    for (const auto& [name, value] : handler_env_) env.Set(name, value);
  }
  const std::string dir = env_.WorkingDirFor(def, env);
  const OwnedVars owned = env_.Owned(def, outputs, env, refs);
  std::string why;
  bool met = !timed_out && CheckStepConditions(def, ProcKind::kHandler, owned, env, dir, &why);
  std::string error;
  NodeStatus status = NodeStatus::kSucceeded;
  if (timed_out) {
    error = kDeadlineExceeded;
    status = NodeStatus::kFailed;
  } else if (!met) {
    status = NodeStatus::kSkipped;
  } else {
    if (!dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
    }
    StepInvocation inv =
        MakeInvocation(def, *node, env, EvalCommands(def, ProcKind::kHandler, owned, env, dir), owned);
    {
      MutexLock l(&mu_);
      node->status = NodeStatus::kRunning;
      node->step.commands = inv.commands;
      node->step.script = inv.script;
      Touch();
    }
    Publish();
    Exec exec = RunProcess(RunnerFor(def), inv, ProcKind::kHandler, def.timeout, false, &node->children);
    error = RawError(exec.result);
    if (exec.timed_out && error.empty()) error = "step timed out";
    MutexLock l(&mu_);
    node->exit_code = exec.result.exit_code;
    if (exec.result.started && !def.output.empty()) {
      node->output_variables[def.output] = def.output + "=" + std::string(TrimSpace(exec.result.captured_stdout));
    }
    if (!error.empty()) status = NodeStatus::kFailed;
  }
  MutexLock l(&mu_);
  node->status = status;
  node->error = error;
  node->finished_at = opt_.clock->Now();
  *ok = error.empty();
  if (!error.empty()) last_error_ = error;
  handler_running_ = false;
  Touch();
  cv_.NotifyAll();
}

bool Executor::RunHandler(std::optional<NodeState>* slot, const std::string& status_label) {
  if (!slot->has_value()) return true;
  NodeState* node = &**slot;
  bool ok = true;
  handler_running_ = true;
  StartWorker([this, node, status_label, &ok] {
    HandlerWorker(node, status_label, &ok);
    Publish();
  });
  while (handler_running_) {
    ApplyTimers();
    WaitForEvent();
  }
  return ok;
}

// ---------------------------------------------------------------------------
// The loop

bool Executor::Schedule(bool* pending) {
  *pending = false;
  if (cancelled_) return false;
  bool changed = false;
  MonoTime now = opt_.clock->Monotonic();
  for (size_t i = 0; i < state_.nodes.size(); ++i) {
    NodeState& n = state_.nodes[i];
    if (n.status != NodeStatus::kNotStarted) continue;
    Readiness r;
    if (!only_step_.empty() && n.step.name == only_step_) {
      r.kind = Readiness::kReady;
    } else {
      std::vector<DependencyView> deps;
      for (size_t d : deps_[i]) deps.push_back({state_.nodes[d].status, state_.nodes[d].continued});
      r = DependencyReadiness(deps);
    }
    switch (r.kind) {
      case Readiness::kWait:
        continue;
      case Readiness::kAbort:
      case Readiness::kSkip:
        n.status = r.kind == Readiness::kAbort ? NodeStatus::kAborted : NodeStatus::kSkipped;
        n.error = r.error;
        n.continued = ShouldContinue(n.step.continue_on, n.status, 0, false);
        changed = true;
        i = static_cast<size_t>(-1);  // a decided node may decide others before it in the list
        continue;
      case Readiness::kReady:
        break;
    }
    if (timed_out_) {
      n.status = NodeStatus::kAborted;
      n.error = kDeadlineExceeded;
      changed = true;
      continue;
    }
    if ((dag_.max_active_steps > 0 && running_ >= dag_.max_active_steps) ||
        (next_start_allowed_ && now < *next_start_allowed_)) {
      *pending = true;
      continue;
    }
    n.status = NodeStatus::kRunning;
    running_++;
    if (dag_.delay.count() > 0) next_start_allowed_ = now + dag_.delay;
    StartWorker([this, i] { RunNode(i); });
    changed = true;
  }
  return changed;
}

void Executor::ApplyTimers() {
  MonoTime now = opt_.clock->Monotonic();
  if (run_deadline_ && now >= *run_deadline_ && !timed_out_) {
    timed_out_ = true;
    if (last_error_.empty()) last_error_ = kDeadlineExceeded;
    for (auto& p : procs_) {
      if (p.kind == ProcKind::kHandler) continue;
      p.dag_timeout = true;
      p.step->Signal(SIGKILL);
    }
    Touch();
    cv_.NotifyAll();
  }
  for (auto& p : procs_) {
    if (p.deadline && now >= *p.deadline && !p.timed_out && !p.stopped) {
      p.timed_out = true;
      p.step->Signal(SIGKILL);
    }
    if (p.kill_at && now >= *p.kill_at) {
      p.kill_at.reset();
      p.step->Signal(SIGKILL);
    }
  }
}

void Executor::WaitForEvent() {
  if (version_ != loop_seen_version_) {
    loop_seen_version_ = version_;
    mu_.Unlock();
    Publish();
    mu_.Lock();
    return;
  }
  MonoTime now = opt_.clock->Monotonic();
  Duration wait = opt_.poll_interval;
  auto consider = [&](const std::optional<MonoTime>& t) {
    if (t) wait = std::min(wait, std::max(Duration(0), *t - now));
  };
  if (!timed_out_) consider(run_deadline_);
  consider(next_start_allowed_);
  for (const auto& p : procs_) {
    consider(p.deadline);
    consider(p.kill_at);
  }
  cv_.WaitFor(&mu_, wait);
}

bool Executor::AnyWaiting() const {
  return std::any_of(state_.nodes.begin(), state_.nodes.end(),
                     [](const NodeState& n) { return n.status == NodeStatus::kWaiting; });
}

bool Executor::AllFinished() const {
  return std::none_of(state_.nodes.begin(), state_.nodes.end(), [](const NodeState& n) {
    return n.status == NodeStatus::kNotStarted || n.status == NodeStatus::kRunning;
  });
}

std::vector<NodeView> Executor::NodeViews() const {
  std::vector<NodeView> views;
  for (const auto& n : state_.nodes) views.push_back({n.status, n.continued, n.step.continue_on.mark_success});
  return views;
}

void Executor::Cancel(int signal, bool use_step_signal) {
  MutexLock l(&mu_);
  if (!stop_requested_) {
    stop_requested_ = true;
    cancel_signal_ = signal;
    use_step_signal_ = use_step_signal;
  }
  cancelled_ = true;
  MonoTime now = opt_.clock->Monotonic();
  for (auto& p : procs_) {
    if (p.stopped) {
      if (signal == SIGKILL) p.step->Signal(SIGKILL);
      continue;
    }
    if (p.kind == ProcKind::kHelper) {
      p.stopped = true;
      p.step->Signal(SIGKILL);
    } else if (p.kind == ProcKind::kStep && !p.repeating) {
      int sig = signal;
      if (sig != SIGKILL && use_step_signal && p.stop_signal != 0) sig = p.stop_signal;
      if (sig != SIGKILL) p.kill_at = now + dag_.max_clean_up_time;
      p.stopped = true;
      p.step->Signal(sig);
    }
  }
  Touch();
  cv_.NotifyAll();
}

RunStatus Executor::Run() {
  {
    MutexLock l(&mu_);
    state_.status = RunStatus::kRunning;
    state_.started_at = opt_.clock->Now();
    if (dag_.timeout.count() > 0) run_deadline_ = opt_.clock->Monotonic() + dag_.timeout;
    Touch();
  }
  Publish();
  env_.BuildRunVars(opt_.base_env, Runner(ProcKind::kHelper));
  {
    MutexLock l(&mu_);
    state_.params.clear();
    for (const auto& [k, v] : env_.params().items()) state_.params.emplace_back(k, v);
    Touch();
  }
  std::string why;
  OwnedVars run_owned;
  run_owned.maps.push_back(env_.params());
  std::string reason;
  const bool met = ConditionsMet(dag_.preconditions, ProcKind::kHelper, env_.ShellFor(Step()), run_owned,
                                 env_.run_vars(), env_.DagWorkingDir(), &why, &reason);
  if (!met) RunLogLine("", false, "Preconditions are not met", {{"err", why.empty() ? reason : why}});

  mu_.Lock();
  if (!met) cancelled_ = true;  // nothing runs; the run ends aborted
  if (!cancelled_ && !RunHandler(&state_.on_init, RunStatusLabel(RunStatus::kRunning))) {
    cancelled_ = true;  // a failed init handler aborts the run (its error is the last error)
  }
  for (;;) {
    ApplyTimers();
    bool pending = false;
    if (Schedule(&pending)) {
      Touch();
      continue;
    }
    if (cancelled_ && running_ == 0) break;
    if (AllFinished()) break;
    // Nothing runs, nothing can start, and a step waits for its approval:
    // the run stops here, waiting (1.30.2's "DAG entering wait status").
    if (running_ == 0 && !pending && AnyWaiting()) {
      mu_.Unlock();
      RunLogLine("", false, "DAG entering wait status - waiting for human approval", {});
      mu_.Lock();
      break;
    }
    if (running_ == 0 && !pending) {
      last_error_ = kDeadlock;
      break;
    }
    WaitForEvent();
  }
  mu_.Unlock();
  JoinWorkers();
  mu_.Lock();

  RunStatus status = FinalRunStatus(NodeViews(), cancelled_, !last_error_.empty());
  if (status == RunStatus::kWaiting || status == RunStatus::kRejected) {
    // Only the wait handler runs (a rejected run: 1.30.2 would run the
    // failure and exit handlers, but no run of its ends rejected: a
    // rejection is written by the API, never by a running agent).
    if (status == RunStatus::kWaiting && state_.on_wait.has_value()) {
      std::string names;
      for (const auto& n : state_.nodes) {
        if (n.status == NodeStatus::kWaiting) names += (names.empty() ? "" : ",") + n.step.name;
      }
      mu_.Unlock();
      RunLogLine("", false, "Executing onWait handler", {{"waitingSteps", names}});
      mu_.Lock();
      handler_env_ = {{"DAG_WAITING_STEPS", names}};
      RunHandler(&state_.on_wait, RunStatusLabel(status));
      handler_env_.clear();
    }
    if (status == RunStatus::kWaiting) {
      mu_.Unlock();
      RunLogLine("", false, "DAG waiting for approval", {});
      mu_.Lock();
    }
    state_.status = status;
    state_.finished_at = opt_.clock->Now();
    Touch();
    mu_.Unlock();
    JoinWorkers();
    Publish();
    return status;
  }
  std::optional<NodeState>* handler = IsSuccess(status)              ? &state_.on_success
                                      : status == RunStatus::kFailed ? &state_.on_failure
                                                                     : &state_.on_cancel;
  RunHandler(handler, RunStatusLabel(status));
  status = FinalRunStatus(NodeViews(), cancelled_, !last_error_.empty());  // the exit handler sees a failed one
  RunHandler(&state_.on_exit, RunStatusLabel(status));
  status = FinalRunStatus(NodeViews(), cancelled_, !last_error_.empty());
  state_.status = status;
  state_.finished_at = opt_.clock->Now();
  Touch();
  mu_.Unlock();
  JoinWorkers();
  Publish();
  return status;
}

}  // namespace dagu
