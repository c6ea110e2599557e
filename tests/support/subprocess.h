// Subprocess: starts a program (usually the built `dagu`) as a child in its
// own process group, with stdout and stderr captured to a log file, and lets
// a process-level test signal it, wait for it with a deadline and read what
// it printed. Also small helpers those tests share: a free loopback port and
// a plain HTTP GET.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dagu::testing {

class Subprocess {
 public:
  Subprocess() = default;
  ~Subprocess();  // SIGKILLs the process group if still running
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  // Starts argv[0] with the given arguments; `env` entries are added to (or
  // override) this process's environment. Output goes to `log_path`.
  bool Start(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
             const std::string& log_path);
  // As Start, with stderr in a file of its own (`stderr_path`; "" = with
  // stdout in `log_path`) and `cwd` as the working directory ("" = ours).
  bool Start(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
             const std::string& log_path, const std::string& stderr_path, const std::string& cwd);

  pid_t pid() const { return pid_; }
  bool running();
  void Signal(int sig);
  // Waits until exit; returns the exit status (128+signal when killed), or
  // nullopt when the deadline passed first.
  std::optional<int> Wait(std::chrono::milliseconds timeout);
  // Everything the process printed so far.
  std::string Output() const;

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_status_;
  std::string log_path_;
};

// A TCP port on 127.0.0.1 that was free a moment ago.
int FreePort();

struct HttpResponse {
  int status = 0;  // 0 when the connection failed
  std::string body;
};
// GET http://127.0.0.1:<port><target> with a short timeout.
HttpResponse HttpGet(int port, const std::string& target,
                     std::chrono::milliseconds timeout = std::chrono::milliseconds(1000));
// The same on an IPv4 `address` (another network namespace's, for example).
HttpResponse HttpGet(const std::string& address, int port, const std::string& target,
                     std::chrono::milliseconds timeout = std::chrono::milliseconds(1000));

// Polls `pred` every `interval` until it is true or `timeout` passes.
template <class Pred>
bool PollUntil(Pred pred, std::chrono::milliseconds timeout,
               std::chrono::milliseconds interval = std::chrono::milliseconds(50));

}  // namespace dagu::testing

#include <thread>

template <class Pred>
bool dagu::testing::PollUntil(Pred pred, std::chrono::milliseconds timeout, std::chrono::milliseconds interval) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (pred()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(interval);
  }
}
