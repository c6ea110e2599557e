// SchedulerLockStore: the on-disk form of the scheduler lock, and the single
// storage steps the elector builds its protocol from (docs/decisions.md
// §3; docs/ha-protocol.md).
//
//   <data>/scheduler/locks/.dagu_lock/          the lock: a directory, taken with mkdir (0700)
//   <data>/scheduler/locks/.dagu_lock/owner     the owner record (one JSON line, see LockOwner)
//   <data>/scheduler/locks/.dagu_lock.releasing.<pid>.<16 hex>/
//                                               a lock moved aside to be removed (release or takeover)
//
// Dagu 1.30.2 keeps the directory empty, renews it by setting its mtime and
// takes over a stale one with RemoveAll + mkdir; a lock written here keeps all
// three working: the owner record is replaced atomically (temp file in the
// lock directory + rename) and every renewal also sets the directory's mtime.
//
// The holder writes only through the handle of the lock directory it
// created (OpenLock, WriteOwnerAt, ReadOwnerAt: openat/renameat/futimens), so
// a write that comes late -- after a pause, when a standby has moved the lock
// aside and made its own -- lands in the old directory, never in the
// successor's lock.
//
// Nothing here decides anything: no clocks are compared and no step retries.
// Every method is one or two FileSystem calls and returns their Status.
// Thread-compatible (no shared mutable state besides the FileSystem).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/file_system.h"
#include "core/status.h"
#include "store/data_layout.h"

namespace dagu {

inline constexpr char kSchedulerLockOwnerName[] = "owner";  // inside the lock directory

// The owner record. Times are the holder's wall clock and are for people
// only: no instance ever compares them with its own clock.
struct LockOwner {
  std::string instance_id;   // <hostname>-<pid>-<unix seconds>
  std::string host;
  int64_t pid = 0;
  std::string token;         // random per acquisition (fence token)
  uint64_t counter = 0;      // 0 at acquisition, +1 on every renewal
  WallTime acquired_at;
  WallTime renewed_at;
  int64_t stale_threshold_ms = 0;  // the holder's T: a standby waits at least this long (0: unknown)
  // The holder holds the OS lock of store/os_lock_file.h (scheduler.fast_takeover)
  // and keeps it until it dies or releases the lock. Written ("os_lock":true)
  // only when true, so a record without the setting is what it always was.
  bool os_lock = false;

  // Same holder and same acquisition (instance ID and token).
  bool SameAcquisition(const LockOwner& other) const {
    return instance_id == other.instance_id && token == other.token;
  }
};

// One JSON line (with a trailing newline).
std::string EncodeLockOwner(const LockOwner& owner);
// Corruption naming the problem when `bytes` is not an owner record.
Status DecodeLockOwner(std::string_view bytes, LockOwner* out);

// What one look at the lock saw: the directory's identity and mtime, and the
// owner record's bytes. Two looks that are SameState saw no renewal between
// them (a renewal changes the owner record's counter and the mtime).
struct LockSnapshot {
  bool exists = false;
  uint64_t device = 0;
  uint64_t inode = 0;
  WallTime mtime;
  bool owner_present = false;        // false: an empty directory (Dagu 1.30.2) or a half-made lock
  std::string owner_bytes;
  std::optional<LockOwner> owner;    // set when owner_present and it decodes

  bool SameDirectory(const LockSnapshot& other) const {
    return exists && other.exists && device == other.device && inode == other.inode;
  }
  bool SameState(const LockSnapshot& other) const;
  // Who holds it, for logs, /health and the registry: the instance ID, or a
  // description when the record is missing or unreadable; "" when no lock.
  std::string HolderLabel() const;
};

class SchedulerLockStore {
 public:
  // `locks_dir` is <data_dir>/scheduler/locks. `fs` must outlive the store.
  SchedulerLockStore(FileSystem* fs, std::string locks_dir);

  const std::string& locks_dir() const { return locks_dir_; }
  const std::string& lock_path() const { return lock_path_; }

  // mkdir -p of the locks directory, then a write probe (create and remove a
  // small file) so that a read-only or wrong data directory fails at once.
  Status EnsureLocksDir();
  // stat + read of the owner record. A missing lock is OK with exists=false;
  // a lock path that is not a directory is Corruption.
  Status Look(LockSnapshot* out);
  // mkdir of the lock (0700). AlreadyExists when someone holds it.
  Status MakeLockDir();
  // Opens the lock directory (O_DIRECTORY|O_NOFOLLOW) for writes relative to
  // it, and fills *identity with its device and inode (exists = true).
  // NotFound when there is no lock.
  Status OpenLock(std::shared_ptr<DirectoryHandle>* out, LockSnapshot* identity);
  // Replaces the owner record atomically inside `lock` (owner.tmp.<pid>.<hex>,
  // then renameat; not fsynced), then sets the directory's mtime to `touch`
  // (so a Dagu 1.30.2 standby sees a live lock).
  Status WriteOwnerAt(DirectoryHandle* lock, const LockOwner& owner, WallTime touch);
  // The owner record's bytes inside `lock`. NotFound when it has none.
  Status ReadOwnerAt(DirectoryHandle* lock, std::string* bytes);
  // WriteOwnerAt on the directory the lock path names now (tests and tools;
  // the holder never writes by path).
  Status WriteOwner(const LockOwner& owner, WallTime touch);
  // Renames the lock to a fresh aside name (returned). NotFound when the
  // lock is gone.
  Status MoveAside(std::string* aside_path);
  // Renames an aside directory back to the lock name.
  Status MoveBack(const std::string& aside_path);
  // Removes an aside directory and everything in it.
  Status RemoveAside(const std::string& aside_path);
  // stat of any path (used to check the identity of an aside directory).
  Status StatPath(const std::string& path, FileInfo* out);

 private:
  FileSystem* fs_;
  std::string locks_dir_;
  std::string lock_path_;
  std::string owner_path_;
};

// 16 random lowercase hex digits (not cryptographic; for unique names and tokens).
std::string RandomHex16();

}  // namespace dagu
