#include "executors/docker_executor.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <ctime>
#include <thread>

#include "core/json_text.h"
#include "core/strings.h"
#include "executors/docker_client.h"
#include "executors/docker_config.h"
#include "executors/executor_support.h"
#include "store/dag_snapshot.h"

namespace dagu {
namespace {

constexpr int kReadinessPolls = 240;  // 120 s at 500 ms, as 1.30.2 waits for a container
constexpr int kLogDrainMs = 2000;     // how long a log follow may run on after the exit
constexpr const char* kKeepAlive = "while true; do sleep 86400; done";

void SleepMs(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000 * 1000};
  nanosleep(&ts, nullptr);
}

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev == nullptr ? std::to_string(sig) : std::string("SIG") + abbrev;
}

// Docker's platform names for the daemon's /info architecture.
std::string NormalizeArch(const std::string& arch) {
  if (arch == "x86_64" || arch == "x86-64") return "amd64";
  if (arch == "aarch64") return "arm64";
  if (arch == "i386" || arch == "i686") return "386";
  return arch;
}

nlohmann::json Expanded(const StepInvocation& inv, const nlohmann::json& v) {
  if (v.is_string()) return ExpandConfigString(inv, v.get<std::string>());
  if (v.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : v) out.push_back(Expanded(inv, item));
    return out;
  }
  if (v.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = v.begin(); it != v.end(); ++it) out[it.key()] = Expanded(inv, it.value());
    return out;
  }
  return v;
}

class DockerStep final : public RunningStep {
 public:
  explicit DockerStep(StepInvocation inv) : inv_(std::move(inv)) {}

  StepResult Wait() override {
    StepResult result;
    result.started = true;
    StepOutput output(inv_);
    sink_ = [&output](int stream, std::string_view data) {
      if (stream == 2) {
        output.Err(data);
      } else {
        output.Out(data);
      }
    };
    std::string error;
    int exit_code = Run(&error);
    if (stop_.load()) {
      // A stop: whatever happened after it, the step was cancelled.
      output.Finish(&result);
      result.exit_code = -1;
      result.error = "context canceled";
      return result;
    }
    output.Finish(&result);
    result.exit_code = exit_code;
    if (!error.empty()) {
      if (result.exit_code == 0) result.exit_code = 1;
      result.error = error;
      if (!result.stderr_tail.empty()) result.error += "\nrecent stderr (tail):\n" + result.stderr_tail;
    }
    return result;
  }

  void Signal(int sig) override {
    if (sig == SIGKILL) kill_.store(true);
    int expected = 0;
    signal_.compare_exchange_strong(expected, sig);
    stop_.store(true);
  }

 private:
  // The step's work; the exit code, and *error for a failure in 1.30.2's
  // words ("" when the exit code says it).
  int Run(std::string* error) {
    std::string why;
    ExecutorConfig raw;
    if (!raw.Parse(inv_, &why)) {
      *error = "failed to load container config: " + why;
      return 1;
    }
    if (Status s = ParseDockerStepConfig(Expanded(inv_, raw.json()), &cfg_); !s.ok()) {
      *error = "failed to load container config: " + s.message();
      return 1;
    }
    const char* host = std::getenv("DOCKER_HOST");
    StatusOr<DockerEndpoint> endpoint = DockerEndpointFor(host == nullptr ? "" : host);
    if (!endpoint.ok()) {
      *error = "failed to setup container: " + endpoint.status().message();
      return 1;
    }
    client_ = std::make_unique<DockerClient>(*endpoint);
    if (Status s = client_->Connect(&stop_); !s.ok()) {
      *error = "failed to setup container: " + s.message();
      return 1;
    }
    if (Status s = ResolvePlatform(); !s.ok()) {
      *error = "failed to setup container: " + s.message();
      return 1;
    }
    // 1.30.2 expands $VAR in each word on the host, before the container
    // sees it (an unknown name becomes "", as Go's os.Expand does).
    for (const auto& line : inv_.commands) {
      std::vector<std::string> words = SplitCommandLine(line);
      for (auto& w : words) w = ExpandConfigString(inv_, w);
      commands_.push_back(std::move(words));
    }

    if (!cfg_.container_name.empty() && cfg_.image.empty()) return RunInExisting(error);
    if (!cfg_.container_name.empty()) {
      StatusOr<nlohmann::json> info = client_->InspectContainer(cfg_.container_name, &stop_);
      if (info.ok() && (*info)["State"].value("Running", false)) {
        id_ = info->value("Id", cfg_.container_name);
        return ExecAll(error, /*numbered=*/commands_.size() > 1);
      }
      if (!info.ok() && !info.status().IsNotFound()) {
        *error = "failed to setup container: failed to check if container \"" + cfg_.container_name +
                 "\" is running: " + info.status().message();
        return 1;
      }
    }
    int code = commands_.size() > 1 ? RunKeepAlive(error) : RunOne(error);
    Cleanup();
    return code;
  }

  Status ResolvePlatform() {
    if (!cfg_.platform.empty()) {
      platform_ = cfg_.platform;
      std::vector<std::string> parts;
      size_t start = 0;
      while (true) {
        size_t slash = platform_.find('/', start);
        parts.push_back(platform_.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
        if (slash == std::string::npos) break;
        start = slash + 1;
      }
      if (parts.size() < 2 || parts.size() > 3 || parts[0].empty() || parts[1].empty()) {
        return Status::InvalidArgument("failed to parse platform " + cfg_.platform +
                                       ": expected os/arch[/variant]");
      }
      os_ = parts[0];
      arch_ = NormalizeArch(parts[1]);
      variant_ = parts.size() == 3 ? parts[2] : "";
      platform_ = os_ + "/" + arch_ + (variant_.empty() ? "" : "/" + variant_);
      return Status::OK();
    }
    StatusOr<nlohmann::json> info = client_->GetJson("/info", &stop_);
    if (!info.ok()) return info.status().WithContext("failed to get current docker host info");
    os_ = info->value("OSType", std::string("linux"));
    arch_ = NormalizeArch(info->value("Architecture", std::string()));
    if (arch_ == "arm64") variant_ = "v8";
    platform_ = os_ + "/" + arch_ + (variant_.empty() ? "" : "/" + variant_);
    return Status::OK();
  }

  StatusOr<bool> ShouldPull() {
    if (cfg_.pull == DockerStepConfig::Pull::kAlways) return true;
    if (cfg_.pull == DockerStepConfig::Pull::kNever) return false;
    nlohmann::json filters = {{"reference", {{cfg_.image, true}}}};
    StatusOr<nlohmann::json> images = client_->GetJson("/images/json?filters=" + DockerClient::Escape(JsonText(filters)), &stop_);
    if (!images.ok()) return images.status().WithContext("failed to list local images " + cfg_.image);
    if (!images->is_array()) return true;
    for (const auto& summary : *images) {
      std::string id = summary.value("Id", std::string());
      StatusOr<nlohmann::json> inspect = client_->GetJson("/images/" + DockerClient::Escape(id) + "/json", &stop_);
      if (!inspect.ok()) return inspect.status().WithContext("failed to inspect image " + id);
      std::string variant = inspect->value("Variant", std::string());
      if (arch_ == "arm64" && variant.empty()) variant = "v8";
      if (inspect->value("Os", std::string()) == os_ && inspect->value("Architecture", std::string()) == arch_ &&
          variant == variant_) {
        return false;
      }
    }
    return true;
  }

  // Pulls as the policy says, creates and starts a container running `cmd`
  // (null: the image's CMD). Sets id_.
  Status CreateAndStart(const nlohmann::json& cmd, bool keep_alive) {
    StatusOr<bool> pull = ShouldPull();
    if (!pull.ok()) return pull.status();
    if (*pull) {
      Status pulled = client_->PullImage(cfg_.image, platform_, "", &stop_);
      if (!pulled.ok()) return pulled;
    }
    nlohmann::json body = cfg_.container;
    body["Image"] = cfg_.image;
    if (!cmd.is_null()) {
      body["Cmd"] = cmd;
      if (keep_alive) body["Entrypoint"] = nlohmann::json::array();
    }
    nlohmann::json host = cfg_.host;
    if (keep_alive) host["Init"] = true;
    body["HostConfig"] = host;
    if (!cfg_.network.empty()) body["NetworkingConfig"] = cfg_.network;
    std::string path = "/containers/create?";
    if (!cfg_.container_name.empty()) path += "name=" + DockerClient::Escape(cfg_.container_name) + "&";
    path += "platform=" + DockerClient::Escape(platform_);
    StatusOr<nlohmann::json> created = client_->PostJson(path, body, &stop_);
    if (!created.ok()) return created.status();
    id_ = created->value("Id", std::string());
    if (id_.empty()) return Status::Corruption("the daemon created a container without an Id");
    created_ = true;
    return client_->Post("/containers/" + id_ + "/start", &stop_);
  }

  int RunOne(std::string* error) {
    nlohmann::json cmd = nullptr;
    if (!commands_.empty() && !commands_[0].empty()) cmd = commands_[0];
    if (Status s = CreateAndStart(cmd, false); !s.ok()) {
      if (stop_.load()) return -1;
      *error = "failed to start a new container: " + s.message();
      return 1;
    }
    // The exit code comes from a wait beside the log follow: Podman 4 can
    // leave a follow open after the container has exited. A follow still open
    // kLogDrainMs after the exit is aborted and what it had not delivered is
    // read without following.
    std::atomic<bool> logs_abort{false};
    std::atomic<bool> logs_done{false};
    size_t received = 0;
    StreamDemuxer demux(sink_);
    Status logs;
    std::thread follower([&] {
      logs = client_->Logs(id_, /*follow=*/true, 0, &demux, &logs_abort, &received);
      logs_done.store(true);
    });
    StatusOr<int> code = client_->Wait(id_, &stop_);
    for (int waited = 0; code.ok() && !stop_.load() && !logs_done.load() && waited < kLogDrainMs; waited += 10) {
      SleepMs(10);
    }
    const bool follow_cut = !logs_done.load();
    logs_abort.store(true);
    follower.join();
    if (stop_.load()) {
      StopContainer();
      return -1;
    }
    if (!code.ok()) {
      *error = code.status().message();
      return 1;
    }
    if (follow_cut) logs = client_->Logs(id_, /*follow=*/false, received, &demux, &stop_);
    if (!logs.ok()) {
      *error = logs.message();
      return 1;
    }
    return *code;
  }

  int RunKeepAlive(std::string* error) {
    nlohmann::json cmd = nlohmann::json::array({"sh", "-c", kKeepAlive});
    if (Status s = CreateAndStart(cmd, true); !s.ok()) {
      if (stop_.load()) return -1;
      *error = "failed to start container: failed to start container in background: failed to start a new "
               "container: " + s.message();
      return 1;
    }
    keep_alive_ = true;
    if (Status s = WaitRunning(id_); !s.ok()) {
      if (stop_.load()) return -1;
      *error = "failed to start container: failed to start container in background: " + s.message();
      return 1;
    }
    return ExecAll(error, /*numbered=*/true);
  }

  Status WaitRunning(const std::string& id) {
    for (int i = 0; i < kReadinessPolls && !stop_.load(); ++i) {
      StatusOr<nlohmann::json> info = client_->InspectContainer(id, &stop_);
      if (!info.ok()) return info.status().WithContext("failed to inspect container " + id);
      const nlohmann::json& state = (*info)["State"];
      if (state.value("Running", false)) return Status::OK();
      std::string status = AsciiLower(state.value("Status", std::string()));
      if (status == "exited" || status == "dead" || status == "removing") {
        return Status::Aborted("container " + id + " not running; status=" + status +
                               ", exitCode=" + std::to_string(state.value("ExitCode", 0)));
      }
      SleepMs(500);
    }
    return Status::TimedOut("readiness timeout waiting for running");
  }

  nlohmann::json ExecConfig(const std::vector<std::string>& argv) const {
    nlohmann::json e = {{"AttachStdin", false}, {"AttachStdout", true}, {"AttachStderr", true}};
    for (const char* key : {"User", "Privileged", "Tty", "Env", "WorkingDir"}) {
      if (cfg_.exec.contains(key)) e[key] = cfg_.exec[key];
    }
    e["Cmd"] = argv.empty() ? nlohmann::json(nullptr) : nlohmann::json(argv);
    return e;
  }

  // Each command exec'd in id_; `numbered`: errors name the command ("command
  // N failed: ...").
  int ExecAll(std::string* error, bool numbered) {
    std::vector<std::vector<std::string>> runs = commands_;
    if (runs.empty()) runs.emplace_back();
    int code = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      if (stop_.load()) return -1;
      StatusOr<int> exec = client_->Exec(id_, ExecConfig(runs[i]), sink_, &stop_);
      if (stop_.load()) return -1;
      std::string failure;
      if (!exec.ok()) {
        failure = exec.status().message();
        code = 1;
      } else if (*exec != 0) {
        code = *exec;
        failure = "exec failed with exit code: " + std::to_string(code);
      } else {
        code = 0;
      }
      if (!failure.empty()) {
        *error = numbered ? "command " + std::to_string(i + 1) + " failed: " + failure : failure;
        return code;
      }
    }
    return code;
  }

  int RunInExisting(std::string* error) {
    const std::string& name = cfg_.container_name;
    bool running = false;
    std::string status = "not found";
    for (int i = 0; i < kReadinessPolls && !stop_.load(); ++i) {
      StatusOr<nlohmann::json> info = client_->InspectContainer(name, &stop_);
      if (info.ok()) {
        const nlohmann::json& state = (*info)["State"];
        if (state.value("Running", false)) {
          id_ = info->value("Id", name);
          running = true;
          break;
        }
        status = state.value("Status", std::string("not running"));
        if (state.value("ExitCode", 0) != 0) status += " (exit code: " + std::to_string(state.value("ExitCode", 0)) + ")";
      } else if (!info.status().IsNotFound()) {
        if (stop_.load()) return -1;
        *error = "failed to setup container: container \"" + name +
                 "\": failed to inspect container: " + info.status().message();
        return 1;
      } else {
        status = "not found";
      }
      SleepMs(500);
    }
    if (stop_.load()) return -1;
    if (!running) {
      *error = "failed to setup container: container \"" + name +
               "\": timed out waiting for container to be running (current status: " + status + ")";
      return 1;
    }
    // 1.30.2 numbers the failing command only when there are several (with
    // several, it fails with "container already exists"; each is exec'd here).
    return ExecAll(error, /*numbered=*/commands_.size() > 1);
  }

  // After a stop: the stop signal to the container, and SIGKILL once asked.
  void StopContainer() {
    if (id_.empty() || !created_) return;
    int sig = signal_.load();
    if (sig == 0) sig = SIGTERM;
    client_->Post("/containers/" + id_ + "/kill?signal=" + SignalName(sig)).IgnoreError();  // may have exited
    std::atomic<bool> never{false};
    // Waits for the container to end; a SIGKILL request kills it.
    while (true) {
      StatusOr<int> code = client_->Wait(id_, kill_sent_ ? &never : &kill_);
      if (code.ok() || code.status().code() != Status::Code::kAborted || kill_sent_) break;
      kill_sent_ = true;
      client_->Post("/containers/" + id_ + "/kill?signal=SIGKILL").IgnoreError();  // may have exited
    }
  }

  void Cleanup() {
    if (id_.empty() || !created_) return;
    if (keep_alive_ && !cfg_.auto_remove) {
      // The keep-alive container's work is done: stop it (1.30.2 leaves it running).
      client_->Post("/containers/" + id_ + "/kill?signal=SIGKILL").IgnoreError();  // may be gone
    }
    if (cfg_.auto_remove) {
      client_->Delete("/containers/" + id_ + "?force=1").LogIfError("docker: removing container " + id_);
    }
  }

  StepInvocation inv_;
  DockerStepConfig cfg_;
  std::unique_ptr<DockerClient> client_;
  std::vector<std::vector<std::string>> commands_;
  std::string platform_, os_, arch_, variant_;
  std::string id_;
  bool created_ = false;
  bool keep_alive_ = false;
  bool kill_sent_ = false;
  StreamDemuxer::Sink sink_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> kill_{false};
  std::atomic<int> signal_{0};
};

}  // namespace

std::unique_ptr<RunningStep> DockerRunner::Start(const StepInvocation& invocation) {
  return std::make_unique<DockerStep>(invocation);
}

}  // namespace dagu
