// CliRunner: how the REST API starts, enqueues, stops, retries and dequeues
// runs -- like Dagu's server, by running this same binary's CLI commands
// (docs/web.md, "How actions run"):
//
//   start   <exe> start -q --run-id=<id> --trigger-type=manual [--params=<p>] [--config=F] <DAG file>
//   enqueue <exe> enqueue -q --run-id=<id> --trigger-type=manual [--queue=<q>] [--params=<p>] [--config=F] <DAG file>
//   stop    <exe> stop -q --run-id=<id> [--config=F] -- <DAG name>
//   retry   <exe> retry -q --run-id=<id> [--step=<step>] [--config=F] -- <DAG name>
//   dequeue <exe> dequeue -q --dag-run=<name>:<id> [--config=F] -- <queue>
//
// `--` ends the flags, so a DAG name that starts with '-' (1.30.2 accepted
// such names and may have recorded runs of them) is not read as a flag;
// start and enqueue read params after `--`, and get none.
//
// Children are started detached (own session, no inherited descriptors, see
// launcher/process_spawner.h) so that a run outlives the server, and are
// reaped on a thread of this runner. Thread-safe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/status.h"
#include "launcher/process_spawner.h"
#include "launcher/run_commands.h"

namespace dagu::web {

class CliRunner {
 public:
  // `spawner` must outlive the runner. `context` names the executable, the
  // config file and the environment children get.
  CliRunner(ProcessSpawner* spawner, LaunchContext context,
            std::chrono::milliseconds reap_interval = std::chrono::milliseconds(100));
  ~CliRunner();  // stops the reaper (children keep running)
  CliRunner(const CliRunner&) = delete;
  CliRunner& operator=(const CliRunner&) = delete;

  // Runs `<exe> <subcommand> <flags...> [--config=F] [--] <positional...>`
  // (`--` except for start and enqueue). InvalidArgument when a positional
  // argument is empty, or starts with '-' for start and enqueue.
  Status Spawn(const std::string& subcommand, const std::vector<std::string>& flags,
               const std::vector<std::string>& positional, pid_t* pid);
  // The exit status once the child has exited (0 = success, 128+n = killed
  // by signal n); nullopt while it runs. Forgotten after it is returned.
  std::optional<int> ExitStatus(pid_t pid);
  // Waits up to `timeout` for the child; nullopt when it is still running,
  // or at once after CancelWaits().
  std::optional<int> Wait(pid_t pid, std::chrono::milliseconds timeout);
  // Wakes every Wait() and makes later ones return at once (the server is
  // stopping: no request may hold it up). Children keep running.
  void CancelWaits();
  bool waits_cancelled() const;

  // The full command line of the last Spawn (for logs and tests).
  std::vector<std::string> CommandLine(const std::string& subcommand, const std::vector<std::string>& flags,
                                       const std::vector<std::string>& positional) const;

 private:
  void ReapLoop();
  void ReapOnce();

  ProcessSpawner* spawner_;
  LaunchContext context_;
  std::chrono::milliseconds reap_interval_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<pid_t> running_;
  std::map<pid_t, int> exited_;
  bool stopping_ = false;
  bool cancelled_ = false;
  std::thread reaper_;
};

}  // namespace dagu::web
