#include "executors/docker_launcher.h"

#include <ctime>
#include <regex>
#include <thread>

#include "core/json_text.h"
#include "core/strings.h"
#include "executors/docker_registry_auth.h"

namespace dagu {
namespace {

constexpr int kReadinessPolls = 240;  // 120 s at 500 ms, as 1.30.2 waits for a container
constexpr const char* kKeepAlive = "while true; do sleep 86400; done";

void SleepMs(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000 * 1000};
  nanosleep(&ts, nullptr);
}

// Docker's platform names for the daemon's /info architecture.
std::string NormalizeArch(const std::string& arch) {
  if (arch == "x86_64" || arch == "x86-64") return "amd64";
  if (arch == "aarch64") return "arm64";
  if (arch == "i386" || arch == "i686") return "386";
  return arch;
}

}  // namespace

Status DockerLauncher::Connect(const std::string& docker_host) {
  StatusOr<DockerEndpoint> endpoint = DockerEndpointFor(docker_host);
  if (!endpoint.ok()) return endpoint.status();
  client_ = std::make_unique<DockerClient>(*endpoint);
  DAGU_RETURN_IF_ERROR(client_->Connect(abort_));
  return ResolvePlatform();
}

Status DockerLauncher::ResolvePlatform() {
  if (!cfg_.platform.empty()) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
      size_t slash = cfg_.platform.find('/', start);
      parts.push_back(cfg_.platform.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    if (parts.size() < 2 || parts.size() > 3 || parts[0].empty() || parts[1].empty()) {
      return Status::InvalidArgument("failed to parse platform " + cfg_.platform + ": expected os/arch[/variant]");
    }
    os_ = parts[0];
    arch_ = NormalizeArch(parts[1]);
    variant_ = parts.size() == 3 ? parts[2] : "";
  } else {
    StatusOr<nlohmann::json> info = client_->GetJson("/info", abort_);
    if (!info.ok()) return info.status().WithContext("failed to get current docker host info");
    os_ = info->value("OSType", std::string("linux"));
    arch_ = NormalizeArch(info->value("Architecture", std::string()));
    if (arch_ == "arm64") variant_ = "v8";
  }
  platform_ = os_ + "/" + arch_ + (variant_.empty() ? "" : "/" + variant_);
  return Status::OK();
}

StatusOr<bool> DockerLauncher::ShouldPull() {
  if (cfg_.pull == DockerStepConfig::Pull::kAlways) return true;
  if (cfg_.pull == DockerStepConfig::Pull::kNever) return false;
  nlohmann::json filters = {{"reference", {{cfg_.image, true}}}};
  StatusOr<nlohmann::json> images =
      client_->GetJson("/images/json?filters=" + DockerClient::Escape(JsonText(filters)), abort_);
  if (!images.ok()) return images.status().WithContext("failed to list local images " + cfg_.image);
  if (!images->is_array()) return true;
  for (const auto& summary : *images) {
    std::string id = summary.value("Id", std::string());
    StatusOr<nlohmann::json> inspect = client_->GetJson("/images/" + DockerClient::Escape(id) + "/json", abort_);
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

Status DockerLauncher::CreateAndStart(const nlohmann::json& cmd, bool clear_entrypoint, std::string* id) {
  StatusOr<bool> pull = ShouldPull();
  if (!pull.ok()) return pull.status();
  Status pull_error;
  if (*pull) {
    const char* env_auth = std::getenv("DOCKER_AUTH_CONFIG");
    StatusOr<std::string> auth = RegistryAuthHeader(cfg_.registry_auths, cfg_.image, env_auth == nullptr ? "" : env_auth,
                                                    expand_);
    if (!auth.ok()) return auth.status();
    // As in 1.30.2, a failed pull does not fail the step while a local
    // image can still be used (`pull: always` offline); its error is the
    // step's only when the create then finds no image (1.30.2 reports "no
    // such image" then, hiding the cause).
    pull_error = client_->PullImage(cfg_.image, platform_, *auth, abort_);
    if (!pull_error.ok() && abort_ != nullptr && abort_->load()) return pull_error;
  }
  nlohmann::json body = cfg_.container;
  body["Image"] = cfg_.image;
  if (!cmd.is_null()) {
    body["Cmd"] = cmd;
    if (clear_entrypoint) body["Entrypoint"] = nlohmann::json::array();
  } else if (cfg_.startup == "command" && !cfg_.start_cmd.empty()) {
    body["Cmd"] = cfg_.start_cmd;
  }
  body["HostConfig"] = cfg_.host;
  if (!cfg_.network.empty()) body["NetworkingConfig"] = cfg_.network;
  std::string path = "/containers/create?";
  if (!cfg_.container_name.empty()) path += "name=" + DockerClient::Escape(cfg_.container_name) + "&";
  path += "platform=" + DockerClient::Escape(platform_);
  StatusOr<nlohmann::json> created = client_->PostJson(path, body, abort_);
  if (!created.ok()) return created.status().IsNotFound() && !pull_error.ok() ? pull_error : created.status();
  if (!pull_error.ok() && warn_) warn_(pull_error.message() + "; using the local image");
  *id = created->value("Id", std::string());
  if (id->empty()) return Status::Corruption("the daemon created a container without an Id");
  return client_->Post("/containers/" + *id + "/start", abort_);
}

Status DockerLauncher::StartBackground(std::string* id) {
  if (!cfg_.container_name.empty()) {
    StatusOr<nlohmann::json> info = client_->InspectContainer(cfg_.container_name, abort_);
    if (info.ok()) {
      if ((*info)["State"].value("Running", false)) {
        return Status::AlreadyExists("container with name \"" + cfg_.container_name + "\" already exists and is running");
      }
      return Status::AlreadyExists("container with name \"" + cfg_.container_name + "\" already exists");
    }
    if (!info.status().IsNotFound()) {
      return info.status().WithContext("failed to check existing container \"" + cfg_.container_name + "\"");
    }
  }
  nlohmann::json cmd = nullptr;
  if (cfg_.startup == "keepalive") {
    if (!cfg_.container.contains("Cmd") || cfg_.container["Cmd"].empty()) {
      cmd = nlohmann::json::array({"sh", "-c", kKeepAlive});
    }
  } else if (cfg_.startup == "command") {
    if (cfg_.start_cmd.empty()) return Status::InvalidArgument("startup 'command' requires non-empty command array");
    cmd = cfg_.start_cmd;
  } else if (cfg_.startup != "entrypoint") {
    return Status::InvalidArgument("invalid startup mode: " + cfg_.startup);
  }
  cfg_.host["Init"] = true;  // no zombies from the execs
  if (Status s = CreateAndStart(cmd, /*clear_entrypoint=*/true, id); !s.ok()) {
    return s.WithContext("failed to start a new container");
  }
  if (cfg_.wait_for == "healthy") {
    StatusOr<nlohmann::json> info = client_->InspectContainer(*id, abort_);
    if (!info.ok()) return info.status().WithContext("failed to inspect container " + *id);
    const bool has_health = (*info)["State"].contains("Health") && !(*info)["State"]["Health"].is_null();
    DAGU_RETURN_IF_ERROR(has_health ? WaitHealthy(*id) : WaitRunning(*id));
  } else if (cfg_.wait_for == "running") {
    DAGU_RETURN_IF_ERROR(WaitRunning(*id));
  } else {
    return Status::InvalidArgument("invalid waitFor mode: " + cfg_.wait_for);
  }
  if (!std::string(TrimSpace(cfg_.log_pattern)).empty()) return WaitLogPattern(*id);
  return Status::OK();
}

Status DockerLauncher::WaitRunning(const std::string& id) {
  std::string last;
  for (int i = 0; i < kReadinessPolls; ++i) {
    if (Aborted()) return Status::Aborted("context canceled");
    StatusOr<nlohmann::json> info = client_->InspectContainer(id, abort_);
    if (!info.ok()) return info.status().WithContext("failed to inspect container " + id);
    const nlohmann::json& state = (*info)["State"];
    if (state.value("Running", false)) return Status::OK();
    std::string status = AsciiLower(state.value("Status", std::string()));
    if (status == "exited" || status == "dead" || status == "removing") {
      return Status::Aborted("container " + id + " not running; status=" + status +
                             ", exitCode=" + std::to_string(state.value("ExitCode", 0)));
    }
    last = "running=false,status=" + status;
    SleepMs(500);
  }
  return Status::TimedOut("readiness timeout waiting for running; last state=" + last +
                          ": context deadline exceeded");
}

Status DockerLauncher::WaitHealthy(const std::string& id) {
  std::string last;
  for (int i = 0; i < kReadinessPolls; ++i) {
    if (Aborted()) return Status::Aborted("context canceled");
    StatusOr<nlohmann::json> info = client_->InspectContainer(id, abort_);
    if (!info.ok()) return info.status().WithContext("failed to inspect container " + id);
    const nlohmann::json& state = (*info)["State"];
    if (state.contains("Health") && state["Health"].is_object()) {
      last = state["Health"].value("Status", std::string());
      if (AsciiLower(last) == "healthy") return Status::OK();
    }
    SleepMs(500);
  }
  return Status::TimedOut("readiness timeout waiting for healthy; last health=" + last +
                          ": context deadline exceeded");
}

Status DockerLauncher::WaitLogPattern(const std::string& id) {
  std::regex re;
  try {
    re = std::regex(cfg_.log_pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return Status::InvalidArgument("invalid logPattern regex: " + std::string(e.what()));
  }
  // The follow ends once a line matches (or the stream ends, or a stop); a
  // deadline of 120 s bounds it, as 1.30.2's readiness context does.
  std::atomic<bool> done{false};
  std::string line;
  bool matched = false;
  auto sink = [&](int /*stream*/, std::string_view data) {
    for (char c : data) {
      if (c != '\n') {
        line.push_back(c);
        continue;
      }
      if (!matched && std::regex_search(line, re)) matched = true;
      line.clear();
    }
    if (matched) done.store(true);
  };
  std::atomic<bool> stop{false};
  std::thread watch([&] {
    for (int i = 0; i < kReadinessPolls * 5 && !done.load(); ++i) {
      if (Aborted()) break;
      SleepMs(100);
    }
    stop.store(true);
  });
  StreamDemuxer demux(sink);
  Status logs = client_->Logs(id, /*follow=*/true, 0, &demux, &stop);
  if (!matched && !line.empty() && std::regex_search(line, re)) matched = true;
  done.store(true);
  watch.join();
  if (matched) return Status::OK();
  if (Aborted()) return Status::Aborted("context canceled");
  if (!logs.ok() && !(logs.code() == Status::Code::kAborted)) return logs.WithContext("failed to read container logs");
  if ((logs.code() == Status::Code::kAborted)) {
    return Status::TimedOut("readiness timeout waiting for logPattern; pattern=\"" + cfg_.log_pattern +
                            "\": context deadline exceeded");
  }
  return Status::Aborted("log stream ended before pattern matched: \"" + cfg_.log_pattern + "\"");
}

void DockerLauncher::StopAndRemove(const std::string& id, bool remove) {
  if (id.empty() || client_ == nullptr) return;
  // POST /stop waits for the container; its own timeout is the daemon's
  // default (10 s): 1.30.2 sends SIGKILL after 5 s itself.
  std::atomic<bool> cut{false};
  std::thread stopper([&] { client_->Post("/containers/" + id + "/stop?t=5", &cut).IgnoreError(); });
  bool stopped = false;
  bool killed = false;
  for (int waited_ms = 0; waited_ms < 30000; waited_ms += 500) {
    StatusOr<nlohmann::json> info = client_->InspectContainer(id);
    if (!info.ok() && info.status().IsNotFound()) {
      stopped = true;
      break;
    }
    if (info.ok() && !(*info)["State"].value("Running", false)) {
      stopped = true;
      break;
    }
    if (!killed && waited_ms >= 5000) {
      killed = true;
      client_->Post("/containers/" + id + "/kill?signal=SIGKILL").IgnoreError();  // may be gone
    }
    SleepMs(500);
  }
  cut.store(true);
  stopper.join();
  (void)stopped;
  if (remove) client_->Delete("/containers/" + id + "?force=1").LogIfError("docker: removing container " + id);
}

}  // namespace dagu
