#include "agent/executor.h"

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <thread>

#include "core/file_system.h"
#include "core/time_format.h"
#include "core/json_text.h"

namespace dagu {
namespace {

constexpr size_t kHandlerIndex = static_cast<size_t>(-1);

// Go's names for signals in "signal: <name>" errors.
std::string SignalText(int sig) {
  switch (sig) {
    case SIGTERM: return "signal: terminated";
    case SIGKILL: return "signal: killed";
    case SIGINT: return "signal: interrupt";
    case SIGHUP: return "signal: hangup";
    case SIGQUIT: return "signal: quit";
    case SIGUSR1: return "signal: user defined signal 1";
    case SIGUSR2: return "signal: user defined signal 2";
    default: return "signal: " + std::to_string(sig);
  }
}

// "SIGINT" -> SIGINT; 0 when unknown or empty.
int SignalNumber(const std::string& name) {
  static const std::pair<const char*, int> kSignals[] = {
      {"SIGTERM", SIGTERM}, {"SIGINT", SIGINT},   {"SIGKILL", SIGKILL}, {"SIGHUP", SIGHUP},
      {"SIGQUIT", SIGQUIT}, {"SIGUSR1", SIGUSR1}, {"SIGUSR2", SIGUSR2}, {"SIGABRT", SIGABRT}};
  for (const auto& [n, v] : kSignals) {
    if (name == n) return v;
  }
  return 0;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool Contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

struct Executor::Running {
  size_t index = 0;
  NodeState* node = nullptr;
  std::unique_ptr<RunningStep> step;
  std::thread worker;
  bool done = false;
  StepResult result;
  std::optional<MonoTime> deadline;  // step timeout
  std::optional<MonoTime> kill_at;   // SIGKILL after a stop signal
  bool stopped = false;
  bool timed_out = false;
};

Executor::Executor(const Dag& dag, const Params& params, ExecutorOptions options)
    : dag_(dag), params_(params), opt_(std::move(options)) {
  for (size_t i = 0; i < dag_.steps.size(); ++i) {
    NodeState n;
    n.step = dag_.steps[i];
    state_.nodes.push_back(std::move(n));
    index_[dag_.steps[i].name] = i;
  }
  auto handler = [](const std::optional<Step>& s, const char* name) -> std::optional<NodeState> {
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
}

Executor::~Executor() {
  for (auto& r : running_) {
    if (r->worker.joinable()) {
      r->step->Signal(SIGKILL);
      r->worker.join();
    }
  }
}

Duration Executor::RetryDelay(const RetryPolicy& policy, int n) {
  double factor = policy.backoff > 1.0 ? std::pow(policy.backoff, n - 1) : 1.0;
  auto d = Duration(static_cast<int64_t>(static_cast<double>(policy.interval.count()) * factor));
  if (policy.max_interval.count() > 0 && d > policy.max_interval) d = policy.max_interval;
  return d;
}

bool Executor::MatchesExpected(const std::string& value, const std::string& expected) {
  if (expected.rfind("re:", 0) == 0) {
    try {
      return std::regex_search(value, std::regex(expected.substr(3)));
    } catch (const std::regex_error&) {
      return false;
    }
  }
  return value == expected;
}

void Executor::SetPreviousNodes(const std::vector<NodeState>& previous, const std::string& only_step) {
  std::lock_guard<std::mutex> l(mu_);
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
                                    prev->status == NodeStatus::kPartiallySucceeded);
    if (!keep || prev == nullptr) {
      reset[i] = true;
      continue;
    }
    Step step = n.step;
    n = *prev;
    n.step = step;
    if (prev->status == NodeStatus::kFailed) n.continued = ShouldContinue(n);
  }
  if (only_step.empty()) {
    // Everything downstream of a reset step runs again too.
    bool changed = true;
    while (changed) {
      changed = false;
      for (size_t i = 0; i < state_.nodes.size(); ++i) {
        if (reset[i]) continue;
        for (const auto& dep : state_.nodes[i].step.depends) {
          auto it = index_.find(dep);
          if (it != index_.end() && reset[it->second]) {
            reset[i] = changed = true;
            break;
          }
        }
      }
    }
  }
  for (size_t i = 0; i < state_.nodes.size(); ++i) {
    NodeState& n = state_.nodes[i];
    if (reset[i]) {
      Step step = n.step;
      n = NodeState();
      n.step = step;
      continue;
    }
    for (const auto& [name, kv] : n.output_variables) {
      auto eq = kv.find('=');
      outputs_.Set(name, eq == std::string::npos ? kv : kv.substr(eq + 1));
    }
  }
}

void Executor::Notify() {
  if (opt_.observer != nullptr) opt_.observer->OnStateChanged(state_);
}

ExecutionState Executor::state() const {
  std::lock_guard<std::mutex> l(mu_);
  return state_;
}

NodeState* Executor::NodeAt(size_t index) { return &state_.nodes[index]; }

void Executor::Cancel(int signal) {
  std::lock_guard<std::mutex> l(mu_);
  CancelLocked(signal, false);
  cv_.notify_all();
}

void Executor::CancelLocked(int signal, bool timeout) {
  if (!cancelled_) {
    cancelled_ = true;
    timed_out_ = timeout;
    cancel_signal_ = signal;
  }
  MonoTime now = opt_.clock->Monotonic();
  for (auto& r : running_) {
    if (r->done) continue;
    int sig = signal;
    if (sig != SIGKILL) {
      int own = SignalNumber(r->node->step.signal_on_stop);
      if (own != 0) sig = own;
      if (!r->kill_at) r->kill_at = now + dag_.max_clean_up_time;
    }
    r->stopped = true;
    r->step->Signal(sig);
  }
  // Pending retries will not happen: those steps end aborted.
  for (const auto& [index, when] : retry_at_) {
    NodeState& n = state_.nodes[index];
    n.status = NodeStatus::kAborted;
    n.error = SignalText(signal);
    n.finished_at = opt_.clock->Now();
  }
  retry_at_.clear();
}

StepRunner* Executor::RunnerFor(const Step& step) const {
  if (step.executor_type.empty() || opt_.executors == nullptr) {
    if (step.executor_type.empty()) return opt_.runner;
    static const ExecutorRegistry kNone;
    return kNone.FindOrMissing(step.executor_type);
  }
  return opt_.executors->FindOrMissing(step.executor_type);
}

std::string Executor::ShellFor(const Step& step) const {
  if (!step.shell.empty()) return step.shell;
  if (!dag_.shell.empty()) return dag_.shell;
  return opt_.default_shell.empty() ? "sh" : opt_.default_shell;
}

void Executor::BuildBaseVars() {
  for (const auto& [k, v] : opt_.base_env) base_vars_.Set(k, v);
  const std::string shell = ShellFor(Step());
  const std::string dir = dag_.working_dir;
  // dotenv: .env first, then the listed files; relative to the working dir.
  if (!dag_.dotenv_disabled) {
    std::vector<std::string> files{".env"};
    files.insert(files.end(), dag_.dotenv.begin(), dag_.dotenv.end());
    for (const auto& f : files) {
      std::string path = (f.empty() || f[0] == '/' || dir.empty()) ? f : JoinPath(dir, f);
      std::string text;
      if (!PosixFileSystem()->ReadFile(path, &text).ok()) continue;
      for (const auto& [k, v] : ParseDotenv(text)) base_vars_.Set(k, v);
    }
  }
  for (const auto& [k, v] : dag_.env) {
    std::string value = ExpandVars(v, base_vars_.LookupOrEmpty());
    if (value.find('`') != std::string::npos) value = EvalBackticks(value, base_vars_, dir);
    base_vars_.Set(k, value);
  }
  Json params_json = Json::object();
  for (const auto& [k, v] : params_) {
    std::string value = ExpandVars(v, base_vars_.LookupOrEmpty());
    base_vars_.Set(k, value);
    params_json[k] = value;
  }
  base_vars_.Set("DAGU_PARAMS_JSON", JsonText(params_json));
  (void)shell;
}

VarLookup Executor::OwnedLookup(const Step& step) const {
  // Params, outputs and the step's env are substituted into command text;
  // anything else is left for the shell.
  return [this, &step](std::string_view name) -> std::optional<std::string> {
    for (auto it = step.env.rbegin(); it != step.env.rend(); ++it) {
      if (it->first == name) return ExpandVars(it->second, base_vars_.LookupOrEmpty());
    }
    if (auto v = outputs_.Get(name)) return v;
    for (const auto& [k, v] : params_) {
      if (k == name) return base_vars_.Get(k);
    }
    return std::nullopt;
  };
}

VarList Executor::StepEnv(const Step& step, const NodeState& node, const std::string& extra_status) const {
  VarList env = base_vars_;
  for (const auto& [k, v] : outputs_.items()) env.Set(k, v);
  VarList lookup_base = env;
  for (const auto& [k, v] : step.env) env.Set(k, ExpandVars(v, lookup_base.LookupOrEmpty()));
  env.Set("DAG_RUN_STEP_NAME", step.name);
  env.Set("DAG_RUN_STEP_STDOUT_FILE", node.stdout_path);
  env.Set("DAG_RUN_STEP_STDERR_FILE", node.stderr_path);
  if (!extra_status.empty()) env.Set("DAG_RUN_STATUS", extra_status);
  return env;
}

std::string Executor::EvalBackticks(const std::string& text, const VarList& env, const std::string& dir) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = text.find('`', pos);
    size_t close = open == std::string::npos ? std::string::npos : text.find('`', open + 1);
    if (close == std::string::npos) {
      out += text.substr(pos);
      break;
    }
    out += text.substr(pos, open - pos);
    std::string value;
    opt_.runner->Capture(ShellFor(Step()), text.substr(open + 1, close - open - 1), env.ToEnvp(), dir, &value);
    out += value;
    pos = close + 1;
  }
  return out;
}

bool Executor::ConditionsMet(const std::vector<Condition>& conditions, const VarList& env, const std::string& dir,
                             std::string* why) {
  for (const auto& c : conditions) {
    bool met;
    std::string text = ExpandVars(c.condition, env.Lookup());
    if (c.expected.empty()) {
      std::string ignored;
      met = opt_.runner->Capture(ShellFor(Step()), text, env.ToEnvp(), dir, &ignored) == 0;
    } else {
      std::string value = EvalBackticks(text, env, dir);
      met = MatchesExpected(value, c.expected);
    }
    if (c.negate) met = !met;
    if (!met) {
      *why = "precondition not met: " + c.condition + (c.expected.empty() ? "" : " (expected " + c.expected + ")");
      return false;
    }
  }
  return true;
}

std::string Executor::WorkingDirFor(const Step& step, const VarList& env) const {
  std::string base = ExpandVars(dag_.working_dir, env.Lookup());
  if (step.working_dir.empty()) return base;
  std::string dir = ExpandVars(step.working_dir, env.Lookup());
  if (!dir.empty() && dir[0] == '~') {
    if (auto home = env.Get("HOME")) dir = *home + dir.substr(1);
  }
  if (!dir.empty() && dir[0] != '/' && !base.empty()) dir = JoinPath(base, dir);
  return dir;
}

bool Executor::ShouldContinue(const NodeState& node) const {
  const ContinueOn& c = node.step.continue_on;
  if (c.failure) return true;
  if (Contains(c.exit_codes, node.exit_code)) return true;
  if (!c.output.empty() && !node.step.output.empty()) {
    auto value = outputs_.Get(node.step.output);
    for (const auto& pattern : c.output) {
      if (value && (MatchesExpected(*value, pattern) || value->find(pattern) != std::string::npos)) return true;
    }
  }
  return false;
}

bool Executor::DependenciesReady(size_t i) {
  NodeState& node = state_.nodes[i];
  if (!only_step_.empty() && node.step.name == only_step_) return true;
  for (const auto& dep : node.step.depends) {
    auto it = index_.find(dep);
    if (it == index_.end()) continue;
    const NodeState& d = state_.nodes[it->second];
    switch (d.status) {
      case NodeStatus::kSucceeded:
      case NodeStatus::kPartiallySucceeded:
        continue;
      case NodeStatus::kFailed:
        if (d.continued) continue;
        node.status = NodeStatus::kAborted;
        node.error = "upstream failed";
        return false;
      case NodeStatus::kAborted:
      case NodeStatus::kRejected:
        node.status = NodeStatus::kAborted;
        node.error = "upstream failed";
        return false;
      case NodeStatus::kSkipped:
        if (d.step.continue_on.skipped) continue;
        node.status = NodeStatus::kSkipped;
        node.error = "upstream skipped";
        return false;
      default:
        return false;
    }
  }
  return true;
}

void Executor::StartNode(NodeState* node, size_t index, const std::string& extra_status) {
  WallTime wall = opt_.clock->Now();
  MonoTime now = opt_.clock->Monotonic();
  bool retrying = node->status == NodeStatus::kRunning;
  if (!retrying) {
    StepLogPaths paths = opt_.log_paths ? opt_.log_paths(node->step.name) : StepLogPaths{};
    node->stdout_path = paths.stdout_path;
    node->stderr_path = paths.stderr_path;
  }
  const Step& def = index == kHandlerIndex ? node->step : dag_.steps[index];
  VarList env = StepEnv(def, *node, extra_status);
  VarLookup owned = OwnedLookup(def);
  StepInvocation inv;
  inv.step_name = def.name;
  for (const auto& line : def.commands) inv.commands.push_back(ExpandVars(line, owned));
  inv.script = ExpandVars(def.script, owned);
  inv.shell = ShellFor(def);
  inv.shell_args = !def.shell.empty() ? def.shell_args : dag_.shell_args;
  inv.step_shell = !def.shell.empty();
  inv.working_dir = WorkingDirFor(def, env);
  inv.env = env.ToEnvp();
  inv.stdout_path = node->stdout_path;
  inv.stderr_path = node->stderr_path;
  inv.extra_stdout_path = ExpandVars(def.stdout_file, env.Lookup());
  inv.extra_stderr_path = ExpandVars(def.stderr_file, env.Lookup());
  inv.capture_limit = static_cast<size_t>(dag_.max_output_size > 0 ? dag_.max_output_size : 1 << 20);
  inv.executor_type = def.executor_type;
  inv.executor_config_json = def.executor_config_json;
  inv.dag = &dag_;
  inv.step = &def;
  inv.expand = [owned](const std::string& text) { return ExpandVars(text, owned); };
  inv.dag_run_id = opt_.run_id;
  inv.root_dag_name = opt_.root_name.empty() ? dag_.name : opt_.root_name;
  inv.root_dag_run_id = opt_.root_run_id.empty() ? opt_.run_id : opt_.root_run_id;
  inv.repeated = node->done_count > 0 && def.repeat_policy.enabled;
  if (!inv.working_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(inv.working_dir, ec);
  }
  node->step.commands = inv.commands;
  node->step.script = inv.script;
  if (retrying) {
    node->retried_at = wall;
  } else {
    node->status = NodeStatus::kRunning;
    node->started_at = wall;
  }
  node->finished_at.reset();
  node->error.clear();
  auto r = std::make_unique<Running>();
  r->index = index;
  r->node = node;
  r->step = RunnerFor(def)->Start(inv);
  node->children = r->step->SubRuns();
  if (def.timeout.count() > 0) r->deadline = now + def.timeout;
  Running* raw = r.get();
  r->worker = std::thread([this, raw] {
    StepResult result = raw->step->Wait();
    std::lock_guard<std::mutex> l(mu_);
    raw->result = std::move(result);
    raw->done = true;
    cv_.notify_all();
  });
  running_.push_back(std::move(r));
  if (dag_.delay.count() > 0) next_start_allowed_ = now + dag_.delay;
}

void Executor::FinishNode(NodeState* node, const StepResult& result, bool stopped, bool timed_out) {
  const Step& def = node->step;
  node->finished_at = opt_.clock->Now();
  node->done_count++;
  node->exit_code = result.exit_code;
  if (result.started && !def.output.empty()) {
    std::string value = Trim(result.captured_stdout);
    outputs_.Set(def.output, value);
    node->output_variables[def.output] = def.output + "=" + value;
  }
  if (!result.started) {
    node->status = NodeStatus::kFailed;
    node->error = "failed to start step \"" + def.name + "\": " + result.start_error;
  } else if (timed_out) {
    node->status = NodeStatus::kFailed;
    node->exit_code = 124;
    node->error = "step timed out (timeout: " + std::to_string(
        std::chrono::duration_cast<std::chrono::seconds>(def.timeout).count()) + "s)";
    node->continued = ShouldContinue(*node);
    return;
  } else if (stopped) {
    node->status = NodeStatus::kAborted;
    node->error = !result.error.empty() ? result.error
                                        : SignalText(result.term_signal != 0 ? result.term_signal : cancel_signal_);
    return;
  } else if (result.deadline_exceeded) {
    node->status = NodeStatus::kAborted;
    node->error = result.error;
    return;
  } else if (result.output_too_large) {
    node->status = NodeStatus::kFailed;
    node->error = "output of step \"" + def.name + "\" exceeds the maximum output size (" +
                  std::to_string(dag_.max_output_size) + " bytes)";
  } else if (result.exit_code == 0) {
    node->status = result.partially_succeeded ? NodeStatus::kPartiallySucceeded : NodeStatus::kSucceeded;
    return;
  } else {
    node->status = NodeStatus::kFailed;
    node->error = result.term_signal != 0 ? SignalText(result.term_signal)
                                          : "failed to execute step \"" + def.name + "\": " +
                                                (result.error.empty() ? "exit status " + std::to_string(result.exit_code)
                                                                      : result.error);
    if (!result.stderr_tail.empty()) node->error += "\nrecent stderr (tail):\n" + result.stderr_tail;
  }
  // A failure: retry, continue, or stay failed.
  const RetryPolicy& retry = def.retry_policy;
  if (!cancelled_ && node->retry_count < retry.limit &&
      (retry.exit_codes.empty() || Contains(retry.exit_codes, node->exit_code))) {
    node->retry_count++;
    node->status = NodeStatus::kRunning;
    size_t index = 0;
    for (size_t i = 0; i < state_.nodes.size(); ++i) {
      if (&state_.nodes[i] == node) index = i;
    }
    retry_at_[index] = opt_.clock->Monotonic() + RetryDelay(retry, node->retry_count);
    return;
  }
  node->continued = ShouldContinue(*node);
  if (node->continued && def.continue_on.mark_success) node->status = NodeStatus::kSucceeded;
}

bool Executor::ReapAndTime() {
  bool changed = false;
  MonoTime now = opt_.clock->Monotonic();
  if (run_deadline_ && now >= *run_deadline_ && !cancelled_) {
    CancelLocked(SIGKILL, true);
    changed = true;
  }
  for (auto it = running_.begin(); it != running_.end();) {
    Running& r = **it;
    if (r.done) {
      r.worker.join();
      r.node->children = r.step->SubRuns();
      FinishNode(r.node, r.result, r.stopped, r.timed_out);
      it = running_.erase(it);
      changed = true;
      continue;
    }
    if (r.deadline && now >= *r.deadline && !r.timed_out && !r.stopped) {
      r.timed_out = true;
      r.step->Signal(SIGKILL);
    }
    if (r.kill_at && now >= *r.kill_at) {
      r.kill_at.reset();
      r.step->Signal(SIGKILL);
    }
    ++it;
  }
  return changed;
}

void Executor::WaitForEvent(std::unique_lock<std::mutex>& lock) {
  MonoTime now = opt_.clock->Monotonic();
  Duration wait = opt_.poll_interval;
  auto consider = [&](const std::optional<MonoTime>& t) {
    if (t) wait = std::min(wait, std::max(Duration(0), *t - now));
  };
  consider(run_deadline_);
  consider(next_start_allowed_);
  for (const auto& [i, t] : retry_at_) consider(t);
  for (const auto& r : running_) {
    if (r->done) return;
    consider(r->deadline);
    consider(r->kill_at);
  }
  cv_.wait_for(lock, wait);
}

void Executor::MainLoop(std::unique_lock<std::mutex>& lock) {
  for (;;) {
    bool changed = ReapAndTime();
    MonoTime now = opt_.clock->Monotonic();
    bool waiting_on_deps = false;  // some step waits for another to finish
    bool throttled = false;        // some step waits for max_active_steps or delay
    for (size_t i = 0; i < state_.nodes.size(); ++i) {
      NodeState& node = state_.nodes[i];
      if (node.status == NodeStatus::kRunning) {
        auto rt = retry_at_.find(i);
        if (rt != retry_at_.end() && now >= rt->second && !cancelled_) {
          retry_at_.erase(rt);
          StartNode(&node, i, "");
          changed = true;
        }
        continue;
      }
      if (node.status != NodeStatus::kNotStarted) continue;
      if (cancelled_) {
        node.status = NodeStatus::kAborted;
        changed = true;
        continue;
      }
      if (!DependenciesReady(i)) {
        if (node.status != NodeStatus::kNotStarted) changed = true;
        else waiting_on_deps = true;
        continue;
      }
      size_t active = running_.size();
      if ((dag_.max_active_steps > 0 && active >= static_cast<size_t>(dag_.max_active_steps)) ||
          (next_start_allowed_ && now < *next_start_allowed_)) {
        throttled = true;
        continue;
      }
      VarList env = StepEnv(node.step, node, "");
      std::string why;
      if (!ConditionsMet(node.step.preconditions, env, WorkingDirFor(node.step, env), &why)) {
        node.status = NodeStatus::kSkipped;
        node.started_at = node.finished_at = opt_.clock->Now();
        changed = true;
        continue;
      }
      StartNode(&node, i, "");
      changed = true;
    }
    if (running_.empty() && retry_at_.empty() && !throttled && !changed) {
      // Nothing runs and nothing can start: steps still waiting depend on
      // each other (a cycle in a hand-made dag.json).
      for (auto& n : state_.nodes) {
        if (n.status != NodeStatus::kNotStarted) continue;
        n.status = NodeStatus::kAborted;
        n.error = "cyclic dependency";
        changed = waiting_on_deps;
      }
    }
    if (changed) Notify();
    if (running_.empty() && retry_at_.empty() && !throttled && !changed) break;
    if (!changed) WaitForEvent(lock);
  }
}

bool Executor::RunHandler(std::optional<NodeState>* slot, const std::string& status_label,
                          std::unique_lock<std::mutex>& lock) {
  if (!slot->has_value()) return true;
  NodeState* node = &**slot;
  StartNode(node, kHandlerIndex, status_label);
  Notify();
  while (!running_.empty() || !retry_at_.empty()) {
    if (ReapAndTime()) {
      Notify();
      continue;
    }
    if (!retry_at_.empty() && opt_.clock->Monotonic() >= retry_at_.begin()->second) {
      retry_at_.clear();
      StartNode(node, kHandlerIndex, status_label);
      continue;
    }
    WaitForEvent(lock);
  }
  return node->status == NodeStatus::kSucceeded;
}

RunStatus Executor::ComputeStatus() const {
  if (timed_out_) return RunStatus::kFailed;
  if (cancelled_) return RunStatus::kAborted;
  bool partial = false;
  for (const auto& n : state_.nodes) {
    if (n.status == NodeStatus::kFailed && !n.continued) return RunStatus::kFailed;
    if (n.status == NodeStatus::kAborted) return RunStatus::kFailed;
    if (n.status == NodeStatus::kFailed && n.continued) partial = true;
    if (n.status == NodeStatus::kPartiallySucceeded) partial = true;
  }
  return partial ? RunStatus::kPartiallySucceeded : RunStatus::kSucceeded;
}

RunStatus Executor::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  state_.status = RunStatus::kRunning;
  state_.started_at = opt_.clock->Now();
  if (dag_.timeout.count() > 0) run_deadline_ = opt_.clock->Monotonic() + dag_.timeout;
  BuildBaseVars();
  Notify();
  std::string why;
  if (!ConditionsMet(dag_.preconditions, base_vars_, ExpandVars(dag_.working_dir, base_vars_.Lookup()), &why)) {
    state_.status = RunStatus::kAborted;
    state_.error = why;
    state_.finished_at = opt_.clock->Now();
    Notify();
    return state_.status;
  }
  bool init_ok = cancelled_ ? true : RunHandler(&state_.on_init, "", lock);
  RunStatus status;
  if (!init_ok && !cancelled_) {
    for (auto& n : state_.nodes) n.status = NodeStatus::kAborted;
    state_.error = "init handler failed";
    status = RunStatus::kFailed;
  } else {
    MainLoop(lock);
    status = ComputeStatus();
  }
  // The stop that ended the steps must not stop the handlers.
  bool was_cancelled = cancelled_;
  run_deadline_.reset();
  std::optional<NodeState>* handler = IsSuccess(status)              ? &state_.on_success
                                      : status == RunStatus::kFailed ? &state_.on_failure
                                                                     : &state_.on_cancel;
  cancelled_ = false;
  timed_out_ = false;
  bool handlers_ok = RunHandler(handler, RunStatusLabel(status), lock);
  handlers_ok = RunHandler(&state_.on_exit, RunStatusLabel(status), lock) && handlers_ok;
  if (!handlers_ok && IsSuccess(status)) status = RunStatus::kFailed;
  cancelled_ = was_cancelled;
  state_.status = status;
  state_.finished_at = opt_.clock->Now();
  Notify();
  return status;
}

}  // namespace dagu
