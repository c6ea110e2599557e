// TickLedger: the on-disk record of the active scheduler's ticks, so that a
// successor knows what was missed (spec 085 "Missed slots"). One small JSON
// file, <data>/scheduler/tick_ledger.json, rewritten atomically (temp file,
// fsync, rename) at every tick:
//
//   {"version":1, "instance":"<id>", "lastTick":"2026-03-12T14:00:00Z",
//    "planned":[{"dag":"etl", "kind":"start", "slot":"2026-03-12T14:00:00Z",
//                "runId":"sched-...", "started":false}],
//    "backlog":[{"dag":"etl", "slot":"2026-03-12T13:58:00Z"}]}
//
// The ticker writes each tick twice when it has slots: once with the slots
// it is about to dispatch ("started": false) before dispatching any of them,
// and once afterwards with "started" set for those that were launched. So a
// scheduler that dies mid-tick leaves behind the slots it planned but did not
// start; a scheduler that takes over a stale lock replays them.
//
// "backlog" (written only when not empty) is the replayer's catch-up backlog
// at the time of the write: missed slots a scheduler decided to replay and
// had not yet enqueued. A successor replays them too, so a failover during
// catch-up loses none of them although "lastTick" has moved past them
// (docs/scheduling.md section 4, "Backlog durability"). The list may hold
// slots enqueued since the write (it is rewritten at the next tick); their
// run IDs keep them from running twice.
//
// Only the active instance writes it (fenced by the caller). Readers must not
// trust it for safety: the run records' exclusive create is what prevents a
// slot running twice; the ledger only says which slots to look at.
//
// Thread-compatible (callers serialise writes).
#pragma once

#include <string>
#include <vector>

#include "core/clock.h"
#include "core/file_system.h"
#include "core/status.h"

namespace dagu {

struct PlannedSlot {
  std::string dag;      // DAG name
  std::string kind;     // "start", "stop" or "restart"
  WallTime slot;        // the cron fire time
  std::string run_id;   // the slot's run ID ("" for stop)
  bool started = false; // set once the launcher accepted it

  bool operator==(const PlannedSlot& o) const {
    return dag == o.dag && kind == o.kind && slot == o.slot && run_id == o.run_id && started == o.started;
  }
};

// A missed slot still owed a catch-up run.
struct BacklogSlot {
  std::string dag;  // DAG name
  WallTime slot;    // the cron fire time

  bool operator==(const BacklogSlot& o) const { return dag == o.dag && slot == o.slot; }
};

struct TickRecord {
  std::string instance;              // who wrote it (instance ID)
  WallTime last_tick;                // the minute of the last tick handled
  std::vector<PlannedSlot> planned;  // slots of that tick that passed the guards
  std::vector<BacklogSlot> backlog;  // catch-up slots not yet enqueued, oldest first per DAG
};

class TickLedger {
 public:

  // `scheduler_dir` is Paths::scheduler_dir (<data>/scheduler); it is created
  // on the first write if missing. `fs` must outlive the ledger.
  TickLedger(FileSystem* fs, std::string scheduler_dir);

  // Reads the record. A missing file is OK with *found = false. A file that
  // cannot be read is the FileSystem's error; one that does not parse, or has
  // an unknown version, is Corruption naming the path and the problem.
  Status Read(TickRecord* out, bool* found) const;

  // Replaces the record atomically.
  Status Write(const TickRecord& record) const;

  const std::string& path() const { return path_; }

  // The JSON text of a record, and back (exposed for tests and tools).
  static std::string Encode(const TickRecord& record);
  static Status Decode(const std::string& text, const std::string& origin, TickRecord* out);

 private:
  FileSystem* fs_;
  std::string dir_;
  std::string path_;
};

}  // namespace dagu
