// DockerRunner against a fake Engine API on a unix socket, for the paths a
// real daemon does not take on demand (pull-stream errors, daemon errors,
// an unreachable daemon). Behaviour with a real engine: the differential
// cases in tests/compat/cases/docker/.
#include "executors/docker_executor.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>

#include "executors/executor_test_util.h"

namespace dagu {
namespace {

using testing::StepFixture;

struct FakeResponse {
  int code = 200;
  std::string body;
};

// Answers each request with handler(method, path-with-query), one request per
// connection; records "METHOD path" of every request.
class FakeEngine {
 public:
  using Handler = std::function<FakeResponse(const std::string&, const std::string&)>;
  FakeEngine(const std::string& path, Handler handler) : path_(path), handler_(std::move(handler)) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path.c_str());
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(::listen(fd_, 16), 0);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeEngine() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::vector<std::string> Requests() {
    std::lock_guard<std::mutex> l(mu_);
    return requests_;
  }

 private:
  void Serve() {
    while (!stop_) {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string req;
      char buf[4096];
      size_t need = std::string::npos;
      while (true) {
        size_t end = req.find("\r\n\r\n");
        if (end != std::string::npos && need == std::string::npos) {
          size_t cl = req.find("Content-Length: ");
          size_t len = cl == std::string::npos || cl > end ? 0 : std::stoul(req.substr(cl + 16));
          need = end + 4 + len;
        }
        if (need != std::string::npos && req.size() >= need) break;
        ssize_t n = ::read(c, buf, sizeof buf);
        if (n <= 0) break;
        req.append(buf, static_cast<size_t>(n));
      }
      size_t sp1 = req.find(' ');
      size_t sp2 = req.find(' ', sp1 + 1);
      std::string method = req.substr(0, sp1);
      std::string path = req.substr(sp1 + 1, sp2 - sp1 - 1);
      {
        std::lock_guard<std::mutex> l(mu_);
        requests_.push_back(method + " " + path);
      }
      FakeResponse r = handler_(method, path);
      std::string out = "HTTP/1.1 " + std::to_string(r.code) + " X\r\nApi-Version: 1.41\r\nContent-Type: " +
                        "application/json\r\nContent-Length: " + std::to_string(r.body.size()) +
                        "\r\nConnection: close\r\n\r\n" + r.body;
      ssize_t ignored = ::write(c, out.data(), out.size());
      (void)ignored;
      ::close(c);
    }
  }
  std::string path_;
  Handler handler_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> requests_;
};

std::string Frame(int stream, const std::string& payload) {
  std::string f(8, '\0');
  f[0] = static_cast<char>(stream);
  f[7] = static_cast<char>(payload.size());
  return f + payload;
}

// The usual answers up to the create; `create` and the rest from `more`.
FakeEngine::Handler Engine(std::function<std::optional<FakeResponse>(const std::string&, const std::string&)> more) {
  return [more](const std::string& m, const std::string& p) -> FakeResponse {
    if (auto r = more(m, p)) return *r;
    if (p == "/_ping") return {200, "OK"};
    if (p == "/v1.41/info") return {200, R"({"OSType":"linux","Architecture":"x86_64"})"};
    if (p.rfind("/v1.41/images/json", 0) == 0) return {200, "[]"};
    return {404, R"({"message":"unexpected )" + m + " " + p + "\"}"};
  };
}

class DockerRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    socket_ = f_.dir.Sub("engine.sock");
    ::setenv("DOCKER_HOST", ("unix://" + socket_).c_str(), 1);
    f_.step.name = "s";
    f_.step.executor_type = "docker";
    f_.step.executor_config_json = R"({"image":"example.com/app:1","autoRemove":true})";
    f_.step.commands = {"run it"};
  }
  void TearDown() override { ::unsetenv("DOCKER_HOST"); }
  StepResult Run() {
    DockerRunner runner;
    return runner.Start(f_.Inv())->Wait();
  }
  StepFixture f_;
  std::string socket_;
};

TEST_F(DockerRunnerTest, PullStreamErrorFailsTheStepWithItsMessageWhenNoImageIsThere) {
  FakeEngine engine(socket_, Engine([](const std::string&, const std::string& p) -> std::optional<FakeResponse> {
    if (p.rfind("/v1.41/images/create?fromImage=example.com%2Fapp&tag=1&platform=linux%2Famd64", 0) == 0) {
      return FakeResponse{200, "{\"status\":\"Trying to pull\"}\n{\"error\":\"x\",\"errorDetail\":{\"message\":"
                               "\"pinging registry: no such host\"}}\n"};
    }
    if (p.rfind("/v1.41/containers/create", 0) == 0) {
      return FakeResponse{404, R"({"message":"no such image: example.com/app:1: image not known"})"};
    }
    return std::nullopt;
  }));
  StepResult r = Run();
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.error, "failed to start a new container: failed to pull image example.com/app:1: pinging registry: "
                     "no such host");
}

TEST_F(DockerRunnerTest, AFailedPullRunsTheLocalImageAs1302Does) {
  // pull: always offline: the local image is used (1.30.2 ignores the pull's
  // error); only a create that finds no image makes it the step's error.
  FakeEngine engine(socket_, Engine([](const std::string&, const std::string& p) -> std::optional<FakeResponse> {
    if (p.rfind("/v1.41/images/create", 0) == 0) {
      return FakeResponse{200, "{\"error\":\"x\",\"errorDetail\":{\"message\":\"pinging registry: no such host\"}}\n"};
    }
    if (p.rfind("/v1.41/containers/create", 0) == 0) return FakeResponse{201, R"({"Id":"c1"})"};
    return std::nullopt;
  }));
  StepResult r = Run();
  bool created = false;
  for (const auto& req : engine.Requests()) created |= req.find("/containers/create") != std::string::npos;
  EXPECT_TRUE(created);
  EXPECT_EQ(r.error.find("failed to pull"), std::string::npos) << r.error;
}

TEST_F(DockerRunnerTest, DaemonErrorOnCreateIsTheStepsError) {
  f_.step.executor_config_json = R"({"image":"example.com/app:1","pull":"never"})";
  FakeEngine engine(socket_, Engine([](const std::string&, const std::string& p) -> std::optional<FakeResponse> {
    if (p.rfind("/v1.41/containers/create", 0) == 0) return FakeResponse{500, R"({"message":"boom"})"};
    return std::nullopt;
  }));
  StepResult r = Run();
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.error, "failed to start a new container: Error response from daemon: boom");
}

TEST_F(DockerRunnerTest, ExitCodeOutputAndRemoval) {
  f_.step.executor_config_json = R"({"image":"example.com/app:1","pull":false,"autoRemove":"true"})";
  FakeEngine engine(socket_, Engine([](const std::string& m, const std::string& p) -> std::optional<FakeResponse> {
    if (p == "/v1.41/containers/create?platform=linux%2Famd64") return FakeResponse{201, R"({"Id":"c1"})"};
    if (p == "/v1.41/containers/c1/start") return FakeResponse{204, ""};
    if (p.rfind("/v1.41/containers/c1/logs?follow=1", 0) == 0) {
      return FakeResponse{200, Frame(1, "out\n") + Frame(2, "err\n")};
    }
    if (p == "/v1.41/containers/c1/wait?condition=not-running") return FakeResponse{200, R"({"StatusCode":3})"};
    if (m == "DELETE" && p == "/v1.41/containers/c1?force=1") return FakeResponse{204, ""};
    return std::nullopt;
  }));
  StepResult r = Run();
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.error, "");  // the run's executor words it: "exit status 3" and the stderr tail
  EXPECT_EQ(f_.Out(), "out\n");
  EXPECT_EQ(f_.Err(), "err\n");
  auto reqs = engine.Requests();
  ASSERT_FALSE(reqs.empty());
  EXPECT_EQ(reqs.back(), "DELETE /v1.41/containers/c1?force=1");
}

TEST_F(DockerRunnerTest, UnreachableDaemonFailsToSetUp) {
  StepResult r = Run();  // nothing listens on the socket
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.error.rfind("failed to setup container: Cannot connect to the Docker daemon at unix://" + socket_, 0),
            0u)
      << r.error;
}

}  // namespace
}  // namespace dagu
