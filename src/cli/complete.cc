#include "cli/complete.h"

#include <algorithm>
#include <set>

#include "config/config.h"
#include "core/file_system.h"
#include "dag/dag_names.h"

namespace dagu::cli {
namespace {

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Commands whose first argument is a DAG (a name, or for some a file).
const std::set<std::string>& DagCommands() {
  static const std::set<std::string> kCommands = {"start",  "enqueue", "dry",     "retry",   "status",
                                                  "stop",   "restart", "cleanup", "validate"};
  return kCommands;
}

// Flags whose value is a path: file completion (directories only for some).
int PathDirective(const std::string& long_name) {
  static const std::set<std::string> kDirs = {"dagu-home", "dags", "workdir", "default-working-dir"};
  static const std::set<std::string> kFiles = {"config", "base", "dotenv", "peer.cert-file", "peer.key-file",
                                               "peer.client-ca-file"};
  if (kDirs.count(long_name)) return kCompDirsOnly;
  if (kFiles.count(long_name)) return 0;
  return kCompNoFile;
}

const CLI::Option* FindOption(const CLI::App* cmd, const std::string& word) {
  for (const CLI::Option* o : cmd->get_options([](const CLI::Option* o) { return o->nonpositional(); })) {
    if (StartsWith(word, "--")) {
      for (const std::string& l : o->get_lnames()) {
        if (l == word.substr(2)) return o;
      }
    } else {
      for (const std::string& s : o->get_snames()) {
        if (s == word.substr(1, 1)) return o;
      }
    }
  }
  return nullptr;
}

const CLI::App* FindSubcommand(const CLI::App* cmd, const std::string& name) {
  for (const CLI::App* s : cmd->get_subcommands([](const CLI::App*) { return true; })) {
    if (s->get_name() == name) return s;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> DagNamesIn(const std::string& dags_dir) {
  std::vector<std::string> names, out;
  if (!PosixFileSystem()->ListDir(dags_dir, &names).ok()) return out;
  for (const std::string& n : names) {
    bool yaml = (n.size() > 5 && n.compare(n.size() - 5, 5, ".yaml") == 0) ||
                (n.size() > 4 && n.compare(n.size() - 4, 4, ".yml") == 0);
    if (yaml && n[0] != '.') out.push_back(DagNameFromPath(n));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Completion Complete(const CLI::App& root, const std::vector<std::string>& words) {
  Completion c;
  std::string partial = words.empty() ? "" : words.back();
  const CLI::App* cmd = &root;
  int positionals = 0;
  bool after_dashes = false;
  const CLI::Option* pending = nullptr;  // a flag waiting for its value
  ConfigOverrides overrides;
  auto remember = [&overrides](const CLI::Option* o, const std::string& value) {
    if (o->check_lname("dagu-home")) overrides.dagu_home = value;
    if (o->check_lname("config")) overrides.config_file = value;
    if (o->check_lname("dags")) overrides.dags_dir = value;
  };
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    const std::string& w = words[i];
    if (pending != nullptr) {
      remember(pending, w);
      pending = nullptr;
    } else if (after_dashes) {
      ++positionals;
    } else if (w == "--") {
      after_dashes = true;
    } else if (w.size() > 1 && w[0] == '-') {
      size_t eq = w.find('=');
      const CLI::Option* o = FindOption(cmd, w.substr(0, eq));
      if (o == nullptr || o->get_expected_min() == 0) continue;
      if (eq != std::string::npos) {
        remember(o, w.substr(eq + 1));
      } else if (StartsWith(w, "--") || w.size() == 2) {
        pending = o;
      }
    } else if (positionals == 0 && FindSubcommand(cmd, w) != nullptr) {
      cmd = FindSubcommand(cmd, w);
    } else {
      ++positionals;
    }
  }

  if (pending != nullptr) {
    c.directive = PathDirective(pending->get_lnames().empty() ? "" : pending->get_lnames().front());
    return c;
  }
  if (after_dashes) return c;  // a command or params: the shell's own completion
  if (StartsWith(partial, "-")) {
    for (const CLI::Option* o : cmd->get_options([](const CLI::Option* o) { return o->nonpositional(); })) {
      if (o->get_group().empty()) continue;
      for (const std::string& l : o->get_lnames()) {
        if (StartsWith("--" + l, partial)) c.candidates.emplace_back("--" + l, o->get_description());
      }
      if (!StartsWith(partial, "--")) {
        for (const std::string& s : o->get_snames()) {
          if (StartsWith("-" + s, partial)) c.candidates.emplace_back("-" + s, o->get_description());
        }
      }
    }
    std::sort(c.candidates.begin(), c.candidates.end());
    c.directive = kCompNoFile;
    return c;
  }
  c.directive = kCompNoFile;
  const std::string name = cmd == &root ? "" : cmd->get_name();
  if (name == "help" || (positionals == 0 && !cmd->get_subcommands([](const CLI::App*) { return true; }).empty())) {
    const CLI::App* from = name == "help" ? &root : cmd;
    for (const CLI::App* s : from->get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
      if (StartsWith(s->get_name(), partial)) c.candidates.emplace_back(s->get_name(), s->get_description());
    }
    std::sort(c.candidates.begin(), c.candidates.end());
    if (!c.candidates.empty() || cmd != &root) return c;
  }
  if (name == "exec") {
    c.directive = 0;  // the command to run: the shell's own completion
    return c;
  }
  if (positionals == 0 && DagCommands().count(name) != 0) {
    Config config;
    if (LoadConfig(overrides, ProcessEnvironment(), &config).ok()) {
      for (const std::string& dag : DagNamesIn(config.paths.dags_dir)) {
        if (StartsWith(dag, partial)) c.candidates.emplace_back(dag, "");
      }
    }
    // A path instead of a name: the shell's file completion.
    if (c.candidates.empty()) c.directive = 0;
  }
  return c;
}

std::string FormatCompletion(const Completion& c, bool descriptions) {
  std::string out;
  for (const auto& [value, description] : c.candidates) {
    out += value;
    if (descriptions && !description.empty()) {
      std::string d = description;
      std::replace(d.begin(), d.end(), '\n', ' ');
      out += "\t" + d;
    }
    out += "\n";
  }
  out += ":" + std::to_string(c.directive) + "\n";
  return out;
}

}  // namespace dagu::cli
