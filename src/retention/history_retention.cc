#include "retention/history_retention.h"

#include <algorithm>
#include <set>

#include "store/run_layout.h"

namespace dagu {
namespace {

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

bool AllDigits(const std::string& s, size_t n) {
  return s.size() == n && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Directories that hold a status.jsonl under `dir` (attempts, hidden
// attempts, and those of sub-DAG runs), found by walking the tree.
void FindAttemptDirs(FileSystem* fs, const std::string& dir, std::vector<std::string>* out) {
  std::vector<std::string> names;
  if (!fs->ListDir(dir, &names).ok()) return;
  for (const std::string& n : names) {
    std::string path = dir + "/" + n;
    if (n == "status.jsonl") {
      out->push_back(dir);
      continue;
    }
    FileInfo info;
    if (fs->Stat(path, &info).ok() && info.is_dir) FindAttemptDirs(fs, path, out);
  }
}

void AddNodeLogs(const NodeRecord& n, std::set<std::string>* files) {
  for (const std::string* p : {&n.stdout_path, &n.stderr_path}) {
    if (!p->empty() && (*p)[0] == '/') files->insert(*p);
  }
}

}  // namespace

HistoryRetention::HistoryRetention(FileSystem* fs, const Clock* clock, RunStore* runs)
    : fs_(fs), clock_(clock), runs_(runs) {}

WallTime HistoryRetention::KeepTime(int days) const { return clock_->Now() - std::chrono::hours(24) * days; }

bool HistoryRetention::Expires(const RunDir& run, WallTime keep) {
  if (run.created > keep) return false;
  // A new attempt (a retry starting now) may not have a status yet: any
  // attempt directory written since the keep time keeps the run.
  std::vector<AttemptDir> attempts;
  FileInfo info;
  if (!runs_->ListAttempts(run, true, &attempts).ok()) return false;
  for (const AttemptDir& a : attempts) {
    if (!fs_->Stat(a.path, &info).ok() || info.mtime > keep) return false;
  }
  AttemptDir latest;
  RunRecord record;
  if (!runs_->LatestAttempt(run, &latest).ok()) return false;
  if (!fs_->Stat(latest.StatusPath(), &info).ok() || info.mtime > keep) return false;
  if (!runs_->ReadStatus(latest, &record).ok()) return false;
  return !IsActive(record.status);
}

Status HistoryRetention::Expired(const std::string& dag_name, int days, std::vector<RunDir>* out) {
  out->clear();
  if (days < 0) return Status::InvalidArgument("retention days cannot be negative (got " + std::to_string(days) + ")");
  WallTime keep = KeepTime(days);
  std::vector<RunDir> candidates;
  Status s = runs_->ListRunDirs(dag_name, std::nullopt, keep, &candidates);
  if (!s.ok()) return s;
  for (RunDir& r : candidates) {
    if (Expires(r, keep)) out->push_back(std::move(r));
  }
  return Status::OK();
}

Status HistoryRetention::Remove(const std::string& dag_name, int days, const std::vector<RunDir>& runs,
                                std::vector<std::string>* removed) {
  removed->clear();
  if (days < 0) return Status::InvalidArgument("retention days cannot be negative (got " + std::to_string(days) + ")");
  Status s = Finish(dag_name);
  if (!s.ok()) return s;
  WallTime keep = KeepTime(days);
  for (const RunDir& run : runs) {
    if (!Expires(run, keep)) continue;
    s = RemoveOne(dag_name, run);
    if (s.IsNotFound()) continue;  // deleted by someone else meanwhile
    if (!s.ok()) return s;
    removed->push_back(run.run_id);
  }
  return Status::OK();
}

Status HistoryRetention::RemoveOne(const std::string& dag_name, const RunDir& run) {
  std::string hidden = DirName(run.path) + "/" + kDeletingPrefix + BaseName(run.path);
  Status s = fs_->Rename(run.path, hidden);
  if (!s.ok()) return s;
  return Finalize(dag_name, hidden, run.run_id);
}

Status HistoryRetention::Finalize(const std::string& dag_name, const std::string& hidden_dir,
                                  const std::string& run_id) {
  Status s = fs_->RemoveFile(runs_->ClaimPath(dag_name, run_id));
  if (!s.ok() && !s.IsNotFound()) return s;
  RemoveLogs(hidden_dir);
  s = fs_->RemoveAll(hidden_dir);
  if (!s.ok()) return s;
  RemoveEmptyDateDirs(DirName(hidden_dir));
  return Status::OK();
}

void HistoryRetention::RemoveLogs(const std::string& run_dir) {
  std::vector<std::string> attempts;
  FindAttemptDirs(fs_, run_dir, &attempts);
  std::set<std::string> files;
  for (const std::string& dir : attempts) {
    AttemptDir attempt;
    attempt.path = dir;
    RunRecord r;
    if (!runs_->ReadStatus(attempt, &r).ok()) continue;
    if (!r.log.empty() && r.log[0] == '/') files.insert(r.log);
    for (const NodeRecord& n : r.nodes) AddNodeLogs(n, &files);
    for (const auto* h : {&r.on_init, &r.on_exit, &r.on_success, &r.on_failure, &r.on_cancel, &r.on_wait}) {
      if (h->has_value()) AddNodeLogs(**h, &files);
    }
  }
  // The files, then their folders once empty: run_<...> (one attempt's
  // step logs) and dag-run_<...> (the run's log folder). Never others.
  std::set<std::string> dirs;
  for (const std::string& f : files) {
    fs_->RemoveFile(f);
    std::string dir = DirName(f);
    dirs.insert(dir);
    if (StartsWith(BaseName(dir), "run_")) dirs.insert(DirName(dir));
  }
  std::vector<std::string> ordered(dirs.begin(), dirs.end());
  std::sort(ordered.begin(), ordered.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& d : ordered) {
    std::string base = BaseName(d);
    if (StartsWith(base, "run_") || StartsWith(base, "dag-run_")) fs_->RemoveDir(d);
  }
}

void HistoryRetention::RemoveEmptyDateDirs(const std::string& day_dir) {
  std::string month = DirName(day_dir);
  std::string year = DirName(month);
  if (!AllDigits(BaseName(day_dir), 2) || !AllDigits(BaseName(month), 2) || !AllDigits(BaseName(year), 4)) return;
  for (const std::string& d : {day_dir, month, year}) {
    if (!fs_->RemoveDir(d).ok()) return;  // not empty (or gone)
  }
}

Status HistoryRetention::Finish(const std::string& dag_name) {
  std::string root = runs_->DagRoot(dag_name);
  std::vector<std::string> years;
  Status s = fs_->ListDir(root, &years);
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s;
  for (const std::string& y : years) {
    if (!AllDigits(y, 4)) continue;
    std::vector<std::string> months;
    if (!fs_->ListDir(root + "/" + y, &months).ok()) continue;
    for (const std::string& m : months) {
      if (!AllDigits(m, 2)) continue;
      std::vector<std::string> days;
      if (!fs_->ListDir(root + "/" + y + "/" + m, &days).ok()) continue;
      for (const std::string& d : days) {
        if (!AllDigits(d, 2)) continue;
        std::string day = root + "/" + y + "/" + m + "/" + d;
        std::vector<std::string> names;
        if (!fs_->ListDir(day, &names).ok()) continue;
        for (const std::string& n : names) {
          if (!StartsWith(n, kDeletingPrefix)) continue;
          WallTime created;
          std::string run_id;
          if (!ParseRunDirName(n.substr(std::string(kDeletingPrefix).size()), &created, &run_id)) continue;
          s = Finalize(dag_name, day + "/" + n, run_id);
          if (!s.ok()) return s;
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace dagu
