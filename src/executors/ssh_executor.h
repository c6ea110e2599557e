// SshRunner: `type: ssh` (Dagu 1.30.2), on libssh (no ssh binary). The
// connection is the step's `config:` when it is not empty, else the DAG's
// `ssh:` (dag.h SshDefaults; the step's config replaces it whole, it is
// not merged). Config:
//   user, host (or ip), port (default 22)
//   key            private key file (public-key auth); else password; with
//                  neither, the first of ~/.ssh/id_{rsa,ecdsa,ed25519,dsa}
//   password
//   strictHostKey  check the server's key against knownHostFile (default
//                  ~/.ssh/known_hosts); off: any host key is accepted.
//                  Default off in a step's config, on in the DAG's ssh:
//   knownHostFile
//   shell, shellArgs   the remote shell (else the step's own shell:, else none)
//   timeout        connection timeout ("30s", "1m"; default 30s)
// As 1.30.2 does, each of the step's commands runs in a session of its own
// (ssh_command.h builds the line: without a shell the command word and its
// arguments single-quoted for the login shell; with one, `<shell> -c
// '<line>'`); the step's working directory plays no part remotely, and a
// script is refused when the DAG is loaded. stdout and stderr go to the
// step's logs; the first failing command fails the step ("command 1 failed:
// Process exited with status 3"). Signal() closes the channel at once,
// which ends the remote command.
#pragma once

#include "executors/step_runner.h"

namespace dagu {

class SshRunner final : public StepRunner {
 public:
  std::unique_ptr<RunningStep> Start(const StepInvocation& invocation) override;
};

// Why Dagu 1.30.2 could not make an ssh client of these settings, in its
// words, or "": the key file cannot be read ("failed to load SSH key from
// <key>: open <key>: no such file or directory"), neither key nor password
// and no default key in <home>/.ssh (then *key is set to the one found), the
// known_hosts file missing under strictHostKey.
std::string SshClientError(std::string* key, const std::string& password, bool strict_host_key,
                           const std::string& known_hosts, const std::string& home);

}  // namespace dagu
