// What every non-shell runner (jq, http, mail, ssh) shares:
//  - StepOutput: the step's .out/.err logs, its stdout:/stderr: copies and
//    the captured stdout for output:, written as the shell runner writes them;
//  - ExecutorConfig: the step's config: mapping, read as Dagu 1.30.2 decodes
//    it (keys matched case-insensitively, "weakly typed": "5" is an int,
//    1 is the string "1");
//  - ExpandConfigString: variables in config values, as 1.30.2 expands them
//    (the step's own variables, then its whole environment; an unknown
//    reference becomes "");
//  - CallbackStep: a RunningStep whose work runs in Wait() and which a
//    Signal() cancels at once (the work polls cancelled()).
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "executors/step_runner.h"

namespace dagu {

class StepOutput {
 public:
  explicit StepOutput(const StepInvocation& inv);
  ~StepOutput();
  StepOutput(const StepOutput&) = delete;
  StepOutput& operator=(const StepOutput&) = delete;

  void Out(std::string_view data);
  void Err(std::string_view data);
  // Moves the captured stdout (and the stderr tail) into *result.
  void Finish(StepResult* result);

 private:
  static void WriteAll(int fd, std::string_view data);
  size_t limit_;
  int out_ = -1, err_ = -1, extra_out_ = -1, extra_err_ = -1;
  std::string captured_;
  bool too_large_ = false;
  std::string stderr_tail_;
};

// The step's config: mapping, decoded weakly as Dagu does.
class ExecutorConfig {
 public:
  // From inv.executor_config_json; false with *error when it is not a JSON
  // object (an empty config is an empty object).
  bool Parse(const StepInvocation& inv, std::string* error);
  // From a JSON object already parsed.
  explicit ExecutorConfig(nlohmann::json object = nlohmann::json::object()) : j_(std::move(object)) {}

  const nlohmann::json* Find(std::string_view key) const;  // case-insensitive
  bool Has(std::string_view key) const { return Find(key) != nullptr; }
  // Scalars as strings (numbers as written by Go: 1, 1.5; bools true/false).
  std::string String(std::string_view key) const;
  bool Bool(std::string_view key) const;
  // -1 when absent; false with *error when not a whole number.
  bool Int(std::string_view key, int64_t* out, std::string* error) const;
  // A string (one item) or a list of scalars.
  std::vector<std::string> StringList(std::string_view key) const;
  // A mapping of scalars, keys as written.
  std::map<std::string, std::string> StringMap(std::string_view key) const;
  const nlohmann::json& json() const { return j_; }

 private:
  nlohmann::json j_;
};

// A scalar as Go's weak decoding turns it into a string.
std::string ScalarText(const nlohmann::json& v);

// `text` with the step's variables substituted: inv.expand first, then
// ${NAME} / $NAME / $1 / $$ from inv.env as Go's os.Expand reads them;
// unknown names become "".
std::string ExpandConfigString(const StepInvocation& inv, const std::string& text);

// The value of NAME in a "K=V" list (the last one wins).
std::optional<std::string> EnvValue(const std::vector<std::string>& env, std::string_view name);

class CallbackStep final : public RunningStep {
 public:
  using Work = std::function<StepResult(const std::atomic<bool>& cancelled)>;
  explicit CallbackStep(Work work) : work_(std::move(work)) {}
  StepResult Wait() override { return work_(cancelled_); }
  void Signal(int /*sig*/) override { cancelled_ = true; }

 private:
  Work work_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace dagu
