#include "executors/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

extern char** environ;

namespace dagu {
namespace {

// An unlinked temp file for the child's stderr (-1 when none could be made).
int OpenStderrFile() {
  const char* tmp = ::getenv("TMPDIR");
  std::string dir = tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp";
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string tmpl = dir + "/dagu-child-XXXXXX";
  fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd >= 0) ::unlink(tmpl.c_str());
  return fd;
}

}  // namespace

ChildProcess::~ChildProcess() {
  if (stderr_fd_ >= 0) ::close(stderr_fd_);
}

ChildProcess::ChildProcess(ChildProcess&& o) noexcept
    : pid_(o.pid_),
      exited_(o.exited_),
      exit_code_(o.exit_code_),
      term_signal_(o.term_signal_),
      stderr_fd_(o.stderr_fd_) {
  o.pid_ = -1;
  o.stderr_fd_ = -1;
}

ChildProcess& ChildProcess::operator=(ChildProcess&& o) noexcept {
  if (this != &o) {
    if (stderr_fd_ >= 0) ::close(stderr_fd_);
    pid_ = o.pid_;
    exited_ = o.exited_;
    exit_code_ = o.exit_code_;
    term_signal_ = o.term_signal_;
    stderr_fd_ = o.stderr_fd_;
    o.pid_ = -1;
    o.stderr_fd_ = -1;
  }
  return *this;
}

Status ChildProcess::Start(const std::vector<std::string>& argv, const std::string& dir) {
  if (argv.empty()) return Status::InvalidArgument("no program to start");
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  stderr_fd_ = OpenStderrFile();
  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) return Status::IOError(std::string("pipe: ") + std::strerror(errno));
  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    ::close(status_pipe[0]);
    ::close(status_pipe[1]);
    return Status::IOError(std::string("fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT, SIGCHLD}) ::signal(sig, SIG_DFL);
    int devnull = ::open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      ::dup2(devnull, 0);
      ::dup2(devnull, 1);
    }
    if (stderr_fd_ >= 0) ::dup2(stderr_fd_, 2);
    else if (devnull >= 0) ::dup2(devnull, 2);
    int e = 0;
    if (!dir.empty() && ::chdir(dir.c_str()) != 0) {
      e = errno;
    } else {
      ::execvpe(cargv[0], cargv.data(), environ);
      e = errno;
    }
    (void)!::write(status_pipe[1], &e, sizeof e);
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(status_pipe[1]);
  int child_errno = 0;
  ssize_t n;
  do {
    n = ::read(status_pipe[0], &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  ::close(status_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {
    int st;
    ::waitpid(pid, &st, 0);
    return Status::IOError((dir.empty() ? "" : "in " + dir + ": ") + argv[0] + ": " + std::strerror(child_errno));
  }
  pid_ = pid;
  exited_ = false;
  return Status::OK();
}

bool ChildProcess::Poll() {
  if (pid_ <= 0) return true;
  if (exited_) return true;
  int st = 0;
  pid_t r = ::waitpid(pid_, &st, WNOHANG);
  if (r == pid_) {
    exited_ = true;
    exit_code_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    term_signal_ = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    return true;
  }
  if (r < 0 && errno == ECHILD) {
    exited_ = true;
    exit_code_ = -1;
    return true;
  }
  return false;
}

void ChildProcess::Signal(int sig) {
  if (running()) ::kill(-pid_, sig);
}

std::string ChildProcess::StderrTail(size_t max) const {
  if (stderr_fd_ < 0) return "";
  struct stat st;
  if (::fstat(stderr_fd_, &st) != 0 || st.st_size <= 0) return "";
  off_t size = st.st_size;
  off_t from = size > static_cast<off_t>(max) ? size - static_cast<off_t>(max) : 0;
  std::string out(static_cast<size_t>(size - from), '\0');
  ssize_t n = ::pread(stderr_fd_, out.data(), out.size(), from);
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

void ChildProcess::Detach() {
  if (!running()) return;
  pid_t pid = pid_;
  std::thread([pid] {
    int st;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
  }).detach();
  exited_ = true;
  exit_code_ = -1;
}

}  // namespace dagu
