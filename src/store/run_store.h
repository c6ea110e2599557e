// RunStore: the DAG-run records in Dagu 1.30.2's layout (run_layout.h,
// docs/storage.md): run directories under UTC date
// folders, one attempt directory per execution, `status.jsonl` appended with
// fsync (the last valid line wins) and compacted by an atomic rename,
// `dag.json`, `outputs.json` and the `CANCEL_REQUESTED` stop flag.
//
// EXCLUSIVE CREATE (docs/decisions.md §2). A run directory's name
// carries its creation second, so two creators of one run ID a second apart
// would make two directories. CreateRun therefore first claims the ID with an
// O_CREAT|O_EXCL file whose path depends only on (DAG, run ID):
//
//     <dagRunsDir>/<dagDir>/dag-runs/.dagu_run_ids/<runId>
//
// (Dagu's readers glob `2*/*/*/dag-run_*` and skip dot names, so they never
// see it.) Before claiming, the creator checks that no run directory with
// that ID exists (one written by Dagu, which does not know the claim); if
// existing runs cannot be read, no run is created and the read error is
// returned. The claim is written pending, the directory is made (mkdir,
// exclusive), and the claim is marked made (store/run_claim.h). Every other
// creator gets AlreadyExists, at any moment and from any host sharing the
// storage. A made claim is kept for as long as the run exists; RemoveRun
// removes both. A made claim whose run directory is gone (Dagu's dequeue or
// retention removed it) still blocks re-use of the ID. A pending claim left
// without its directory (its creator died) is adopted after
// kClaimRepairAfter by the next creator, which makes the very directory it
// names (CLAIM REPAIR in store/run_claim.h).
//
// Errors are per run: a torn or corrupt status line, a missing dag.json or an
// unreadable directory gives an error for that run (Corruption / NotFound /
// IOError naming the path) and never stops listing the others.
//
// Thread-safe (the one piece of state besides the filesystem, what
// AppendStatus last appended, has its own mutex).
#pragma once

#include <atomic>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/file_system.h"
#include "core/status.h"
#include "core/status_or.h"
#include "store/run_status.h"

namespace dagu {

// One dag-run directory.
struct RunDir {
  std::string dag_name;  // the DAG name it was looked up or created with
  std::string run_id;
  WallTime created;      // from the directory name (UTC, whole seconds)
  std::string path;      // absolute
  // Chat steps' conversations, one <step>.json each (kept across attempts).
  std::string MessagesPath() const { return path + "/messages"; }
};

// One attempt directory of a run.
struct AttemptDir {
  std::string attempt_id;
  WallTime created;      // from the directory name (UTC, milliseconds)
  bool hidden = false;   // ".attempt_..." (dequeued)
  std::string path;      // absolute
  std::string StatusPath() const { return path + "/status.jsonl"; }
  std::string DagJsonPath() const { return path + "/dag.json"; }
  std::string OutputsPath() const { return path + "/outputs.json"; }
  std::string CancelPath() const { return path + "/CANCEL_REQUESTED"; }
};

struct RunQuery {
  std::string dag_name;                // "" = every DAG under dagRunsDir
  std::optional<WallTime> from;        // run created at or after (inclusive)
  std::optional<WallTime> to;          // run created before or at (inclusive)
  std::vector<RunStatus> statuses;     // empty = any status
  size_t limit = 1000;                 // newest first; 0 = no limit
  // When true, each entry's record holds only what a run list shows (the
  // fields RunStore::SummaryOf keeps: no nodes, handlers, preconditions,
  // params list or extras), served from the index (EnableIndex) while the
  // run's status.jsonl keeps its version.
  bool summaries = false;
  // When set, a listing checks it between folders and answers Aborted, with
  // nothing in its output, once it is true (the server's warm-up at start,
  // which a stop must end at once). Null: never cancelled.
  const std::atomic<bool>* cancel = nullptr;
  bool Cancelled() const { return cancel != nullptr && cancel->load(std::memory_order_relaxed); }
};

// What the index (RunStore::EnableIndex) may keep; the bound of its memory.
struct RunIndexLimits {
  // Parsed run folder names of day folders, counted over all kept day
  // folders (~250 bytes each).
  size_t max_day_runs = 100000;
  // Run summaries (~700 bytes each).
  size_t max_summaries = 50000;
  // Whole records (with their steps: ~2-10 KB each) of the runs a DAG's runs
  // page or a run's details showed.
  size_t max_records = 3000;
  // Lists over all DAGs of up to a week, answered from days kept in memory
  // and proved current by inotify (store/run_day_index.h): at most this many
  // days, watching at most `max_watches` folders. 0: off. Only for a store
  // on the real file system (what inotify sees).
  size_t max_watched_days = 0;
  size_t max_watches = 0;
  // The file system the day index lists day folders with: the real one
  // beneath the store's caching layers, since it keeps what it lists itself
  // (null: the store's).
  FileSystem* day_listing_fs = nullptr;
};

// How often the index answered (hits) and how often the files were read.
struct RunIndexCounters {
  uint64_t day_hits = 0, day_misses = 0;
  uint64_t summary_hits = 0, summary_misses = 0;
  uint64_t record_hits = 0, record_misses = 0;
  size_t day_runs_kept = 0, summaries_kept = 0, records_kept = 0;  // what is kept now (see RunIndexLimits)
};

// One run of a listing: its latest attempt and record, or the error that
// made them unreadable (then `record` is empty and `error` names the path).
struct RunEntry {
  RunDir run;
  AttemptDir attempt;
  RunRecord record;
  Status error;
};

class RunStore {
 public:
  // `dag_runs_dir` is Config::paths.dag_runs_dir. `fs` and `clock` must
  // outlive the store.
  RunStore(FileSystem* fs, const Clock* clock, std::string dag_runs_dir);
  ~RunStore();

  // THE INDEX (docs/web.md, "At scale"). Off unless enabled (the web server
  // enables it). When on, the store keeps
  //  - each day folder's parsed run folders, with the folder's version
  //    (size, mtime, inode; SameFileVersion): a listing stats the folder and
  //    parses its names again only when it changed (a run created, removed
  //    or renamed changes the folder's mtime, whichever host did it);
  //  - each listed run's summary (RunQuery::summaries), with the version of
  //    the status.jsonl it was read from: a listing stats the run folder
  //    (a new or hidden attempt) and the latest attempt's status.jsonl, and
  //    reads and parses it again only when it changed (an append changes its
  //    size, a compaction its inode);
  //  - the same for whole records (a DAG's runs page, ReadLatest: a run's
  //    details), from the second time a record is read on: a page that is
  //    polled costs a stat per run instead of a read and a parse.
  // Nothing is kept from a file or folder whose mtime is less than
  // ListingCacheFileSystem::kRacyWindow old (two writes in one timestamp
  // tick). So what another process or host (Dagu 1.30.2 too) writes is in
  // the very next listing. Memory: at most `limits` (least recently used
  // out). Call before the store is shared between threads.
  void EnableIndex(RunIndexLimits limits);
  RunIndexCounters index_counters() const;
  // The fields of `full` that a run list shows (RunQuery::summaries).
  static RunRecord SummaryOf(const RunRecord& full);

  const std::string& dag_runs_dir() const { return dag_runs_dir_; }
  // <dagRunsDir>/<DagDataDirName(name)>/dag-runs
  std::string DagRoot(const std::string& dag_name) const;
  // The claim file of a run ID (see the header comment).
  std::string ClaimPath(const std::string& dag_name, const std::string& run_id) const;

  // Creates the run directory of a new run ID, exclusively (see above).
  // `created` dates the directory (UTC); an adopted claim keeps the time of
  // the directory it names (out->created). AlreadyExists when the ID is
  // taken; InvalidArgument for a bad ID; any error reading existing runs is
  // returned and nothing is left behind. A failure after the claim leaves it
  // pending (adopted after kClaimRepairAfter), never removed.
  Status CreateRun(const std::string& dag_name, const std::string& run_id, WallTime created, RunDir* out);

  // True when the ID is claimed (an abandoned claim excepted) or a run
  // directory with that ID exists. Errors reading the existing runs are
  // returned, never taken as "absent".
  StatusOr<bool> RunExists(const std::string& dag_name, const std::string& run_id);

  // The run directory with exactly this ID. NotFound when there is none.
  Status FindRun(const std::string& dag_name, const std::string& run_id, RunDir* out);
  // The newest run of a DAG (by directory name). NotFound when there is none.
  Status LatestRun(const std::string& dag_name, RunDir* out);
  // Run directories of one DAG, newest first, created within [from, to].
  Status ListRunDirs(const std::string& dag_name, std::optional<WallTime> from, std::optional<WallTime> to,
                     std::vector<RunDir>* out);
  // Runs with their latest record, newest first (by created time), filtered
  // by the query. Per-run problems are in RunEntry::error (such entries are
  // listed only when no status filter is given). Fails only when the
  // top-level directory cannot be read.
  Status ListRuns(const RunQuery& query, std::vector<RunEntry>* out);

  // Creates a new attempt directory in `run`, stamped with the clock's now,
  // and writes `dag_json` into it when given (mode 0600).
  Status CreateAttempt(const RunDir& run, const Json* dag_json, AttemptDir* out);
  // Attempts of a run, newest first; hidden ones only when asked.
  Status ListAttempts(const RunDir& run, bool include_hidden, std::vector<AttemptDir>* out);
  // The newest visible attempt that has a non-empty status.jsonl (an empty
  // one is a writer between creating it and its first line). NotFound when
  // none.
  Status LatestAttempt(const RunDir& run, AttemptDir* out);

  // The attempt's record (last valid line). Corruption when no line parses,
  // NotFound when there is no status.jsonl.
  Status ReadStatus(const AttemptDir& attempt, RunRecord* out);
  // The attempt's dag.json. NotFound when missing, Corruption when not JSON.
  Status ReadDagJson(const AttemptDir& attempt, Json* out);
  // The queue, which is also the proc group, an attempt was started in: its
  // dag.json's "queue", else `dag_name` (Dag::ProcGroup() of the DAG as it was
  // recorded). An unreadable dag.json gives `dag_name`.
  std::string QueueOf(const AttemptDir& attempt, const std::string& dag_name);
  // FindRun + LatestAttempt + ReadStatus in one call; any of the outputs may be null.
  Status ReadLatest(const std::string& dag_name, const std::string& run_id, RunDir* run, AttemptDir* attempt,
                    RunRecord* record);

  // Appends the record as one line (O_APPEND, fdatasync, mode 0600), after a
  // newline when the file ends in a torn line (a writer crashed mid-line).
  // The file is read for that only when its size is not what this store's
  // own last append left (another writer, or the first append of this
  // process), so appending the records of a long run is not quadratic.
  Status AppendStatus(const AttemptDir& attempt, const RunRecord& record);
  // Rewrites status.jsonl as its last valid line, atomically (temp file and
  // rename over it; never a moment without the file).
  Status CompactStatus(const AttemptDir& attempt);
  // What AppendStatus then CompactStatus would leave (status.jsonl holding
  // `record` as its one line), written at once: the record goes to a temp
  // file that is fsynced and renamed over status.jsonl, so it is made durable
  // once, not appended, synced and then rewritten and synced again.
  Status WriteFinalStatus(const AttemptDir& attempt, const RunRecord& record);

  // Renames the attempt to ".attempt_..." so that every reader skips it.
  Status HideAttempt(AttemptDir* attempt);
  // Deletes the run directory and its claim.
  Status RemoveRun(const RunDir& run);
  // Claims the dispatch of a queued attempt, exclusively: creates
  // <run>/.dagu_dispatch_<attemptId> with O_EXCL. AlreadyExists when another
  // process dispatched it already. Used by `retry` when it starts a queued run.
  Status ClaimDispatch(const RunDir& run, const AttemptDir& queued_attempt);
  // Gives the claim back (a dispatch that failed before the run started).
  Status ReleaseDispatch(const RunDir& run, const AttemptDir& queued_attempt);

  // Writes the empty CANCEL_REQUESTED flag (Dagu's stop request).
  Status RequestCancel(const AttemptDir& attempt);
  bool CancelRequested(const AttemptDir& attempt);

  // Writes outputs.json (pretty JSON), atomically.
  Status WriteOutputs(const AttemptDir& attempt, const Json& outputs);

 private:
  // Date folders YYYY/MM/DD under a DAG root, newest first, restricted to
  // [from, to] by day.
  Status ListDayDirs(const std::string& root, std::optional<WallTime> from, std::optional<WallTime> to,
                     std::vector<std::string>* out);
  Status ListDagRoots(std::vector<std::string>* roots);
  // Newest first; stops after `limit` dirs (0 = all).
  Status ListRunDirsIn(const std::string& root, const std::string& dag_name, std::optional<WallTime> from,
                       std::optional<WallTime> to, std::vector<RunDir>* out, size_t limit = 0);
  void ReadEntry(RunEntry* entry, bool summary);
  // ReadStatus, from the index's whole records when on and `version` (a
  // stat of the status.jsonl taken before) is the one kept.
  Status ReadRecord(const AttemptDir& attempt, const FileInfo& version, RunRecord* out);
  // LatestAttempt, and the version of its status.jsonl.
  Status LatestAttemptInfo(const RunDir& run, AttemptDir* out, FileInfo* status_info);
  // The run folders of one day folder (dag_name empty), newest first; from
  // the index when on and the folder unchanged. A missing folder is empty.
  Status DayRuns(const std::string& day, std::shared_ptr<const std::vector<RunDir>>* out);

  // Whether status.jsonl at `path` ends in a newline (or is empty or missing).
  Status EndsWithNewline(const std::string& path, bool* yes, uint64_t* size);

  class Index;
  std::unique_ptr<Index> index_;  // null unless EnableIndex
  FileSystem* fs_;
  const Clock* clock_;
  std::string dag_runs_dir_;
  std::mutex appended_mu_;
  std::string appended_path_;  // the file of the last own append, and its size after it
  uint64_t appended_size_ = 0;
};

}  // namespace dagu
