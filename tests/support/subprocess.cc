#include "support/subprocess.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/http_client.h"

extern char** environ;

namespace dagu::testing {

Subprocess::~Subprocess() {
  if (pid_ > 0 && !exit_status_) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int st = 0;
    ::waitpid(pid_, &st, 0);
  }
}

bool Subprocess::Start(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                       const std::string& log_path) {
  return Start(argv, env, log_path, "", "");
}

bool Subprocess::Start(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                       const std::string& log_path, const std::string& stderr_path, const std::string& cwd) {
  log_path_ = log_path;
  std::map<std::string, std::string> merged;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) merged[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : env) merged[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : merged) env_strings.push_back(k + "=" + v);

  pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) {
    ::setpgid(0, 0);
    int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    if (!stderr_path.empty()) {
      int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (err >= 0) {
        ::dup2(err, 2);
        ::close(err);
      }
    }
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(127);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
      ::dup2(devnull, 0);
      if (devnull > 2) ::close(devnull);
    }
    // Nothing else the test process has open reaches the child: a file another
    // test thread is writing (a case's script) stays open for writing in a
    // child that inherited it, and exec of that file fails with ETXTBSY.
    ::close_range(3, ~0U, 0);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  pid_ = pid;
  return true;
}

bool Subprocess::running() {
  if (pid_ <= 0 || exit_status_) return false;
  int st = 0;
  pid_t r = ::waitpid(pid_, &st, WNOHANG);
  if (r == pid_) {
    exit_status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return false;
  }
  return true;
}

void Subprocess::Signal(int sig) {
  if (pid_ > 0 && !exit_status_) ::kill(pid_, sig);
}

std::optional<int> Subprocess::Wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (running()) {
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return exit_status_;
}

std::string Subprocess::Output() const {
  std::ifstream in(log_path_, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

HttpResponse HttpGet(int port, const std::string& target, std::chrono::milliseconds timeout) {
  return HttpGet("127.0.0.1", port, target, timeout);
}

HttpResponse HttpGet(const std::string& address, int port, const std::string& target,
                     std::chrono::milliseconds timeout) {
  HttpReply reply;
  ParseHttpReply(Exchange(address, port, "GET " + target + " HTTP/1.0\r\nHost: " + address + "\r\nConnection: close\r\n\r\n",
                          timeout),
                 &reply);
  HttpResponse resp;
  resp.status = reply.status;
  resp.body = std::move(reply.body);
  return resp;
}

}  // namespace dagu::testing
