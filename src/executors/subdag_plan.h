// What a call step starts, worked out from its definition and the run's
// variables when the step starts, as Dagu 1.30.2 works it out:
//
//  - call without parallel: one child; its params are the step's params text
//    (dag/call_params.h) with variables substituted: the run's own first
//    (`expand`), then the step's environment (unknown names empty).
//  - parallel: one child per item. Items are the written ones (a scalar, or a
//    mapping that becomes compact JSON with sorted keys) or the value of the
//    `parallel: ${VAR}` text split by SplitParallelValue. With step params,
//    each child's params are the params text with ${ITEM} (and
//    ${ITEM.field} into a JSON item) replaced; without, the item itself.
//    Children with equal params are one run (started once); at most 1000.
//  - each child's run ID is SubRunId(...) below.
//
// Pure functions (variables come through the invocation's `expand`).
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "executors/step_runner.h"

namespace dagu {

inline constexpr size_t kMaxParallelItems = 1000;

struct ChildRunPlan {
  std::string run_id;  // the sub-run ID
  std::string params;  // the params text passed after `--` ("" = none)
};

// The children of the call step `inv.step`, in item order. InvalidArgument
// with Dagu's message when the items cannot be had (no items, too many, a
// bad JSON array).
Status PlanChildRuns(const StepInvocation& inv, std::vector<ChildRunPlan>* out);

// Base58(SHA-256("<parent run ID>:<step name>:<params>")), or with
// ":<16 random hex>" appended when `repeated` (a step run again by its
// repeat policy gets a fresh child).
std::string SubRunId(const std::string& parent_run_id, const std::string& step_name, const std::string& params,
                     bool repeated);

// Dagu's ParseSeparatedValues: a JSON array (strings as is, other values as
// compact JSON), a JSON object (one item), else lines, else the most
// frequent of tab / '|' / ';' / ',' (comma preferred on ties), else quoted
// strings ("a b" "c"), else whitespace-separated words; items trimmed, empty
// ones dropped. InvalidArgument on a malformed JSON array.
Status SplitParallelValue(const std::string& value, std::vector<std::string>* out);

// `text` with every ${NAME} / $NAME replaced by its value in `env` ("K=V"
// items; unknown names become empty), as Dagu evaluates a call's params;
// other ${...} forms are left as written.
std::string ExpandEnvRefs(const std::string& text, const std::vector<std::string>& env);

// `text` with ${ITEM}, $ITEM and ${ITEM.path} replaced: the path (a.b[0].c)
// looks into `item` as JSON; a string result is used as is, anything else as
// compact JSON; a path that finds nothing is left as written. A reference
// written between double quotes ("${ITEM}", "${ITEM.a.b}": how step params
// NAME: ${ITEM} are written) is replaced with its value Go-quoted, quotes
// included, so a JSON object item survives as one value: NAME="{\"a\": 1}".
std::string SubstituteItem(const std::string& text, const std::string& item);

}  // namespace dagu
