#include "agent/step_env.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "core/json_text.h"
#include "core/file_system.h"
#include "core/strings.h"

namespace dagu {
namespace {

// A value starting with "~/" (or just "~") is under the home directory.
std::string ExpandTilde(const std::string& value, const VarList& env) {
  if (value != "~" && value.rfind("~/", 0) != 0) return value;
  auto home = env.Get("HOME");
  return home ? *home + value.substr(1) : value;
}

}  // namespace

std::string ResolveLogDir(const std::string& log_dir,
                          const std::vector<std::pair<std::string, std::string>>& process_env,
                          const std::vector<std::pair<std::string, std::string>>& dag_env) {
  if (log_dir.empty()) return log_dir;
  VarList vars;
  for (const auto& [k, v] : process_env) vars.Set(k, v);
  for (const auto& [k, v] : dag_env) vars.Set(k, ExpandTilde(ShellExpand(v, vars.Lookup()), vars));
  std::string dir = ExpandTilde(ShellExpand(log_dir, vars.Lookup()), vars);
  if (dir.empty()) return dir;
  dir = std::filesystem::path(dir).lexically_normal().string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

std::vector<std::pair<std::string, std::string>> ReadDotenvFiles(const Dag& dag, const std::string& working_dir,
                                                                 const VarList& env) {
  std::vector<std::pair<std::string, std::string>> out;
  if (dag.dotenv_disabled) return out;
  std::vector<std::string> dirs{working_dir};
  if (!dag.location.empty() && DirName(dag.location) != working_dir) dirs.push_back(DirName(dag.location));
  std::vector<std::string> files{".env"};
  for (const auto& f : dag.dotenv) {
    if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);  // once each, as 1.30.2
  }
  for (const auto& f : files) {
    if (TrimSpace(f).empty()) continue;
    std::string text;
    std::string path = ExpandTilde(f, env);
    if (path[0] == '/') {
      if (!PosixFileSystem()->ReadFile(path, &text).ok()) continue;
    } else {
      bool found = false;
      for (const auto& d : dirs) {
        if (d.empty()) continue;
        if (PosixFileSystem()->ReadFile(JoinPath(d, path), &text).ok()) {
          found = true;
          break;
        }
      }
      if (!found) continue;
    }
    for (auto& kv : ParseDotenv(text)) out.push_back(std::move(kv));
  }
  return out;
}

StepEnv::StepEnv(const Dag& dag, const Params& params, std::string default_shell)
    : dag_(dag), params_(params), default_shell_(std::move(default_shell)) {
  if (default_shell_.empty()) default_shell_ = "sh";
}

std::string StepEnv::EvalValue(const std::string& text, const VarList& env, const std::string& dir,
                               const CommandRunner& run) const {
  std::string value = text;
  if (value.find('`') != std::string::npos) {
    const std::string shell = ShellFor(Step());
    value = ReplaceBackticks(value, [&](const std::string& command) {
      std::string out;
      run(shell, command, env, dir, &out);
      return out;
    });
  }
  if (value.find('$') != std::string::npos) value = ShellExpand(value, env.Lookup());
  return value;
}

std::string StepEnv::EvalCommand(const std::string& text, const OwnedVars& owned, const VarList& env,
                                 const std::string& dir, const CommandRunner& run) const {
  std::string value = Substitute(text, owned);
  if (value.find('`') == std::string::npos) return value;
  const std::string shell = ShellFor(Step());
  return ReplaceBackticks(value, [&](const std::string& command) {
    std::string out;
    run(shell, command, env, dir, &out);
    return out;
  });
}

void StepEnv::BuildRunVars(const std::vector<std::pair<std::string, std::string>>& base, const CommandRunner& run) {
  run_vars_ = VarList();
  params_vars_ = VarList();
  // The DAG's env and params are evaluated as 1.30.2 evaluates them, when the
  // DAG is loaded: DAG_NAME, DAG_RUN_ID and DAG_RUN_LOG_FILE are not set yet
  // (`${DAG_NAME}` in an env value is empty), though the steps see them.
  VarList eval_vars;
  for (const auto& [k, v] : base) {
    run_vars_.Set(k, v);
    if (k != "DAG_NAME" && k != "DAG_RUN_ID" && k != "DAG_RUN_LOG_FILE") eval_vars.Set(k, v);
  }
  const std::string dir = ExpandTilde(ExpandVars(dag_.working_dir, run_vars_.Lookup()), run_vars_);
  for (const auto& [k, v] : ReadDotenvFiles(dag_, dir, run_vars_)) {
    run_vars_.Set(k, v);
    eval_vars.Set(k, v);
  }
  for (const auto& [k, v] : dag_.env) {
    const std::string value = ExpandTilde(EvalValue(v, eval_vars, dir, run), eval_vars);
    run_vars_.Set(k, value);
    eval_vars.Set(k, value);
  }
  vars_without_params_ = run_vars_;
  Json params_json = Json::object();
  for (const auto& [k, v] : params_) {
    std::string value = EvalValue(v, eval_vars, dir, run);
    run_vars_.Set(k, value);
    eval_vars.Set(k, value);
    params_vars_.Set(k, value);
    params_json[k] = value;
  }
  if (!params_.empty()) run_vars_.Set("DAGU_PARAMS_JSON", JsonText(params_json));  // unset without params, as 1.30.2
}

VarList StepEnv::ForStep(const Step& step, const VarList& outputs, const Logs* logs, const std::string& run_status,
                         const CommandRunner& run, const StepRefs& refs) const {
  VarList env = run_vars_;
  for (const auto& [k, v] : outputs.items()) env.Set(k, v);
  env.Set("DAG_RUN_STEP_NAME", step.name);  // step env values see it (not the log file variables)
  const VarList before = env;  // step env entries do not see each other
  const std::string dir = DagWorkingDir();
  OwnedVars owned;
  owned.maps = {params_vars_, outputs};
  owned.steps = refs;
  owned.env = before.Lookup();
  for (const auto& [k, v] : step.env) {
    env.Set(k, ExpandTilde(EvalValue(ExpandJsonReferences(v, owned), before, dir, run), before));
  }
  env.Set("DAG_RUN_STEP_NAME", step.name);
  if (logs != nullptr) {
    env.Set("DAG_RUN_STEP_STDOUT_FILE", logs->stdout_path);
    env.Set("DAG_RUN_STEP_STDERR_FILE", logs->stderr_path);
  }
  if (!run_status.empty()) env.Set("DAG_RUN_STATUS", run_status);
  return env;
}

OwnedVars StepEnv::Owned(const Step& step, const VarList& outputs, const VarList& env, StepRefs steps) const {
  OwnedVars owned;
  owned.maps.push_back(params_vars_);
  owned.maps.push_back(outputs);
  VarList step_env;
  for (const auto& [k, v] : step.env) {
    if (auto value = env.Get(k)) step_env.Set(k, *value);
  }
  owned.maps.push_back(std::move(step_env));
  owned.steps = std::move(steps);
  auto copy = std::make_shared<VarList>(env);
  owned.env = [copy](std::string_view name) { return copy->Get(name); };
  return owned;
}

std::string StepEnv::ShellFor(const Step& step) const {
  if (!step.shell.empty()) return step.shell;
  if (!dag_.shell.empty()) return dag_.shell;
  return default_shell_;
}

std::vector<std::string> StepEnv::ShellArgsFor(const Step& step) const {
  return !step.shell.empty() ? step.shell_args : dag_.shell_args;
}

std::string StepEnv::DagWorkingDir() const {
  return ExpandTilde(ExpandVars(dag_.working_dir, run_vars_.Lookup()), run_vars_);
}

std::string StepEnv::WorkingDirFor(const Step& step, const VarList& env) const {
  std::string base = ExpandTilde(ExpandVars(dag_.working_dir, env.Lookup()), env);
  if (step.working_dir.empty()) return base;
  std::string dir = ExpandVars(step.working_dir, env.Lookup());
  if (!dir.empty() && dir[0] == '~') {
    if (auto home = env.Get("HOME")) dir = *home + dir.substr(1);
  }
  if (!dir.empty() && dir[0] != '/' && !base.empty()) dir = JoinPath(base, dir);
  return dir;
}

}  // namespace dagu
