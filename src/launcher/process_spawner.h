// ProcessSpawner: starting and reaping child processes, behind an interface
// so the launcher is unit-tested with a fake and the real one stays small.
//
// The real spawner (PosixProcessSpawner) starts each child detached: in a
// session of its own (setsid), so it is its own process group and no
// terminal or group signal aimed at the scheduler reaches it; with stdin on
// /dev/null, stdout/stderr inherited, every other descriptor closed (the
// scheduler's sockets and lock files must not leak into a run that may
// outlive it), an empty signal mask and default signal dispositions. Being
// the parent, the scheduler must reap it (TryReap) or it stays a zombie until
// the scheduler exits; the child never depends on the parent otherwise.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/status.h"

namespace dagu {

// The descriptor number the first passed descriptor gets in the child; the
// next ones follow (4, 5, ...).
inline constexpr int kPassedFd = 3;

class ProcessSpawner {
 public:
  virtual ~ProcessSpawner() = default;

  // Starts argv[0] (a path) with `argv` and the environment `env`
  // ("KEY=VALUE" entries). The child gets pass_fds[i] as its descriptor
  // kPassedFd + i (an entry of -1 leaves that number closed); every other
  // descriptor above 2 is closed. On success *pid is the child's pid.
  virtual Status Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                       const std::vector<int>& pass_fds, pid_t* pid) = 0;

  // Non-blocking: true when `pid` has exited (it is then reaped, and
  // *exit_status is its exit code, or 128 + signal when killed).
  virtual bool TryReap(pid_t pid, int* exit_status) = 0;

  // Sends `sig` to the process `pid`.
  virtual Status Signal(pid_t pid, int sig) = 0;
};

// The real one; lives for the whole process.
ProcessSpawner* PosixProcessSpawner();

}  // namespace dagu
