// RunDayIndex: the runs of whole UTC days across every DAG of the history,
// newest first, with the summary of each run a listing looked at, kept in
// memory and proved current per request by comparing DirTracker numbers
// (core/dir_tracker.h) held in slots: no stat and no lookup by path per
// folder. It answers RunStore::ListRuns for the run lists over all DAGs of
// a few days (the API's day and status lists, docs/web.md "At scale"),
// where the history holds ~10,000 DAG folders per day.
//
// WHAT IS KEPT, AND WHAT PROVES IT CURRENT. Per day D:
//  - the DAG folders of <dagRunsDir>, while the number of <dagRunsDir>
//    holds (a DAG folder made, removed or renamed is an event there; so is
//    the renaming of a DAG's whole history, which moves a subtree without
//    an event inside it);
//  - per DAG folder, the run folder names of <dag>/dag-runs/YYYY/MM/DD,
//    while that folder's number holds (a run folder made, removed or
//    renamed in it). A day folder that does not exist is kept as empty with
//    the number of its nearest existing ancestor, where its creation would
//    be an event;
//  - all of them merged, newest first (ties: DAG folder name, then run
//    folder name descending, the order RunStore::ListRuns gives);
//  - per run a listing looked at: its latest visible attempt and that
//    attempt's summary, while the run folder's number (an attempt made or
//    hidden) and the attempt folder's (status.jsonl appended, compacted or
//    replaced) hold. Unreadable runs are not kept.
// Every request reads the pending events first (DirTracker::Sync), a number
// is taken before its folder is read, and the kernel queues an event inside
// the system call that made the change, so a change any process completed
// before the request is in its answer, as with fresh reads.
//
// WHEN IT DECLINES. List() answers NotSupported -- the caller reads the
// files -- when inotify or its watch budget is unavailable for
// <dagRunsDir>, which includes network and FUSE file systems (another
// host's changes raise no event here: DirTracker::Watch). A folder below
// that cannot be watched (budget) is read again at each request.
//
// MEMORY. At most `max_days` days (least recently asked out); per day one
// entry per run folder (~130 bytes: its time, its name in a buffer of its
// DAG day, a cell of one atomic pointer), one per DAG folder (~200 bytes)
// and a summary (~600 bytes) per run a listing looked at; plus the
// tracker's watches (~310 bytes here and ~1 KB of kernel memory per watched
// folder: the day folders of the days kept, and the run and attempt folders
// of the runs looked at). Measured at 10,000 DAGs and 33,000 runs a day
// (docs/benchmarks.md, "Memory at scale"): ~15 MB per day kept (it was
// ~20 MB before the compact entries).
//
// Thread-safe. The mutexes are held only to copy or swap pointers; folders
// and files are read outside them.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/dir_tracker.h"
#include "core/file_system.h"
#include "core/status.h"
#include "store/run_store.h"

namespace dagu {

class RunDayIndex {
 public:
  // `fs` must be the real file system (what inotify sees); `store` reads the
  // runs' attempts and records. Both must outlive this.
  RunDayIndex(FileSystem* fs, RunStore* store, std::string dag_runs_dir, size_t max_days, size_t max_watches);
  ~RunDayIndex();
  RunDayIndex(const RunDayIndex&) = delete;
  RunDayIndex& operator=(const RunDayIndex&) = delete;

  // The most days one query may span to be answered here.
  static constexpr int64_t kMaxQueryDays = 7;

  // ListRuns' answer for `q` over every DAG (q.dag_name empty, q.from and
  // q.to set, at most kMaxQueryDays UTC days, q.summaries). NotSupported
  // when it declines (see the header comment) or `q` is not such a query:
  // nothing is in `out` then.
  Status List(const RunQuery& q, std::vector<RunEntry>* out);

  // How often a kept day or summary answered, and what is kept now.
  struct Counters {
    uint64_t day_rebuilds = 0, dag_day_reads = 0;
    uint64_t summary_hits = 0, summary_reads = 0;
    size_t days_kept = 0;
  };
  Counters counters() const;

 private:
  struct Kept {
    std::shared_ptr<const DirTracker::Slot> slot;
    uint64_t generation = 0;
    bool Same() const { return slot != nullptr && slot->generation.load() == generation; }
  };
  struct CellState;
  struct Cell;
  struct Run;
  struct DagDay;
  struct Day;

  Kept Track(const std::string& dir);
  // The day, current as of this request (rebuilt in the parts that changed).
  // Aborted when `q` is cancelled meanwhile (RunQuery::cancel).
  Status CurrentDay(int64_t day, const RunQuery& q, std::shared_ptr<const Day>* out);
  Status Rebuild(int64_t day, const std::shared_ptr<const Day>& old, const RunQuery& q,
                 std::shared_ptr<const Day>* out);
  Status ReadDagDay(int64_t day, const std::string& dag_dir, const DagDay* old, std::shared_ptr<const DagDay>* out);
  // The run's kept attempt and summary while its numbers hold, else null.
  std::shared_ptr<const CellState> KeptState(const Run& run);
  // Reads the run's latest attempt and its summary into the entry (whose
  // run is filled in), and keeps them in the run's cell.
  void ReadRun(const Run& run, RunEntry* e);

  FileSystem* fs_;
  RunStore* store_;
  const std::string dag_runs_dir_;
  const size_t max_days_;
  DirTracker tracker_;
  mutable std::mutex mu_;  // guards the fields below (pointer copies and swaps only)
  std::unordered_map<int64_t, std::shared_ptr<const Day>> days_;
  std::list<int64_t> lru_;  // most recently asked first
  Counters counters_;  // but the summary counts, kept apart (per run, not per request)
  std::atomic<uint64_t> summary_hits_{0}, summary_reads_{0};
};

}  // namespace dagu
