// Shared by the executor tests: an invocation of one step of a Dag built in
// the test, and reading a step's logs.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "dag/dag.h"
#include "executors/step_runner.h"
#include "support/temp_dir.h"

namespace dagu::testing {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Owns the Dag and Step an invocation points at.
struct StepFixture {
  TempDir dir;
  Dag dag;
  Step step;

  StepInvocation Inv() const {
    StepInvocation inv;
    inv.step_name = step.name.empty() ? "s" : step.name;
    inv.commands = step.commands;
    inv.script = step.script;
    inv.working_dir = dir.path();
    inv.env = {"PATH=/usr/bin:/bin", "HOME=" + dir.path()};
    inv.stdout_path = dir.Sub("s.out");
    inv.stderr_path = dir.Sub("s.err");
    inv.executor_type = step.executor_type;
    inv.executor_config_json = step.executor_config_json;
    inv.dag = &dag;
    inv.step = &step;
    return inv;
  }
  std::string Out() const { return ReadFile(dir.Sub("s.out")); }
  std::string Err() const { return ReadFile(dir.Sub("s.err")); }
};

}  // namespace dagu::testing
