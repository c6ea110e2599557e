#include "executors/shell_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <mutex>
#include <string_view>

#include "core/file_system.h"
#include "core/strings.h"
#include "core/temp_file.h"

namespace dagu {
namespace {

// An argv or envp for execve, built before fork (no allocation in the child).
// The script file's extension for `shell`, as 1.30.2 picks it (Dagu's
// cmdutil.GetScriptExtension): ".sh" for sh, bash and zsh, ".ps1" for
// PowerShell, ".bat" for cmd, none otherwise (python3: none).
std::string ScriptExtension(const std::string& shell) {
  std::string s;
  for (char c : shell) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto ends = [&](std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends("powershell.exe") || ends("powershell") || ends("pwsh.exe") || ends("pwsh")) return ".ps1";
  if (ends("cmd.exe") || ends("cmd")) return ".bat";
  if (ends("bash.exe") || ends("bash") || ends("zsh") || ends("/sh") || ends("sh.exe") || s == "sh") return ".sh";
  return "";
}

class CStrings {
 public:
  explicit CStrings(const std::vector<std::string>& items) : items_(items) {
    for (auto& s : items_) ptrs_.push_back(s.data());
    ptrs_.push_back(nullptr);
  }
  char* const* get() { return ptrs_.data(); }

 private:
  std::vector<std::string> items_;
  std::vector<char*> ptrs_;
};

struct Child {
  pid_t pid = -1;
  int out_fd = -1;
  int err_fd = -1;
  std::string error;  // why it did not start
};

// Starts argv in its own process group with stdout/stderr on pipes, with
// posix_spawnp (a vfork-style clone: no copy of this process's page tables,
// so a step starts in a fraction of a fork's time from a big agent). PATH is
// searched as execvpe does (the agent's own PATH).
Child Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& dir) {
  Child c;
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    c.error = std::string("pipe: ") + std::strerror(errno);
    return c;
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    c.error = std::string("pipe: ") + std::strerror(errno);
    ::close(out[0]);
    ::close(out[1]);
    return c;
  }
  CStrings cargv(argv), cenv(env);
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  if (!dir.empty()) posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  int e = ::posix_spawnp(&pid, cargv.get()[0], &actions, &attr, cargv.get(), cenv.get());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(out[1]);
  ::close(err[1]);
  if (e != 0) {
    ::close(out[0]);
    ::close(err[0]);
    c.error = (dir.empty() ? "" : "in " + dir + ": ") + argv[0] + ": " + std::strerror(e);
    return c;
  }
  c.pid = pid;
  c.out_fd = out[0];
  c.err_fd = err[0];
  return c;
}

// Appends to a file opened once (O_APPEND); a no-op when path is empty.
class Sink {
 public:
  explicit Sink(const std::string& path) {
    if (!path.empty()) fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  }
  ~Sink() {
    if (fd_ >= 0) ::close(fd_);
  }
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  void Write(const char* data, size_t n) {
    if (fd_ < 0) return;
    while (n > 0) {
      ssize_t w = ::write(fd_, data, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return;
      data += w;
      n -= static_cast<size_t>(w);
    }
  }

 private:
  int fd_ = -1;
};

// Reads both pipes until EOF (or until the child exited and the pipes stay
// quiet, so a background grandchild holding them open cannot hang us), then
// reaps the child. Returns the wait status.
int Pump(Child& c, const std::function<void(const char*, size_t)>& on_out,
         const std::function<void(const char*, size_t)>& on_err) {
  pollfd fds[2] = {{c.out_fd, POLLIN, 0}, {c.err_fd, POLLIN, 0}};
  int open_fds = 2;
  int status = 0;
  bool exited = false;
  int quiet_polls = 0;
  char buf[65536];
  while (open_fds > 0) {
    int r = ::poll(fds, 2, 100);
    if (r < 0 && errno != EINTR) break;
    bool got = false;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        got = true;
        (i == 0 ? on_out : on_err)(buf, static_cast<size_t>(n));
      } else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
    if (!exited && ::waitpid(c.pid, &status, WNOHANG) == c.pid) exited = true;
    if (exited && !got && ++quiet_polls >= 3) break;
    if (got) quiet_polls = 0;
  }
  for (auto& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  if (!exited) {
    while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  return status;
}

std::vector<std::string> ShellPrefix(const StepInvocation& inv) {
  std::vector<std::string> argv{inv.shell};
  argv.insert(argv.end(), inv.shell_args.begin(), inv.shell_args.end());
  if (!inv.step_shell && ShellTakesErrexit(inv.shell)) argv.push_back("-e");
  return argv;
}

class ShellStep final : public RunningStep {
 public:
  explicit ShellStep(StepInvocation inv) : inv_(std::move(inv)) {}

  StepResult Wait() override {
    StepResult result;
    Sink out(inv_.stdout_path), err(inv_.stderr_path);
    Sink extra_out(inv_.extra_stdout_path), extra_err(inv_.extra_stderr_path);
    std::string stderr_tail;
    auto on_out = [&](const char* d, size_t n) {
      out.Write(d, n);
      extra_out.Write(d, n);
      size_t room = inv_.capture_limit > result.captured_stdout.size()
                        ? inv_.capture_limit - result.captured_stdout.size() : 0;
      if (n > room) result.output_too_large = true;
      result.captured_stdout.append(d, std::min(n, room));
    };
    auto on_err = [&](const char* d, size_t n) {
      err.Write(d, n);
      extra_err.Write(d, n);
      stderr_tail.append(d, n);
      if (stderr_tail.size() > 4096) stderr_tail.erase(0, stderr_tail.size() - 1024);
    };
    std::vector<std::vector<std::string>> argvs;
    std::string script_path;
    if (!inv_.script.empty()) {
      if (!WriteScript(&script_path, &result)) return result;
      argvs.push_back(ScriptArgv(script_path));
    } else {
      for (const auto& line : inv_.commands) {
        auto argv = ShellPrefix(inv_);
        argv.push_back("-c");
        argv.push_back(line);
        argvs.push_back(std::move(argv));
      }
    }
    result.started = true;
    for (const auto& argv : argvs) {
      Child c;
      {
        std::lock_guard<std::mutex> l(mu_);
        if (stop_signal_ != 0) {
          result.term_signal = stop_signal_;
          break;
        }
        c = Spawn(argv, inv_.env, inv_.working_dir);
        pgid_ = c.pid;
      }
      if (c.pid < 0) {
        result.started = false;
        result.start_error = c.error;
        break;
      }
      int st = Pump(c, on_out, on_err);
      {
        std::lock_guard<std::mutex> l(mu_);
        pgid_ = -1;
      }
      result.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      result.term_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
      if (result.exit_code != 0) {
        if (argvs.size() > 1) result.failed_command = static_cast<int>(&argv - argvs.data()) + 1;
        break;
      }
    }
    if (!script_path.empty()) ::unlink(script_path.c_str());
    result.stderr_tail = stderr_tail.size() > 1024 ? stderr_tail.substr(stderr_tail.size() - 1024) : stderr_tail;
    return result;
  }

  void Signal(int sig) override {
    std::lock_guard<std::mutex> l(mu_);
    if (stop_signal_ == 0 || sig == SIGKILL) stop_signal_ = sig;
    if (pgid_ > 0) ::kill(-pgid_, sig);
  }

 private:
  bool WriteScript(std::string* path, StepResult* result) {
    std::string dir = inv_.working_dir.empty() ? "." : inv_.working_dir;
    std::string tmpl;
    StatusOr<int> created = CreateGoTempFile(dir, "dagu_script-*" + ScriptExtension(inv_.shell), 0600, &tmpl);
    if (!created.ok()) {
      result->start_error = "cannot write script: " + created.status().message();
      return false;
    }
    const int fd = created.value();
    std::string text = inv_.script;
    if (text.empty() || text.back() != '\n') text += '\n';
    bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::fchmod(fd, 0700);
    ::close(fd);
    *path = tmpl;
    if (!ok) {
      result->start_error = "cannot write script " + tmpl;
      ::unlink(tmpl.c_str());
      return false;
    }
    return true;
  }

  std::vector<std::string> ScriptArgv(const std::string& path) {
    if (!inv_.commands.empty()) {  // legacy: command: python3 + script:
      std::vector<std::string> argv{"/bin/sh", "-c", inv_.commands[0] + " \"$0\"", path};
      return argv;
    }
    if (inv_.script.rfind("#!", 0) == 0 && !inv_.step_shell) {
      // The shebang's interpreter, found in PATH when it has no directory
      // (`#!env perl`), with its arguments, then the script.
      std::string line = inv_.script.substr(2, inv_.script.find('\n') - 2);
      std::vector<std::string> argv;
      std::string word;
      for (char c : line + " ") {
        if (c == ' ' || c == '\t' || c == '\r') {
          if (!word.empty()) argv.push_back(word);
          word.clear();
        } else {
          word += c;
        }
      }
      if (!argv.empty()) {
        argv.push_back(path);
        return argv;
      }
    }
    auto argv = ShellPrefix(inv_);
    argv.push_back(path);
    return argv;
  }

  StepInvocation inv_;
  std::mutex mu_;
  pid_t pgid_ = -1;
  int stop_signal_ = 0;
};

}  // namespace

bool ShellTakesErrexit(const std::string& shell) {
  std::string base = BaseName(shell);
  for (const char* s : {"sh", "bash", "zsh", "ksh", "dash", "ash", "mksh"}) {
    if (base == s) return true;
  }
  return false;
}

std::unique_ptr<RunningStep> ShellRunner::Start(const StepInvocation& invocation) {
  return std::make_unique<ShellStep>(invocation);
}

int ShellRunner::Capture(const std::string& shell, const std::string& command, const std::vector<std::string>& env,
                         const std::string& working_dir, std::string* out) {
  out->clear();
  Child c = Spawn({shell, "-c", command}, env, working_dir);
  if (c.pid < 0) return -1;
  int st = Pump(
      c, [&](const char* d, size_t n) { out->append(d, n); }, [](const char*, size_t) {});
  *out = std::string(TrimRightSpace(*out));
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

}  // namespace dagu
