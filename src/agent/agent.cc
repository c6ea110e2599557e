#include "agent/agent.h"

#include <signal.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cctype>
#include <map>

#include "core/dispatch_deadline.h"
#include "dag/dag_ssh.h"
#include "executors/ssh_executor.h"
#include "core/strings.h"
#include "core/time_format.h"
#include "store/run_layout.h"
#include "store/run_operations.h"
#include "store/status_json.h"
#include "core/json_text.h"
#include "store/sub_runs.h"

namespace dagu {
namespace {

std::string TimeOrEmpty(const std::optional<WallTime>& t) { return t ? FormatRFC3339Local(*t) : ""; }

std::optional<WallTime> ParseOptTime(const std::string& text) {
  WallTime t;
  if (ParseRecordTime(text, &t)) return t;
  return std::nullopt;
}

NodeRecord ToNodeRecord(const NodeState& n) {
  NodeRecord r;
  r.step = StepToSnapshot(n.step);
  // An approval step keeps its config: the approve endpoint reads `required`
  // from the record, as 1.30.2's does.
  if (n.step.call.empty() && n.step.executor_type != "hitl") r.step.erase("executorConfig");
  r.stdout_path = n.stdout_path;
  r.stderr_path = n.stderr_path;
  r.started_at = TimeOrEmpty(n.started_at);
  r.finished_at = TimeOrEmpty(n.finished_at);
  r.status = n.status;
  r.retried_at = TimeOrEmpty(n.retried_at);
  r.retry_count = n.retry_count;
  r.done_count = n.done_count;
  r.error = n.error;
  r.output_variables = n.output_variables;
  SetNodeSubRuns(&r, n.children);
  if (!n.approval_json.empty()) {
    Json approval = Json::parse(n.approval_json, nullptr, false);
    if (approval.is_object()) {
      for (auto it = approval.begin(); it != approval.end(); ++it) r.extra[it.key()] = it.value();
    }
  }
  return r;
}

// "MY_VAR" -> "myVar", "ANSWER" -> "answer" (Dagu's outputs.json keys).
std::string LowerCamel(const std::string& name) {
  std::string out;
  bool upper_next = false;
  for (char c : name) {
    if (c == '_' || c == '-') {
      upper_next = !out.empty();
      continue;
    }
    unsigned char u = static_cast<unsigned char>(c);
    out += static_cast<char>(upper_next ? std::toupper(u) : std::tolower(u));
    upper_next = false;
  }
  return out;
}

}  // namespace

NodeState FromNodeRecord(const NodeRecord& r) {
  NodeState n;
  // Only the name and policies matter here; a snapshot we cannot read leaves
  // the defaults, as Dagu's retry does.
  SnapshotToStep(r.step, &n.step).IgnoreError();
  n.status = r.status;
  n.started_at = ParseOptTime(r.started_at);
  n.finished_at = ParseOptTime(r.finished_at);
  n.retried_at = ParseOptTime(r.retried_at);
  n.retry_count = r.retry_count;
  n.done_count = r.done_count;
  n.error = r.error;
  n.stdout_path = r.stdout_path;
  n.stderr_path = r.stderr_path;
  n.output_variables = r.output_variables;
  n.children = NodeSubRuns(r);
  Json approval = Json::object();
  for (const char* key : {"approvedAt", "approvedBy", "approvalInputs", "rejectedAt", "rejectedBy", "rejectionReason"}) {
    if (r.extra.is_object() && r.extra.contains(key)) approval[key] = r.extra[key];
  }
  if (!approval.empty()) n.approval_json = approval.dump();
  return n;
}

class Agent::Observer final : public ExecutionObserver {
 public:
  explicit Observer(Agent* agent) : agent_(agent) {}
  void OnStateChanged(const ExecutionState& state) override {
    agent_->LogRetries(state);
    if (state.finished_at.has_value()) {
      // The final record is written by Execute; a handler that failed last
      // still mails (mail_failure_handler).
      agent_->StepMails(state);
      return;
    }
    agent_->WriteRecord(agent_->ToRecord(state), false);
    agent_->StepMails(state);
  }

 private:
  Agent* agent_;
};

Agent::Agent(AgentDeps deps)
    : deps_(std::move(deps)),
      runs_(deps_.fs, deps_.clock, deps_.dag_runs_dir),
      procs_(deps_.fs, deps_.clock, deps_.proc_dir),
      log_(deps_.clock) {
  log_.SetEcho(deps_.log_echo);
}

Agent::~Agent() {
  for (auto& t : mail_threads_) {
    if (t.joinable()) t.join();
  }
  if (!prepared_) return;
  Cleanup();
}

RunRecord Agent::LastRecord() const {
  std::lock_guard<std::mutex> l(mu_);
  return last_;
}

Status Agent::Prepare(const AgentRequest& request) {
  DAGU_RETURN_IF_ERROR(ValidateRunId(request.run_id));
  Status s = request.parent.has_value()                 ? PrepareSubRun(request)
             : request.mode == AgentRequest::Mode::kStart ? PrepareStart(request)
                                                          : PrepareRetry(request);
  if (s.ok() && !sub_run_) {
    ProcEntry entry;
    s = procs_.Acquire(dag_.ProcGroup(), dag_.name, run_.run_id, &entry);
    if (s.ok()) proc_ = entry;
    else s = s.WithContext("cannot create the heartbeat file");
  }
  if (!s.ok()) {
    prepared_ = true;
    Cleanup();
    prepared_ = false;
    return s;
  }
  prepared_ = true;
  return Status::OK();
}

Status Agent::PrepareLogs(WallTime now) {
  std::string run_log_dir;
  if (!base_.log.empty()) {
    run_log_dir = DirName(base_.log);
  } else {
    const std::string dag_log_dir = ResolveLogDir(dag_.log_dir, deps_.process_env, dag_.env);
    const std::string root = dag_log_dir.empty() ? deps_.log_dir : dag_log_dir;
    run_log_dir = RunLogDir(root, dag_.name, run_.created, run_.run_id);
    base_.log = MainLogPath(run_log_dir, now, run_.run_id);
  }
  attempt_log_dir_ = AttemptLogDir(run_log_dir, attempt_.created, attempt_.attempt_id);
  return deps_.fs->MakeDirs(attempt_log_dir_, 0750).WithContext("cannot create the log directory");
}

Status Agent::PrepareStart(const AgentRequest& req) {
  dag_ = req.dag;
  params_ = req.params;
  WallTime now = deps_.clock->Now();
  DAGU_RETURN_IF_ERROR(req.dispatch_fence.Check(deps_.clock->Monotonic(), "run " + req.run_id));
  DAGU_RETURN_IF_ERROR(runs_.CreateRun(dag_.name, req.run_id, now, &run_));
  created_run_ = true;
  SnapshotOptions opt;
  opt.params = params_;
  Json snapshot = DagToSnapshot(dag_, opt);
  DAGU_RETURN_IF_ERROR(runs_.CreateAttempt(run_, &snapshot, &attempt_));
  base_ = InitialRunRecord(dag_, params_, req.run_id, attempt_.attempt_id, RunStatus::kRunning);
  base_.trigger_type = req.trigger;
  base_.schedule_time = req.schedule_time;
  base_.worker_id = req.worker_id;
  base_.pid = static_cast<int>(::getpid());
  return PrepareLogs(now);
}

Status Agent::PrepareRetry(const AgentRequest& req) {
  AttemptDir latest;
  RunRecord rec;
  Status s = runs_.ReadLatest(req.dag_name, req.run_id, &run_, &latest, &rec);
  if (s.IsNotFound()) {
    return Status::NotFound("unknown run ID \"" + req.run_id + "\" of DAG \"" + req.dag_name + "\": " + s.message());
  }
  DAGU_RETURN_IF_ERROR(s);
  Json dag_json;
  DAGU_RETURN_IF_ERROR(runs_.ReadDagJson(latest, &dag_json));
  DAGU_RETURN_IF_ERROR(SnapshotToDag(dag_json, &dag_, &params_).WithContext(latest.DagJsonPath()));
  const bool queued = rec.status == RunStatus::kQueued;
  if (req.queue_dispatch && !queued) {
    return Status::InvalidArgument("run \"" + req.run_id + "\" of DAG \"" + req.dag_name +
                                   "\" is no longer queued (status: " + RunStatusLabel(rec.status) +
                                   "); not starting it");
  }
  if (rec.status == RunStatus::kRunning || rec.status == RunStatus::kWaiting) {
    DAGU_ASSIGN_OR_RETURN(bool alive, procs_.IsRunAlive(dag_.ProcGroup(), dag_.name, req.run_id));
    if (alive) {
      return Status::Busy("run \"" + req.run_id + "\" of DAG \"" + req.dag_name + "\" is still running");
    }
  }
  if (queued) {
    DAGU_RETURN_IF_ERROR(req.dispatch_fence.Check(deps_.clock->Monotonic(), "run " + req.run_id));
    DAGU_RETURN_IF_ERROR(runs_.ClaimDispatch(run_, latest));
  }
  // A waiting run (an approval step) is resumed once: the approval spawns
  // this retry, and two approvals (two web servers, a double click) or an
  // approval and a `dagu retry` must not both run the rest of the DAG. The
  // claim is on the waiting attempt, so a later wait (a new attempt) can be
  // resumed again.
  const bool waiting = rec.status == RunStatus::kWaiting;
  if (waiting) {
    Status claim = runs_.ClaimDispatch(run_, latest);
    if (claim.IsAlreadyExists()) {
      return Status::AlreadyExists("waiting run \"" + req.run_id + "\" of DAG \"" + req.dag_name +
                                   "\" (attempt " + latest.attempt_id + ") was already resumed");
    }
    DAGU_RETURN_IF_ERROR(claim);
  }
  const bool claimed = queued || waiting;
  s = runs_.CreateAttempt(run_, &dag_json, &attempt_);
  if (!s.ok()) {
    if (claimed) runs_.ReleaseDispatch(run_, latest).LogIfError("releasing the dispatch claim of run " + req.run_id);
    return s;
  }
  base_ = InitialRunRecord(dag_, params_, req.run_id, attempt_.attempt_id, RunStatus::kRunning);
  base_.root = rec.root.empty() ? RunRef{dag_.name, req.run_id} : rec.root;
  base_.parent = rec.parent;
  base_.queued_at = rec.queued_at;
  base_.log = rec.log;
  base_.params = rec.params;
  base_.params_list = rec.params_list;
  base_.trigger_type = queued ? rec.trigger_type : TriggerType::kRetry;
  base_.schedule_time = rec.schedule_time;
  base_.worker_id = req.worker_id;
  base_.pid = static_cast<int>(::getpid());
  if (!queued) {
    for (const auto& n : rec.nodes) previous_.push_back(FromNodeRecord(n));
    retry_target_attempt_id_ = latest.attempt_id;
    retry_step_ = req.retry_step;
  }
  s = PrepareLogs(deps_.clock->Now());
  if (!s.ok() && claimed) {
    runs_.ReleaseDispatch(run_, latest).LogIfError("releasing the dispatch claim of run " + req.run_id);
  }
  return s;
}

void Agent::ReleaseHeartbeat() {
  if (!proc_) return;
  procs_.Release(*proc_).LogIfError("removing the heartbeat file " + proc_->path);
  proc_.reset();
}

void Agent::Cleanup() {
  if (sub_run_) SubRunHeartbeat(/*final=*/true).LogIfError("the final heartbeat of this sub dag-run");
  ReleaseHeartbeat();
  if (!ran_ && created_run_) {
    // A start that never ran: leave nothing behind.
    runs_.RemoveRun(run_).LogIfError("removing the run that never ran " + run_.path);
    if (!attempt_log_dir_.empty()) {
      deps_.fs->RemoveAll(attempt_log_dir_).LogIfError("removing " + attempt_log_dir_);
      deps_.fs->RemoveDir(DirName(attempt_log_dir_)).IgnoreError();  // only when empty
    }
    created_run_ = false;
  } else if (!ran_ && !attempt_.path.empty()) {
    deps_.fs->RemoveAll(attempt_.path).LogIfError("removing the attempt that never ran " + attempt_.path);
    if (!attempt_log_dir_.empty()) deps_.fs->RemoveAll(attempt_log_dir_).LogIfError("removing " + attempt_log_dir_);
  }
}

RunRecord Agent::ToRecord(const ExecutionState& state) const {
  RunRecord r = base_;
  r.status = state.status;
  r.created_at = UnixMillis(deps_.clock->Now());
  r.started_at = TimeOrEmpty(state.started_at);
  r.finished_at = TimeOrEmpty(state.finished_at);
  r.error = state.error;
  if (!state.params.empty()) {  // as evaluated, as Dagu records them
    r.params = JoinParams(state.params);
    r.params_list = ParamsToList(state.params);
  }
  r.nodes.clear();
  for (const auto& n : state.nodes) r.nodes.push_back(ToNodeRecord(n));
  auto put = [](const std::optional<NodeState>& n, std::optional<NodeRecord>* out) {
    if (n) *out = ToNodeRecord(*n);
  };
  put(state.on_init, &r.on_init);
  put(state.on_success, &r.on_success);
  put(state.on_failure, &r.on_failure);
  put(state.on_cancel, &r.on_cancel);
  put(state.on_exit, &r.on_exit);
  put(state.on_wait, &r.on_wait);
  secrets_.MaskRecord(&r);
  return r;
}

void Agent::WriteRecord(const RunRecord& record, bool final) {
  // A change the record does not show (a step's thread and the loop both
  // report a step's start) appends nothing: the same record with only a new
  // createdAt would cost a synced write per step for nothing.
  std::string content;
  if (!final) {
    RunRecord same = record;
    same.created_at = 0;
    content = SerializeRunRecord(same);
    std::lock_guard<std::mutex> l(mu_);
    if (content == last_appended_) return;
  }
  Status s = final ? runs_.WriteFinalStatus(attempt_, record) : runs_.AppendStatus(attempt_, record);
  if (!s.ok()) log_.Error("Failed to write status", {{"err", s.ToString()}});
  std::lock_guard<std::mutex> l(mu_);
  last_ = record;
  if (s.ok()) last_appended_ = std::move(content);
}

void Agent::WriteOutputs(const RunRecord& record) {
  // As Dagu 1.30.2: each step's `output:` (not Dagu's own DAGU_* variables),
  // under its key (the name in camelCase unless output.key says), unless
  // output.omit; no file when there is none.
  std::map<std::string, const Step*> steps;
  for (const Step& s : dag_.steps) steps[s.name] = &s;
  std::map<std::string, std::string> values;  // sorted, as Go writes a map
  for (const auto& n : record.nodes) {
    auto it = steps.find(n.step.value("name", ""));
    const Step* def = it == steps.end() ? nullptr : it->second;
    for (const auto& [name, kv] : n.output_variables) {
      if (name.rfind("DAGU_", 0) == 0) continue;
      if (def != nullptr && def->output == name && def->output_omit) continue;
      std::string key = def != nullptr && def->output == name && !def->output_key.empty() ? def->output_key
                                                                                        : LowerCamel(name);
      auto eq = kv.find('=');
      values[key] = eq == std::string::npos ? kv : kv.substr(eq + 1);
    }
  }
  if (values.empty()) return;
  Json outputs = Json::object();
  for (const auto& [k, v] : values) outputs[k] = v;
  Json meta = Json::object();
  meta["dagName"] = record.name;
  meta["dagRunId"] = record.dag_run_id;
  meta["attemptId"] = record.attempt_id;
  meta["status"] = RunStatusLabel(record.status);
  meta["completedAt"] = record.finished_at;
  if (!record.params_list.empty()) meta["params"] = JsonText(Json(record.params_list));
  Status s = runs_.WriteOutputs(attempt_, Json{{"metadata", meta}, {"outputs", outputs}});
  if (!s.ok()) log_.Error("Failed to write outputs", {{"err", s.ToString()}});
}

void Agent::Stop(int signal, bool use_step_signal) {
  stop_mail_ = true;
  container_abort_ = true;
  // Not under mu_: the executor calls back into WriteRecord (which takes
  // mu_) while holding its own lock, so cancelling under mu_ deadlocks a
  // stop that arrives as the run starts. executor_ is set once and lives as
  // long as the agent.
  Executor* executor = nullptr;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!executor_) {
      pending_stop_ = signal;
      pending_stop_use_step_signal_ = use_step_signal;
      return;
    }
    executor = executor_.get();
  }
  executor->Cancel(signal, use_step_signal);
}

std::string Agent::run_error() const {
  std::lock_guard<std::mutex> l(mu_);
  if (!init_error_.empty()) return init_error_;
  return executor_ ? executor_->last_error() : "";
}

RunLog::Fields Agent::LogContext() const {
  // 1.30.2's fields, which repeat the DAG and run ID. The attempt ID is
  // known once Prepare created the attempt (1.30.2 logs it empty); until
  // then the key is left out.
  RunLog::Fields f = deps_.log_context;
  f.insert(f.end(), {{"name", dag_.name}, {"run-id", run_.run_id}});
  if (!attempt_.attempt_id.empty()) f.emplace_back("attempt-id", attempt_.attempt_id);
  f.insert(f.end(), {{"dag", dag_.name}, {"run-id", run_.run_id}});
  if (base_.parent.has_value()) {
    f.emplace_back("root", base_.root.name + ":" + base_.root.id);
    f.emplace_back("parent", base_.parent->name + ":" + base_.parent->id);
  }
  return f;
}

void Agent::LogRetries(const ExecutionState& state) {
  if (logged_retries_.size() < state.nodes.size()) {
    size_t from = logged_retries_.size();
    logged_retries_.resize(state.nodes.size(), 0);
    for (size_t i = from; i < previous_.size() && i < state.nodes.size(); ++i) {
      logged_retries_[i] = previous_[i].retry_count;
    }
  }
  for (size_t i = 0; i < state.nodes.size(); ++i) {
    const NodeState& n = state.nodes[i];
    for (; logged_retries_[i] < n.retry_count; ++logged_retries_[i]) {
      const std::string& step = n.step.name;
      log_.Info("Step execution failed; retrying",
                {{"step", step},
                 {"step", step},
                 {"err", "failed to execute step \"" + step + "\": " + n.error},
                 {"retry", std::to_string(logged_retries_[i])},
                 {"exit-code", std::to_string(n.exit_code)}});
    }
  }
}

bool Agent::EndedWithError() const {
  std::lock_guard<std::mutex> l(mu_);
  if (!init_error_.empty()) return true;  // the run failed before it started (secrets)
  return executor_ && !executor_->stop_requested() && !executor_->last_error().empty();
}

MailLookup Agent::MailVars() const {
  auto vars = std::make_shared<VarList>();
  for (const auto& [k, v] : deps_.process_env) vars->Set(k, v);
  for (const auto& [k, v] : secrets_.Env()) vars->Set(k, v);
  for (const auto& [k, v] : dag_.env) vars->Set(k, ExpandVars(v, vars->LookupOrEmpty()));
  return [vars](std::string_view name) -> std::optional<std::string> { return vars->Get(name).value_or(""); };
}

namespace {

// The run's status as 1.30.2 reports it in a step's (or handler's) mail,
// taken while the run goes on (its Runner.Status): running while a step
// runs or has not started, else what the steps say so far: partially
// succeeded (failures all under continueOn, some success) or failed.
RunStatus StatusForStepMail(const ExecutionState& state) {
  bool successful = false, continued = false, hard = false;
  for (const auto& n : state.nodes) {
    switch (n.status) {
      case NodeStatus::kNotStarted:
      case NodeStatus::kRunning:
      case NodeStatus::kRetrying: return RunStatus::kRunning;
      case NodeStatus::kSucceeded: successful = true; break;
      case NodeStatus::kPartiallySucceeded: successful = continued = true; break;
      case NodeStatus::kFailed:
        if (n.step.continue_on.failure) continued = true;
        else hard = true;
        break;
      default: break;
    }
  }
  return !hard && successful && continued ? RunStatus::kPartiallySucceeded : RunStatus::kFailed;
}

// 1.30.2's picture of the run for a step mail: no finish time yet.
void SetStepMailStatus(const ExecutionState& state, RunRecord* record) {
  record->status = StatusForStepMail(state);
  record->finished_at.clear();
}

}  // namespace

void Agent::StepMails(const ExecutionState& state) {
  step_mailed_.resize(state.nodes.size(), false);
  for (size_t i = 0; i < state.nodes.size() && i < dag_.steps.size(); ++i) {
    if (!dag_.steps[i].mail_on_error || state.nodes[i].status != NodeStatus::kFailed || step_mailed_[i]) continue;
    step_mailed_[i] = true;
    RunRecord record = ToRecord(state);  // the run as it is now
    SetStepMailStatus(state, &record);
    mail_threads_.emplace_back([this, record, vars = MailVars()] { SendStepMail(dag_, record, vars, &log_, &stop_mail_); });
  }
  // A handler with mailOnError that fails mails too, as 1.30.2 reports
  // each handler's end like a step's.
  const std::optional<NodeState>* handlers[] = {&state.on_init, &state.on_success, &state.on_failure,
                                                &state.on_cancel, &state.on_exit};
  for (size_t i = 0; i < std::size(handlers); ++i) {
    const std::optional<NodeState>& h = *handlers[i];
    if (!h.has_value() || !h->step.mail_on_error || h->status != NodeStatus::kFailed || handler_mailed_[i]) continue;
    handler_mailed_[i] = true;
    RunRecord record = ToRecord(state);
    SetStepMailStatus(state, &record);
    mail_threads_.emplace_back([this, record, vars = MailVars()] { SendStepMail(dag_, record, vars, &log_, &stop_mail_); });
  }
}

void Agent::Watch() {
  auto next_beat = deps_.clock->Monotonic() + deps_.heartbeat_interval;
  bool cancel_seen = false;
  std::unique_lock<std::mutex> l(mu_);
  while (!done_) {
    cv_.wait_for(l, deps_.cancel_poll_interval);
    if (done_) break;
    l.unlock();
    if (!cancel_seen && runs_.CancelRequested(attempt_)) {
      cancel_seen = true;
      log_.Info("Stop requested", {{"file", attempt_.CancelPath()}});
      executor_->Cancel(SIGTERM, /*use_step_signal=*/true);
    }
    if ((proc_ || sub_run_) && deps_.clock->Monotonic() >= next_beat) {
      Status s = proc_ ? procs_.Heartbeat(*proc_) : SubRunHeartbeat(/*final=*/false);
      if (!s.ok()) log_.Warn("Failed to refresh the heartbeat", {{"err", s.ToString()}});
      next_beat = deps_.clock->Monotonic() + deps_.heartbeat_interval;
    }
    l.lock();
  }
}

bool Agent::PrepareSecrets() {
  if (dag_.secrets.empty() && !RunSecrets::HasChatKeys(dag_)) return true;
  if (!dag_.secrets.empty()) {
    // 1.30.2 logs this line before it adds the dag / run-id fields to its
    // context: only the name and run ID (and the attempt ID once known).
    RunLog::Fields short_context = deps_.log_context;
    short_context.insert(short_context.end(), {{"name", dag_.name}, {"run-id", run_.run_id}});
    if (!attempt_.attempt_id.empty()) short_context.emplace_back("attempt-id", attempt_.attempt_id);
    log_.SetContext(short_context);  // before the run's threads start
    log_.Info("Resolving secrets", {{"count", std::to_string(dag_.secrets.size())}});
    log_.SetContext(LogContext());
  }
  Status s = secrets_.Resolve(dag_, deps_.process_env);
  if (s.ok()) {
    log_.SetMasker(&secrets_.masker());
    return true;
  }
  FailBeforeStart("failed to resolve secrets: " + s.message());
  return false;
}

bool Agent::PrepareSsh() {
  const std::optional<SshDefaults> ssh = DagSshSettings(dag_);
  if (!ssh.has_value()) return true;
  // 1.30.2 makes the DAG's ssh client as the run starts: a key it cannot
  // read or a missing known_hosts file fails the run before any step.
  const MailLookup vars = MailVars();
  auto expand = [&](const std::string& v) { return ExpandVars(v, vars); };
  const SshDefaults& c = *ssh;
  std::string home = vars("HOME").value_or("");
  std::string key = expand(c.key), known_hosts = expand(c.known_host_file);
  if (known_hosts.empty()) known_hosts = home + "/.ssh/known_hosts";
  else if (known_hosts[0] == '~') known_hosts = home + known_hosts.substr(1);
  if (!key.empty() && key[0] == '~') key = home + key.substr(1);
  std::string why = SshClientError(&key, expand(c.password), c.strict_host_key, known_hosts, home);
  if (why.empty()) return true;
  FailBeforeStart("failed to create ssh client: " + why);
  return false;
}

bool Agent::PrepareContainer() {
  if (dag_.container_json.empty()) return true;
  const MailLookup vars = MailVars();
  auto expand = [vars](const std::string& v) { return ExpandVars(v, vars); };
  run_container_ = std::make_unique<DockerRunContainer>(dag_.container_json, dag_.registry_auths_json,
                                                        expand(dag_.working_dir), vars("HOME").value_or(""), expand,
                                                        &container_abort_);
  std::string docker_host;  // the daemon is found from the process env, as Docker's client does
  for (const auto& [k, v] : deps_.process_env) {
    if (k == "DOCKER_HOST") docker_host = v;
  }
  Status s = run_container_->Start(docker_host);
  if (s.ok()) return true;
  run_container_.reset();
  FailBeforeStart(s.message());
  return false;
}

void Agent::FailBeforeStart(const std::string& error) {
  log_.Error("Failed to initialize DAG execution", {{"err", error}});
  init_error_ = error;
  ExecutionState state;  // as 1.30.2 records it: failed, no step started, no error field
  state.status = RunStatus::kFailed;
  state.started_at = deps_.clock->Now();
  for (const auto& step : dag_.steps) {
    NodeState n;
    n.step = step;
    state.nodes.push_back(std::move(n));
  }
  WriteRecord(ToRecord(state), true);
  ReleaseHeartbeat();
}

void Agent::LogRunFailure() {
  if (!EndedWithError()) return;
  // What 1.30.2's command writes (to the run log and stderr) once the run
  // has failed.
  log_.ErrorNoContext("Failed to execute dag-run", {{"dag", dag_.name}, {"run-id", run_.run_id}, {"err", run_error()}});
}

RunStatus Agent::Execute() {
  ran_ = true;
  Status s = log_.Open(base_.log);
  if (!s.ok()) spdlog::warn("{}", s.ToString());
  log_.SetContext(LogContext());
  if (!PrepareSecrets() || !PrepareSsh() || !PrepareContainer()) {
    LogRunFailure();
    return RunStatus::kFailed;
  }
  if (previous_.empty()) {
    log_.Info("DAG run started", {{"params", GoStringList(base_.params_list)}});
  } else {
    log_.Info("DAG run retry started", {{"retry-target-attempt-id", retry_target_attempt_id_}});
  }

  ExecutorOptions opt;
  opt.clock = deps_.clock;
  opt.runner = secrets_.Wrap(deps_.runner);
  opt.executors = secrets_.Wrap(deps_.executors);
  Observer observer(this);
  opt.observer = &observer;
  opt.base_env = deps_.process_env;
  opt.base_env.emplace_back("DAG_NAME", dag_.name);
  opt.base_env.emplace_back("DAG_RUN_ID", run_.run_id);
  opt.base_env.emplace_back("DAG_RUN_LOG_FILE", base_.log);
  for (const auto& kv : secrets_.Env()) opt.base_env.push_back(kv);
  opt.run_id = run_.run_id;
  opt.messages_dir = run_.MessagesPath();
  opt.root_name = base_.root.name;
  opt.root_run_id = base_.root.id;
  if (run_container_) {
    opt.run_container_id = run_container_->id();
    opt.run_container_exec_json = run_container_->exec_options().dump();
  }
  opt.default_shell = deps_.default_shell;
  if (opt.default_shell.empty()) {
    for (const auto& [k, v] : deps_.process_env) {
      if (k == "SHELL" && !v.empty()) opt.default_shell = v;
    }
  }
  if (opt.default_shell.empty()) opt.default_shell = "sh";
  // logOutput: merged sends a step's stdout and stderr to one .log file.
  std::map<std::string, bool> merged;
  auto note = [&](const Step& step, const std::string& name) {
    merged[name] = (step.log_output.empty() ? dag_.log_output : step.log_output) == "merged";
  };
  for (const Step& step : dag_.steps) note(step, step.name);
  const HandlerOn& h = dag_.handler_on;
  if (h.init) note(*h.init, "onInit");
  if (h.success) note(*h.success, "onSuccess");
  if (h.failure) note(*h.failure, "onFailure");
  if (h.abort) note(*h.abort, "onCancel");
  if (h.exit) note(*h.exit, "onExit");
  // Lines the executor and the runners write (preconditions, a call step's
  // children as they start and end).
  opt.step_log = [this](const std::string& step, bool error, const std::string& message, const RunLogFields& fields) {
    RunLog::Fields f;
    if (!step.empty()) f.emplace_back("step", step);
    f.insert(f.end(), fields.begin(), fields.end());
    if (error) {
      log_.Error(message, f);
    } else {
      log_.Info(message, f);
    }
  };
  opt.log_paths = [this, merged](const std::string& step) {
    std::string base = StepLogBase(attempt_log_dir_, step, deps_.clock->Now(), run_.run_id);
    if (RunLog::LogsStepStart(step)) log_.Info("Step started", {{"step", step}});
    auto it = merged.find(step);
    StepLogPaths paths{base + ".out", base + ".err"};
    if (it != merged.end() && it->second) paths = StepLogPaths{base + ".log", base + ".log"};
    // The files exist from the start, also for a step its preconditions skip
    // (as Dagu creates them).
    for (const std::string& path : {paths.stdout_path, paths.stderr_path}) {
      Status created = deps_.fs->WriteFile(path, "");
      if (!created.ok()) log_.Warn("Failed to create a step log", {{"err", created.ToString()}});
    }
    return paths;
  };
  {
    std::lock_guard<std::mutex> l(mu_);
    executor_ = std::make_unique<Executor>(dag_, params_, opt);
    if (!previous_.empty() || !retry_step_.empty()) executor_->SetPreviousNodes(previous_, retry_step_);
    if (pending_stop_ != 0) executor_->Cancel(pending_stop_, pending_stop_use_step_signal_);
  }
  std::thread watcher([this] { Watch(); });
  RunStatus status = executor_->Run();
  {
    std::lock_guard<std::mutex> l(mu_);
    done_ = true;
  }
  cv_.notify_all();
  watcher.join();

  RunRecord final_record = ToRecord(executor_->state());
  WriteRecord(final_record, true);
  WriteOutputs(final_record);
  for (auto& t : mail_threads_) t.join();
  mail_threads_.clear();
  SendRunMail(dag_, final_record, MailVars(), &log_, &stop_mail_);
  if (run_container_) run_container_->Finish();
  log_.Info("DAG run finished", {{"status", RunStatusLabel(status)},
                                 {"started-at", final_record.started_at},
                                 {"finished-at", final_record.finished_at}});
  LogRunFailure();
  ReleaseHeartbeat();
  if (sub_run_) SubRunHeartbeat(/*final=*/true).LogIfError("the final heartbeat of this sub dag-run");
  return status;
}

}  // namespace dagu
