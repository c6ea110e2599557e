// dag.json and step snapshots: the DAG of one attempt as JSON in the shape of
// Dagu 1.30.2's Go DAG struct (docs/storage.md, "dag.json"), so
// that Dagu's `status`, UI, zombie detector and queue processor read what we
// write, and Dagu's `retry` can execute a run we queued.
//
// What Dagu 1.30.2 executes on `retry` (checked against the real binary): the
// steps come from the node snapshots of the latest status record, and each
// command is run as `<shell> -c <cmdWithArgs>`. So every step snapshot
// carries `commands: [{command, args, cmdWithArgs}]` with the full command
// line in `cmdWithArgs`; the same snapshot goes into dag.json and into the
// status record's nodes.
//
// Reading (SnapshotToDag) accepts what 1.30.2 writes and what we write, so
// our `retry` runs a run that Dagu queued. Schedules are not read back (a
// snapshot is for executing one run, not for scheduling).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "dag/dag.h"
#include "store/run_status.h"

namespace dagu {

using Params = std::vector<std::pair<std::string, std::string>>;

struct SnapshotOptions {
  // Written as `location`; enqueue leaves it out ("" = not written).
  bool include_location = true;
  // The run's effective params (defaults with overrides applied), written as
  // `params` and `paramsJSON`. dag.params are written as `defaultParams`.
  Params params;
};

// The whole dag.json object.
Json DagToSnapshot(const Dag& dag, const SnapshotOptions& options);
// One step in dag.json's step shape (also the `step` of a status node).
Json StepToSnapshot(const Step& step);

// Rebuilds a runnable Dag from a dag.json object. *params receives the run's
// effective params (`params`, "K=V" items; positional ones as "1","2",...).
// Corruption names the key when a known key has the wrong type.
Status SnapshotToDag(const Json& snapshot, Dag* dag, Params* params);
// Rebuilds one step from a snapshot (dag.json step or status node step).
Status SnapshotToStep(const Json& snapshot, Step* step);

// "K=V" items <-> pairs (split at the first '='; an item without '=' is a
// positional value keyed by its 1-based index).
std::vector<std::string> ParamsToList(const Params& params);
Params ParamsFromList(const std::vector<std::string>& items);
// The items joined by spaces, as the status record's `params` string.
std::string JoinParams(const Params& params);

// Splits a command line like Dagu's display form: whitespace separates
// words, single and double quotes group (and are removed), a backslash
// escapes the next character. Only for `command`/`args`; execution uses the
// whole line.
std::vector<std::string> SplitCommandLine(const std::string& line);

}  // namespace dagu
