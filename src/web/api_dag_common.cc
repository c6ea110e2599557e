#include "web/api_dag_common.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <regex>
#include <set>

#include "web/http_json.h"
#include "web/run_lookup.h"

namespace dagu::web {

bool ReadQueryInteger(const http::Request& req, const char* name, long long* out) {
  *out = 0;
  if (!req.has_param(name)) return true;
  const std::string v = req.get_param_value(name);
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno == ERANGE) return false;
  *out = n;
  return true;
}
namespace {

bool LatestRecord(const ApiContext& ctx, const DagFile& f, RunRecord* out) {
  RunDir latest;
  if (!ValidateDagFileName(f.DagName()).ok()) return false;
  if (!ctx.runs->LatestRun(f.DagName(), &latest).ok()) return false;
  // Read from the run's folder at hand (looking the run up by its ID again
  // listed every day folder of the DAG when it has no claim file).
  AttemptDir attempt;
  if (!ctx.runs->LatestAttempt(latest, &attempt).ok() || !ctx.runs->ReadStatus(attempt, out).ok()) return false;
  ApplyStaleCheck(ctx, attempt, out);
  return true;
}

// Lines of `text` as Go's bufio.Scanner splits them.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

// Longest line the search matches against (std::regex recurses per character).
constexpr size_t kMaxSearchLine = 2000;

Dag NamedOnly(const DagFile& f) {
  Dag d;
  d.name = f.DagName();
  return d;
}

}  // namespace

bool FindDagOr404(const ApiContext& ctx, const std::string& file_name, http::Response& res, DagFile* out) {
  if (ctx.dags->Find(file_name, out).ok()) return true;
  SendError(res, 404, error_code::kNotFound, "DAG " + file_name + " not found");
  return false;
}

bool LatestRunRecord(const ApiContext& ctx, const DagFile& f, RunRecord* out) { return LatestRecord(ctx, f, out); }

Status CollectDagTags(const ApiContext& ctx, std::vector<std::string>* out) {
  out->clear();
  // The shared parses: List would copy every DAG (10,000 of them at scale).
  std::vector<std::shared_ptr<const DagFile>> files;
  DAGU_RETURN_IF_ERROR(ctx.dags->ListShared(/*metadata_only=*/true, &files));
  std::set<std::string> seen;
  for (const auto& f : files) {
    const Dag* d = f->AnyDag();
    if (d == nullptr) continue;
    for (const std::string& t : d->tags) {
      if (seen.insert(t).second) out->push_back(t);  // first-seen order, as before
    }
  }
  return Status::OK();
}

Status SearchDags(const ApiContext& ctx, const std::string& q, DagSearch* out) {
  *out = DagSearch();
  std::regex re;
  try {
    re = std::regex(q, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
  } catch (const std::regex_error&) {
    out->bad_pattern = true;
  }
  std::vector<DagFile> files;
  DAGU_RETURN_IF_ERROR(ctx.dags->List(/*metadata_only=*/true, &files));
  for (DagFile& f : files) {
    if (out->bad_pattern) {
      out->errors.push_back("grep " + BaseName(f.path) + " failed: invalid pattern");
      continue;
    }
    std::string text;
    if (!ctx.dags->ReadSpec(f, &text).ok()) continue;
    std::vector<std::string> lines = Lines(text);
    DagSearchHit hit;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].size() > kMaxSearchLine || !std::regex_search(lines[i], re)) continue;
      size_t low = i >= 2 ? i - 2 : 0, high = std::min(lines.size(), i + 3);
      DagSearchMatch m;
      for (size_t k = low; k < high; ++k) m.line += (k == low ? "" : "\n") + lines[k];
      m.line_number = i + 1;
      m.start_line = low + 1;
      hit.matches.push_back(std::move(m));
    }
    if (hit.matches.empty() || f.AnyDag() == nullptr) continue;
    hit.file = std::move(f);
    out->hits.push_back(std::move(hit));
  }
  return Status::OK();
}

ApiJson LatestRunDetailsJson(const ApiContext& ctx, const DagFile& f) {
  RunRecord r;
  return LatestRecord(ctx, f, &r) ? RunDetailsJson(r) : ApiJson(nullptr);
}

ApiJson LatestRunSummaryJson(const ApiContext& ctx, const DagFile& f) {
  // The summary only (what RunSummaryJson shows), as run lists read it: kept
  // by the run index with its status.jsonl's version (store/run_store.h,
  // "THE INDEX"). One DAG's runs without a status filter are taken newest
  // run folder first, so the first is LatestRun's, with its error if its
  // record cannot be read.
  if (!ValidateDagFileName(f.DagName()).ok()) return nullptr;
  RunQuery q;
  q.dag_name = f.DagName();
  q.limit = 1;
  q.summaries = true;
  std::vector<RunEntry> newest;
  if (!ctx.runs->ListRuns(q, &newest).ok() || newest.empty() || !newest.front().error.ok()) return nullptr;
  RunEntry& latest = newest.front();
  ApplyStaleCheck(ctx, latest.attempt, &latest.record);
  return RunSummaryJson(latest.record);
}

ApiJson DagListEntryJson(const ApiContext& ctx, const DagFile& f, WallTime now) {
  const Dag* dag = f.AnyDag();
  ApiJson j = ApiJson::object();
  j["fileName"] = f.file_name;
  j["dag"] = dag ? DagJson(*dag, now) : DagJson(NamedOnly(f), now);
  ApiJson latest = LatestRunSummaryJson(ctx, f);
  j["latestDAGRun"] = latest.is_null() ? NotStartedRunSummaryJson(dag ? *dag : NamedOnly(f)) : latest;
  j["suspended"] = f.suspended;
  j["errors"] = ErrorsJson(f.errors);
  return j;
}

ApiJson ErrorsJson(const std::vector<std::string>& errors) {
  if (errors.empty()) return nullptr;
  ApiJson out = ApiJson::array();
  for (const std::string& e : errors) out.push_back(e);
  return out;
}

}  // namespace dagu::web
