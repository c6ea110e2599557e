#include "executors/docker_run_container.h"

#include <ctime>

#include "executors/docker_launcher.h"

namespace dagu {

DockerRunContainer::DockerRunContainer(std::string container_json, std::string registry_auths_json,
                                       std::string dag_working_dir, std::string home,
                                       std::function<std::string(const std::string&)> expand,
                                       const std::atomic<bool>* abort)
    : container_json_(std::move(container_json)),
      registry_auths_json_(std::move(registry_auths_json)),
      dag_working_dir_(std::move(dag_working_dir)),
      home_(std::move(home)),
      expand_(std::move(expand)),
      abort_(abort) {}

DockerRunContainer::~DockerRunContainer() = default;

Status DockerRunContainer::Start(const std::string& docker_host) {
  nlohmann::json ct = nlohmann::json::parse(container_json_, nullptr, false);
  if (Status s = DockerConfigFromContainer(ct, dag_working_dir_, home_, expand_, &cfg_); !s.ok()) {
    return s.WithContext("failed to load container config");
  }
  if (!registry_auths_json_.empty()) cfg_.registry_auths = nlohmann::json::parse(registry_auths_json_, nullptr, false);
  launcher_ = std::make_unique<DockerLauncher>(cfg_, abort_);
  launcher_->set_expand(expand_);
  if (Status s = launcher_->Connect(docker_host); !s.ok()) {
    return s.WithContext("failed to initialize container client");
  }
  if (cfg_.image.empty()) {
    // An existing container: wait until it runs.
    const std::string& name = cfg_.container_name;
    std::string status = "not found";
    for (int i = 0; i < 240; ++i) {
      if (abort_ != nullptr && abort_->load()) return Status::Aborted("context canceled");
      StatusOr<nlohmann::json> info = launcher_->client().InspectContainer(name, abort_);
      if (info.ok()) {
        const nlohmann::json& state = (*info)["State"];
        if (state.value("Running", false)) {
          id_ = info->value("Id", name);
          return Status::OK();
        }
        status = state.value("Status", std::string("not running"));
      } else if (!info.status().IsNotFound()) {
        return info.status().WithContext("failed to initialize container client: container \"" + name +
                                         "\": failed to inspect container");
      }
      struct timespec ts = {0, 500 * 1000 * 1000};
      nanosleep(&ts, nullptr);
    }
    return Status::TimedOut("failed to initialize container client: container \"" + name +
                            "\": timed out waiting for container to be running (current status: " + status + ")");
  }
  created_ = true;
  Status s = launcher_->StartBackground(&id_);
  if (!s.ok()) return s.WithContext("failed to create keepalive container");
  return Status::OK();
}

void DockerRunContainer::Finish() {
  if (!created_ || id_.empty() || launcher_ == nullptr) return;
  launcher_->StopAndRemove(id_, cfg_.auto_remove);
}

}  // namespace dagu
