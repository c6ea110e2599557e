// The decisions of a run about one node (step), as Dagu 1.30.2's runner
// makes them, written as pure functions of the states involved so that each
// is table-tested (node_rules_test.cc) and the executor loop
// (executor.h) only applies them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "dag/dag.h"
#include "store/run_status.h"

namespace dagu {

// --- dependencies ---------------------------------------------------------

// A finished (or not) dependency as the readiness rule sees it.
struct DependencyView {
  NodeStatus status = NodeStatus::kNotStarted;
  bool should_continue = false;  // ShouldContinue() of that node
};

struct Readiness {
  enum Kind { kWait, kReady, kAbort, kSkip };
  Kind kind = kWait;
  std::string error;  // kAbort/kSkip: "upstream failed" / "upstream skipped" ("" for an aborted upstream)
};

// Dagu's isReady, dependencies in order: the first one that is not through
// decides. Succeeded / partially succeeded: through. Failed: through when it
// may continue, else abort ("upstream failed"). Skipped: through when it may
// continue, else skip ("upstream skipped"). Aborted / rejected: abort
// (rejected says "upstream rejected"). Not started / running: wait.
Readiness DependencyReadiness(const std::vector<DependencyView>& deps);

// --- continue_on ----------------------------------------------------------

// Dagu's ShouldContinue: a succeeded or partially succeeded node always lets
// dependants run; an aborted one never; a skipped one with
// `continue_on.skipped`; a failed one with `continue_on.failure`, a listed
// exit code, or an `output` pattern found in its stdout (`output_matches`).
bool ShouldContinue(const ContinueOn& c, NodeStatus status, int exit_code, bool output_matches);

// Whether a failed node's continue decision is remembered as the output
// variable DAGU_CONTINUE_ON.<step> (it is, unless continue_on.failure
// decides it at once).
bool RecordsContinueDecision(const ContinueOn& c);

// The name of that variable.
std::string ContinueOnVariable(const std::string& step_name);

// Whether `text` (a step's stdout) holds one of `patterns`: "re:<regex>"
// searched line by line, else a plain substring of a line.
bool OutputMatches(const std::vector<std::string>& patterns, const std::string& text);

// Evaluated condition text compared with `expected`: "re:<regex>" found
// anywhere in the value (Go's regexp.MatchString), else equal values.
bool MatchesExpected(const std::string& value, const std::string& expected);

// --- retry and repeat -----------------------------------------------------

// Dagu's calculateBackoffInterval: interval * backoff^attempt (attempt
// counted from 0), capped by max_interval; without backoff the interval.
Duration BackoffInterval(Duration interval, double backoff, Duration max_interval, int attempt);

// Whether a failed execution is retried: fewer retries so far than the
// limit, and no exit codes listed or the exit code among them.
bool ShouldRetry(const RetryPolicy& policy, int retries_so_far, int exit_code);

// Whether a node runs again after an execution (Dagu's shouldRepeatNode).
// `done_count` counts executions so far (this one included);
// `condition_met` is the evaluated repeat condition (only asked for when
// the policy has one).
struct RepeatInput {
  int done_count = 0;
  bool failed = false;  // the execution ended with an error
  int exit_code = 0;
  std::optional<bool> condition_met;
};
bool ShouldRepeat(const RepeatPolicy& policy, const RepeatInput& in);

// --- the run --------------------------------------------------------------

struct NodeView {
  NodeStatus status = NodeStatus::kNotStarted;
  bool should_continue = false;
  bool mark_success = false;  // continue_on.mark_success
};

// Dagu's Runner.Status at the end of a run: aborted when cancelled and not
// every node succeeded / was skipped; rejected when a node is rejected;
// waiting when a node waits for its approval; partially succeeded when every failed
// node may continue and something succeeded while a continued failure
// (without mark_success) or a partially succeeded node exists; failed when
// an error was recorded; succeeded otherwise.
RunStatus FinalRunStatus(const std::vector<NodeView>& nodes, bool cancelled, bool has_error);


// "SIGINT" -> SIGINT; 0 when unknown or empty.
int SignalNumber(const std::string& name);

}  // namespace dagu
