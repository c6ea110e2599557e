// DockerLauncher: one container's start as Dagu 1.30.2's docker client does
// it, shared by a step's own container (docker_executor.h) and the run's
// container of a DAG-level `container:` (docker_run_container.h).
//
// Connect() finds the daemon (DOCKER_HOST as given, else the default
// socket), negotiates the API version and resolves the platform (the
// config's `os/arch[/variant]`, else the daemon's from GET /info).
// CreateAndStart() pulls as the policy says (missing: when no local image of
// that reference matches the platform; X-Registry-Auth from the config's
// registryAuths, see docker_registry_auth.h), creates the container with
// `cmd` (null: the image's CMD, or the startup command of `startup:
// command`) and starts it. StartBackground() is 1.30.2's keep-alive start:
// a container name already taken is refused; `startup` keepalive runs
// `sh -c "while true; do sleep 86400; done"` with ENTRYPOINT cleared
// (1.30.2 does the same when it runs inside a container, as on these
// machines), entrypoint the image's own ENTRYPOINT/CMD, command the
// `command:` words; Init is on; then it waits up to 120 s for `waitFor`
// (running; healthy, which falls back to running when the container
// reports no health) and for a line of the logs matching `logPattern`.
// StopAndRemove() is 1.30.2's end of a keep-alive container: POST /stop,
// SIGKILL after 5 s, polls up to 30 s until it is not running, then removes
// it when asked.
//
// Every call gives up soon (Status::Aborted) once `abort` is set. A
// launcher is used by one thread at a time.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "executors/docker_client.h"
#include "executors/docker_config.h"

namespace dagu {

class DockerLauncher {
 public:
  DockerLauncher(DockerStepConfig cfg, const std::atomic<bool>* abort) : cfg_(std::move(cfg)), abort_(abort) {}

  // `docker_host`: the DOCKER_HOST value ("" = the default socket). Errors
  // read as 1.30.2's client ("Cannot connect to the Docker daemon at ...").
  Status Connect(const std::string& docker_host);

  // Substitutes ${VAR} in registryAuths values (default: none).
  void set_expand(std::function<std::string(const std::string&)> expand) { expand_ = std::move(expand); }
  // Told of a pull that failed while a local image is used instead.
  void set_warn(std::function<void(const std::string&)> warn) { warn_ = std::move(warn); }

  DockerClient& client() { return *client_; }
  const DockerStepConfig& config() const { return cfg_; }

  // Pulls when needed, creates and starts; *id is set once the container
  // exists (also when the start fails), *created then true.
  Status CreateAndStart(const nlohmann::json& cmd, bool clear_entrypoint, std::string* id);

  // The keep-alive start (above); *id as for CreateAndStart. Errors in
  // 1.30.2's words ("container with name \"x\" already exists",
  // "container <id> not running; status=exited, exitCode=1", "readiness
  // timeout waiting for running", "log stream ended before pattern
  // matched: \"x\"", ...).
  Status StartBackground(std::string* id);

  // Waits (<= 120 s) until container `id` runs; fails fast once it has
  // exited.
  Status WaitRunning(const std::string& id);

  void StopAndRemove(const std::string& id, bool remove);

 private:
  Status ResolvePlatform();
  StatusOr<bool> ShouldPull();
  Status WaitHealthy(const std::string& id);
  Status WaitLogPattern(const std::string& id);
  bool Aborted() const { return abort_ != nullptr && abort_->load(); }

  DockerStepConfig cfg_;
  const std::atomic<bool>* abort_;
  std::function<std::string(const std::string&)> expand_ = [](const std::string& s) { return s; };
  std::function<void(const std::string&)> warn_;
  std::unique_ptr<DockerClient> client_;
  std::string platform_, os_, arch_, variant_;
};

}  // namespace dagu
