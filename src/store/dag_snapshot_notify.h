// Internal to src/store: the dag.json fields of executors, mail and secrets
// (Dagu 1.30.2's step executorConfig {type, config} and mailOnError; DAG
// smtp, mailOn, errorMail, infoMail, secrets; llm and messages of chat
// steps), so that a queued or retried
// run, which runs from dag.json, keeps them. dag_snapshot.cc calls these.
#pragma once

#include "dag/dag.h"
#include "store/json_fields.h"
#include "store/run_status.h"

namespace dagu::snapshot_internal {

// executorConfig ({} for the shell, else {type, config}), mailOnError, and a
// chat step's llm and messages (the DAG's llm is put by PutDagNotify).
void PutStepExecutor(const Step& step, Json* j);
// Reads them back; an executor type this binary does not run is an error.
Status ReadStepExecutor(const Json& snapshot, JsonFields& f, Step* step);

void PutDagNotify(const Dag& dag, Json* j);
void ReadDagNotify(JsonFields& f, Dag* dag);

}  // namespace dagu::snapshot_internal
