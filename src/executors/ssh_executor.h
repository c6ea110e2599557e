// SshRunner: `type: ssh` (Dagu 1.30.2), on libssh (no ssh binary). Config:
//   user, host (or ip), port (default 22)
//   key            private key file (public-key auth); else password
//   password
//   strictHostKey  check the server's key against knownHostFile (default
//                  ~/.ssh/known_hosts); off: any host key is accepted
//   knownHostFile
//   shell, shellArgs   the remote shell (default /bin/sh, or the step's shell)
//   timeout        connection timeout ("30s", "1m"; default 30s)
// As 1.30.2 does, the step's script, or each of its commands in turn (the
// command word as written, its arguments single-quoted), is wrapped in a
// shell function -- `cd <step dir> || return 1` when the step sets dir,
// `set -e`, the command -- and piped to the remote shell's stdin, each in a
// channel of its own on one connection. stdout and stderr go to the step's
// logs; the remote exit status is the step's ("command 1 failed: Process
// exited with status 3"). Signal() closes the channel at once, which ends
// the remote command.
#pragma once

#include "executors/step_runner.h"

namespace dagu {

class SshRunner final : public StepRunner {
 public:
  std::unique_ptr<RunningStep> Start(const StepInvocation& invocation) override;
};

// The script 1.30.2 pipes to the remote shell.
std::string SshScript(const std::vector<std::string>& commands, const std::string& script, const std::string& dir);

}  // namespace dagu
