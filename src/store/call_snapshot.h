// Sub-DAG calls in dag.json and status records, in Dagu 1.30.2's shape:
//
//   step:  "executorConfig": {"type": "dag"}            ("parallel" with parallel:)
//          "childDag": {"name": "child", "params": "A=\"1\""}
//          "params": {"A": "1"}                         (step params, by name)
//          "parallel": {"items": [{"value": "a"}, {"params": {"K": "v"}}],
//                       "maxConcurrent": 2}             (or "variable": "${LIST}")
//   dag:   "localDAGs": {"<name>": <dag.json of that document>, ...}
//
// Used by dag_snapshot.cc for every step and DAG it writes or reads.
#pragma once

#include "core/status.h"
#include "dag/dag.h"
#include "store/run_status.h"

namespace dagu {

// Adds a call step's keys to its snapshot `j` (nothing for other steps).
void AddCallToSnapshot(const Step& step, Json* j);
// Reads them back into *step; OK when the snapshot has none.
Status ReadCallFromSnapshot(const Json& snapshot, Step* step);

// Adds "localDAGs" for a DAG with local DAGs (nothing otherwise).
void AddLocalDagsToSnapshot(const Dag& dag, Json* j);
// Reads "localDAGs" back into dag->local_dags; OK when absent.
Status ReadLocalDagsFromSnapshot(const Json& snapshot, Dag* dag);

}  // namespace dagu
