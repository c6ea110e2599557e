#include "store/run_day_index.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_set>

#include "core/parallel_for.h"
#include "core/time_format.h"
#include "store/run_layout.h"
#include "store/run_summary.h"

namespace dagu {

// What a listing read of one run, and the numbers that prove it current.
struct RunDayIndex::CellState {
  Kept run, attempt;
  AttemptDir attempt_dir;
  RunSummary summary;
};

// Compact, as a day holds ~33,000 of these at 10,000 DAGs (docs/web.md,
// "At scale"): a cell is one atomic pointer, a run's folder name sits in its
// DAG day's `names`.
struct RunDayIndex::Cell {
  std::atomic<std::shared_ptr<const CellState>> state;
};

struct RunDayIndex::Run {
  WallTime created;
  uint32_t name_pos = 0, name_len = 0;  // the run folder's name in DagDay::names
  std::shared_ptr<Cell> cell;
};

// One DAG folder's runs of the day.
struct RunDayIndex::DagDay {
  std::string dag_dir;   // the folder's name under <dagRunsDir>
  std::string day_path;  // <dagRunsDir>/<dag_dir>/dag-runs/YYYY/MM/DD
  Kept kept;             // the day folder, or its nearest existing ancestor; empty: read again
  Status error;          // the folder could not be read (then nothing is kept)
  std::vector<Run> runs;  // newest first
  std::string names;      // the runs' folder names, one after another
  std::string_view NameOf(const Run& r) const { return std::string_view(names).substr(r.name_pos, r.name_len); }
};

struct RunDayIndex::Day {
  Kept top;  // <dagRunsDir>
  std::vector<std::shared_ptr<const DagDay>> dags;  // by folder name
  struct Ref {
    uint32_t dag, run;
  };
  std::vector<Ref> merged;  // newest first
  bool Same() const {
    if (!top.Same()) return false;
    for (const auto& d : dags) {
      if (!d->kept.Same()) return false;
    }
    return true;
  }
};

namespace {

constexpr int64_t kSecondsPerDay = 86400;
// Runs taken at a time by a listing (see List).
constexpr size_t kBatch = 64;

// Threads that read `n` folders or files: side by side from 32 on. The
// reads wait on the disk, not the CPU (docs/benchmarks.md, "Cold
// requests": 8 threads list a cold day of 10,000 DAG folders ~N times as
// fast as one).
size_t ReadThreads(size_t n) { return n >= 32 ? 8 : 1; }

Status Cancelled(std::vector<RunEntry>* out) {
  out->clear();
  return Status::Aborted("the run listing was cancelled");
}

int64_t DayOf(WallTime t) {
  const int64_t s = UnixSeconds(t);
  return s / kSecondsPerDay - (s % kSecondsPerDay < 0 ? 1 : 0);
}

}  // namespace

RunDayIndex::RunDayIndex(FileSystem* fs, RunStore* store, std::string dag_runs_dir, size_t max_days,
                         size_t max_watches)
    : fs_(fs), store_(store), dag_runs_dir_(std::move(dag_runs_dir)), max_days_(max_days), tracker_(max_watches) {}

RunDayIndex::~RunDayIndex() = default;

RunDayIndex::Kept RunDayIndex::Track(const std::string& dir) {
  Kept k;
  k.slot = tracker_.Watch(dir);
  if (k.slot != nullptr) k.generation = k.slot->generation.load();
  return k;
}

RunDayIndex::Counters RunDayIndex::counters() const {
  std::lock_guard<std::mutex> l(mu_);
  Counters c = counters_;
  c.summary_hits = summary_hits_.load();
  c.summary_reads = summary_reads_.load();
  c.days_kept = days_.size();
  return c;
}

Status RunDayIndex::List(const RunQuery& q, std::vector<RunEntry>* out) {
  out->clear();
  if (!q.dag_name.empty() || !q.from || !q.to || !q.summaries || *q.to < *q.from || max_days_ == 0) {
    return Status::NotSupported("not a query over all DAGs of a few days");
  }
  const int64_t first = DayOf(*q.from), last = DayOf(*q.to);
  if (last - first + 1 > kMaxQueryDays) return Status::NotSupported("more days than the index answers");
  tracker_.Sync();
  if (!Track(dag_runs_dir_).slot) return Status::NotSupported(dag_runs_dir_ + " cannot be watched");

  std::vector<std::shared_ptr<const Day>> days;  // newest first; all runs of a day are newer than the day before's
  for (int64_t d = last; d >= first; --d) {
    std::shared_ptr<const Day> day;
    Status s = CurrentDay(d, q, &day);
    if (s.code() == Status::Code::kAborted) return Cancelled(out);
    DAGU_RETURN_IF_ERROR(s);
    days.push_back(std::move(day));
  }
  // Folders that could not be read, first, once per DAG (as ListRuns).
  if (q.statuses.empty()) {
    std::unordered_set<std::string> seen;
    for (const auto& day : days) {
      for (const auto& dd : day->dags) {
        if (dd->error.ok() || !seen.insert(dd->dag_dir).second) continue;
        RunEntry bad;
        bad.run.path = JoinPath(dag_runs_dir_, dd->dag_dir) + "/dag-runs";
        bad.run.dag_name = dd->dag_dir;
        bad.error = dd->error;
        out->push_back(std::move(bad));
      }
    }
  }
  size_t runs = 0;
  for (const auto& day : days) runs += day->merged.size();
  out->reserve(std::min(q.limit == 0 ? runs : q.limit, runs) + out->size());
  auto wanted = [&q](RunStatus status) {
    return q.statuses.empty() || std::find(q.statuses.begin(), q.statuses.end(), status) != q.statuses.end();
  };
  // The runs are taken in batches; in each, the runs whose summary is not
  // kept are read side by side (a cold page cache: see ReadThreads). Without
  // a status filter each run of the range is an entry, so a batch is no
  // bigger than what the page still needs; with one, at most a batch of runs
  // more than needed is read.
  struct Slot {
    const DagDay* dd;
    const Run* run;
    std::shared_ptr<const CellState> kept;
    RunEntry e;
  };
  std::vector<Slot> slots;
  std::vector<size_t> reads;
  for (const auto& day : days) {
    const std::vector<Day::Ref>& merged = day->merged;
    for (size_t pos = 0; pos < merged.size();) {
      if (q.Cancelled()) return Cancelled(out);
      const size_t need = q.limit == 0 ? kBatch : q.limit > out->size() ? q.limit - out->size() : 1;
      const size_t end = std::min(merged.size(), pos + (q.statuses.empty() ? std::min(need, kBatch) : kBatch));
      slots.clear();
      reads.clear();
      for (; pos < end; ++pos) {
        const DagDay& dd = *day->dags[merged[pos].dag];
        const Run& run = dd.runs[merged[pos].run];
        if (run.created < *q.from || run.created > *q.to) continue;
        // A kept summary is filtered before an entry is made of it: a status
        // list looks at ~10 runs for each one it lists.
        std::shared_ptr<const CellState> kept = KeptState(run);
        if (kept != nullptr && !wanted(kept->summary.status)) continue;
        Slot& slot = slots.emplace_back(Slot{&dd, &run, std::move(kept), RunEntry{}});
        RunEntry& e = slot.e;
        e.run.dag_name = dd.dag_dir;
        e.run.created = run.created;
        const std::string_view name = dd.NameOf(run);
        e.run.path = JoinPath(dd.day_path, std::string(name));
        WallTime unused;
        ParseRunDirName(name, &unused, &e.run.run_id);
        if (slot.kept == nullptr) reads.push_back(slots.size() - 1);
      }
      ParallelFor(reads.size(), ReadThreads(reads.size()),
                  [&](size_t k) { ReadRun(*slots[reads[k]].run, &slots[reads[k]].e); });
      for (Slot& slot : slots) {
        RunEntry& e = slot.e;
        if (slot.kept != nullptr) {
          e.attempt = slot.kept->attempt_dir;
          e.record = FromSummary(slot.kept->summary);
          if (!e.record.name.empty()) e.run.dag_name = e.record.name;
        } else if (!q.statuses.empty() && (!e.error.ok() || !wanted(e.record.status))) {
          continue;
        }
        out->push_back(std::move(e));
        if (q.limit != 0 && out->size() >= q.limit) return Status::OK();
      }
    }
  }
  return Status::OK();
}

Status RunDayIndex::CurrentDay(int64_t day, const RunQuery& q, std::shared_ptr<const Day>* out) {
  std::shared_ptr<const Day> kept;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (auto it = days_.find(day); it != days_.end()) kept = it->second;
  }
  if (kept != nullptr && kept->Same()) {
    *out = std::move(kept);
    return Status::OK();
  }
  std::shared_ptr<const Day> fresh;
  DAGU_RETURN_IF_ERROR(Rebuild(day, kept, q, &fresh));
  std::lock_guard<std::mutex> l(mu_);
  ++counters_.day_rebuilds;
  days_[day] = fresh;
  lru_.remove(day);
  lru_.push_front(day);
  while (lru_.size() > max_days_) {
    days_.erase(lru_.back());
    lru_.pop_back();
  }
  *out = std::move(fresh);
  return Status::OK();
}

Status RunDayIndex::Rebuild(int64_t day, const std::shared_ptr<const Day>& old, const RunQuery& q,
                            std::shared_ptr<const Day>* out) {
  auto fresh = std::make_shared<Day>();
  // The number first, then the listing (the DirTracker contract).
  fresh->top = Track(dag_runs_dir_);
  std::vector<std::string> names;
  if (old != nullptr && old->top.Same()) {
    for (const auto& dd : old->dags) names.push_back(dd->dag_dir);
  } else {
    Status s = fs_->ListDir(dag_runs_dir_, &names);
    if (s.IsNotFound()) names.clear();
    else DAGU_RETURN_IF_ERROR(s);
    names.erase(std::remove_if(names.begin(), names.end(), [](const std::string& n) { return n.empty() || n[0] == '.'; }),
                names.end());
    std::sort(names.begin(), names.end());
  }
  std::unordered_map<std::string_view, const std::shared_ptr<const DagDay>*> previous;
  if (old != nullptr) {
    for (const auto& dd : old->dags) previous.emplace(dd->dag_dir, &dd);
  }
  // The DAG folders whose day changed (all of them, the first time) are
  // read side by side: 10,000 listings from a cold page cache.
  fresh->dags.resize(names.size());
  std::vector<size_t> to_read;
  std::vector<const DagDay*> prevs(names.size(), nullptr);
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = previous.find(names[i]);
    const std::shared_ptr<const DagDay>* prev = it == previous.end() ? nullptr : it->second;
    if (prev != nullptr && (*prev)->kept.Same()) {
      fresh->dags[i] = *prev;
      continue;
    }
    prevs[i] = prev == nullptr ? nullptr : prev->get();
    to_read.push_back(i);
  }
  std::mutex error_mu;
  Status error;
  ParallelFor(to_read.size(), ReadThreads(to_read.size()), [&](size_t k) {
    if (q.Cancelled()) return;
    const size_t i = to_read[k];
    std::shared_ptr<const DagDay> dd;
    Status s = ReadDagDay(day, names[i], prevs[i], &dd);
    if (!s.ok()) {
      std::lock_guard<std::mutex> l(error_mu);
      if (error.ok()) error = s;
      return;
    }
    fresh->dags[i] = std::move(dd);
  });
  if (q.Cancelled()) return Status::Aborted("the run listing was cancelled");
  DAGU_RETURN_IF_ERROR(error);
  // Newest first; ties by DAG folder, then by run folder name descending.
  struct Key {
    int64_t created_ms;
    uint32_t dag, run;
  };
  std::vector<Key> keys;
  for (uint32_t i = 0; i < fresh->dags.size(); ++i) {
    const auto& runs = fresh->dags[i]->runs;
    for (uint32_t j = 0; j < runs.size(); ++j) keys.push_back({UnixMillis(runs[j].created), i, j});
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.created_ms != b.created_ms) return a.created_ms > b.created_ms;
    if (a.dag != b.dag) return a.dag < b.dag;
    return a.run < b.run;
  });
  fresh->merged.reserve(keys.size());
  for (const Key& k : keys) fresh->merged.push_back({k.dag, k.run});
  *out = std::move(fresh);
  return Status::OK();
}

Status RunDayIndex::ReadDagDay(int64_t day, const std::string& dag_dir, const DagDay* old,
                               std::shared_ptr<const DagDay>* out) {
  {
    std::lock_guard<std::mutex> l(mu_);
    ++counters_.dag_day_reads;
  }
  auto dd = std::make_shared<DagDay>();
  dd->dag_dir = dag_dir;
  const std::string dag_path = JoinPath(dag_runs_dir_, dag_dir);
  const std::string root = JoinPath(dag_path, "dag-runs");
  const std::string date = FormatDatePathUTC(FromUnixSeconds(day * kSecondsPerDay));  // YYYY/MM/DD
  dd->day_path = JoinPath(root, date);
  std::vector<std::string> names;
  dd->kept = Track(dd->day_path);
  Status s = fs_->ListDir(dd->day_path, &names);
  if (s.IsNotFound()) {
    // No runs that day: kept with the nearest existing ancestor's number,
    // taken before the folder is looked at again (it may have just been
    // made).
    names.clear();
    dd->kept = {};
    const std::string month = DirName(dd->day_path), year = DirName(month);
    for (const std::string& dir : {month, year, root, dag_path}) {
      dd->kept = Track(dir);
      if (dd->kept.slot != nullptr) break;
    }
    s = fs_->ListDir(dd->day_path, &names);
    if (s.IsNotFound()) {
      names.clear();
      s = Status::OK();
    } else if (s.ok()) {
      dd->kept = Track(dd->day_path);  // made meanwhile
    }
  }
  if (!s.ok()) {
    dd->kept = {};
    dd->error = s.WithContext("cannot list " + dd->day_path);
    *out = std::move(dd);
    return Status::OK();
  }
  std::sort(names.rbegin(), names.rend());
  std::unordered_map<std::string_view, const std::shared_ptr<Cell>*> cells;
  if (old != nullptr) {
    for (const Run& r : old->runs) cells.emplace(old->NameOf(r), &r.cell);
  }
  dd->runs.reserve(names.size());
  size_t bytes = 0;
  for (const auto& n : names) bytes += n.size();
  dd->names.reserve(bytes);
  for (const auto& n : names) {
    Run r;
    std::string id;
    if (!ParseRunDirName(n, &r.created, &id)) continue;
    auto it = cells.find(n);
    r.cell = it != cells.end() ? *it->second : std::make_shared<Cell>();
    r.name_pos = static_cast<uint32_t>(dd->names.size());
    r.name_len = static_cast<uint32_t>(n.size());
    dd->names += n;
    dd->runs.push_back(std::move(r));
  }
  *out = std::move(dd);
  return Status::OK();
}

std::shared_ptr<const RunDayIndex::CellState> RunDayIndex::KeptState(const Run& run) {
  std::shared_ptr<const CellState> state = run.cell->state.load();
  if (state == nullptr || !state->run.Same() || !state->attempt.Same()) return nullptr;
  summary_hits_.fetch_add(1, std::memory_order_relaxed);
  return state;
}

void RunDayIndex::ReadRun(const Run& run, RunEntry* e) {
  summary_reads_.fetch_add(1, std::memory_order_relaxed);
  // Each number before what it proves is read.
  auto fresh = std::make_shared<CellState>();
  fresh->run = Track(e->run.path);
  e->error = store_->LatestAttempt(e->run, &e->attempt);
  if (e->error.ok()) {
    fresh->attempt = Track(e->attempt.path);
    RunRecord full;
    e->error = store_->ReadStatus(e->attempt, &full);
    if (e->error.ok()) {
      fresh->attempt_dir = e->attempt;
      fresh->summary = ToSummary(full);
      e->record = FromSummary(fresh->summary);
      if (fresh->run.slot != nullptr && fresh->attempt.slot != nullptr) {
        run.cell->state.store(std::move(fresh));
      }
    }
  }
  if (e->error.ok() && !e->record.name.empty()) e->run.dag_name = e->record.name;
}

}  // namespace dagu
