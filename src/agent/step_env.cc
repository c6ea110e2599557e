#include "agent/step_env.h"

#include "core/file_system.h"

namespace dagu {

std::string EvalBackticks(const std::string& text, const std::string& shell, const VarList& env,
                          const std::string& dir, const CommandRunner& run) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = text.find('`', pos);
    size_t close = open == std::string::npos ? std::string::npos : text.find('`', open + 1);
    if (close == std::string::npos) {
      out += text.substr(pos);
      break;
    }
    out += text.substr(pos, open - pos);
    std::string value;
    run(shell, text.substr(open + 1, close - open - 1), env, dir, &value);
    out += value;
    pos = close + 1;
  }
  return out;
}

StepEnv::StepEnv(const Dag& dag, const Params& params, std::string default_shell)
    : dag_(dag), params_(params), default_shell_(std::move(default_shell)) {
  if (default_shell_.empty()) default_shell_ = "sh";
}

void StepEnv::BuildRunVars(const std::vector<std::pair<std::string, std::string>>& base, const CommandRunner& run) {
  run_vars_ = VarList();
  for (const auto& [k, v] : base) run_vars_.Set(k, v);
  const std::string shell = ShellFor(Step());
  const std::string dir = dag_.working_dir;
  // dotenv: .env first, then the listed files; relative to the working dir.
  if (!dag_.dotenv_disabled) {
    std::vector<std::string> files{".env"};
    files.insert(files.end(), dag_.dotenv.begin(), dag_.dotenv.end());
    for (const auto& f : files) {
      std::string path = (f.empty() || f[0] == '/' || dir.empty()) ? f : JoinPath(dir, f);
      std::string text;
      if (!PosixFileSystem()->ReadFile(path, &text).ok()) continue;
      for (const auto& [k, v] : ParseDotenv(text)) run_vars_.Set(k, v);
    }
  }
  for (const auto& [k, v] : dag_.env) {
    std::string value = ExpandVars(v, run_vars_.LookupOrEmpty());
    if (value.find('`') != std::string::npos) value = EvalBackticks(value, shell, run_vars_, dir, run);
    run_vars_.Set(k, value);
  }
  Json params_json = Json::object();
  for (const auto& [k, v] : params_) {
    std::string value = ExpandVars(v, run_vars_.LookupOrEmpty());
    run_vars_.Set(k, value);
    params_json[k] = value;
  }
  run_vars_.Set("DAGU_PARAMS_JSON", params_json.dump());
}

VarList StepEnv::ForStep(const Step& step, const VarList& outputs, const Logs& logs,
                         const std::string& run_status) const {
  VarList env = run_vars_;
  for (const auto& [k, v] : outputs.items()) env.Set(k, v);
  VarList before = env;  // step env entries do not see each other
  for (const auto& [k, v] : step.env) env.Set(k, ExpandVars(v, before.LookupOrEmpty()));
  env.Set("DAG_RUN_STEP_NAME", step.name);
  env.Set("DAG_RUN_STEP_STDOUT_FILE", logs.stdout_path);
  env.Set("DAG_RUN_STEP_STDERR_FILE", logs.stderr_path);
  if (!run_status.empty()) env.Set("DAG_RUN_STATUS", run_status);
  return env;
}

VarLookup StepEnv::OwnedLookup(const Step& step, const VarList& outputs) const {
  // Params, outputs and the step's env are substituted into command text;
  // anything else is left for the shell.
  auto owned = std::make_shared<VarList>();
  for (const auto& [k, v] : params_) {
    if (auto value = run_vars_.Get(k)) owned->Set(k, *value);
  }
  for (const auto& [k, v] : outputs.items()) owned->Set(k, v);
  VarList scope = run_vars_;
  for (const auto& [k, v] : outputs.items()) scope.Set(k, v);
  for (const auto& [k, v] : step.env) owned->Set(k, ExpandVars(v, scope.LookupOrEmpty()));
  return [owned](std::string_view name) { return owned->Get(name); };
}

std::string StepEnv::ShellFor(const Step& step) const {
  if (!step.shell.empty()) return step.shell;
  if (!dag_.shell.empty()) return dag_.shell;
  return default_shell_;
}

std::vector<std::string> StepEnv::ShellArgsFor(const Step& step) const {
  return !step.shell.empty() ? step.shell_args : dag_.shell_args;
}

std::string StepEnv::DagWorkingDir() const { return ExpandVars(dag_.working_dir, run_vars_.Lookup()); }

std::string StepEnv::WorkingDirFor(const Step& step, const VarList& env) const {
  std::string base = ExpandVars(dag_.working_dir, env.Lookup());
  if (step.working_dir.empty()) return base;
  std::string dir = ExpandVars(step.working_dir, env.Lookup());
  if (!dir.empty() && dir[0] == '~') {
    if (auto home = env.Get("HOME")) dir = *home + dir.substr(1);
  }
  if (!dir.empty() && dir[0] != '/' && !base.empty()) dir = JoinPath(base, dir);
  return dir;
}

}  // namespace dagu
