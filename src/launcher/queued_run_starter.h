// QueuedRunStarter: how the queue consumer starts a claimed queued run, as a
// narrow interface (the Launcher implements it with a detached
// `retry --run-id=<id> -q <dag name>` process; tests use a fake).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "core/clock.h"
#include "core/status.h"

namespace dagu {

class QueuedRunStarter {
 public:
  virtual ~QueuedRunStarter() = default;
  // Starts the queued run as a process that outlives the scheduler;
  // `propagate`: a stopping scheduler forwards its SIGINT/SIGTERM to it.
  // Nothing is started at or after `not_after` (the lease deadline), and the
  // run is handed it: it refuses to take the run's dispatch after it.
  virtual Status RetryQueued(const std::string& dag_name, const std::string& run_id, bool propagate,
                             MonoTime not_after, pid_t* pid) = 0;
  // The process's exit status once it has exited; nullopt while it runs.
  virtual std::optional<int> ExitStatusOf(pid_t pid) = 0;
  // The caller no longer needs the exit status of `pid` (the run started);
  // it is not kept.
  virtual void ForgetExitStatus(pid_t pid) = 0;
};

}  // namespace dagu
