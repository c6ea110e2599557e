// ChildProcess: a `dagu start` process that a call step runs for one child
// run. It runs in a process group of its own (so a stop reaches it and
// nothing else), with stdin and stdout on /dev/null and stderr kept in an
// unlinked temp file whose tail explains a child that failed before writing
// its record. The environment is this process's own (DAGU_HOME, TZ, ...).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/status.h"

namespace dagu {

class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess();  // closes the stderr file; never kills or waits
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Starts argv[0] (looked up in PATH when it has no '/') in `dir` ("" =
  // here). IOError naming the program when it cannot be started.
  Status Start(const std::vector<std::string>& argv, const std::string& dir);

  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0 && !exited_; }
  // Reaps the process if it has exited (never blocks); true once it has.
  bool Poll();
  // Exit code (128 + signal when killed); valid once Poll() returned true.
  int exit_code() const { return exit_code_; }
  // The signal that killed it (0: it exited); valid once Poll() returned true.
  int term_signal() const { return term_signal_; }
  // Sends `sig` to the process group while it runs.
  void Signal(int sig);
  // The last `max` bytes the process wrote to stderr.
  std::string StderrTail(size_t max) const;
  // Hands the running process over: a detached thread reaps it when it
  // exits, so that an abandoned child leaves no zombie entry behind.
  void Detach();

 private:
  pid_t pid_ = -1;
  bool exited_ = false;
  int exit_code_ = 0;
  int term_signal_ = 0;
  int stderr_fd_ = -1;
};

}  // namespace dagu
