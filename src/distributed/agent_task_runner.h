// The TaskRunner of `dagu worker`: runs a coordinator's task with this
// binary's run agent, exactly as Dagu 1.30.2's worker runs it with its own
// (internal/service/worker/handler.go): START as `dagu start -q --root
// --parent --run-id --worker-id <target> -- <params>`, RETRY as `dagu retry
// --run-id -q [--step] --worker-id -- <root DAG name>`
// (launcher/run_commands.h). So a distributed run's records (status, logs,
// proc heartbeat, stop socket) are a local run's, in the shared data
// directory, and `dagu status`/`dagu stop` work from any host.
//
// A task with a `definition` (the DAG's YAML) is written to
// <tmp>/dagu/worker-dags/<target>-<n>.yaml, which becomes the START target
// and is removed when the run ends (1.30.2's place and name). The child is
// detached (its own session, launcher/process_spawner.h) and inherits the
// worker's stdout/stderr and environment minus the scheduler's per-run
// variables.
#pragma once

#include <sys/types.h>

#include <mutex>
#include <set>
#include <string>

#include "distributed/worker.h"
#include "launcher/process_spawner.h"
#include "launcher/run_commands.h"

namespace dagu::distributed {

class AgentTaskRunner final : public TaskRunner {
 public:
  // `spawner` must outlive this. `temp_dir` is the system's (TMPDIR or /tmp).
  AgentTaskRunner(ProcessSpawner* spawner, LaunchContext context, std::string temp_dir);

  Status Run(const WireTask& task) override;
  // SIGTERM to every running agent (it stops its run as `dagu stop` does).
  void CancelAll() override;

  // The command line for `task` (with `target` in place of the task's).
  std::vector<std::string> CommandFor(const WireTask& task, const std::string& target) const;

 private:
  ProcessSpawner* spawner_;
  const LaunchContext context_;
  const std::string temp_dir_;
  std::mutex mu_;
  std::set<pid_t> running_;  // guarded by mu_
};

}  // namespace dagu::distributed
