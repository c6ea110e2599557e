#include "store/run_store.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/listing_cache_fs.h"
#include "core/sighting_filter.h"
#include "core/time_format.h"
#include "core/versioned_cache.h"
#include "dag/dag_names.h"
#include "store/run_claim.h"
#include "store/run_day_index.h"
#include "store/run_layout.h"
#include "store/run_summary.h"
#include "store/status_json.h"
#include "core/json_text.h"

namespace dagu {
namespace {

constexpr const char* kClaimDir = ".dagu_run_ids";
constexpr const char* kDispatchPrefix = ".dagu_dispatch_";

bool AllDigits(const std::string& s, size_t n) {
  return s.size() == n && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Lists `dir`; a missing directory is an empty list.
Status ListOrEmpty(FileSystem* fs, const std::string& dir, std::vector<std::string>* names) {
  Status s = fs->ListDir(dir, names);
  if (s.IsNotFound()) {
    names->clear();
    return Status::OK();
  }
  return s;
}

void SortDescending(std::vector<std::string>* names) { std::sort(names->rbegin(), names->rend()); }

// What a claim that may be there says (store/run_claim.h).
enum class ClaimState {
  kAbsent,     // no claim
  kHeld,       // made; or pending and (its directory exists, or it is young); or torn
  kAbandoned,  // pending, no directory, untouched for kClaimRepairAfter
};

// `run_path`: for a pending claim with a usable path, the directory it
// stands for, rebuilt under `dag_root` (the claim may have been written
// under another mount path).
Status ReadClaim(FileSystem* fs, const Clock* clock, const std::string& claim, const std::string& dag_root,
                 const std::string& run_id, ClaimState* state, std::string* run_path) {
  *state = ClaimState::kAbsent;
  run_path->clear();
  FileInfo info;
  Status s = fs->Stat(claim, &info);
  if (s.IsNotFound()) return Status::OK();
  DAGU_RETURN_IF_ERROR(s);
  std::string text;
  s = fs->ReadFile(claim, &text);
  if (s.IsNotFound()) return Status::OK();  // removed in between: as if absent
  DAGU_RETURN_IF_ERROR(s);
  *state = ClaimState::kHeld;
  std::string named;
  bool pending = false;
  WallTime created;
  std::string id;
  if (!ParseClaimText(text, &named, &pending) || !pending) return Status::OK();
  if (!ParseRunDirName(BaseName(named), &created, &id) || id != run_id) return Status::OK();
  *run_path = JoinPath(JoinPath(dag_root, FormatDatePathUTC(created)), RunDirName(created, run_id));
  FileInfo dir;
  s = fs->Stat(*run_path, &dir);
  if (s.ok()) return Status::OK();
  if (!s.IsNotFound()) return s;
  if (clock->Now() - info.mtime < kClaimRepairAfter) return Status::OK();  // its creator may still be at work
  *state = ClaimState::kAbandoned;
  return Status::OK();
}

// Whether what was read at `version` may be kept: not when its mtime is so
// recent that a second write within the same timestamp tick could follow
// unseen (the racy-git rule; the real clock, whose time the filesystem stamps).
bool Keepable(const FileInfo& version) {
  return std::chrono::system_clock::now() - version.mtime >= ListingCacheFileSystem::kRacyWindow;
}

}  // namespace

class RunStore::Index {
 public:
  explicit Index(const RunIndexLimits& limits)
      : days(limits.max_day_runs),
        summaries(limits.max_summaries),
        records(limits.max_records),
        record_sightings(2 * limits.max_records) {}
  VersionedCache<std::vector<RunDir>> days;    // by day folder path; weight: runs (at least 1)
  VersionedCache<RunSummary> summaries;        // by status.jsonl path; weight 1
  VersionedCache<RunRecord> records;           // whole records, by status.jsonl path; weight 1
  std::mutex sightings_mu;
  SightingFilter record_sightings;             // records read once (kept from the second read on)
  std::unique_ptr<RunDayIndex> day_index;      // lists over all DAGs of a few days; null when off
};

RunStore::RunStore(FileSystem* fs, const Clock* clock, std::string dag_runs_dir)
    : fs_(fs), clock_(clock), dag_runs_dir_(std::move(dag_runs_dir)) {}

RunStore::~RunStore() = default;

void RunStore::EnableIndex(RunIndexLimits limits) {
  index_ = std::make_unique<Index>(limits);
  if (limits.max_watched_days > 0) {
    FileSystem* listing = limits.day_listing_fs != nullptr ? limits.day_listing_fs : fs_;
    index_->day_index = std::make_unique<RunDayIndex>(listing, this, dag_runs_dir_, limits.max_watched_days,
                                                      limits.max_watches);
  }
}

RunIndexCounters RunStore::index_counters() const {
  RunIndexCounters c;
  if (index_ == nullptr) return c;
  c.day_hits = index_->days.hits();
  c.day_misses = index_->days.misses();
  c.summary_hits = index_->summaries.hits();
  c.summary_misses = index_->summaries.misses();
  c.record_hits = index_->records.hits();
  c.record_misses = index_->records.misses();
  c.day_runs_kept = index_->days.weight();
  c.summaries_kept = index_->summaries.weight();
  c.records_kept = index_->records.weight();
  return c;
}

RunRecord RunStore::SummaryOf(const RunRecord& full) { return FromSummary(ToSummary(full)); }

std::string RunStore::DagRoot(const std::string& dag_name) const {
  return JoinPath(JoinPath(dag_runs_dir_, DagDataDirName(dag_name)), "dag-runs");
}

std::string RunStore::ClaimPath(const std::string& dag_name, const std::string& run_id) const {
  return JoinPath(JoinPath(DagRoot(dag_name), kClaimDir), run_id);
}

Status RunStore::CreateRun(const std::string& dag_name, const std::string& run_id, WallTime created,
                           RunDir* out) {
  DAGU_RETURN_IF_ERROR(ValidateRunId(run_id));
  const std::string claim = ClaimPath(dag_name, run_id);
  // The history scan (a run directory Dagu wrote, which does not know the
  // claim) comes first, so that nothing slow sits between the claim and its
  // directory.
  RunDir existing;
  Status s = FindRun(dag_name, run_id, &existing);
  if (s.ok()) {
    return Status::AlreadyExists("run ID \"" + run_id + "\" of DAG \"" + dag_name + "\" already exists at " +
                                 existing.path);
  }
  if (!s.IsNotFound()) {
    return s.WithContext("cannot check existing runs of DAG \"" + dag_name + "\"; run not created");
  }
  std::string path = JoinPath(JoinPath(DagRoot(dag_name), FormatDatePathUTC(created)), RunDirName(created, run_id));
  DAGU_RETURN_IF_ERROR(fs_->MakeDirs(DirName(claim), 0750));
  s = fs_->CreateFileExclusive(claim, PendingClaimText(path), 0600);
  if (s.IsAlreadyExists()) {
    // Someone else's claim. Only one whose creator never made its directory
    // and left it untouched for kClaimRepairAfter is adopted, by making the
    // very directory it names (store/run_claim.h).
    ClaimState state;
    std::string abandoned;
    DAGU_RETURN_IF_ERROR(ReadClaim(fs_, clock_, claim, DagRoot(dag_name), run_id, &state, &abandoned)
                             .WithContext("cannot read the claim " + claim));
    if (state != ClaimState::kAbandoned) {
      return Status::AlreadyExists("run ID \"" + run_id + "\" of DAG \"" + dag_name + "\" already exists");
    }
    spdlog::warn("run ID {} of DAG {}: its claim {} has had no run directory for {} s or more (its creator died "
                 "between claim and directory); taking it over by creating {}",
                 run_id, dag_name, claim, kClaimRepairAfter.count(), abandoned);
    path = abandoned;
  } else if (!s.ok()) {
    // Nothing to undo: a failed exclusive create leaves no file of ours
    // (FileSystem contract), and a claim that is there is someone else's.
    return s.WithContext("cannot claim run ID \"" + run_id + "\"");
  }
  // The one step that makes the run: mkdir is exclusive, and every creator
  // of this claim (its own, or one adopting it) makes this same path.
  s = fs_->MakeDirs(DirName(path), 0750);
  if (s.ok()) s = fs_->MakeDir(path, 0750);
  if (s.IsAlreadyExists()) {
    return Status::AlreadyExists("run ID \"" + run_id + "\" of DAG \"" + dag_name + "\" already exists at " + path);
  }
  // On any other error the claim stays, pending: never removed by a creator
  // (an adopter may be making its directory right now); it is adopted once
  // it has been left alone for kClaimRepairAfter.
  if (!s.ok()) return s.WithContext("cannot create run directory");
  // Not synced: a made mark lost in a crash leaves the claim pending, which
  // holds while its directory is there.
  fs_->WriteFile(claim, MadeClaimText(path), 0600).LogIfError("marking the claim " + claim + " as made");
  WallTime dir_time;
  std::string dir_id;
  ParseRunDirName(BaseName(path), &dir_time, &dir_id);
  out->dag_name = dag_name;
  out->run_id = run_id;
  out->created = dir_time;
  out->path = path;
  return Status::OK();
}

StatusOr<bool> RunStore::RunExists(const std::string& dag_name, const std::string& run_id) {
  DAGU_RETURN_IF_ERROR(ValidateRunId(run_id));
  ClaimState state;
  std::string path;
  DAGU_RETURN_IF_ERROR(ReadClaim(fs_, clock_, ClaimPath(dag_name, run_id), DagRoot(dag_name), run_id, &state, &path));
  if (state == ClaimState::kHeld) return true;
  RunDir run;
  Status s = FindRun(dag_name, run_id, &run);
  if (s.ok()) return true;
  if (s.IsNotFound()) return false;
  return s;
}

Status RunStore::ListDayDirs(const std::string& root, std::optional<WallTime> from, std::optional<WallTime> to,
                             std::vector<std::string>* out) {
  out->clear();
  // Compare "YYYY/MM/DD" strings: same order as the dates.
  std::string lo = from ? FormatDatePathUTC(*from) : "";
  std::string hi = to ? FormatDatePathUTC(*to) : "";
  // A short closed range names its day folders: no listing of the year and
  // month folders (a day's runs of 10,000 DAGs would list 30,000 folders to
  // find 10,000 day folders). A missing day folder lists as empty.
  constexpr int kNamedDays = 62;
  if (from && to && *to - *from <= std::chrono::hours(24 * kNamedDays)) {
    if (*to < *from) return Status::OK();
    const int64_t first = UnixSeconds(*from) / 86400 - (UnixSeconds(*from) % 86400 < 0 ? 1 : 0);
    for (int64_t day = UnixSeconds(*to) / 86400 - (UnixSeconds(*to) % 86400 < 0 ? 1 : 0); day >= first; --day) {
      out->push_back(JoinPath(root, FormatDatePathUTC(FromUnixSeconds(day * 86400))));
    }
    return Status::OK();
  }
  std::vector<std::string> years;
  DAGU_RETURN_IF_ERROR(ListOrEmpty(fs_, root, &years));
  SortDescending(&years);
  for (const auto& y : years) {
    if (!AllDigits(y, 4)) continue;
    std::vector<std::string> months;
    DAGU_RETURN_IF_ERROR(ListOrEmpty(fs_, JoinPath(root, y), &months));
    SortDescending(&months);
    for (const auto& m : months) {
      if (!AllDigits(m, 2)) continue;
      std::vector<std::string> days;
      DAGU_RETURN_IF_ERROR(ListOrEmpty(fs_, JoinPath(JoinPath(root, y), m), &days));
      SortDescending(&days);
      for (const auto& d : days) {
        if (!AllDigits(d, 2)) continue;
        std::string key = y + "/" + m + "/" + d;
        if ((!lo.empty() && key < lo) || (!hi.empty() && key > hi)) continue;
        out->push_back(JoinPath(root, key));
      }
    }
  }
  return Status::OK();
}

Status RunStore::DayRuns(const std::string& day, std::shared_ptr<const std::vector<RunDir>>* out) {
  FileInfo version;
  bool keep = false;
  if (index_ != nullptr) {
    Status s = fs_->Stat(day, &version);
    if (s.IsNotFound()) {
      *out = std::make_shared<const std::vector<RunDir>>();
      return Status::OK();
    }
    if (s.ok() && version.is_dir) {
      if (auto kept = index_->days.Get(day, version)) {
        *out = std::move(kept);
        return Status::OK();
      }
      keep = Keepable(version);
    }
  }
  // Listed after the stat: a run made in between changes the folder's
  // version, so the next listing reads the folder again.
  std::vector<std::string> names;
  DAGU_RETURN_IF_ERROR(ListOrEmpty(fs_, day, &names));
  SortDescending(&names);
  auto runs = std::make_shared<std::vector<RunDir>>();
  for (const auto& n : names) {
    RunDir r;
    if (!ParseRunDirName(n, &r.created, &r.run_id)) continue;
    r.path = JoinPath(day, n);
    runs->push_back(std::move(r));
  }
  if (keep) index_->days.Put(day, version, runs, std::max<size_t>(1, runs->size()));
  *out = std::move(runs);
  return Status::OK();
}

Status RunStore::ListRunDirsIn(const std::string& root, const std::string& dag_name, std::optional<WallTime> from,
                               std::optional<WallTime> to, std::vector<RunDir>* out, size_t limit) {
  out->clear();
  std::vector<std::string> days;
  DAGU_RETURN_IF_ERROR(ListDayDirs(root, from, to, &days));
  for (const auto& day : days) {
    std::shared_ptr<const std::vector<RunDir>> runs;
    DAGU_RETURN_IF_ERROR(DayRuns(day, &runs));
    for (const RunDir& listed : *runs) {
      if ((from && listed.created < *from) || (to && listed.created > *to)) continue;
      RunDir r = listed;
      r.dag_name = dag_name;
      out->push_back(std::move(r));
      if (limit != 0 && out->size() >= limit) return Status::OK();
    }
  }
  return Status::OK();
}

Status RunStore::ListRunDirs(const std::string& dag_name, std::optional<WallTime> from, std::optional<WallTime> to,
                             std::vector<RunDir>* out) {
  return ListRunDirsIn(DagRoot(dag_name), dag_name, from, to, out);
}

Status RunStore::FindRun(const std::string& dag_name, const std::string& run_id, RunDir* out) {
  DAGU_RETURN_IF_ERROR(ValidateRunId(run_id));
  // Fast path: the claim names the directory we created.
  std::string text, hint;
  bool pending = false;
  if (fs_->ReadFile(ClaimPath(dag_name, run_id), &text).ok() && ParseClaimText(text, &hint, &pending)) {
    FileInfo info;
    RunDir r;
    if (!hint.empty() && fs_->Stat(hint, &info).ok() && info.is_dir &&
        ParseRunDirName(BaseName(hint), &r.created, &r.run_id) && r.run_id == run_id) {
      r.dag_name = dag_name;
      r.path = hint;
      *out = r;
      return Status::OK();
    }
  }
  std::vector<RunDir> runs;
  DAGU_RETURN_IF_ERROR(ListRunDirs(dag_name, std::nullopt, std::nullopt, &runs));
  for (auto& r : runs) {
    if (r.run_id == run_id) {
      *out = std::move(r);
      return Status::OK();
    }
  }
  return Status::NotFound("no run \"" + run_id + "\" of DAG \"" + dag_name + "\" in " + DagRoot(dag_name));
}

Status RunStore::LatestRun(const std::string& dag_name, RunDir* out) {
  std::vector<RunDir> newest;
  DAGU_RETURN_IF_ERROR(ListRunDirsIn(DagRoot(dag_name), dag_name, std::nullopt, std::nullopt, &newest, 1));
  if (newest.empty()) return Status::NotFound("DAG \"" + dag_name + "\" has no runs in " + DagRoot(dag_name));
  *out = std::move(newest.front());
  return Status::OK();
}

Status RunStore::ListDagRoots(std::vector<std::string>* roots) {
  roots->clear();
  std::vector<std::string> names;
  DAGU_RETURN_IF_ERROR(ListOrEmpty(fs_, dag_runs_dir_, &names));
  std::sort(names.begin(), names.end());
  for (const auto& n : names) {
    if (n.empty() || n[0] == '.') continue;
    roots->push_back(JoinPath(JoinPath(dag_runs_dir_, n), "dag-runs"));
  }
  return Status::OK();
}

void RunStore::ReadEntry(RunEntry* e, bool summary) {
  FileInfo version;
  e->error = LatestAttemptInfo(e->run, &e->attempt, &version);
  if (e->error.ok()) {
    const std::string path = e->attempt.StatusPath();
    std::shared_ptr<const RunSummary> kept;
    if (summary && index_ != nullptr) kept = index_->summaries.Get(path, version);
    if (kept != nullptr) {
      e->record = FromSummary(*kept);
    } else if (!summary) {
      e->error = ReadRecord(e->attempt, version, &e->record);
    } else {
      e->error = ReadStatus(e->attempt, &e->record);
      if (e->error.ok() && summary) {
        auto s = std::make_shared<const RunSummary>(ToSummary(e->record));
        e->record = FromSummary(*s);
        // Read after the stat: a record appended in between changes the
        // version, so the next listing reads the file again.
        if (index_ != nullptr && Keepable(version)) index_->summaries.Put(path, version, std::move(s), 1);
      }
    }
  }
  if (e->error.ok() && !e->record.name.empty()) e->run.dag_name = e->record.name;
}

Status RunStore::ListRuns(const RunQuery& q, std::vector<RunEntry>* out) {
  out->clear();
  if (index_ != nullptr && index_->day_index != nullptr) {
    Status s = index_->day_index->List(q, out);
    if (s.code() != Status::Code::kNotSupported) return s;
  }
  // The candidates point into the day folders' shared lists (`held`): a day
  // of 10,000 DAGs has ~33,000 runs, of which a page reads ~1,000.
  struct Candidate {
    const RunDir* dir;
    size_t name;  // index into `names`
  };
  std::vector<std::shared_ptr<const std::vector<RunDir>>> held;
  std::vector<std::string> names;
  std::vector<Candidate> cands;
  // One DAG's runs are taken in the order collected (its day folders newest
  // first, each newest first), and without a status filter every candidate
  // is listed (an unreadable one with its error): the first `limit` are the
  // answer, so older day folders are not listed (a DAG's runs page asks for
  // 30 of ~100 runs over 30 days).
  const bool first_are_the_answer = !q.dag_name.empty() && q.statuses.empty() && q.limit != 0;
  auto collect = [&](const std::string& root, const std::string& dag_name) -> Status {
    std::vector<std::string> days;
    DAGU_RETURN_IF_ERROR(ListDayDirs(root, q.from, q.to, &days));
    std::vector<std::shared_ptr<const std::vector<RunDir>>> lists;
    size_t listed = 0;
    for (const auto& day : days) {
      if (first_are_the_answer && listed >= q.limit) break;
      std::shared_ptr<const std::vector<RunDir>> runs;
      DAGU_RETURN_IF_ERROR(DayRuns(day, &runs));
      for (const RunDir& r : *runs) {
        if ((q.from && r.created < *q.from) || (q.to && r.created > *q.to)) continue;
        ++listed;
      }
      lists.push_back(std::move(runs));
    }
    names.push_back(dag_name);
    for (auto& runs : lists) {
      for (const RunDir& r : *runs) {
        if ((q.from && r.created < *q.from) || (q.to && r.created > *q.to)) continue;
        cands.push_back({&r, names.size() - 1});
      }
      held.push_back(std::move(runs));
    }
    return Status::OK();
  };
  if (!q.dag_name.empty()) {
    DAGU_RETURN_IF_ERROR(collect(DagRoot(q.dag_name), q.dag_name));
  } else {
    std::vector<std::string> roots;
    DAGU_RETURN_IF_ERROR(ListDagRoots(&roots));
    for (const auto& root : roots) {
      if (q.Cancelled()) break;
      Status s = collect(root, BaseName(DirName(root)));
      if (!s.ok()) {
        RunEntry bad;
        bad.run.path = root;
        bad.run.dag_name = BaseName(DirName(root));
        bad.error = s;
        if (q.statuses.empty()) out->push_back(std::move(bad));
        continue;
      }
    }
  }
  // Newest first, ties in the order collected (a stable sort's order), taken
  // from a heap one at a time: a page reads ~1,000 of a day's ~33,000 runs,
  // so sorting them all would be mostly wasted (one DAG's are in order).
  auto comes_after = [&cands](size_t a, size_t b) {  // a is listed after b (the max-heap's "less")
    if (cands[a].dir->created != cands[b].dir->created) return cands[a].dir->created < cands[b].dir->created;
    return a > b;
  };
  std::vector<size_t> heap(cands.size());
  for (size_t i = 0; i < heap.size(); ++i) heap[i] = i;
  if (q.dag_name.empty()) std::make_heap(heap.begin(), heap.end(), comes_after);
  for (size_t taken = 0; taken < heap.size() && !q.Cancelled(); ++taken) {
    size_t index = taken;
    if (q.dag_name.empty()) {
      std::pop_heap(heap.begin(), heap.end() - static_cast<std::ptrdiff_t>(taken), comes_after);
      index = heap[heap.size() - 1 - taken];
    }
    const Candidate& c = cands[index];
    RunEntry e;
    e.run = *c.dir;
    e.run.dag_name = names[c.name];
    ReadEntry(&e, q.summaries);
    if (!q.statuses.empty()) {
      if (!e.error.ok()) continue;
      if (std::find(q.statuses.begin(), q.statuses.end(), e.record.status) == q.statuses.end()) continue;
    }
    out->push_back(std::move(e));
    if (q.limit != 0 && out->size() >= q.limit) break;
  }
  if (q.Cancelled()) {
    out->clear();
    return Status::Aborted("the run listing was cancelled");
  }
  return Status::OK();
}

Status RunStore::CreateAttempt(const RunDir& run, const Json* dag_json, AttemptDir* out) {
  WallTime now = clock_->Now();
  AttemptDir a;
  a.attempt_id = NewAttemptId();
  a.created = FromUnixMillis(UnixMillis(now));
  a.path = JoinPath(run.path, AttemptDirName(now, a.attempt_id));
  DAGU_RETURN_IF_ERROR(fs_->MakeDir(a.path, 0750).WithContext("cannot create attempt"));
  if (dag_json != nullptr) {
    Status s = fs_->WriteFileAtomic(a.DagJsonPath(), JsonText(*dag_json), 0600);
    if (!s.ok()) {
      fs_->RemoveAll(a.path).LogIfError("removing the unfinished attempt " + a.path);
      return s.WithContext("cannot write dag.json");
    }
  }
  *out = a;
  return Status::OK();
}

Status RunStore::ListAttempts(const RunDir& run, bool include_hidden, std::vector<AttemptDir>* out) {
  out->clear();
  std::vector<std::string> names;
  DAGU_RETURN_IF_ERROR(fs_->ListDir(run.path, &names));
  for (const auto& n : names) {
    AttemptDir a;
    if (!ParseAttemptDirName(n, &a.created, &a.attempt_id, &a.hidden)) continue;
    if (a.hidden && !include_hidden) continue;
    a.path = JoinPath(run.path, n);
    out->push_back(std::move(a));
  }
  // Newest first by name without the hiding dot (= by time, then ID).
  std::sort(out->begin(), out->end(), [](const AttemptDir& a, const AttemptDir& b) {
    std::string na = BaseName(a.path), nb = BaseName(b.path);
    if (a.hidden) na.erase(0, 1);
    if (b.hidden) nb.erase(0, 1);
    return na > nb;
  });
  return Status::OK();
}

Status RunStore::LatestAttempt(const RunDir& run, AttemptDir* out) {
  FileInfo info;
  return LatestAttemptInfo(run, out, &info);
}

Status RunStore::LatestAttemptInfo(const RunDir& run, AttemptDir* out, FileInfo* status_info) {
  std::vector<AttemptDir> attempts;
  DAGU_RETURN_IF_ERROR(ListAttempts(run, false, &attempts));
  for (auto& a : attempts) {
    Status s = fs_->Stat(a.StatusPath(), status_info);
    if (s.ok() && status_info->size == 0) continue;  // created, its first line not yet written
    if (s.ok()) {
      *out = std::move(a);
      return Status::OK();
    }
    if (!s.IsNotFound()) return s;
  }
  return Status::NotFound("run " + run.path + " has no attempt with a status.jsonl");
}

Status RunStore::ReadRecord(const AttemptDir& attempt, const FileInfo& version, RunRecord* out) {
  if (index_ == nullptr) return ReadStatus(attempt, out);
  const std::string path = attempt.StatusPath();
  if (auto kept = index_->records.Get(path, version)) {
    *out = *kept;
    return Status::OK();
  }
  // Read after the stat that gave `version`: a record appended in between
  // changes the version, so the next read reads the file again.
  DAGU_RETURN_IF_ERROR(ReadStatus(attempt, out));
  if (!Keepable(version)) return Status::OK();
  bool again = false;
  {
    std::lock_guard<std::mutex> l(index_->sightings_mu);
    again = index_->record_sightings.Seen(path);
  }
  if (again) index_->records.Put(path, version, std::make_shared<const RunRecord>(*out), 1);
  return Status::OK();
}

Status RunStore::ReadStatus(const AttemptDir& attempt, RunRecord* out) {
  std::string contents;
  DAGU_RETURN_IF_ERROR(fs_->ReadFile(attempt.StatusPath(), &contents));
  return ParseStatusFile(contents, attempt.StatusPath(), out);
}

Status RunStore::ReadDagJson(const AttemptDir& attempt, Json* out) {
  std::string contents;
  Status s = fs_->ReadFile(attempt.DagJsonPath(), &contents);
  if (s.IsNotFound()) return Status::NotFound("missing dag.json: " + attempt.DagJsonPath());
  DAGU_RETURN_IF_ERROR(s);
  *out = Json::parse(contents, nullptr, /*allow_exceptions=*/false);
  if (out->is_discarded() || !out->is_object()) {
    return Status::Corruption("dag.json is not a JSON object: " + attempt.DagJsonPath());
  }
  return Status::OK();
}

std::string RunStore::QueueOf(const AttemptDir& attempt, const std::string& dag_name) {
  Json dag_json;
  if (ReadDagJson(attempt, &dag_json).ok()) {
    auto it = dag_json.find("queue");
    if (it != dag_json.end() && it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>();
  }
  return dag_name;
}

Status RunStore::ReadLatest(const std::string& dag_name, const std::string& run_id, RunDir* run,
                            AttemptDir* attempt, RunRecord* record) {
  RunDir r;
  AttemptDir a;
  RunRecord rec;
  FileInfo version;
  DAGU_RETURN_IF_ERROR(FindRun(dag_name, run_id, &r));
  DAGU_RETURN_IF_ERROR(LatestAttemptInfo(r, &a, &version));
  DAGU_RETURN_IF_ERROR(ReadRecord(a, version, &rec));
  if (run != nullptr) *run = std::move(r);
  if (attempt != nullptr) *attempt = std::move(a);
  if (record != nullptr) *record = std::move(rec);
  return Status::OK();
}

Status RunStore::AppendStatus(const AttemptDir& attempt, const RunRecord& record) {
  // A writer that crashed mid-line leaves a torn last line; start a fresh
  // line so that this record is not glued to it.
  std::string line = SerializeRunRecord(record) + "\n";
  const std::string path = attempt.StatusPath();
  bool newline = true;
  uint64_t size = 0;
  DAGU_RETURN_IF_ERROR(EndsWithNewline(path, &newline, &size));
  if (!newline) line = "\n" + line;
  Status s = fs_->AppendFileSync(path, line, 0600);
  std::lock_guard<std::mutex> l(appended_mu_);
  appended_path_ = s.ok() ? path : std::string();
  appended_size_ = size + line.size();
  return s;
}

Status RunStore::EndsWithNewline(const std::string& path, bool* yes, uint64_t* size) {
  *yes = true;
  *size = 0;
  FileInfo info;
  Status s = fs_->Stat(path, &info);
  if (s.IsNotFound()) return Status::OK();
  DAGU_RETURN_IF_ERROR(s);
  *size = info.size;
  {
    std::lock_guard<std::mutex> l(appended_mu_);
    if (path == appended_path_ && info.size == appended_size_) return Status::OK();  // as our last append left it
  }
  if (info.size == 0) return Status::OK();
  std::string existing;
  s = fs_->ReadFile(path, &existing);
  if (s.IsNotFound()) return Status::OK();
  DAGU_RETURN_IF_ERROR(s);
  *size = existing.size();
  *yes = existing.empty() || existing.back() == '\n';
  return Status::OK();
}

Status RunStore::CompactStatus(const AttemptDir& attempt) {
  std::string contents;
  DAGU_RETURN_IF_ERROR(fs_->ReadFile(attempt.StatusPath(), &contents));
  RunRecord last;
  DAGU_RETURN_IF_ERROR(ParseStatusFile(contents, attempt.StatusPath(), &last));
  return fs_->WriteFileAtomic(attempt.StatusPath(), SerializeRunRecord(last) + "\n", 0600);
}

Status RunStore::WriteFinalStatus(const AttemptDir& attempt, const RunRecord& record) {
  return fs_->WriteFileAtomic(attempt.StatusPath(), SerializeRunRecord(record) + "\n", 0600);
}

Status RunStore::HideAttempt(AttemptDir* attempt) {
  if (attempt->hidden) return Status::OK();
  std::string hidden = JoinPath(DirName(attempt->path), "." + BaseName(attempt->path));
  DAGU_RETURN_IF_ERROR(fs_->Rename(attempt->path, hidden));
  attempt->path = hidden;
  attempt->hidden = true;
  return Status::OK();
}

Status RunStore::RemoveRun(const RunDir& run) {
  DAGU_RETURN_IF_ERROR(fs_->RemoveAll(run.path));
  Status s = fs_->RemoveFile(ClaimPath(run.dag_name, run.run_id));
  return s.IsNotFound() ? Status::OK() : s;
}

Status RunStore::ClaimDispatch(const RunDir& run, const AttemptDir& queued_attempt) {
  std::string marker = JoinPath(run.path, kDispatchPrefix + queued_attempt.attempt_id);
  Status s = fs_->CreateFileExclusive(marker, std::to_string(UnixMillis(clock_->Now())) + "\n", 0600);
  if (s.IsAlreadyExists()) {
    return Status::AlreadyExists("queued run \"" + run.run_id + "\" (attempt " + queued_attempt.attempt_id +
                                 ") was already dispatched");
  }
  return s;
}

Status RunStore::ReleaseDispatch(const RunDir& run, const AttemptDir& queued_attempt) {
  Status s = fs_->RemoveFile(JoinPath(run.path, kDispatchPrefix + queued_attempt.attempt_id));
  return s.IsNotFound() ? Status::OK() : s;
}

Status RunStore::RequestCancel(const AttemptDir& attempt) {
  return fs_->WriteFile(attempt.CancelPath(), "", 0600);
}

bool RunStore::CancelRequested(const AttemptDir& attempt) {
  FileInfo info;
  return fs_->Stat(attempt.CancelPath(), &info).ok();
}

Status RunStore::WriteOutputs(const AttemptDir& attempt, const Json& outputs) {
  // As Go's json.MarshalIndent writes it: <, > and & escaped, no final newline.
  std::string text;
  for (char c : JsonText(outputs, 2)) {
    if (c == '<') text += "\\u003c";
    else if (c == '>') text += "\\u003e";
    else if (c == '&') text += "\\u0026";
    else text += c;
  }
  return fs_->WriteFileAtomic(attempt.OutputsPath(), text, 0600);
}

}  // namespace dagu
