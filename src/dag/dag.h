// Dag: one workflow definition as loaded from a YAML file, in a form that is
// independent of the dialect it was written in (current snake_case upstream,
// legacy camelCase / command: / script:). Loading and validation live in
// dag_loader.h; this header is only the model.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cron/cron_schedule.h"

namespace dagu {

enum class OverlapPolicy { kSkip, kAll, kLatest };
enum class DagType { kGraph, kChain };

struct Schedules {
  std::vector<CronSchedule> start;
  std::vector<CronSchedule> stop;
  std::vector<CronSchedule> restart;
  bool empty() const { return start.empty() && stop.empty() && restart.empty(); }
};

struct Condition {
  std::string condition;  // a command or a string with ${VAR} references
  std::string expected;   // "" means: the command must exit 0
};

struct RetryPolicy {
  int limit = 0;
  std::chrono::nanoseconds interval{0};
  std::vector<int> exit_codes;  // empty: retry on any failure
};

struct RepeatPolicy {
  bool enabled = false;
  std::string mode;  // "while" | "until" | "" (legacy repeat: true)
  std::chrono::nanoseconds interval{0};
  int limit = 0;
  std::optional<Condition> condition;
  std::vector<int> exit_codes;
};

struct ContinueOn {
  bool failure = false;
  bool skipped = false;
  std::vector<int> exit_codes;
  std::vector<std::string> output;
  bool mark_success = false;
};

struct Step {
  std::string id;
  std::string name;
  std::string description;
  std::vector<std::string> commands;  // each a shell command line (run: string or list, command:)
  std::string script;                 // script: body, run with the shell
  std::string shell;                  // "" means the DAG's shell or $SHELL / sh
  std::vector<std::string> depends;   // step names (ids resolved to names at load)
  std::vector<std::pair<std::string, std::string>> env;  // in order; values may hold ${VAR}
  std::string working_dir;
  std::string output;                 // variable name to capture stdout into
  RetryPolicy retry_policy;
  RepeatPolicy repeat_policy;
  ContinueOn continue_on;
  std::chrono::nanoseconds timeout{0};
  std::vector<Condition> preconditions;
  std::string signal_on_stop;         // e.g. "SIGINT"; "" means SIGTERM
};

struct HandlerOn {
  std::optional<Step> init, success, failure, abort, exit;
};

struct Dag {
  std::string name;            // from name:, else the file name without extension
  std::string location;        // absolute path of the YAML file ("" for a queued snapshot)
  std::string description;
  std::vector<std::string> tags;
  std::string group;
  DagType type = DagType::kGraph;
  Schedules schedules;
  bool skip_if_successful = false;
  OverlapPolicy overlap_policy = OverlapPolicy::kSkip;
  std::chrono::nanoseconds catchup_window{0};  // 0: no catch-up
  std::string queue;           // "" means the DAG's own queue (its name)
  int max_active_runs = 1;
  int max_active_steps = 0;    // 0: unlimited
  std::vector<std::pair<std::string, std::string>> params;  // defaults, in order (positional keys "1","2"...)
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> dotenv;
  std::string working_dir;
  std::chrono::nanoseconds timeout{0};
  std::chrono::nanoseconds delay{0};
  int hist_retention_days = 30;
  HandlerOn handler_on;
  bool signal_propagation = false;  // signal_handling.enable_propagation
  std::vector<Condition> preconditions;
  std::string shell;
  std::vector<Step> steps;
  std::string yaml_data;       // the original file contents

  // The queue and proc group: queue if set, else the name.
  const std::string& ProcGroup() const { return queue.empty() ? name : queue; }
};

}  // namespace dagu
