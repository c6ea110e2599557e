// DockerStepConfig: a `type: docker` step's `config:` mapping (Dagu 1.30.2's
// docker executor config), read as 1.30.2 reads it (mapstructure, weakly
// typed, keys matched case-insensitively, unknown keys dropped):
//
//   image          the image of a new container per step
//   containerName  without image: exec into this existing container (the
//                  step waits up to 120 s for it to be running); with
//                  image: the name of the new container (or, when a
//                  container of that name is running, exec into it)
//   pull           always | never | missing (default); true = always,
//                  false = never; "true"/"false" strings too
//   autoRemove     bool or string: remove the container after the step
//   platform       os/arch[/variant]; default: the daemon's (GET /info)
//   workingDir     container.WorkingDir unless that is set
//   volumes        appended to host.Binds as written
//   container      Engine API container Config (Env, User, Entrypoint, ...)
//   host           Engine API HostConfig (Binds, NetworkMode, ...);
//                  host.AutoRemove becomes autoRemove
//   network        Engine API NetworkingConfig (EndpointsConfig)
//   exec           exec options (User, WorkingDir, Env, Privileged, Tty);
//                  only with containerName
//
// In `container`, `host`, `network` and `exec`, each key is matched
// case-insensitively against the Go field names of the Docker SDK's structs
// and sent under the Engine API's JSON name (DNS -> Dns, CPUShares ->
// CpuShares, ...); scalars are converted weakly (a "true" string to a bool,
// a single string to a one-item list); unknown keys are dropped, as 1.30.2
// drops them. Nested objects (PortBindings, RestartPolicy, Mounts,
// Healthcheck, EndpointsConfig, ...) are passed as written.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"

namespace dagu {

struct DockerStepConfig {
  enum class Pull { kAlways, kNever, kMissing };
  std::string image;
  std::string container_name;
  std::string platform;
  Pull pull = Pull::kMissing;
  bool auto_remove = false;
  nlohmann::json container = nlohmann::json::object();  // Engine API Config
  nlohmann::json host = nlohmann::json::object();       // Engine API HostConfig
  nlohmann::json network = nlohmann::json::object();    // Engine API NetworkingConfig
  nlohmann::json exec = nlohmann::json::object();       // exec options
  // From a `container:` object (DockerConfigFromContainer); a `config:`
  // leaves them at their defaults.
  std::string startup = "keepalive";  // keepalive | entrypoint | command
  std::string wait_for = "running";   // running | healthy
  std::vector<std::string> start_cmd;  // startup: command
  std::string log_pattern;            // a regex awaited in the logs ("" = none)
  // The DAG's registryAuths in 1.30.2's shape ({host: {username, password,
  // auth}} or {"_json": {auth: <DOCKER_AUTH_CONFIG text>}}); null = none.
  nlohmann::json registry_auths;
};

// Reads `config` (a JSON object, string values already expanded). The
// errors are 1.30.2's: "containerName or image must be specified", "'exec'
// options require 'containerName' (exec-in-existing mode)", "failed to
// parse pull policy as boolean: ...", "failed to evaluate autoRemove value:
// ...", "failed to decode config: ...".
Status ParseDockerStepConfig(const nlohmann::json& config, DockerStepConfig* out);

// A `container:` object (src/dag/dag_container.h's JSON shape, Go field
// names; nulls and empty values as absent) as 1.30.2's LoadConfig maps it:
//   Exec              containerName (exec into it; User, WorkingDir, Env
//                     become the exec options)
//   Image, Env, User, WorkingDir (WorkDir wins)  container Config
//   Name              containerName (the new container's name)
//   PullPolicy        0 always, 1 never, 2 missing
//   Volumes           `src:dst[:ro|rw]`: an absolute, `.`- or `~`-source is
//                     a bind (`.` against `dag_working_dir`, `~` the home
//                     dir), with `:rw` added; a bare name a named volume
//                     (HostConfig.Mounts)
//   Ports             `[ip:]host:ctr[/proto]` or `ctr[/proto]`:
//                     ExposedPorts and PortBindings (ip 0.0.0.0)
//   Network           HostConfig.NetworkMode; a custom network also an
//                     EndpointsConfig entry
//   KeepContainer     autoRemove = !KeepContainer
//   RestartPolicy     HostConfig.RestartPolicy.Name
//   Startup, Command, WaitFor, LogPattern  as named
// String values (Exec, Image, Name, User, WorkingDir, Network and each item
// of Volumes, Ports, Env, Command) go through `expand` first, as 1.30.2
// evaluates them when the run or step starts. Errors are 1.30.2's
// ("failed to parse volumes: invalid volume format: x", ...).
Status DockerConfigFromContainer(const nlohmann::json& container, const std::string& dag_working_dir,
                                 const std::string& home, const std::function<std::string(const std::string&)>& expand,
                                 DockerStepConfig* out);

// 1.30.2's pull values: "always" / "never" / "missing" / "" (missing), a
// Go ParseBool string or a bool (true = always).
Status ParsePullPolicy(const nlohmann::json& value, DockerStepConfig::Pull* out);

// Go's strconv.ParseBool.
bool GoParseBool(const std::string& text, bool* out);

}  // namespace dagu
