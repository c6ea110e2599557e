#include "launcher/process_spawner.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <unistd.h>

#include <cerrno>

namespace dagu {
namespace {

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

class PosixSpawner final : public ProcessSpawner {
 public:
  Status Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
               const std::vector<int>& pass_fds, pid_t* pid) override {
    if (argv.empty()) return Status::InvalidArgument("spawn: empty command line");
    const int first_free = kPassedFd + static_cast<int>(pass_fds.size());
    // A source numbered inside the target range could be overwritten by an
    // earlier dup2 (or, dup2'd onto itself, keep its close-on-exec flag):
    // such sources are first copied above the range.
    std::vector<int> sources(pass_fds);
    std::vector<int> copies;
    for (int& fd : sources) {
      if (fd < 0 || fd >= first_free) continue;
      int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, first_free);
      if (copy < 0) {
        int err = errno;
        for (int c : copies) ::close(c);
        return Status::FromErrno(err, "spawn: copying descriptor " + std::to_string(fd));
      }
      copies.push_back(copy);
      fd = copy;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);

    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    // dup2 clears close-on-exec on the copy.
    for (size_t i = 0; i < sources.size(); ++i) {
      if (sources[i] >= 0) posix_spawn_file_actions_adddup2(&actions, sources[i], kPassedFd + static_cast<int>(i));
    }
    for (size_t i = 0; i < sources.size(); ++i) {
      if (sources[i] < 0) posix_spawn_file_actions_addclose(&actions, kPassedFd + static_cast<int>(i));
    }
    posix_spawn_file_actions_addclosefrom_np(&actions, first_free);

    sigset_t empty;
    sigemptyset(&empty);
    posix_spawnattr_setsigmask(&attr, &empty);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2}) sigaddset(&defaults, sig);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    std::vector<char*> c_argv = CStrings(argv);
    std::vector<char*> c_env = CStrings(env);
    int err = ::posix_spawn(pid, argv[0].c_str(), &actions, &attr, c_argv.data(), c_env.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    for (int c : copies) ::close(c);
    if (err != 0) return Status::FromErrno(err, "starting " + argv[0]);
    return Status::OK();
  }

  bool TryReap(pid_t pid, int* exit_status) override {
    int status = 0;
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == 0) return false;
    if (r < 0) {
      // ECHILD: not our child (any more); treat it as gone.
      *exit_status = -1;
      return errno == ECHILD;
    }
    if (WIFEXITED(status)) {
      *exit_status = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      *exit_status = 128 + WTERMSIG(status);
    } else {
      return false;  // stopped or continued: still there
    }
    return true;
  }

  Status Signal(pid_t pid, int sig) override {
    if (::kill(pid, sig) != 0) return Status::FromErrno(errno, "kill " + std::to_string(pid));
    return Status::OK();
  }
};

}  // namespace

ProcessSpawner* PosixProcessSpawner() {
  static PosixSpawner spawner;
  return &spawner;
}

}  // namespace dagu
