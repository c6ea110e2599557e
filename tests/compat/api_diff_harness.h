// The REST API differential harness: one fixture home (tests/compat/api/
// fixture) copied twice, `dagu start-all` of Dagu 1.30.2 on one copy and of
// ours on the other (free loopback ports), the same request sequence sent to
// both, and per request the status and the recursive JSON *shape* compared:
// key sets, types (null is a type of its own), array lengths and element
// shapes, and the values of enum-like keys, after normalising times, IDs and
// paths. Cases are data: tests/compat/api/cases/<file>.yaml (the format is in
// tests/compat/api/README.md). One pair of servers serves a whole case file,
// in file order, so later cases see what earlier ones did.
//
//   ApiDiffReport r = RunApiCaseFile("dags.yaml");   // one test per file
//   for (auto& c : r.cases) if (!c.ok()) ADD_FAILURE() << c.Describe();
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dagu::testing {

// One request of a case file. Paths are relative to the server root
// (`/api/v2/...`); `{var}` in path and body expands to what an earlier case
// captured on the same side, and so it does in header values
// (`Authorization: "Bearer {token}"`).
struct ApiCase {
  std::string name;  // unique in its file; what a failure names
  std::string method = "GET";
  std::string path;
  std::optional<std::string> body;           // sent as application/json
  std::map<std::string, std::string> headers;
  std::optional<int> status;                 // also assert this status on 1.30.2's side
  bool text = false;                         // not JSON: compare status and Content-Type only
  std::vector<std::string> ignore;           // paths ("prefix*" allowed) not compared
  std::vector<std::string> values;           // paths whose normalised values are compared too
  std::vector<std::string> any_length;       // array paths whose lengths may differ
  std::vector<std::string> dynamic_keys;     // object paths whose key sets may differ
  std::map<std::string, std::string> capture;  // var -> value path, per side
  // Repeat the request (both sides, 30 s at most) until the value at
  // `until_path` is one of `until_in` (normalised text), then compare.
  std::string until_path;
  std::vector<std::string> until_in;
  // And (when set) until the value at `until_changed_path` differs from
  // `until_changed_from` (expanded per side: "{var}" of a capture), e.g. a
  // run's start time once a retry has begun.
  std::string until_changed_path;
  std::string until_changed_from;
  std::string known_difference;              // non-empty: a deliberate difference (docs/web.md)
};

struct ApiCaseFile {
  std::vector<ApiCase> cases;
  // `allow_extra_keys: {key: why}`: keys ours may add anywhere (deliberate,
  // additive differences listed in docs/web.md); 1.30.2's keys are still required.
  std::map<std::string, std::string> allow_extra_keys;
  // `env: {NAME: value}`: set for both binaries (their CLI seeds and
  // servers), e.g. an auth mode with its secret.
  std::map<std::string, std::string> env;
  // `seed_http: false`: skip fixture/seed.yaml's http requests (they carry
  // no credentials, so a file whose servers require them skips them).
  bool seed_http = true;
};

// Loads `path`; returns "" or the problem.
std::string LoadApiCases(const std::string& path, ApiCaseFile* out);

// Compares 1.30.2's reply (`theirs`) with ours for `c`. Returns one line per
// difference: "<json path>: ...".
std::vector<std::string> CompareApiJson(const ApiCase& c, const nlohmann::json& ours, const nlohmann::json& theirs,
                                        const std::map<std::string, std::string>& allow_extra_keys = {});

// The value at `path` (".a.b[0].c", "" = the root) or null.
nlohmann::json JsonAt(const nlohmann::json& doc, const std::string& path);

// Replaces run IDs, times, durations and temp paths in `s` by placeholders.
std::string NormaliseApiValue(const std::string& s);

struct ApiCaseResult {
  std::string name;
  std::string request;               // "GET /api/v2/dags"
  int ours_status = 0, theirs_status = 0;
  std::string ours_body, theirs_body;
  std::vector<std::string> diffs;    // empty: same
  std::string known_difference;
  bool ok() const { return diffs.empty() || !known_difference.empty(); }
  bool same() const { return diffs.empty(); }
  std::string Describe() const;
};

struct ApiDiffReport {
  std::string skipped;  // non-empty: why nothing ran (no peer binary, ...)
  std::string problem;  // a harness problem (a server did not start, ...)
  std::vector<ApiCaseResult> cases;
  int same() const;
  std::string Summary() const;  // "N cases, M same, K known differences, F differ"
};

// Runs every case of tests/compat/api/cases/<file_name> against a fresh pair
// of servers. DAGU_API_DIFF_DUMP=1 prints both bodies of every case.
ApiDiffReport RunApiCaseFile(const std::string& file_name);

}  // namespace dagu::testing
