// QueueStore: Dagu 1.30.2's file queue (docs/storage.md, "Queue").
//
//   <queueDir>/<queue>/item_<high|low>_<UTC YYYYMMDD_HHMMSS>_<9-digit ns>Z_<runId>.json
//       {"fileName":"item_low_...json","dagRun":{"name":"<dag>","id":"<runId>"},
//        "queuedAt":"<RFC3339Nano UTC>"}
//
// Items are written to a temp file in the queue dir and renamed into place,
// so readers never see a partial item. Listing order is Dagu's: all high
// items before low ones, oldest first within a priority (by the time in the
// name, then the name).
//
// A queue item alone is not a queued run: the run record (status 5) must be
// written first -- see run_operations.h EnqueueRun, which does both in order.
//
// EXCLUSIVE DISPATCH CLAIM. Before a consumer starts a queued run it calls
// ClaimItem(item, owner). The claim is an O_CREAT|O_EXCL file
//
//     <queueDir>/<queue>/.claim_<item file name>
//
// holding the owner text; exactly one caller of ClaimItem for an item gets OK,
// every other gets AlreadyExists, across processes and hosts. Dagu ignores it
// (it only globs item_high_* / item_low_*). The item file stays in place while
// the run executes (Dagu's own processor also deletes an item only once the
// run is no longer queued or running); the consumer then calls RemoveItem,
// which deletes the item and its claim. A consumer that gives up without
// starting the run calls ReleaseClaim. Claims of a dead consumer stay until
// someone calls BreakClaim (the consumer decides when a claim is stale, e.g.
// from ReadClaim's mtime observed on its own monotonic clock); BreakClaim
// removes only the claim whose content matches what the caller observed.
// `dagu retry` additionally takes a run-level claim (RunStore::ClaimDispatch)
// so a queued run is started at most once even if item claims are broken.
//
// Thread-safe; all state is on disk.
#pragma once

#include <string>
#include <vector>

#include "core/clock.h"
#include "core/file_system.h"
#include "core/status.h"

namespace dagu {

enum class QueuePriority { kHigh = 0, kLow = 1 };

struct QueueItem {
  std::string queue;
  QueuePriority priority = QueuePriority::kLow;
  WallTime queued_at;     // from the file name (nanoseconds)
  std::string dag_name;   // from the content ("dagRun.name")
  std::string run_id;     // from the file name
  std::string file_name;  // item_..._<runId>.json
  std::string path;       // absolute
  // OK when the content was read and names its DAG; else why not: the
  // storage error (an I/O error may pass), or Corruption (garbage, or not a
  // regular file). An item that cannot be read is never deleted for it.
  Status content;
};

struct QueueClaim {
  std::string owner;      // what ClaimItem wrote
  WallTime mtime;         // when it was written (file mtime)
};

class QueueStore {
 public:
  // `queue_dir` is Config::paths.queue_dir. `fs` and `clock` must outlive it.
  QueueStore(FileSystem* fs, const Clock* clock, std::string queue_dir);

  const std::string& queue_dir() const { return queue_dir_; }

  // The item file name for a run queued at `t`.
  static std::string ItemFileName(QueuePriority p, WallTime t, const std::string& run_id);
  // Parses an item file name; false when it does not match Dagu's regex
  // ^item_(high|low)_(\d{8}_\d{6})_(\d{9})Z_(.*)\.json$.
  static bool ParseItemFileName(const std::string& name, QueuePriority* p, WallTime* t, std::string* run_id);

  // Writes a new item (temp file + rename), stamped with the clock's now,
  // and deletes current Dagu's <queue>/.queue-index.json so that it is rebuilt.
  Status Enqueue(const std::string& queue, QueuePriority priority, const std::string& dag_name,
                 const std::string& run_id, QueueItem* out);

  // The items of one queue in dispatch order. An item whose content cannot
  // be read still appears (dag_name empty); a missing queue dir is empty.
  Status List(const std::string& queue, std::vector<QueueItem>* out);
  // Names of queue directories that hold at least one item, sorted.
  Status ListQueues(std::vector<std::string>* out);
  // The items of a run in a queue (normally zero or one).
  Status FindRunItems(const std::string& queue, const std::string& run_id, std::vector<QueueItem>* out);

  // Deletes the item and its claim; NotFound-safe (OK when already gone).
  // Removes the queue dir when it became empty (best effort).
  Status RemoveItem(const QueueItem& item);

  // The exclusive dispatch claim (see the header comment).
  Status ClaimItem(const QueueItem& item, const std::string& owner);
  // NotFound when unclaimed.
  Status ReadClaim(const QueueItem& item, QueueClaim* out);
  Status ReleaseClaim(const QueueItem& item);
  // Removes the claim only if it still holds `observed.owner`; Aborted if it
  // changed; OK if already gone.
  Status BreakClaim(const QueueItem& item, const QueueClaim& observed);
  std::string ClaimPath(const QueueItem& item) const;

 private:
  FileSystem* fs_;
  const Clock* clock_;
  std::string queue_dir_;
};

}  // namespace dagu
