// Shell completion: `dagu __complete <words...> <partial word>` prints the
// candidates for the partial word, one per line ("value<TAB>description"),
// then ":<directive>". This is the protocol of cobra, the command-line
// library of Dagu 1.30.2, so the completion scripts 1.30.2 generated keep
// working with this binary, and so do ours (`dagu completion <shell>`).
//
// Candidates: subcommands (and `help`), the current command's flags for a
// word starting with '-', DAG names from the DAG folder for the commands
// that take a DAG (start, enqueue, dry, retry, status, stop, restart,
// cleanup, validate), the shells of `completion`. The DAG folder is the
// configured one, honouring --dagu-home, -c/--config and -d/--dags on the
// line being completed. Directive bits (cobra's): 1 error, 2 no space,
// 4 no file completion, 16 complete directories only.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace dagu::cli {

inline constexpr int kCompError = 1;
inline constexpr int kCompNoFile = 4;
inline constexpr int kCompDirsOnly = 16;

struct Completion {
  std::vector<std::pair<std::string, std::string>> candidates;  // value, description
  int directive = 0;
};

// `words` are the words after the program name; the last is the word being
// completed ("" for a new word).
Completion Complete(const CLI::App& root, const std::vector<std::string>& words);

// The protocol's text: one line per candidate, then ":<directive>".
std::string FormatCompletion(const Completion& c, bool descriptions);

// The names of the DAGs in `dags_dir` (*.yaml, *.yml), sorted.
std::vector<std::string> DagNamesIn(const std::string& dags_dir);

}  // namespace dagu::cli
