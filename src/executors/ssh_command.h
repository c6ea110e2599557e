// The remote command line of an ssh step, built as Dagu 1.30.2 builds it
// (its internal/runtime/builtin/ssh and internal/common/cmdutil):
//   - a step's command line is split once, when the DAG is loaded, into the
//     command word and its arguments (SplitDaguCommand: blanks separate
//     words outside quotes and backticks; a word wrapped whole in "..." is
//     unquoted as a Go string literal, one in '...' loses its quotes; words
//     of a pipeline `a | b` are joined with a "|" argument);
//   - without a remote shell, the command word and each argument are
//     quoted for a POSIX shell (QuoteForShell: bare when made only of
//     [A-Za-z0-9._/-], else in single quotes) and the line is run by the
//     login shell of the remote user: `echo 'a b' '$((1+2))'`;
//   - with a remote shell (the ssh config's `shell`, else the step's own
//     `shell:`), the arguments are rejoined (an argument holding a blank is
//     wrapped in double quotes unless already quoted) and the whole line is
//     given to that shell: `bash -c 'echo "a b" | tr a-z A-Z'`.
#pragma once

#include <string>
#include <vector>

namespace dagu {

struct DaguCommand {
  std::string command;
  std::vector<std::string> args;
};

// False when the line holds no word.
bool SplitDaguCommand(const std::string& line, DaguCommand* out);

// POSIX single-quoting of one word ("" -> '').
std::string QuoteForShell(const std::string& word);

// The line run on the remote side; `shell` "" = none.
std::string RemoteCommandLine(const DaguCommand& command, const std::string& shell,
                              const std::vector<std::string>& shell_args);

}  // namespace dagu
