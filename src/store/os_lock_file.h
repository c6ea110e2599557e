// OsLockFile: the operating-system lock of scheduler.fast_takeover
// (docs/ha-protocol.md, "Fast takeover").
//
//   <data>/scheduler/locks/.dagu_lock.ofd   a plain file, created once, never removed
//
// The active instance holds an open-file-description lock (fcntl
// F_OFD_SETLK, a write lock on the whole file) on it for its whole tenure.
// The kernel drops that lock when the last descriptor of the open file
// description closes -- when the process dies, however it dies -- and never
// while the process lives, even frozen (SIGSTOP). A standby only ever
// *probes* it (F_OFD_GETLK), so a standby never holds it, not even for a
// moment, and cannot keep a holder from taking it.
//
// The descriptor is O_CLOEXEC: a spawned run never inherits it (an
// inherited descriptor would keep the lock alive after the scheduler died).
//
// Direct POSIX calls, not FileSystem: a lock is not a file operation the
// fault-injecting file systems model. OFD locks conflict between two open
// file descriptions even in one process, so tests run two instances in one
// process against the real kernel.
//
// Thread-compatible: the elector calls it from one thread at a time (the
// role machine's while standing by and acquiring, the renewal thread's
// while active, the role machine's again to release after renewals stop).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace dagu {

struct OsLockProbe {
  bool held = false;       // another open file description holds the lock
  bool same_file = false;  // the descriptor probed is the file the path names now
};

class OsLockFile {
 public:
  explicit OsLockFile(std::string path);
  ~OsLockFile();  // closes: the kernel releases a lock still held
  OsLockFile(const OsLockFile&) = delete;
  OsLockFile& operator=(const OsLockFile&) = delete;

  const std::string& path() const { return path_; }

  // Opens (creating, 0600) the file. A no-op when it is open.
  Status Open();
  // Takes the lock without waiting. *locked = false when another open file
  // description holds it (a frozen predecessor, say). Reopens first when the
  // path names another file than the one open (it was replaced). A no-op
  // (true) while held.
  Status TryLock(bool* locked);
  // Whether someone else holds the lock, on the file the path names: when
  // the path names another file than the one open, it is reopened and the
  // probe reports same_file = false (nothing is known yet about the new one).
  Status Probe(OsLockProbe* out);
  // Drops the lock (keeps the file open). A no-op when not held.
  void Unlock();
  bool held() const { return held_; }

 private:
  Status Reopen();
  // True when the path names the file open now.
  bool PathIsOpenFile() const;

  std::string path_;
  int fd_ = -1;
  bool held_ = false;
};

// The OS lock file of the lock directory in `locks_dir`
// (<locks_dir>/.dagu_lock.ofd, store/data_layout.h).
std::unique_ptr<OsLockFile> OsLockFileIn(const std::string& locks_dir);

// Whether OFD locks on the file system of `dir` are reliable enough for fast
// takeover. OK, or NotSupported with a sentence naming the file system and
// the reason (the caller ends startup with status 78). The rule
// (docs/ha-protocol.md, "Where fast takeover is allowed"): local disk and
// memory file systems, and NFS version 4; everything else is refused.
Status CheckOsLockSupport(const std::string& dir);

// The pure part of the check, for tests: `fs_magic` is statfs's f_type,
// `fstype` and `super_options` come from the dir's mount in
// /proc/self/mountinfo ("" when not found).
Status ClassifyOsLockSupport(int64_t fs_magic, std::string_view fstype, std::string_view super_options,
                             const std::string& dir);

struct MountEntry {
  std::string mount_point;
  std::string fstype;
  std::string super_options;
};
// The entry of /proc/self/mountinfo text `mountinfo` whose mount point is the
// longest prefix of the absolute, resolved path `path` (the last one wins on
// a tie: a later mount hides an earlier one). False when none matches.
bool FindMount(std::string_view mountinfo, const std::string& path, MountEntry* out);

}  // namespace dagu
