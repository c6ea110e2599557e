// What the DAG handlers (api_dags.cc, api_dag_specs.cc, api_dag_actions.cc)
// share: finding a DAG file as 1.30.2 answers for a missing one, and the
// pieces of its answers built from a DAG file and its runs.
#pragma once

#include <string>
#include <vector>

#include "web/api_context.h"
#include "web/api_views.h"
#include "http/http_types.h"

namespace dagu::web {

// Finds the file of `file_name`; false after 404 {"not_found", "DAG <name> not found"}.
bool FindDagOr404(const ApiContext& ctx, const std::string& file_name, http::Response& res, DagFile* out);

// The newest run of the file's DAG in the details / summary shape (with the
// stale check applied), or null when it has none.
ApiJson LatestRunDetailsJson(const ApiContext& ctx, const DagFile& f);
ApiJson LatestRunSummaryJson(const ApiContext& ctx, const DagFile& f);

// One entry of GET /dags: {fileName, dag, latestDAGRun, suspended, errors}.
ApiJson DagListEntryJson(const ApiContext& ctx, const DagFile& f, WallTime now);

// A list of errors as 1.30.2 gives it: null when empty.
ApiJson ErrorsJson(const std::vector<std::string>& errors);

}  // namespace dagu::web
