// LiveEventSource: turns inotify events in the data directories into the
// EventHub's events (event_hub.h), on a thread of its own, so that clients
// are told of changes instead of each polling the API.
//
// What is watched (never the run history as a whole: 1,000,000 run folders
// would exhaust the watch budget), and what each change publishes:
//
//   <dagsDir>                        a *.yaml/*.yml created, written, moved
//                                    or removed            -> dag {dag}
//   <procDir>/<group>/<dag>/         a proc file created or removed: a run
//                                    started or ended      -> run {dag, runId}
//   <queueDir>/<queue>/              an item created or removed
//                                                          -> queue {queue, runId}
//   the run folder and latest attempt of every running run (found from its
//   proc file): status.jsonl written, a new attempt        -> run {dag, runId}
//   <run folder>/children/child_<subId>/ and its latest attempt, for the
//   sub-DAG runs of a running run (every depth lives there; at most
//   kMaxSubRunWatches of them per run): a sub-run started, got a new
//   attempt, or its status.jsonl was written -> run {dag, runId} of the ROOT
//   run (a page of a sub-run reloads on its root's events)
//
// Dagu 1.30.2's `dagu start` takes its proc file before it creates the run's
// folder (our agent creates the folder first): a run whose folder is not
// there yet when its proc file appears is looked for again, first after
// kPendingRetry, then twice as long after each miss (at most 3.2 s apart: a
// look lists the DAG's run history), until it is found (then watched, and its
// run event published: its first status lines may be written already), its
// proc file goes away, or kPendingGiveUp passed (a start that failed).
//
// The directories in between (<procDir>, <procDir>/<group>, <queueDir>) are
// watched for new subdirectories, which are then watched too (and looked
// into, for what came before the watch). Events of one wake-up are
// coalesced: each distinct event is published once.
//
// A root that does not exist is created (mkdir -p) by Open(); one that still
// cannot be watched is tried again every 2 s.
//
// Limits: inotify sees only this host's changes on a local file system
// (OnLocalFileSystem); on NFS or FUSE another host's runs raise nothing
// here, which `local()` reports so clients keep polling. A run that ends
// without a proc file (a start that failed before it) publishes nothing.
//
// Thread model: Open() and Poll() belong to one thread (the one Start()
// runs, or a test's); Stop() may be called from any thread. There is no
// mutex: the watch tables are that thread's alone.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "core/status.h"
#include "store/run_store.h"
#include "web/event_hub.h"

namespace dagu::web {

struct LivePaths {
  std::string dags_dir;
  std::string proc_dir;
  std::string queue_dir;
};

class LiveEventSource {
 public:
  // `runs` finds the folder of a run that started (may be null: no
  // step-level events then). Both must outlive the source.
  LiveEventSource(LivePaths paths, EventHub* hub, RunStore* runs);
  ~LiveEventSource();  // Stop()
  LiveEventSource(const LiveEventSource&) = delete;
  LiveEventSource& operator=(const LiveEventSource&) = delete;

  // Creates the inotify descriptor and the watches of what exists now.
  // IOError when inotify is unavailable.
  Status Open();
  // Waits up to `timeout` for changes and publishes what they mean; the
  // number of events published.
  size_t Poll(std::chrono::milliseconds timeout);
  // Open() (a failure is logged: clients then keep polling) and a thread
  // that Polls and sends a heartbeat every `heartbeat`.
  void Start(std::chrono::milliseconds heartbeat = std::chrono::seconds(20));
  // Joins the thread; idempotent.
  void Stop();

  // Whether the source runs and the data directories are on a local file
  // system (see above): clients may then rely on the events.
  bool local() const { return local_.load(); }
  // When a run with a proc file but no folder yet is first looked for again.
  static constexpr std::chrono::milliseconds kPendingRetry{200};
  static constexpr std::chrono::seconds kPendingGiveUp{30};
  // Sub-runs of one running run whose folders are watched (a `parallel:`
  // step of thousands of items would otherwise use up the watch budget).
  static constexpr size_t kMaxSubRunWatches = 256;
  // Directories watched now (the Poll thread only).
  size_t watches() const { return by_wd_.size(); }

 private:
  enum class Kind {
    kDags, kProcRoot, kProcGroup, kProcDag, kQueueRoot, kQueue, kRun, kAttempt,
    kChildren, kSubRun, kSubAttempt  // of a running run (dag, run_id: the root run's)
  };
  struct Watch {
    Kind kind;
    std::string path;
    std::string dag;     // kProcDag, kRun, kAttempt, kChildren, kSubRun, kSubAttempt
    std::string run_id;  // kRun, kAttempt, kChildren, kSubRun, kSubAttempt
    std::string queue;   // kQueue
    std::string sub;     // kSubRun, kSubAttempt: the sub-run's folder
  };
  int AddWatch(const Watch& w);
  void RemoveWatch(int wd);
  // Watches `dir` and what is below it that matters, as for a new one.
  void WatchProcGroup(const std::string& dir, std::set<LiveEvent>* out);
  // Watches the roots not watched yet (what is in them goes to `out`) and
  // sets local_.
  void EnsureRoots(std::set<LiveEvent>* out);
  void WatchProcDag(const std::string& dir, const std::string& dag, std::set<LiveEvent>* out);
  void WatchQueue(const std::string& dir, const std::string& queue);
  // Watches the run's folder and newest attempt; false when the folder is
  // not there (yet).
  bool WatchRun(const std::string& dag, const std::string& run_id);
  // Looks again for the runs of pending_runs_; a found one goes to `out`.
  void RetryPendingRuns(std::set<LiveEvent>* out);
  void UnwatchRun(const std::string& dag, const std::string& run_id);
  // Watches <run>/children and the sub-runs in it (what is there now is
  // not news: the run's own event covers it).
  void WatchChildren(const std::string& dir, const std::string& dag, const std::string& run_id);
  // Watches a sub-run's folder and its newest attempt; false when the run
  // has kMaxSubRunWatches sub-runs watched already.
  bool WatchSubRun(const std::string& dir, const std::string& dag, const std::string& run_id);
  // Replaces the watch of the sub-run's attempt with one of `attempt`.
  void WatchSubAttempt(const std::string& sub, const std::string& attempt, const std::string& dag,
                       const std::string& run_id);
  void OnEvent(int wd, uint32_t mask, const std::string& name, std::set<LiveEvent>* out);
  // Reads every pending event; false when there were none.
  bool Drain(std::set<LiveEvent>* out);

  const LivePaths paths_;
  EventHub* const hub_;
  RunStore* const runs_;
  int fd_ = -1;
  int wake_fd_ = -1;
  std::atomic<bool> local_{false};
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::map<int, Watch> by_wd_;
  std::map<std::string, int> by_path_;
  // Runs with a proc file and no folder found yet: {dag, run ID}.
  struct Pending {
    std::chrono::steady_clock::time_point since, next;  // first looked for; look again at
    std::chrono::milliseconds wait;                     // until next (doubling)
  };
  std::map<std::pair<std::string, std::string>, Pending> pending_runs_;
};

// The run ID in a proc file name (proc_<UTC>Z_<runId>.proc) or a queue item
// name (item_<prio>_<UTC>_<ns>Z_<runId>.json); "" when it is neither.
std::string RunIdOfProcFile(const std::string& name);
std::string RunIdOfQueueItem(const std::string& name);

}  // namespace dagu::web
