// Slot identity: the deterministic run IDs of a scheduled slot
// (design/decisions.md section 2, spec 085 "Run identity").
//
//   sched-<h>-<slot>      <h>    = first 12 hex of SHA-256(normalised data dir + "\n" + DAG name)
//                         <slot> = the slot's time in UTC, YYYYMMDDTHHMMSS
//
// A live run and a catch-up of the same slot share that ID, so a slot has at
// most one run (the run record's exclusive create refuses a second one).
// Upstream Dagu gives catch-up runs IDs of its own; before a slot's run is
// created, the scheduler also looks for those (SlotRunIds), so a fleet that
// mixes Dagu and this binary does not run a slot twice:
//
//   catchup-<12 hex of SHA-256(name)>-<slot>                    (Dagu >= 2.7)
//   catchup-<name, '.' -> '_', cut to 31>-<8 hex>-<slot>        (Dagu 2.0 - 2.6)
//
// Pure functions, thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"

namespace dagu {

// The absolute, lexically normalised form of `dir` ("." and ".." resolved,
// duplicate and trailing slashes removed; symlinks are not followed, so every
// host that mounts the storage at the same path derives the same IDs). A
// relative `dir` is taken against the current directory.
std::string NormaliseDataDir(std::string_view dir);

// sched-<h>-<slot>. `data_dir` is normalised here, so callers may pass it as
// configured. Seconds below the minute are kept in <slot> as given; slots of
// five-field cron schedules are always whole minutes.
std::string ScheduledRunId(std::string_view data_dir, std::string_view dag_name, WallTime slot);

// Upstream's catch-up ID: catchup-<12 hex of SHA-256(name)>-<slot>.
std::string CatchupRunId(std::string_view dag_name, WallTime slot);

// Upstream's legacy catch-up ID: catchup-<name with '.' -> '_', at most 31
// characters>-<8 hex of SHA-256(name)>-<slot>.
std::string LegacyCatchupRunId(std::string_view dag_name, WallTime slot);

// True when `run_id` is the scheduled ID of one of `dag_name`'s slots in
// `data_dir`; then *slot is that slot.
bool ParseScheduledRunId(std::string_view data_dir, std::string_view dag_name, std::string_view run_id,
                         WallTime* slot);

// Every ID under which a run of this slot may already exist: the scheduled ID
// first, then the two catch-up IDs.
std::vector<std::string> SlotRunIds(std::string_view data_dir, std::string_view dag_name, WallTime slot);

}  // namespace dagu
