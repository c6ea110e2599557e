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

// A query integer as 1.30.2's generated binders read it (strtoll's syntax):
// absent is 0 (true); false when present but not a whole integer, each API
// version then answering that in its own words.
bool ReadQueryInteger(const http::Request& req, const char* name, long long* out);


// Finds the file of `file_name`; false after 404 {"not_found", "DAG <name> not found"}.
bool FindDagOr404(const ApiContext& ctx, const std::string& file_name, http::Response& res, DagFile* out);

// The newest run of the file's DAG in the details / summary shape (with the
// stale check applied), or null when it has none.
ApiJson LatestRunDetailsJson(const ApiContext& ctx, const DagFile& f);
ApiJson LatestRunSummaryJson(const ApiContext& ctx, const DagFile& f);

// One entry of GET /dags: {fileName, dag, latestDAGRun, suspended, errors}.
ApiJson DagListEntryJson(const ApiContext& ctx, const DagFile& f, WallTime now);

// The newest run of the file's DAG (stale check applied); false when it has none.
bool LatestRunRecord(const ApiContext& ctx, const DagFile& f, RunRecord* out);

// Every tag of the DAG files, each once, in order of first appearance.
Status CollectDagTags(const ApiContext& ctx, std::vector<std::string>* out);

// A DAG search (v2 /dags/search, v1 /search): each line of each DAG file
// matching the case-insensitive regular expression `q`, with two lines of
// context either side (lines as Go's bufio.Scanner splits them). Files that
// do not parse are left out. A pattern that does not compile sets
// `bad_pattern` and one error per file ("grep <file> failed: invalid pattern").
struct DagSearchMatch {
  std::string line;  // the matching line with its context, joined by "\n"
  size_t line_number = 0;
  size_t start_line = 0;
};
struct DagSearchHit {
  DagFile file;  // AnyDag() is set
  std::vector<DagSearchMatch> matches;
};
struct DagSearch {
  std::vector<DagSearchHit> hits;
  bool bad_pattern = false;
  std::vector<std::string> errors;
};
Status SearchDags(const ApiContext& ctx, const std::string& q, DagSearch* out);

// A list of errors as 1.30.2 gives it: null when empty.
ApiJson ErrorsJson(const std::vector<std::string>& errors);

}  // namespace dagu::web
