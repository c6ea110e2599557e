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
#include "executors/docker_launcher.h"
#include "executors/executor_support.h"
#include "store/dag_snapshot.h"

namespace dagu {
namespace {

constexpr int kReadinessPolls = 240;  // 120 s at 500 ms, as 1.30.2 waits for a container
constexpr int kLogDrainMs = 2000;     // how long a log follow may run on after the exit

void SleepMs(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000 * 1000};
  nanosleep(&ts, nullptr);
}

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev == nullptr ? std::to_string(sig) : std::string("SIG") + abbrev;
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
    // 1.30.2 expands $VAR in each word on the host, before the container
    // sees it (an unknown name becomes "", as Go's os.Expand does); the
    // env: of a container: (the step's own, else the DAG's) is known there
    // too, below the step's env:.
    const bool own_container = inv_.step != nullptr && !inv_.step->container_json.empty();
    const StepInvocation with_container_env = WithContainerEnv(own_container);
    for (const auto& line : inv_.commands) {
      std::vector<std::string> words = SplitCommandLine(line);
      for (auto& w : words) w = ExpandConfigString(with_container_env, w);
      commands_.push_back(std::move(words));
    }
    if (!own_container && inv_.executor_config_json.empty() && !inv_.run_container_id.empty()) {
      return RunInRunContainer(error);
    }
    if (Status s = LoadConfig(own_container); !s.ok()) {
      *error = s.message();
      return 1;
    }
    const char* host = std::getenv("DOCKER_HOST");
    launcher_ = std::make_unique<DockerLauncher>(cfg_, &stop_);
    launcher_->set_expand([this](const std::string& v) { return ExpandConfigString(inv_, v); });
    launcher_->set_warn([this](const std::string& message) {
      if (inv_.log) inv_.log(false, message, {});
    });
    if (Status s = launcher_->Connect(host == nullptr ? "" : host); !s.ok()) {
      *error = "failed to setup container: " + s.message();
      return 1;
    }
    client_ = &launcher_->client();

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

  // inv_ with the env: entries of the container: that runs the step (the
  // step's own, else the DAG-level one; a `config:` has none) added to its
  // environment, each value expanded, a name the step's env: sets left to it.
  StepInvocation WithContainerEnv(bool own_container) const {
    StepInvocation inv = inv_;
    std::string text;
    if (own_container) {
      text = inv_.step->container_json;
    } else if (inv_.executor_config_json.empty() && inv_.dag != nullptr) {
      text = inv_.dag->container_json;
    }
    if (text.empty()) return inv;
    nlohmann::json ct = nlohmann::json::parse(text, nullptr, false);
    if (!ct.is_object() || !ct.contains("Env") || !ct["Env"].is_array()) return inv;
    for (const auto& kv : ct["Env"]) {
      if (!kv.is_string()) continue;
      const std::string entry = kv.get<std::string>();
      const std::string name = entry.substr(0, entry.find('='));
      bool step_sets = false;
      if (inv_.step != nullptr) {
        for (const auto& [step_name, ignored] : inv_.step->env) step_sets |= step_name == name;
      }
      if (!step_sets) inv.env.push_back(ExpandConfigString(inv_, entry));
    }
    return inv;
  }

  // cfg_ from the step's `container:` (own_container) or its `config:`.
  Status LoadConfig(bool own_container) {
    if (!own_container) {
      std::string why;
      ExecutorConfig raw;
      if (!raw.Parse(inv_, &why)) return Status::InvalidArgument("failed to load container config: " + why);
      if (Status s = ParseDockerStepConfig(Expanded(inv_, raw.json()), &cfg_); !s.ok()) {
        return Status::InvalidArgument("failed to load container config: " + s.message());
      }
    } else {
      nlohmann::json ct = nlohmann::json::parse(inv_.step->container_json, nullptr, false);
      const std::string home = EnvValue(inv_.env, "HOME").value_or("");
      Status s = DockerConfigFromContainer(ct, inv_.dag_working_dir, home,
                                           [this](const std::string& v) { return ExpandConfigString(inv_, v); }, &cfg_);
      if (!s.ok()) return Status::InvalidArgument("failed to load step container config: " + s.message());
      // The step's env: goes into the container's (the container's own win).
      nlohmann::json& env = cfg_.image.empty() ? cfg_.exec["Env"] : cfg_.container["Env"];
      std::vector<std::string> merged;
      std::vector<std::string> own;
      if (env.is_array()) own = env.get<std::vector<std::string>>();
      for (const auto& [name, ignored] : inv_.step->env) {
        std::optional<std::string> v = EnvValue(inv_.env, name);
        bool overridden = false;
        for (const std::string& kv : own) overridden |= kv.rfind(name + "=", 0) == 0;
        if (v.has_value() && !overridden) merged.push_back(name + "=" + *v);
      }
      merged.insert(merged.end(), own.begin(), own.end());
      if (merged.empty()) {
        (cfg_.image.empty() ? cfg_.exec : cfg_.container).erase("Env");
      } else {
        env = merged;
      }
    }
    if (inv_.dag != nullptr && !inv_.dag->registry_auths_json.empty()) {
      cfg_.registry_auths = nlohmann::json::parse(inv_.dag->registry_auths_json, nullptr, false);
    }
    return Status::OK();
  }

  // A step of a run with a DAG-level container: each command exec'd in it
  // (1.30.2 numbers the failing command even when there is one).
  int RunInRunContainer(std::string* error) {
    const char* host = std::getenv("DOCKER_HOST");
    StatusOr<DockerEndpoint> endpoint = DockerEndpointFor(host == nullptr ? "" : host);
    if (!endpoint.ok()) {
      *error = endpoint.status().message();
      return 1;
    }
    own_client_ = std::make_unique<DockerClient>(*endpoint);
    client_ = own_client_.get();
    if (Status s = client_->Connect(&stop_); !s.ok()) {
      *error = s.message();
      return 1;
    }
    id_ = inv_.run_container_id;
    cfg_.exec = nlohmann::json::parse(inv_.run_container_exec_json.empty() ? "{}" : inv_.run_container_exec_json,
                                      nullptr, false);
    StatusOr<nlohmann::json> info = client_->InspectContainer(id_, &stop_);
    if (!info.ok()) {
      *error = "failed to inspect container " + id_ + ": " + info.status().message();
      return 1;
    }
    if (!(*info)["State"].value("Running", false)) {
      *error = "container " + id_ + " is not running";
      return 1;
    }
    return ExecAll(error, /*numbered=*/!commands_.empty());
  }

  int RunOne(std::string* error) {
    nlohmann::json cmd = nullptr;
    if (!commands_.empty() && !commands_[0].empty()) cmd = commands_[0];
    Status started = launcher_->CreateAndStart(cmd, false, &id_);
    created_ = !id_.empty();
    if (Status s = started; !s.ok()) {
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

  // Several commands: a background container (1.30.2's StartBackground:
  // keep-alive unless the container: says otherwise) and each exec'd in it.
  int RunKeepAlive(std::string* error) {
    Status started = launcher_->StartBackground(&id_);
    created_ = !id_.empty();
    keep_alive_ = created_;
    if (!started.ok()) {
      if (stop_.load()) return -1;
      *error = "failed to start container: failed to start container in background: " + started.message();
      return 1;
    }
    return ExecAll(error, /*numbered=*/true);
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
  std::unique_ptr<DockerLauncher> launcher_;
  std::unique_ptr<DockerClient> own_client_;  // a step in the run's container
  DockerClient* client_ = nullptr;            // the launcher's or own_client_
  std::vector<std::vector<std::string>> commands_;
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
