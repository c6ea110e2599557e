// The run a /dag-runs path names, for the run and sub-run handlers:
//
//   /dag-runs/{name}/{dagRunId}/...                       the run (its latest attempt)
//   /dag-runs/{name}/{dagRunId}/sub-dag-runs/{subId}/...  a sub-run, looked up under the
//                                                          root of {name}/{dagRunId}
//
// Lookups that fail answer as Dagu 1.30.2 does: 404 not_found with "dag-run
// ID <id> not found for DAG <name>" (also for a malformed name or ID, which
// can name no run) or "sub dag-run ID <subId> not found for DAG <name>".
// A "running" record whose process is gone reads as failed (run_lookup.h).
#pragma once

#include <string>

#include "store/run_store.h"
#include "web/api_context.h"
#include "web/web_server.h"

namespace dagu::web {

struct RunTarget {
  AttemptDir attempt;
  RunRecord record;
  bool sub = false;
};

// The run of captures 1 (name) and 2 (ID); with `latest_alias`, the ID
// "latest" names the DAG's newest run (1.30.2: "no dag-runs found for DAG
// <name>" when it has none). False after an error response.
bool FindRunTarget(const ApiContext& ctx, const http::Request& req, http::Response& res, bool latest_alias,
                   RunTarget* out);

// The sub-run of capture 3 under the run of captures 1 and 2. False after an
// error response.
bool FindSubRunTarget(const ApiContext& ctx, const http::Request& req, http::Response& res, RunTarget* out);

// The sub-run `sub_id` under the root of `parent` (with the stale check):
// NotFound "sub dag-run ID <id> not found for DAG <parent name>".
Status ReadSubRunUnder(const ApiContext& ctx, const RunRecord& parent, const std::string& sub_id, RunTarget* out);

}  // namespace dagu::web
