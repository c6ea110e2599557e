// RoleJournal: the append-only history of scheduler role changes in the data
// directory, <data>/scheduler/role-journal.jsonl, so the UI and operators can
// see past failovers and how long each took (docs/decisions.md §6).
//
// One JSON object per line, appended with O_APPEND + fdatasync:
//
//   {"time":"2026-12-02T16:29:35.783Z","instance":"host-a-4121-1796228818","host":"host-a",
//    "pid":4121,"from":"standby","to":"active","reason":"took over a stale lock",
//    "activation":"stale","previous_holder":"host-b-77-1796228700","takeover_seconds":30.21}
//
// `takeover_seconds` (only on becoming active after a takeover or a release)
// is the time from the last renewal of the previous holder that this
// instance saw to becoming active, on this instance's monotonic clock.
// When the file passes 1 MiB it is renamed to role-journal.jsonl.1 (one
// generation kept) before the next append.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/file_system.h"
#include "core/status.h"
#include "store/data_layout.h"

namespace dagu {


struct RoleChange {
  WallTime time;
  std::string instance;
  std::string host;
  int64_t pid = 0;
  std::string from;   // "starting" | "standby" | "active"
  std::string to;     // "standby" | "active" | "lost" | "stopped"
  std::string reason;
  std::string activation;       // "fresh" | "released" | "stale" (when to == "active")
  std::string previous_holder;  // the holder this instance saw before (when to == "active")
  std::optional<double> takeover_seconds;
};

std::string EncodeRoleChange(const RoleChange& change);  // one line, with '\n'
Status DecodeRoleChange(std::string_view line, RoleChange* out);

class RoleJournal {
 public:
  // `path` is usually <data>/scheduler/role-journal.jsonl. `fs` must outlive this.
  RoleJournal(FileSystem* fs, std::string path, uint64_t rotate_bytes = 1 << 20);

  const std::string& path() const { return path_; }
  Status Append(const RoleChange& change);
  // The last `max` changes, oldest first; corrupt lines are skipped. A
  // missing journal gives an empty list.
  Status ReadRecent(size_t max, std::vector<RoleChange>* out);

 private:
  FileSystem* fs_;
  std::string path_;
  uint64_t rotate_bytes_;
};

}  // namespace dagu
