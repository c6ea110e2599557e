#include "store/legacy_history.h"

#include <time.h>

#include <algorithm>

#include "core/time_format.h"
#include "store/run_layout.h"
#include "store/run_store.h"

namespace dagu {
namespace {

// A clock that always says `at`: the run store stamps a migrated attempt
// with the run's start, as Dagu does.
class FixedClock final : public Clock {
 public:
  explicit FixedClock(WallTime at) : at_(at) {}
  WallTime Now() const override { return at_; }
  MonoTime Monotonic() const override { return std::chrono::steady_clock::now(); }

 private:
  WallTime at_;
};

// The legacy DAG directories under `data_dir` (those holding *.dat files).
std::vector<std::string> LegacyDirs(FileSystem* fs, const std::string& data_dir) {
  std::vector<std::string> names, dirs;
  if (!fs->ListDir(data_dir, &names).ok()) return dirs;
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) {
    std::string path = JoinPath(data_dir, n);
    FileInfo info;
    std::vector<std::string> files;
    if (!fs->Stat(path, &info).ok() || !info.is_dir || !fs->ListDir(path, &files).ok()) continue;
    if (std::any_of(files.begin(), files.end(), [](const std::string& f) { return f.ends_with(".dat"); })) {
      dirs.push_back(n);
    }
  }
  return dirs;
}

// Go's case-insensitive JSON keys: the legacy "Name"/"CmdWithArgs" are the
// current "name"/"cmdWithArgs".
Json LowerFirstKeys(const Json& legacy) {
  if (!legacy.is_object()) return Json::object();
  Json out = Json::object();
  for (auto it = legacy.begin(); it != legacy.end(); ++it) {
    std::string key = it.key();
    if (!key.empty()) key[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(key[0])));
    out[key] = it.value();
  }
  return out;
}

std::string StringField(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

int IntField(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : 0;
}

// Legacy times: RFC 3339, or "2006-01-02 15:04:05" / "2006-01-02T15:04:05"
// taken as UTC. False when unset or unparseable.
bool ParseLegacyTime(const std::string& text, WallTime* out) {
  if (text.empty() || text == "-") return false;
  bool set = false;
  if (ParseRFC3339(text, out, &set).ok() && set) return true;
  std::string t = text;
  if (t.size() == 19) {
    t[10] = 'T';
    t += "Z";
    return ParseRFC3339(t, out, &set).ok() && set;
  }
  return false;
}

NodeRecord LegacyNode(const Json& n) {
  NodeRecord node;
  node.step = LowerFirstKeys(n.value("Step", Json::object()));
  node.stdout_path = StringField(n, "Log");
  std::string started = StringField(n, "StartedAt");
  std::string finished = StringField(n, "FinishedAt");
  node.started_at = started.empty() ? "-" : started;
  node.finished_at = finished.empty() ? "-" : finished;
  node.status = static_cast<NodeStatus>(IntField(n, "Status"));
  node.retried_at = StringField(n, "RetriedAt");
  node.retry_count = IntField(n, "RetryCount");
  node.done_count = IntField(n, "DoneCount");
  node.error = StringField(n, "Error");
  return node;
}

// The last line of a .dat file that parses as a legacy status.
Status ReadLegacyFile(FileSystem* fs, const std::string& path, RunRecord* out) {
  std::string contents;
  Status s = fs->ReadFile(path, &contents);
  if (!s.ok()) return s;
  Status last = Status::InvalidArgument("no valid status data found in file");
  size_t pos = 0;
  while (pos < contents.size()) {
    size_t nl = contents.find('\n', pos);
    std::string line = contents.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? contents.size() : nl + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    RunRecord r;
    Status parsed = ParseLegacyStatus(line, &r);
    if (parsed.ok()) {
      *out = std::move(r);
      last = Status::OK();
    }
  }
  return last;
}

std::string Rfc3339(WallTime t) { return FormatRFC3339Local(std::chrono::floor<std::chrono::seconds>(t)); }

}  // namespace

bool HasLegacyHistory(FileSystem* fs, const std::string& data_dir) { return !LegacyDirs(fs, data_dir).empty(); }

std::string LegacyDagName(const std::string& dir_name) {
  size_t dash = dir_name.find_last_of('-');
  if (dash == std::string::npos) return dir_name;
  std::string suffix = dir_name.substr(dash + 1);
  bool hex = std::all_of(suffix.begin(), suffix.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  return hex ? dir_name.substr(0, dash) : dir_name;
}

Status ParseLegacyStatus(const std::string& line, RunRecord* out) {
  Json j = Json::parse(line, nullptr, false);
  if (!j.is_object() || !j.contains("RequestId")) return Status::InvalidArgument("not a legacy status line");
  RunRecord r;
  r.name = StringField(j, "Name");
  r.dag_run_id = StringField(j, "RequestId");
  r.root = {r.name, r.dag_run_id};
  r.status = static_cast<RunStatus>(IntField(j, "Status"));
  r.pid = IntField(j, "Pid");
  r.log = StringField(j, "Log");
  r.params = StringField(j, "Params");
  if (auto p = j.find("ParamsList"); p != j.end() && p->is_array()) {
    for (const Json& item : *p) {
      if (item.is_string()) r.params_list.push_back(item.get<std::string>());
    }
  }
  if (auto nodes = j.find("Nodes"); nodes != j.end() && nodes->is_array()) {
    for (const Json& n : *nodes) r.nodes.push_back(LegacyNode(n));
  }
  for (auto [key, slot] : {std::pair<const char*, std::optional<NodeRecord>*>{"OnExit", &r.on_exit},
                           {"OnSuccess", &r.on_success},
                           {"OnFailure", &r.on_failure},
                           {"OnCancel", &r.on_cancel}}) {
    if (auto h = j.find(key); h != j.end() && h->is_object()) *slot = LegacyNode(*h);
  }
  r.started_at = StringField(j, "StartedAt");
  r.finished_at = StringField(j, "FinishedAt");
  *out = std::move(r);
  return Status::OK();
}

Status MigrateLegacyHistory(FileSystem* fs, const std::string& data_dir, const std::string& dag_runs_dir,
                            const std::function<Json(const std::string&, const std::string&)>& dag_json,
                            LegacyMigration* out) {
  *out = LegacyMigration();
  std::vector<std::string> probe;
  Status s = fs->ListDir(data_dir, &probe);
  if (!s.ok()) return s.WithContext("failed to read history directory");
  RunStore existing(fs, Clock::Real(), dag_runs_dir);
  for (const std::string& dir : LegacyDirs(fs, data_dir)) {
    ++out->dags;
    std::string dir_path = JoinPath(data_dir, dir);
    std::vector<std::string> files;
    fs->ListDir(dir_path, &files).LogIfError("migrate: reading " + dir_path);
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) {
      if (!f.ends_with(".dat")) continue;
      ++out->runs;
      RunRecord legacy;
      s = ReadLegacyFile(fs, JoinPath(dir_path, f), &legacy);
      if (!s.ok()) {
        ++out->failed;
        out->errors.push_back("failed to read legacy status file " + f + ": " + s.message());
        continue;
      }
      if (legacy.dag_run_id.empty() || legacy.status == RunStatus::kNotStarted) {
        ++out->skipped;
        out->errors.push_back("skipped invalid status file " + f + ", RequestID=" + legacy.dag_run_id);
        continue;
      }
      if (existing.RunExists(legacy.name, legacy.dag_run_id).value_or(false)) {
        ++out->skipped;
        continue;
      }
      WallTime started, finished;
      if (!ParseLegacyTime(legacy.started_at, &started)) {
        ++out->failed;
        out->errors.push_back("failed to migrate run " + legacy.dag_run_id + ": invalid history data: no started at time: " +
                              legacy.name + " - " + legacy.dag_run_id);
        continue;
      }
      bool has_finish = ParseLegacyTime(legacy.finished_at, &finished);
      FixedClock at(started);
      RunStore runs(fs, &at, dag_runs_dir);
      RunDir run;
      AttemptDir attempt;
      Json snapshot = dag_json(legacy.name, LegacyDagName(dir));
      s = runs.CreateRun(legacy.name, legacy.dag_run_id, started, &run);
      if (s.ok()) s = runs.CreateAttempt(run, &snapshot, &attempt);
      if (s.ok()) {
        RunRecord r = legacy;
        r.attempt_id = attempt.attempt_id;
        r.created_at = UnixMillis(started);
        r.started_at = Rfc3339(started);
        r.finished_at = has_finish ? Rfc3339(finished) : "";
        r.queued_at = r.started_at;
        s = runs.WriteFinalStatus(attempt, r);
      }
      if (!s.ok()) {
        ++out->failed;
        out->errors.push_back("failed to migrate run " + legacy.dag_run_id + ": " + s.message());
        continue;
      }
      ++out->migrated;
    }
  }
  return Status::OK();
}

Status ArchiveLegacyHistory(FileSystem* fs, const std::string& data_dir, WallTime now, std::string* archive) {
  time_t secs = std::chrono::system_clock::to_time_t(now);
  struct tm tm {};
  localtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
  std::vector<std::string> dirs = LegacyDirs(fs, data_dir);
  *archive = JoinPath(data_dir, std::string("history_migrated_") + stamp);
  Status s = fs->MakeDirs(*archive);
  if (!s.ok()) return s.WithContext("failed to create archive directory");
  for (const std::string& d : dirs) {
    s = fs->Rename(JoinPath(data_dir, d), JoinPath(*archive, d));
    if (!s.ok()) return s.WithContext("failed to move legacy directory " + d);
  }
  return Status::OK();
}

}  // namespace dagu
