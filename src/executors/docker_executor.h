// DockerRunner: `type: docker` / `type: container` (Dagu 1.30.2's docker
// executor), on the Docker Engine API (docker_client.h; Docker or Podman).
// The step's `config:` is read by docker_config.h; the daemon is found from
// DOCKER_HOST of this process (else /var/run/docker.sock).
//
// With `image`: the image is pulled as `pull` says (missing: when no local
// image of that reference matches the platform), then
//   - no command: a new container runs the image's CMD;
//   - one command: a new container with Cmd = the command's words, each
//     with $VAR expanded on the host as 1.30.2 does (the
//     image's ENTRYPOINT is kept, so they become its arguments);
//   - several commands: a keep-alive container (`sh -c "while true; do
//     sleep 86400; done"`, ENTRYPOINT cleared, Init on) and each command
//     exec'd in it in turn; the first failure stops the step.
// The container's output (demultiplexed) goes to the step's .out/.err; the
// step's exit code is the container's ("exit status N"), an exec's failure
// reads "exec failed with exit code: N". With autoRemove the container is
// removed at the end (DELETE ?force=1), whatever the outcome.
// With `containerName` and no image: each command is exec'd in that
// container, once it is running (waiting up to 120 s, as 1.30.2 does).
//
// Stop: Signal(sig) only records the signal (it never blocks: the run's
// executor calls it under its lock); the step's own thread then cuts the
// log stream (output after the stop is lost, as in 1.30.2), sends `sig`
// (the step's signalOnStop, else SIGTERM) to the container with POST /kill,
// and a later SIGKILL (after maxCleanUpTimeSec) kills it. The step ends
// aborted with "context canceled". A keep-alive container this step
// created is always stopped at the end (1.30.2 leaves it running without
// autoRemove).
//
// Differences from 1.30.2 (docs/dag-format.md, "Docker"): a pull error
// fails the step with the daemon's message (1.30.2 drops it and fails at
// create with "No such image"); a container whose start failed is removed
// when autoRemove is set.
#pragma once

#include "executors/step_runner.h"

namespace dagu {

class DockerRunner final : public StepRunner {
 public:
  std::unique_ptr<RunningStep> Start(const StepInvocation& invocation) override;
};

}  // namespace dagu
