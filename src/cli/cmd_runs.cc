// The run commands: start, enqueue, dequeue, retry, status, stop. They accept
// Dagu 1.30.2's command lines (docs/cli.md, "Commands"), so the
// Go scheduler and server can drive this binary, e.g.
//   start -q --run-id=<id> --config F <location>
//   retry --run-id=<id> -q <name>
//   dequeue <queue> --dag-run=<name>:<id>
// plus --trigger-type / --schedule-time (as current Dagu) on start and enqueue.
// Exit status: 0 when the command (or the run) succeeded, 1 otherwise, 78 on
// a configuration error. Also defines the helpers of run_support.h that
// dry, exec, restart and cleanup share.
#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <memory>
#include <thread>

#include "agent/agent.h"
#include "agent/dag_ref.h"
#include "agent/params.h"
#include "cli/builtin_executors.h"
#include "cli/commands.h"
#include "cli/help.h"
#include "cli/run_support.h"
#include "cli/run_tree.h"
#include "core/dispatch_deadline.h"
#include "core/dispatch_gate.h"
#include "core/exit_codes.h"
#include "core/signal_waiter.h"
#include "core/time_format.h"
#include "cron/time_zone.h"
#include "dag/dag_loader.h"
#include "retention/history_retention.h"
#include "store/proc_store.h"
#include "store/queue_store.h"
#include "store/run_layout.h"
#include "store/run_operations.h"
#include "store/run_store.h"
#include "store/stale_check.h"

namespace dagu::cli {
int Fail(const std::string& /*command*/, const std::string& message) { return CommandError(message); }

int Setup(const CommonFlags& flags, const std::string& command, RunContext* ctx) {
  if (int rc = LoadConfigForCommand(flags, {}, &ctx->config); rc != kExitOk) return rc;
  ctx->dag_options.base_config = ctx->config.paths.base_config;
  if (!ctx->config.tz.empty()) {
    Status s = LocateZone(ctx->config.tz, &ctx->dag_options.default_zone);
    if (!s.ok()) {
      std::cerr << "dagu " << command << ": configuration error: tz: " << s.message() << "\n";
      return kExitConfig;
    }
  }
  return kExitOk;
}

bool LoadDagArg(const std::string& command, const std::string& arg, RunContext& ctx, Dag* dag) {
  std::string path;
  Status s = FindDagFile(arg, ctx.config.paths.dags_dir, &path);
  if (!s.ok()) {
    Fail(command, s.message());
    return false;
  }
  std::vector<DagError> problems;
  s = LoadDag(path, ctx.dag_options, dag, &problems);
  for (const DagError& e : problems) {
    if (e.is_error() || !s.ok()) std::cerr << e.ToString() << "\n";
  }
  if (!s.ok()) {
    Fail(command, "invalid DAG: " + s.message());
    return false;
  }
  return true;
}

bool ResolveParams(const std::string& command, const Dag& dag, const std::string& p_flag,
                   const std::vector<std::string>& rest, Params* out) {
  std::vector<ParamOverride> overrides;
  Status s = ParseParamText(p_flag, &overrides);
  if (!s.ok()) {
    Fail(command, s.message());
    return false;
  }
  *out = ApplyParamOverrides(ApplyParamOverrides(dag.params, overrides), ParamArgs(rest));
  return true;
}

std::vector<std::pair<std::string, std::string>> ProcessEnvPairs() {
  auto env = ProcessEnvironment();
  return {env.begin(), env.end()};
}

namespace {

bool ResolveTrigger(const std::string& command, const std::string& text, TriggerType fallback, TriggerType* out) {
  *out = fallback;
  if (text.empty()) return true;
  if (!ParseTriggerType(text, out)) {
    Fail(command, "invalid --trigger-type \"" + text +
                      "\" (want scheduler, manual, webhook, subdag, retry or catchup)");
    return false;
  }
  return true;
}

bool ResolveScheduleTime(const std::string& command, const std::string& text, std::string* out) {
  out->clear();
  if (text.empty()) return true;
  WallTime t;
  bool set = false;
  Status s = ParseRFC3339(text, &t, &set);
  if (!s.ok() || !set) {
    Fail(command, "invalid --schedule-time: " + (s.ok() ? std::string("empty") : s.message()));
    return false;
  }
  *out = FormatRFC3339UTC(t);
  return true;
}

// Forwards SIGTERM / SIGINT / SIGHUP to the agent from a thread of its own.
// Construct it before any other thread, so that every thread has the
// signals blocked and only this thread reads them. Its destructor wakes the
// thread at once (no poll period), so the command exits as soon as the run
// has ended.
class SignalForwarder {
 public:
  ~SignalForwarder() {
    signals_.Wake();
    if (thread_.joinable()) thread_.join();
  }
  void Start(Agent* agent) {
    thread_ = std::thread([this, agent] {
      while (int sig = signals_.Wait()) {
        spdlog::info("Received signal {}, stopping the run", sig);
        agent->Stop(sig == SIGHUP ? SIGTERM : sig);
      }
    });
  }

 private:
  SignalWaiter signals_{SIGTERM, SIGINT, SIGHUP};
  std::thread thread_;
};

// As Dagu 1.30.2's agent does when a run starts: the DAG's runs older than
// its histRetentionDays go (the run just prepared is new, so it stays).
void ApplyHistoryRetention(RunContext& ctx, const Dag& dag) {
  RunStore runs = ctx.Runs();
  HistoryRetention retention(PosixFileSystem(), Clock::Real(), &runs);
  std::vector<RunDir> expired;
  std::vector<std::string> removed;
  Status s = retention.Expired(dag.name, dag.hist_retention_days, &expired);
  if (s.ok() && !expired.empty()) s = retention.Remove(dag.name, dag.hist_retention_days, expired, &removed);
  if (!s.ok()) spdlog::error("dag-runs data cleanup failed err=\"{}\"", s.message());
}

}  // namespace

std::string SummaryTree(const RunRecord& record, bool stale) {
  RunRecord shown = record;
  // A running record whose heartbeat is gone is shown failed, as Dagu's
  // readers do (nothing is written).
  if (stale && shown.status == RunStatus::kRunning) shown.status = RunStatus::kFailed;
  RunTreeOptions options;
  options.color = ::isatty(STDOUT_FILENO) == 1;
  return RenderRunTree(shown, PosixFileSystem(), Clock::Real()->Now(), options);
}

void LogToStderr(bool quiet, const char* level, const std::string& msg, const RunLog::Fields& fields) {
  if (quiet) return;
  std::string line = RunLog::FormatLine(Clock::Real()->Now(), level, msg, fields) + "\n";
  (void)!::write(STDERR_FILENO, line.data(), line.size());
}

int RunAgent(const std::string& command, RunContext& ctx, const AgentRequest& request, Summary summary,
             const RunLogging& logging) {
  SignalForwarder signals;
  // On a terminal 1.30.2 draws a progress display on stderr instead of the
  // lines (and no Error line); this binary writes nothing there then.
  RunLogging log_setup = logging;
  log_setup.quiet = logging.quiet || ::isatty(STDERR_FILENO) == 1;
  BuiltinExecutors executors(ctx.config);
  AgentDeps deps;
  deps.fs = PosixFileSystem();
  deps.clock = Clock::Real();
  deps.runner = executors.shell();
  deps.executors = executors.registry();
  deps.dag_runs_dir = ctx.config.paths.dag_runs_dir;
  deps.proc_dir = ctx.config.paths.proc_dir;
  deps.log_dir = ctx.config.paths.log_dir;
  deps.default_shell = ctx.config.default_shell;
  deps.process_env = ProcessEnvPairs();
  if (!log_setup.quiet) {
    deps.log_echo = [](const std::string& line) { (void)!::write(STDERR_FILENO, line.data(), line.size()); };
  }
  deps.log_context = log_setup.context;
  Agent agent(deps);
  if (!log_setup.intro.empty() && !log_setup.intro_file) {
    LogToStderr(log_setup.quiet, "INFO", log_setup.intro, log_setup.intro_fields);
  }
  Status s = agent.Prepare(request);
  if (!s.ok()) return Fail(command, s.message());
  if (!log_setup.intro.empty() && log_setup.intro_file) {
    RunLog::Fields fields = log_setup.intro_fields;
    fields.emplace_back("file", agent.log_path());
    LogToStderr(log_setup.quiet, "INFO", log_setup.intro, fields);
  }
  ApplyHistoryRetention(ctx, agent.dag());
  signals.Start(&agent);
  RunStatus status = agent.Execute();
  RunRecord record = agent.LastRecord();
  (void)status;
  // Dagu 1.30.2's lastError decides: a failed step, handler or setup exits 1;
  // a stopped run, unmet DAG preconditions or a child's partial success exit 0.
  const int rc = agent.EndedWithError() ? kExitFailure : kExitOk;
  if (summary == Summary::kAlways || (summary == Summary::kOnFailure && rc != kExitOk)) {
    std::cout << SummaryTree(record) << "\n";  // after a run, Dagu adds a blank line
  }
  if (rc != kExitOk && !log_setup.quiet) {
    std::cerr << "Error: " << log_setup.error_prefix << "failed to execute the dag-run " << record.name
              << " (dag-run ID: " << record.dag_run_id << "): " << agent.run_error() << "\n";
  }
  return rc;
}

namespace {

// ---- start ----

// The DAG and params of run `run_id` of the DAG `arg` names, as recorded.
bool LoadHistoricRun(RunContext& ctx, const std::string& arg, const std::string& run_id, Dag* dag, Params* params) {
  std::string name = DagNameFromArg(arg, ctx.config.paths.dags_dir, ctx.dag_options);
  RunStore runs = ctx.Runs();
  AttemptDir attempt;
  Json snapshot;
  Status s = runs.ReadLatest(name, run_id, nullptr, &attempt, nullptr);
  if (s.IsNotFound()) {
    Fail("start", "failed to find historic dag-run " + run_id + " for DAG " + name + ": dag-run ID not found: " + run_id);
    return false;
  }
  if (s.ok()) s = runs.ReadDagJson(attempt, &snapshot);
  if (s.ok()) s = SnapshotToDag(snapshot, dag, params);
  if (!s.ok()) {
    Fail("start", "cannot use dag-run " + run_id + " of DAG " + name + " as a template: " + s.message());
    return false;
  }
  return true;
}

struct StartArgs {
  CommonFlags flags;
  std::string params, run_id, name, from_run_id, parent, root, default_working_dir;
  std::string worker_id = "local";
  std::string trigger_type, schedule_time;
  std::string dag;
  std::vector<std::string> rest;
};

// "<DAG name>:<run ID>" of --root / --parent.
bool ParseRunRefArg(const std::string& flag, const std::string& text, RunRef* out) {
  auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    Fail("start", "invalid " + flag + " \"" + text + "\" (want <DAG name>:<run ID>)");
    return false;
  }
  out->name = text.substr(0, colon);
  out->id = text.substr(colon + 1);
  if (Status s = ValidateRunId(out->id); !s.ok()) {
    Fail("start", flag + ": " + s.message());
    return false;
  }
  return true;
}

// `start --root=<name>:<id> --parent=<name>:<id> --run-id=<subId> <file> [-- params]`:
// a child run of a call step (agent_subrun.cc), as Dagu 1.30.2 starts one.
// The params after `--` are one params string ("A=\"x y\" B=1").
int RunStartSubRun(const StartArgs& a, RunContext& ctx) {
  if (!a.from_run_id.empty()) return Fail("start", "--from-run-id cannot be combined with --parent or --root");
  if (a.run_id.empty()) return Fail("start", "dag-run ID must be provided for sub dag-runs (--run-id)");
  AgentRequest req;
  req.mode = AgentRequest::Mode::kStart;
  RunRef root, parent;
  if (!ParseRunRefArg("--root", a.root, &root) || !ParseRunRefArg("--parent", a.parent, &parent)) {
    return kExitFailure;
  }
  req.root = root;
  req.parent = parent;
  ctx.dag_options.skip_base_handlers = true;
  if (!LoadDagArg("start", a.dag, ctx, &req.dag)) return kExitFailure;
  if (Status s = CheckRunnable(req.dag); !s.ok()) return Fail("start", s.message());
  if (!a.name.empty()) req.dag.name = a.name;
  std::string text = a.params;
  for (const std::string& word : a.rest) text += (text.empty() ? "" : " ") + word;
  std::vector<ParamOverride> overrides;
  if (Status s = ParseParamText(text, &overrides); !s.ok()) return Fail("start", s.message());
  req.params = ApplyParamOverrides(req.dag.params, overrides);
  req.run_id = a.run_id;
  if (Status s = ValidateRunId(req.run_id); !s.ok()) return Fail("start", s.message());
  req.trigger = TriggerType::kSubDag;
  req.worker_id = a.worker_id;
  // 1.30.2's sub-run writes its lines to its run log only (the call step's
  // stderr log stays empty).
  RunLogging logging;
  logging.quiet = true;
  return RunAgent("start", ctx, req, a.flags.quiet ? Summary::kNever : Summary::kAlways, logging);
}

// What an armed run (core/dispatch_gate.h) did before its gate: the DAG as
// it loaded then, and the files it came from as they were.
struct ArmedLoad {
  bool loaded = false;
  Dag dag;
  std::vector<std::pair<std::string, std::optional<FileInfo>>> files;
};

std::optional<FileInfo> StatOrNull(const std::string& path) {
  FileInfo info;
  if (path.empty() || !PosixFileSystem()->Stat(path, &info).ok()) return std::nullopt;
  return info;
}

bool SameFile(const std::optional<FileInfo>& a, const std::optional<FileInfo>& b) {
  if (!a || !b) return !a && !b;
  return SameFileVersion(*a, *b);
}

// Loads the DAG quietly ahead of the gate; whatever it reports is reported
// after the gate by the load a cold start does.
void LoadBeforeGate(const std::string& arg, RunContext& ctx, ArmedLoad* out) {
  std::string path;
  if (!FindDagFile(arg, ctx.config.paths.dags_dir, &path).ok()) return;
  for (const std::string& f : {path, ctx.dag_options.base_config}) out->files.emplace_back(f, StatOrNull(f));
  std::vector<DagError> problems;
  out->loaded = LoadDag(path, ctx.dag_options, &out->dag, &problems).ok();
}

bool UnchangedSinceGate(const ArmedLoad& armed) {
  if (!armed.loaded) return false;
  for (const auto& [path, info] : armed.files) {
    if (!SameFile(info, StatOrNull(path))) return false;
  }
  return true;
}

int RunStart(const StartArgs& a) {
  DispatchFence fence = TakeDispatchFence();  // set by a scheduler that spawned us
  DispatchGate gate = TakeDispatchGate();     // set when it armed us ahead of a slot
  RunContext ctx;
  if (int rc = Setup(a.flags, "start", &ctx); rc != kExitOk) return rc;
  ctx.dag_options.default_working_dir = a.default_working_dir;
  if (!a.parent.empty() || !a.root.empty()) return RunStartSubRun(a, ctx);
  AgentRequest req;
  req.mode = AgentRequest::Mode::kStart;
  bool preloaded = false;
  if (!gate.empty()) {
    // An armed slot run: everything up to the first write happens before
    // the slot; nothing is written or reported until the gate opens.
    ArmedLoad armed;
    if (a.from_run_id.empty()) LoadBeforeGate(a.dag, ctx, &armed);
    MonoTime deadline;
    if (Status s = gate.Await(&deadline); !s.ok()) {
      spdlog::debug("armed run {}: {}", a.run_id, s.ToString());
      return kExitOk;
    }
    fence.SetDeadline(deadline);
    if (UnchangedSinceGate(armed)) {
      req.dag = std::move(armed.dag);
      preloaded = true;
    }
  }
  if (preloaded) {
    if (!ResolveParams("start", req.dag, a.params, a.rest, &req.params)) return kExitFailure;
  } else if (!a.from_run_id.empty()) {
    // The DAG and params of an earlier run (its latest attempt's dag.json),
    // not the DAG file as it is now.
    if (!a.params.empty() || !a.rest.empty()) return Fail("start", "parameters cannot be provided when using --from-run-id");
    if (!LoadHistoricRun(ctx, a.dag, a.from_run_id, &req.dag, &req.params)) return kExitFailure;
  } else {
    if (!LoadDagArg("start", a.dag, ctx, &req.dag)) return kExitFailure;
    if (!ResolveParams("start", req.dag, a.params, a.rest, &req.params)) return kExitFailure;
  }
  if (Status s = CheckRunnable(req.dag); !s.ok()) return Fail("start", s.message());  // a cycle: no record
  if (!a.name.empty()) req.dag.name = a.name;
  if (!ResolveTrigger("start", a.trigger_type, TriggerType::kManual, &req.trigger)) return kExitFailure;
  if (!ResolveScheduleTime("start", a.schedule_time, &req.schedule_time)) return kExitFailure;
  req.run_id = a.run_id.empty() ? NewUuidV7(Clock::Real()->Now()) : a.run_id;
  if (Status s = ValidateRunId(req.run_id); !s.ok()) return Fail("start", s.message());
  req.worker_id = a.worker_id;
  req.dispatch_fence = std::move(fence);
  RunLogging logging;
  logging.quiet = a.flags.quiet;
  logging.intro = "Executing root dag-run";
  logging.intro_fields = {{"dag", req.dag.name}, {"run-id", req.run_id}, {"params", a.params}};
  return RunAgent("start", ctx, req, a.flags.quiet ? Summary::kNever : Summary::kAlways, logging);
}

void AddStart(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<StartArgs>();
  auto* cmd = app.add_subcommand("start", "Execute a DAG from a DAG definition");
  SetCommandDoc(cmd, {"start [flags] <DAG definition> [-- param1 param2 ...]",
                      "Run a DAG now, in the foreground, as a new DAG-run with a new run ID.\n\n"
                      "Parameters after \"--\" are passed to the run (positional values or\n"
                      "NAME=value pairs) and override the DAG's defaults.\n\n"
                      "Examples:\n"
                      "  dagu start my_dag -- P1=foo P2=bar\n"
                      "  dagu start --name my_custom_name my_dag.yaml -- P1=foo P2=bar\n"
                      "  dagu start --from-run-id=<old run ID> my_dag"});
  AddCommonFlags(cmd, &a->flags);
  cmd->add_option("-p,--params", a->params, kParamsFlagHelp);
  cmd->add_option("-r,--run-id", a->run_id, kNewRunIdFlagHelp);
  cmd->add_option("-N,--name", a->name, kNameFlagHelp);
  cmd->add_option("--from-run-id", a->from_run_id, "Historic dag-run ID to use as the template for a new run");
  cmd->add_option("--parent", a->parent, "[only for sub dag-runs] reference for the parent dag-run");
  cmd->add_option("--root", a->root, "[only for sub dag-runs] reference for the root dag-run");
  cmd->add_option("--default-working-dir", a->default_working_dir,
                  "Default working directory for DAGs without explicit workingDir");
  cmd->add_option("--worker-id", a->worker_id, "Worker ID written to the record (defaults to 'local')");
  cmd->add_option("--trigger-type", a->trigger_type, "scheduler, manual, retry, catchup, ... (default manual)");
  cmd->add_option("--schedule-time", a->schedule_time, "The scheduled slot, RFC3339");
  cmd->add_option("dag", a->dag, "DAG file or name in the DAGs directory")->required();
  cmd->add_option("params", a->rest, "Params after --, e.g. -- A=1 B=2");
  cmd->callback([a, exit_code] { *exit_code = RunStart(*a); });
}

// ---- enqueue ----

struct EnqueueArgs {
  CommonFlags flags;
  std::string params, run_id, name, queue, default_working_dir, trigger_type, schedule_time;
  std::string dag;
  std::vector<std::string> rest;
};

int RunEnqueue(const EnqueueArgs& a) {
  RunContext ctx;
  if (int rc = Setup(a.flags, "enqueue", &ctx); rc != kExitOk) return rc;
  if (!ctx.config.queues.enabled) return Fail("enqueue", "queues are disabled (queues.enabled is false)");
  Dag dag;
  if (!LoadDagArg("enqueue", a.dag, ctx, &dag)) return kExitFailure;
  if (!a.name.empty()) dag.name = a.name;
  EnqueueRequest req;
  req.dag = &dag;
  if (!ResolveParams("enqueue", dag, a.params, a.rest, &req.params)) return kExitFailure;
  if (!ResolveTrigger("enqueue", a.trigger_type, TriggerType::kManual, &req.trigger)) return kExitFailure;
  if (!ResolveScheduleTime("enqueue", a.schedule_time, &req.schedule_time)) return kExitFailure;
  req.run_id = a.run_id.empty() ? NewUuidV7(Clock::Real()->Now()) : a.run_id;
  if (Status s = ValidateRunId(req.run_id); !s.ok()) return Fail("enqueue", s.message());
  req.queue = a.queue;
  req.log_root = ctx.config.paths.log_dir;
  RunStore runs = ctx.Runs();
  QueueStore queues = ctx.Queues();
  RunOperations ops(PosixFileSystem(), Clock::Real(), &runs, &queues);
  EnqueuedRun out;
  Status s = ops.Enqueue(req, &out);
  if (!s.ok()) return Fail("enqueue", s.message());
  spdlog::info("Enqueued dag-run queue={} dag={} run-id={} priority=1", out.item.queue, dag.name, req.run_id);
  return kExitOk;
}

void AddEnqueue(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<EnqueueArgs>();
  auto* cmd = app.add_subcommand("enqueue", "Enqueue a DAG-run to the queue.");
  SetCommandDoc(cmd, {"enqueue [flags] <DAG definition> [-- param1 param2 ...]",
                      "Put a new DAG-run of a DAG in its queue (needs queues.enabled); the active\n"
                      "scheduler starts it when the queue has room.\n\n"
                      "Examples:\n"
                      "  dagu enqueue --run-id=run_id my_dag -- P1=foo P2=bar\n"
                      "  dagu enqueue --name my_custom_name my_dag.yaml -- P1=foo P2=bar"});
  AddCommonFlags(cmd, &a->flags);
  cmd->add_option("-p,--params", a->params, kParamsFlagHelp);
  cmd->add_option("-r,--run-id", a->run_id, kNewRunIdFlagHelp);
  cmd->add_option("-N,--name", a->name, kNameFlagHelp);
  cmd->add_option("-u,--queue", a->queue, "Override the DAG-level queue definition");
  cmd->add_option("--default-working-dir", a->default_working_dir,
                  "Default working directory for DAGs without explicit workingDir");
  cmd->add_option("--trigger-type", a->trigger_type, "scheduler, manual, retry, catchup, ... (default manual)");
  cmd->add_option("--schedule-time", a->schedule_time, "The scheduled slot, RFC3339");
  cmd->add_option("dag", a->dag, "DAG file or name in the DAGs directory")->required();
  cmd->add_option("params", a->rest, "Params after --, e.g. -- A=1 B=2");
  cmd->callback([a, exit_code] { *exit_code = RunEnqueue(*a); });
}

// ---- dequeue ----

struct DequeueArgs {
  CommonFlags flags;
  std::string queue, dag_run, params;
};

int RunDequeue(const DequeueArgs& a) {
  RunContext ctx;
  if (int rc = Setup(a.flags, "dequeue", &ctx); rc != kExitOk) return rc;
  RunStore runs = ctx.Runs();
  QueueStore queues = ctx.Queues();
  RunOperations ops(PosixFileSystem(), Clock::Real(), &runs, &queues);
  std::string name, id;
  if (!a.dag_run.empty()) {
    auto colon = a.dag_run.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == a.dag_run.size()) {
      return Fail("dequeue", "invalid --dag-run \"" + a.dag_run + "\" (want <name>:<run ID>)");
    }
    name = a.dag_run.substr(0, colon);
    id = a.dag_run.substr(colon + 1);
  } else {
    if (a.queue.empty()) return Fail("dequeue", "give a queue name or --dag-run=<name>:<run ID>");
    std::vector<QueueItem> items;
    Status s = queues.List(a.queue, &items);
    if (!s.ok()) return Fail("dequeue", s.message());
    if (items.empty()) return Fail("dequeue", "queue \"" + a.queue + "\" is empty");
    if (items[0].dag_name.empty()) return Fail("dequeue", "cannot read queue item " + items[0].path);
    name = items[0].dag_name;
    id = items[0].run_id;
  }
  Status s = ops.Dequeue(a.queue, name, id);
  if (!s.ok()) return Fail("dequeue", s.message());
  spdlog::info("Dequeued dag-run dag={} run-id={}", name, id);
  return kExitOk;
}

void AddDequeue(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<DequeueArgs>();
  auto* cmd = app.add_subcommand("dequeue", "Dequeue a DAG-run from the specified queue");
  SetCommandDoc(cmd, {"dequeue [flags] <queue-name>",
                      "Remove a queued DAG-run from its queue; it is recorded as aborted. Without\n"
                      "--dag-run the oldest item of the queue is removed.\n\n"
                      "Example:\n"
                      "\tdagu dequeue default --dag-run=dag_name:my_dag_run_id\n"
                      "\tdagu dequeue default"});
  // -d is --dag-run here, as in Dagu: --dags has no short form.
  AddCommonFlags(cmd, &a->flags, false);
  cmd->add_option("--dags", a->flags.dags_dir, "Directory containing DAG files");
  cmd->add_option("-d,--dag-run", a->dag_run, "<DAG-name>:<run-id> to dequeue a dag-run");
  cmd->add_option("-p,--params", a->params, "Accepted as Dagu does; not used");
  cmd->add_option("queue", a->queue, "Queue name (without --dag-run: its oldest item is removed)");
  cmd->callback([a, exit_code] { *exit_code = RunDequeue(*a); });
}

// ---- retry ----

struct RetryArgs {
  CommonFlags flags;
  std::string run_id, step, worker_id = "local";
  std::string dag;
};

int RunRetry(const RetryArgs& a) {
  DispatchFence fence = TakeDispatchFence();  // set by a scheduler that spawned us
  RunContext ctx;
  if (int rc = Setup(a.flags, "retry", &ctx); rc != kExitOk) return rc;
  AgentRequest req;
  req.mode = AgentRequest::Mode::kRetry;
  req.dag_name = DagNameFromArg(a.dag, ctx.config.paths.dags_dir, ctx.dag_options);
  req.run_id = a.run_id;
  req.retry_step = a.step;
  req.worker_id = a.worker_id;
  const char* dispatch = ::getenv("DAGU_QUEUE_DISPATCH_RETRY");
  req.queue_dispatch = dispatch != nullptr && std::string(dispatch) == "1";
  req.dispatch_fence = std::move(fence);
  RunLogging logging;
  logging.quiet = a.flags.quiet;
  logging.intro = "Dag-run retry initiated";
  logging.intro_fields = {{"dag", req.dag_name}, {"run-id", req.run_id}};
  logging.intro_file = true;
  logging.error_prefix = "failed to execute retry: ";
  return RunAgent("retry", ctx, req, a.flags.quiet ? Summary::kNever : Summary::kAlways, logging);
}

void AddRetry(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<RetryArgs>();
  auto* cmd = app.add_subcommand("retry", "Retry a previously executed DAG-run with the same run ID");
  SetCommandDoc(cmd, {"retry [flags] <DAG name or file>",
                      "Run an existing DAG-run again as a new attempt under the same run ID: its\n"
                      "failed and aborted steps and what depends on them (or only --step). A\n"
                      "queued run is started this way.\n\n"
                      "Examples:\n"
                      "  dagu retry --run-id=abc123 my_dag\n"
                      "  dagu retry --run-id=abc123 my_dag.yaml"});
  AddCommonFlags(cmd, &a->flags);
  cmd->add_option("-r,--run-id", a->run_id, "Unique dag-run ID to retry a dag-run")->required();
  cmd->add_option("--step", a->step, "Retry only the specified step (optional)");
  cmd->add_option("--worker-id", a->worker_id, "Worker ID written to the record (defaults to 'local')");
  cmd->add_option("dag", a->dag, "DAG name (or file)")->required();
  cmd->callback([a, exit_code] { *exit_code = RunRetry(*a); });
}

// ---- status ----

struct StatusArgs {
  CommonFlags flags;
  std::string run_id;
  std::string dag;
};

int RunStatusCmd(const StatusArgs& a) {
  RunContext ctx;
  if (int rc = Setup(a.flags, "status", &ctx); rc != kExitOk) return rc;
  std::string name = DagNameFromArg(a.dag, ctx.config.paths.dags_dir, ctx.dag_options);
  RunStore runs = ctx.Runs();
  RunDir run;
  AttemptDir attempt;
  RunRecord record;
  Status s = a.run_id.empty() ? runs.LatestRun(name, &run) : runs.FindRun(name, a.run_id, &run);
  if (s.IsNotFound()) {
    return Fail("status", a.run_id.empty() ? "DAG \"" + name + "\" has no runs"
                                           : "no run \"" + a.run_id + "\" of DAG \"" + name + "\"");
  }
  if (s.ok()) s = runs.LatestAttempt(run, &attempt);
  if (s.ok()) s = runs.ReadStatus(attempt, &record);
  if (!s.ok()) return Fail("status", s.message());
  ProcStore procs = ctx.Procs();
  const bool stale = RunningWithoutHeartbeatNow(&runs, &procs, attempt, runs.QueueOf(attempt, name), &record);
  std::cout << SummaryTree(record, stale);
  return kExitOk;
}

void AddStatus(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<StatusArgs>();
  auto* cmd = app.add_subcommand("status", "Display the current status of a DAG-run");
  SetCommandDoc(cmd, {"status [flags] <DAG name>",
                      "Show the status of a DAG-run as a tree of its steps, with their commands,\n"
                      "output and errors, and a last line \"Result: <status>\".\n\n"
                      "Example:\n"
                      "  dagu status --run-id=abc123 my_dag\n"
                      "  dagu status my_dag  # the most recent DAG-run"});
  AddCommonFlags(cmd, &a->flags);
  cmd->add_option("-r,--run-id", a->run_id, "dag-run ID to show (default: the most recent)");
  cmd->add_option("dag", a->dag, "DAG name (or file)")->required();
  cmd->callback([a, exit_code] { *exit_code = RunStatusCmd(*a); });
}

// ---- stop ----

struct StopArgs {
  CommonFlags flags;
  std::string run_id;
  std::string dag;
};

}  // namespace

int StopRun(RunContext& ctx, RunStore& runs, const std::string& name, const std::string& run_id, bool found_by_name,
            bool quiet) {
  AttemptDir attempt;
  RunRecord record;
  Status s = runs.ReadLatest(name, run_id, nullptr, &attempt, &record);
  if (!s.ok()) return Fail("stop", s.message());
  const RunLog::Fields fields = {{"name", name}, {"run-id", run_id}};
  // A waiting run (an approval step) has no process: not running, as 1.30.2 says.
  if (record.status != RunStatus::kRunning) {
    LogToStderr(quiet, "INFO", "The DAG is not running", fields);
    return kExitOk;
  }
  if (found_by_name) LogToStderr(quiet, "INFO", "Found matching DAG run to stop", fields);
  s = runs.RequestCancel(attempt);
  if (!s.ok()) return Fail("stop", s.message());
  ProcStore procs = ctx.Procs();
  const std::string group = runs.QueueOf(attempt, name);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  auto ended = [](const RunRecord& r) { return r.status != RunStatus::kRunning; };
  while (std::chrono::steady_clock::now() < deadline) {
    RunRecord now;
    if (runs.ReadStatus(attempt, &now).ok()) {
      // "Running without a live process" has one home (store/stale_check.h):
      // it reads the record again, so a run that ended between the read and
      // the heartbeat check is not taken for a dead one.
      if (!ended(now) && RunningWithoutHeartbeatNow(&runs, &procs, attempt, group, &now)) {
        return Fail("stop", "run \"" + run_id + "\" has no live process (its record says running)");
      }
      if (ended(now)) {
        // 1.30.2's words; here the request goes through the run's cancel file.
        LogToStderr(quiet, "INFO", "Successfully stopped DAG via socket", fields);
        return kExitOk;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Fail("stop", "run \"" + run_id + "\" did not stop within 60s");
}

namespace {

int RunStop(const StopArgs& a) {
  RunContext ctx;
  if (int rc = Setup(a.flags, "stop", &ctx); rc != kExitOk) return rc;
  std::string name = DagNameFromArg(a.dag, ctx.config.paths.dags_dir, ctx.dag_options);
  RunStore runs = ctx.Runs();
  const bool quiet = a.flags.quiet;
  LogToStderr(quiet, "INFO", "Dag-run is stopping", {{"dag", name}});
  LogToStderr(quiet, "INFO", "Stopping DAG", {{"name", name}});
  if (!a.run_id.empty()) {
    int rc = StopRun(ctx, runs, name, a.run_id, /*found_by_name=*/false, quiet);
    if (rc == kExitOk) LogToStderr(quiet, "INFO", "Dag-run stopped", {{"dag", name}});
    return rc;
  }
  // Every live run of the DAG in its proc group.
  std::string group = name;
  RunDir latest;
  AttemptDir attempt;
  if (runs.LatestRun(name, &latest).ok() && runs.LatestAttempt(latest, &attempt).ok()) {
    group = runs.QueueOf(attempt, name);
  }
  ProcStore procs = ctx.Procs();
  std::vector<ProcEntry> alive;
  Status s = procs.ListAlive(group, &alive);
  if (!s.ok()) return Fail("stop", s.message());
  int rc = kExitOk;
  int found = 0;
  for (const auto& e : alive) {
    if (e.dag_name != name) continue;
    ++found;
    if (StopRun(ctx, runs, name, e.run_id, /*found_by_name=*/true, quiet) != kExitOk) rc = kExitFailure;
  }
  if (found == 0) LogToStderr(quiet, "INFO", "No running DAG runs found", {{"name", name}});
  if (rc == kExitOk) LogToStderr(quiet, "INFO", "Dag-run stopped", {{"dag", name}});
  return rc;
}

void AddStop(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<StopArgs>();
  auto* cmd = app.add_subcommand("stop", "Stop a running DAG-run gracefully");
  SetCommandDoc(cmd, {"stop [flags] <DAG name>",
                      "Stop a running DAG-run: its steps get their stop signal, its handlers run,\n"
                      "and the command waits until the run has ended.\n\n"
                      "Example:\n"
                      "  dagu stop --run-id=abc123 my_dag"});
  AddCommonFlags(cmd, &a->flags);
  cmd->add_option("-r,--run-id", a->run_id, "dag-run ID to stop (default: every running run of the DAG)");
  cmd->add_option("dag", a->dag, "DAG name (or file)")->required();
  cmd->callback([a, exit_code] { *exit_code = RunStop(*a); });
}

}  // namespace

void AddRunCommands(CLI::App& app, int* exit_code) {
  AddStart(app, exit_code);
  AddEnqueue(app, exit_code);
  AddDequeue(app, exit_code);
  AddRetry(app, exit_code);
  AddStatus(app, exit_code);
  AddStop(app, exit_code);
}

}  // namespace dagu::cli
