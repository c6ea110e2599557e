// `dagu exec [flags] -- <command> [args...]`: a one-off command run as a
// DAG-run, as Dagu 1.30.2 does it: a DAG named "exec-<command>" (or -N) of
// type chain with one step "main" running the command line, in the current
// directory (or --workdir), with --env variables and --dotenv files, on top
// of the base config (the config's, or --base instead). It is recorded like
// any run (visible to `status`, the UI and the API) and runs in the
// foreground with `start`'s summary and exit status.
#include <unistd.h>

#include <iostream>
#include <regex>

#include <nlohmann/json.hpp>

#include "cli/help.h"
#include "config/path_resolve.h"
#include "cli/run_support.h"
#include "core/exit_codes.h"
#include "dag/dag_names.h"
#include "store/run_layout.h"

namespace dagu::cli {
namespace {

struct ExecArgs {
  CommonFlags flags;
  std::string name, run_id, workdir, shell, base;
  std::vector<std::string> env, dotenv, worker_labels;
  std::vector<std::string> command;
};

// The command line Dagu builds from the words: a word with a space is put
// in double quotes (its double quotes escaped) unless it is quoted already
// or is NAME="value".
std::string CommandLine(const std::vector<std::string>& words) {
  static const std::regex kQuotedKeyValue(R"re(^[^\s=]+="[^"]+"$)re");
  std::string line = words[0];
  for (size_t i = 1; i < words.size(); ++i) {
    std::string w = words[i];
    bool quoted = w.size() >= 2 && ((w.front() == '"' && w.back() == '"') || (w.front() == '\'' && w.back() == '\''));
    if (!quoted && w.find(' ') != std::string::npos && !std::regex_match(w, kQuotedKeyValue)) {
      std::string escaped;
      for (char c : w) {
        if (c == '"') escaped += '\\';
        escaped += c;
      }
      w = "\"" + escaped + "\"";
    }
    line += " " + w;
  }
  return line;
}

// `path` as Dagu resolves a path flag: $VARS and "~" expanded, made
// absolute against the current directory, cleaned.
std::string Absolute(const std::string& path) {
  char cwd[4096];
  std::string out;
  if (::getcwd(cwd, sizeof cwd) == nullptr ||
      !config_internal::ResolvePath(path, ProcessEnvironment(), cwd, &out).ok()) {
    return path;
  }
  return out;
}

bool IsFile(const std::string& path) {
  FileInfo info;
  return PosixFileSystem()->Stat(path, &info).ok() && !info.is_dir;
}

// A YAML scalar (JSON strings are valid YAML).
std::string Scalar(const std::string& s) { return nlohmann::json(s).dump(); }

int RunExec(const ExecArgs& a) {
  if (a.command.empty()) return CommandError("command is required (try: dagu exec -- <command>)");
  RunContext ctx;
  if (int rc = Setup(a.flags, "exec", &ctx); rc != kExitOk) return rc;

  std::string run_id = a.run_id.empty() ? NewUuidV7(Clock::Real()->Now()) : a.run_id;
  if (Status s = ValidateRunId(run_id); !s.ok()) return CommandError(s.message());
  std::string name = a.name;
  if (name.empty()) {
    std::string base = a.command[0].substr(a.command[0].find_last_of('/') + 1);
    name = "exec-" + (SafeName(base).empty() ? std::string("command") : SafeName(base));
    if (name.size() > kMaxDagNameLength) name.resize(kMaxDagNameLength);
  }
  if (std::string why = DagNameProblem(name); !why.empty()) return CommandError("invalid DAG name: " + why);

  std::string workdir = Absolute(a.workdir.empty() ? "." : a.workdir);
  FileInfo info;
  if (!PosixFileSystem()->Stat(workdir, &info).ok()) {
    return CommandError("working directory \"" + workdir + "\" not found");
  }
  if (!info.is_dir) return CommandError("working directory \"" + workdir + "\" is not a directory");

  LoadDagOptions options = ctx.dag_options;
  if (!a.base.empty()) {
    if (!IsFile(Absolute(a.base))) return CommandError("base DAG file \"" + a.base + "\" not found");
    options.base_config = Absolute(a.base);
  }
  for (const std::string& e : a.env) {
    if (e.find('=') == std::string::npos || e[0] == '=') {
      return CommandError("invalid --env value \"" + e + "\": expected KEY=VALUE");
    }
  }
  std::vector<std::string> dotenv;
  for (const std::string& d : a.dotenv) {
    if (d.find_first_not_of(" \t") == std::string::npos) continue;
    if (!IsFile(Absolute(d))) return CommandError("dotenv file \"" + d + "\" not found");
    dotenv.push_back(Absolute(d));
  }
  for (const std::string& l : a.worker_labels) {
    size_t eq = l.find('=');
    if (l.find_first_not_of(" \t") == std::string::npos) continue;
    if (eq == std::string::npos || eq == 0 || eq + 1 == l.size()) {
      return CommandError("invalid worker label \"" + l + "\": expected key=value");
    }
  }
  if (!a.worker_labels.empty() && !ctx.config.queues.enabled) {
    return CommandError("worker selector requires queues; enable queues or remove --worker-label");
  }

  // The DAG, as YAML, loaded as any DAG file is (base config, env, dotenv).
  std::string yaml = "name: " + Scalar(name) + "\ntype: chain\n";
  if (!a.env.empty()) {
    yaml += "env:\n";
    for (const std::string& e : a.env) yaml += "  - " + Scalar(e) + "\n";
  }
  if (!dotenv.empty()) {
    yaml += "dotenv:\n";
    for (const std::string& d : dotenv) yaml += "  - " + Scalar(d) + "\n";
  }
  yaml += "steps:\n  - name: main\n    command: " + Scalar(CommandLine(a.command)) + "\n";
  if (!a.shell.empty()) yaml += "    shell: " + Scalar(a.shell) + "\n";
  AgentRequest req;
  req.mode = AgentRequest::Mode::kStart;
  std::vector<DagError> problems;
  Status s = LoadDagFromString(yaml, workdir + "/" + name + ".yaml", options, &req.dag, &problems);
  if (!s.ok()) {
    for (const DagError& e : problems) std::cerr << e.ToString() << "\n";
    return CommandError("failed to load generated DAG: " + s.message());
  }
  req.dag.name = name;
  req.dag.working_dir = workdir;
  req.dag.location.clear();
  req.params = req.dag.params;
  req.run_id = run_id;

  RunStore runs = ctx.Runs();
  StatusOr<bool> exists = runs.RunExists(name, run_id);
  if (!exists.ok()) return CommandError("failed to check for existing dag-run: " + exists.status().message());
  if (*exists) return CommandError("dag-run ID " + run_id + " already exists for DAG " + name);
  RunLogging logging;
  logging.quiet = a.flags.quiet;
  logging.intro = "Executing inline dag-run";
  logging.intro_fields = {{"dag", name}, {"command", CommandLine(a.command)}, {"run-id", run_id}};
  return RunAgent("exec", ctx, req, a.flags.quiet ? Summary::kNever : Summary::kAlways, logging);
}

}  // namespace

void AddExecCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<ExecArgs>();
  auto* cmd = app.add_subcommand("exec", "Execute a one-off command as a DAG run");
  SetCommandDoc(cmd, {"exec [flags] -- <command> [args...]",
                      "Run one command as a DAG-run without writing a DAG file: a DAG named\n"
                      "exec-<command> (or --name) with one step \"main\", recorded like any run.\n\n"
                      "Examples:\n"
                      "  dagu exec -- echo \"hello world\"\n"
                      "  dagu exec --env FOO=bar -- sh -c 'echo $FOO'\n"
                      "  dagu exec --workdir /srv/app --dotenv .env -- ./deploy.sh"});
  AddCommonFlags(cmd, &a->flags);
  cmd->add_option("--base", a->base, "Path to a base DAG YAML whose defaults are applied before inline overrides");
  cmd->add_option("--dotenv", a->dotenv, "Path to a dotenv file to load before execution; repeatable")
      ->type_name("stringArray")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->expected(1)
      ->allow_extra_args(false);  // one value per flag; "--" stays the end of the flags
  cmd->add_option("-E,--env", a->env, "Environment variable (KEY=VALUE) to include in the run; repeatable")
      ->type_name("stringArray")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->expected(1)
      ->allow_extra_args(false);  // one value per flag; "--" stays the end of the flags
  cmd->add_option("-N,--name", a->name, "Override the DAG name (default: exec-<command>)");
  cmd->add_option("-r,--run-id", a->run_id, kNewRunIdFlagHelp);
  cmd->add_option("--shell", a->shell, "Override shell binary for the command (default: the default shell)");
  cmd->add_option("--workdir", a->workdir, "Working directory for executing the command (default: current directory)");
  cmd->add_option("--worker-label", a->worker_labels,
                  "Worker label selector (key=value); accepted, runs execute on this host")
      ->type_name("stringArray")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->expected(1)
      ->allow_extra_args(false);  // one value per flag; "--" stays the end of the flags
  cmd->add_option("command", a->command, "The command and its arguments (after --)");
  cmd->callback([a, exit_code] { *exit_code = RunExec(*a); });
}

}  // namespace dagu::cli
