// DockerRunContainer: the container of a DAG-level `container:` (Dagu
// 1.30.2), owned by the run agent (src/agent/agent.h) for one run.
//
// Start(), before the first step:
//   - `image`: a new container as DockerLauncher::StartBackground starts it
//     (keep-alive / entrypoint / command startup, Init, waitFor, logPattern),
//     pulled as pullPolicy says (registryAuths on the pull);
//   - a string or `exec`: an existing container, waited for up to 120 s
//     until it runs (1.30.2's words: `container "x": timed out waiting for
//     container to be running (current status: ...)`).
// A failure fails the run before any step (the agent records it as 1.30.2
// does: "failed to create keepalive container: ..." / "failed to
// initialize container client: ..."). A container whose startup failed is
// left behind, as 1.30.2 leaves it.
//
// Every step of the run without a type of its own then execs in it
// (StepInvocation::run_container; docker_executor.h), with the exec options
// of exec mode (user, workingDir, env) and none in image mode (the
// container's own user, dir and env apply); a step's `env:` is not passed.
//
// Finish(), after the run (handlers included): an image container is
// stopped (SIGKILL after 5 s, polled up to 30 s) and removed unless
// keepContainer; an existing container is left as it is.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "executors/docker_config.h"

namespace dagu {

class DockerLauncher;

class DockerRunContainer {
 public:
  // `container_json`: Dag::container_json; `expand` substitutes the run's
  // variables into its values; `abort` (a stop of the run) cuts the start.
  DockerRunContainer(std::string container_json, std::string registry_auths_json, std::string dag_working_dir,
                     std::string home, std::function<std::string(const std::string&)> expand,
                     const std::atomic<bool>* abort);
  ~DockerRunContainer();
  DockerRunContainer(const DockerRunContainer&) = delete;
  DockerRunContainer& operator=(const DockerRunContainer&) = delete;

  // The error is the run's error, in 1.30.2's words.
  Status Start(const std::string& docker_host);

  // The container's ID (once started) and the exec options each step uses.
  const std::string& id() const { return id_; }
  const nlohmann::json& exec_options() const { return cfg_.exec; }

  void Finish();

 private:
  std::string container_json_, registry_auths_json_, dag_working_dir_, home_;
  std::function<std::string(const std::string&)> expand_;
  const std::atomic<bool>* abort_;
  DockerStepConfig cfg_;
  std::unique_ptr<DockerLauncher> launcher_;
  std::string id_;
  bool created_ = false;  // image mode: this run made it
};

}  // namespace dagu
