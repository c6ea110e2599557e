// JqRunner: `type: jq` (Dagu 1.30.2). The step's command is the jq filter,
// its script the JSON input; each result goes to stdout on its own line:
// pretty-printed as Go's json.MarshalIndent with four spaces (keys sorted,
// HTML-safe strings), or with `config: {raw: true}` strings bare, null as an
// empty line, numbers as Go prints a float64 and collections compact.
// The filter runs on Debian's libjq (the real jq). As in 1.30.2 the filter
// is not expanded (`$x` is jq's own syntax) and the input is, as config
// values are (an unknown variable becomes "").
//
// Errors, as 1.30.2 reports them: input that is not one JSON value fails the
// step with Go's message ("unexpected end of JSON input", "invalid character
// 'x' looking for beginning of value"); a filter that does not parse fails
// it with the parse error ("unexpected EOF" for a truncated one); a runtime
// error (or an unknown function) is written to stderr as "failed to run jq
// query: <error>" and the step still succeeds. Signal() abandons a filter
// that runs on at once.
#pragma once

#include "executors/step_runner.h"

namespace dagu {

class JqRunner final : public StepRunner {
 public:
  std::unique_ptr<RunningStep> Start(const StepInvocation& invocation) override;
};

}  // namespace dagu
