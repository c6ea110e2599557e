// ShellRunner: the real StepRunner. Each command line runs as
//   <shell> [shell_args] [-e] -c <line>
// in a new process group (setpgid) with the given environment and working
// directory; a script is written to a temp file `dagu_script-*` in the working
// directory and run with its interpreter (commands[0]), its shebang (when no
// step shell is set), or `<shell> [args] [-e] <file>`, then deleted.
// stdout/stderr are read through pipes and written to the log files (and the
// optional extra copies); stdout is captured up to the limit.
#pragma once

#include "executors/step_runner.h"

namespace dagu {

class ShellRunner final : public StepRunner {
 public:
  std::unique_ptr<RunningStep> Start(const StepInvocation& invocation) override;
  int Capture(const std::string& shell, const std::string& command, const std::vector<std::string>& env,
              const std::string& working_dir, std::string* out) override;
};

// Whether a shell understands `-e` (sh, bash, zsh, ksh, dash, ash, by base name).
bool ShellTakesErrexit(const std::string& shell);

}  // namespace dagu
