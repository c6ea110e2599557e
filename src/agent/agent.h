// Agent: one execution of a DAG run, end to end, in Dagu 1.30.2's on-disk
// layout: the run record (a new run, or a new attempt of an existing run),
// the run's log and step logs, status lines as the executor reports changes,
// the heartbeat (proc) file kept fresh until the end, CANCEL_REQUESTED polled
// every second, outputs.json, and the final compacted record.
//
//   Agent agent(deps);
//   Status s = agent.Prepare(request);   // checks + creates; nothing left behind on error
//   if (s.ok()) RunStatus result = agent.Execute();   // blocks until the run ends
//   // from a signal thread: agent.Stop(SIGTERM);
//
// Start (a new run): the run ID is created exclusively (RunStore::CreateRun);
// an existing ID is AlreadyExists. dag.json carries the location.
//
// Retry (a new attempt in the same run dir; this is also how a queued run is
// executed): the DAG comes from the latest attempt's dag.json. When that
// attempt is queued (status 5) this is a dispatch: it takes the run's
// dispatch claim (RunStore::ClaimDispatch) so a queued run starts at most
// once, keeps queuedAt, the trigger type and the log path, and runs every
// step. Otherwise it is a plain retry: failed/aborted steps and their
// dependants run again (or just `retry_step`). `queue_dispatch` (set from
// DAGU_QUEUE_DISPATCH_RETRY=1, as the queue processor of upstream Dagu v2.15.1 sets it) refuses to
// run anything but a queued run. A run whose latest attempt is still running
// with a live heartbeat is refused. A waiting run (an approval step; the
// approval spawns the retry that resumes it) takes the same claim on its
// waiting attempt, so it is resumed at most once per wait.
//
// Thread-safety: Prepare and Execute from one thread; Stop from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "agent/executor.h"
#include "agent/run_log.h"
#include "agent/run_mail.h"
#include "agent/run_secrets.h"
#include "executors/docker_run_container.h"
#include "executors/executor_registry.h"
#include "executors/step_runner.h"
#include "core/clock.h"
#include "core/dispatch_deadline.h"
#include "core/file_system.h"
#include "core/status.h"
#include "dag/dag.h"
#include "store/proc_store.h"
#include "store/run_store.h"

namespace dagu {

struct AgentDeps {
  FileSystem* fs = nullptr;
  const Clock* clock = nullptr;
  StepRunner* runner = nullptr;                     // the shell
  const ExecutorRegistry* executors = nullptr;      // the other executor types; may be null
  std::string dag_runs_dir;   // Config::paths.dag_runs_dir
  std::string proc_dir;       // Config::paths.proc_dir
  std::string log_dir;        // Config::paths.log_dir (a DAG's log_dir wins)
  std::string default_shell;  // Config::default_shell ("" = $SHELL, else sh)
  std::vector<std::pair<std::string, std::string>> process_env;  // the environment steps inherit
  std::chrono::nanoseconds heartbeat_interval = kProcHeartbeatInterval;
  // How often CANCEL_REQUESTED (`dagu stop`) is looked for: a stop takes
  // effect within this time.
  std::chrono::nanoseconds cancel_poll_interval = std::chrono::milliseconds(200);
  // Every run-log line also goes here (the CLI: stderr unless -q); may be
  // empty. `log_context` comes before the run's own context fields on each
  // line (1.30.2's restart: dag, run-id).
  RunLog::Echo log_echo;
  RunLog::Fields log_context;
};

struct AgentRequest {
  enum class Mode { kStart, kRetry };
  Mode mode = Mode::kStart;
  Dag dag;                    // kStart: the loaded DAG
  Params params;              // kStart: effective params
  std::string dag_name;       // kRetry: the DAG whose run to retry
  std::string run_id;         // required
  TriggerType trigger = TriggerType::kManual;
  std::string schedule_time;  // RFC3339 or ""
  std::string retry_step;     // kRetry: only this step
  bool queue_dispatch = false;  // kRetry: only a queued run may be executed
  // Set when a scheduler spawned this run: its lease deadline (monotonic)
  // and beacon. No run record is created, and no queued run's dispatch
  // taken, once the fence refuses (core/dispatch_deadline.h).
  DispatchFence dispatch_fence;
  std::string worker_id = "local";
  // A sub-DAG run (kStart with `dagu start --root --parent`, see
  // agent_subrun.cc): the root run and the run whose step starts this one.
  // The run is recorded under the root run (children/child_<run_id>) with
  // `root` and `parent` set, keeps a heartbeat in its attempt directory
  // instead of a proc file, and -- when that sub-run exists already (its
  // parent is retried) -- runs as a retry of it with this `dag` and `params`.
  std::optional<RunRef> root;
  std::optional<RunRef> parent;
};

// A node of a stored record as the executor's state (for retries: the
// previous attempt's nodes).
NodeState FromNodeRecord(const NodeRecord& record);

class Agent {
 public:
  explicit Agent(AgentDeps deps);
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  Status Prepare(const AgentRequest& request);
  // Runs the prepared run to its end; returns the final status.
  RunStatus Execute();
  // Stops the run: a signal the process received (passed on to the steps as
  // it is), or a stop request such as `dagu stop` (`use_step_signal`: steps
  // with a signal_on_stop get theirs).
  void Stop(int signal, bool use_step_signal = false);
  // After Execute: whether `dagu start`/`retry` exits 1, as Dagu 1.30.2 does:
  // the run recorded an error (a step that failed for good, even one that
  // continue_on let through; a failed handler; a timeout) and was not
  // stopped.
  bool EndedWithError() const;

  const RunDir& run() const { return run_; }
  const AttemptDir& attempt() const { return attempt_; }
  const Dag& dag() const { return dag_; }
  // The last record written.
  RunRecord LastRecord() const;
  // Why the run failed before its first step ("" otherwise), e.g. "failed
  // to resolve secrets: ..."; the CLI prints it as 1.30.2 does.
  const std::string& init_error() const { return init_error_; }
  // After Prepare: the run's log file.
  const std::string& log_path() const { return base_.log; }
  // After Execute, when EndedWithError: the error `dagu start` reports
  // ("failed to execute step ...", or init_error()).
  std::string run_error() const;

 private:
  class Observer;

  Status PrepareStart(const AgentRequest& request);
  Status PrepareRetry(const AgentRequest& request);
  Status PrepareSubRun(const AgentRequest& request);       // agent_subrun.cc
  Status SubRunHeartbeat(bool final);                      // agent_subrun.cc
  // Removes this run's heartbeat (proc) file, if it holds one.
  void ReleaseHeartbeat();
  Status PrepareLogs(WallTime now);
  RunRecord ToRecord(const ExecutionState& state) const;
  void WriteRecord(const RunRecord& record, bool final);
  void WriteOutputs(const RunRecord& record);
  void Watch();  // heartbeat + cancel poll thread
  // Resolves the DAG's secrets before any step; false (after writing the
  // failed record) when one cannot be resolved.
  bool PrepareSecrets();
  // The DAG-level ssh: client as 1.30.2 makes it when the run starts.
  bool PrepareSsh();
  // The run fails before any step starts, recorded as 1.30.2 records it.
  void FailBeforeStart(const std::string& error);
  // "Failed to execute dag-run" when the run ended with an error.
  void LogRunFailure();
  // Variables for the smtp settings and addresses of mails.
  MailLookup MailVars() const;
  bool PrepareContainer();
  // The moment a step with mailOnError fails: its mail, on a thread of its
  // own (joined before the run's mail). Called by the observer.
  void StepMails(const ExecutionState& state);
  // "Step execution failed; retrying" for each retry since the last call.
  // Called by the observer.
  void LogRetries(const ExecutionState& state);
  // The run's context fields on each run-log line, as 1.30.2 writes them.
  RunLog::Fields LogContext() const;
  void Cleanup();

  AgentDeps deps_;
  RunStore runs_;
  ProcStore procs_;
  RunLog log_;
  Dag dag_;
  Params params_;
  RunDir run_;
  AttemptDir attempt_;
  RunRecord base_;             // fields that do not change during the run
  std::string attempt_log_dir_;
  std::vector<NodeState> previous_;
  std::string retry_step_;
  std::string retry_target_attempt_id_;  // a retry: the attempt it retries
  bool created_run_ = false;   // we created the run dir (undo it on a failed Prepare)
  bool sub_run_ = false;       // a sub-DAG run: heartbeat in the attempt dir, no proc file
  bool prepared_ = false;

  RunSecrets secrets_;
  std::string init_error_;
  std::vector<bool> step_mailed_;
  bool handler_mailed_[5] = {false, false, false, false, false};  // onInit, onSuccess, onFailure, onCancel, onExit
  std::vector<int> logged_retries_;  // per step: the retries logged so far
  std::vector<std::thread> mail_threads_;
  std::atomic<bool> stop_mail_{false};
  // A DAG-level container: (src/executors/docker_run_container.h): started
  // before the first step, finished after the run; a stop cuts its start.
  std::unique_ptr<DockerRunContainer> run_container_;
  std::atomic<bool> container_abort_{false};
  bool ran_ = false;           // Execute() was called: the run is kept whatever happens
  std::unique_ptr<Executor> executor_;
  std::optional<ProcEntry> proc_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  int pending_stop_ = 0;       // a Stop() before the executor existed
  bool pending_stop_use_step_signal_ = false;
  RunRecord last_;
  std::string last_appended_;  // the last record appended, without createdAt ("": none)
};

}  // namespace dagu
