#include "store/scheduler_lock.h"

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <random>

#include "core/time_format.h"

namespace dagu {
namespace {

using OrderedJson = nlohmann::ordered_json;

WallTime ParseTimeOr(const nlohmann::json& j, const char* key) {
  WallTime t{};
  bool set = false;
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return t;
  if (!ParseRFC3339(it->get<std::string>(), &t, &set).ok() || !set) return WallTime{};
  return t;
}

}  // namespace

std::string RandomHex16() {
  static thread_local std::mt19937_64 rng{std::random_device{}() ^
                                          (static_cast<uint64_t>(::getpid()) << 32)};
  static const char kDigits[] = "0123456789abcdef";
  uint64_t v = rng();
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[static_cast<size_t>(i)] = kDigits[v & 0xf];
    v >>= 4;
  }
  return out;
}

std::string EncodeLockOwner(const LockOwner& owner) {
  OrderedJson j;
  j["instance_id"] = owner.instance_id;
  j["host"] = owner.host;
  j["pid"] = owner.pid;
  j["token"] = owner.token;
  j["counter"] = owner.counter;
  j["acquired_at"] = FormatRFC3339NanoUTC(owner.acquired_at);
  j["renewed_at"] = FormatRFC3339NanoUTC(owner.renewed_at);
  j["stale_threshold_ms"] = owner.stale_threshold_ms;
  if (owner.os_lock) j["os_lock"] = true;
  return j.dump() + "\n";
}

Status DecodeLockOwner(std::string_view bytes, LockOwner* out) {
  nlohmann::json j = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::Corruption("lock owner record is not a JSON object");
  auto id = j.find("instance_id");
  auto token = j.find("token");
  auto counter = j.find("counter");
  if (id == j.end() || !id->is_string() || id->get<std::string>().empty()) {
    return Status::Corruption("lock owner record has no instance_id");
  }
  if (token == j.end() || !token->is_string()) return Status::Corruption("lock owner record has no token");
  if (counter == j.end() || !counter->is_number_unsigned()) {
    return Status::Corruption("lock owner record has no counter");
  }
  LockOwner o;
  o.instance_id = id->get<std::string>();
  o.token = token->get<std::string>();
  o.counter = counter->get<uint64_t>();
  if (auto h = j.find("host"); h != j.end() && h->is_string()) o.host = h->get<std::string>();
  if (auto p = j.find("pid"); p != j.end() && p->is_number_integer()) o.pid = p->get<int64_t>();
  if (auto t = j.find("stale_threshold_ms"); t != j.end() && t->is_number_integer()) {
    o.stale_threshold_ms = t->get<int64_t>();
  }
  if (auto l = j.find("os_lock"); l != j.end() && l->is_boolean()) o.os_lock = l->get<bool>();
  o.acquired_at = ParseTimeOr(j, "acquired_at");
  o.renewed_at = ParseTimeOr(j, "renewed_at");
  *out = std::move(o);
  return Status::OK();
}

bool LockSnapshot::SameState(const LockSnapshot& other) const {
  if (exists != other.exists) return false;
  if (!exists) return true;
  return SameDirectory(other) && mtime == other.mtime && owner_present == other.owner_present &&
         owner_bytes == other.owner_bytes;
}

std::string LockSnapshot::HolderLabel() const {
  if (!exists) return "";
  if (owner) return owner->instance_id;
  if (!owner_present) return "unknown (no owner record: a Dagu 1.30.2 lock or a half-made one)";
  return "unknown (unreadable owner record)";
}

SchedulerLockStore::SchedulerLockStore(FileSystem* fs, std::string locks_dir)
    : fs_(fs),
      locks_dir_(std::move(locks_dir)),
      lock_path_(JoinPath(locks_dir_, kSchedulerLockDirName)),
      owner_path_(JoinPath(lock_path_, kSchedulerLockOwnerName)) {}

Status SchedulerLockStore::EnsureLocksDir() {
  DAGU_RETURN_IF_ERROR(fs_->MakeDirs(locks_dir_, 0750));
  FileInfo info;
  DAGU_RETURN_IF_ERROR(fs_->Stat(locks_dir_, &info));
  if (!info.is_dir) return Status::InvalidArgument(locks_dir_ + " is not a directory");
  std::string probe = JoinPath(locks_dir_, ".write-probe." + std::to_string(::getpid()) + "." + RandomHex16());
  DAGU_RETURN_IF_ERROR(fs_->CreateFileExclusive(probe, "", 0600));
  return fs_->RemoveFile(probe);
}

Status SchedulerLockStore::Look(LockSnapshot* out) {
  LockSnapshot s;
  FileInfo info;
  Status st = fs_->Stat(lock_path_, &info);
  if (st.IsNotFound()) {
    *out = s;
    return Status::OK();
  }
  DAGU_RETURN_IF_ERROR(st);
  s.exists = true;
  s.device = info.device;
  s.inode = info.inode;
  s.mtime = info.mtime;
  // A lock that is not a directory, or an owner record that is not a file (a
  // FIFO, a directory): a lock with an unreadable owner record, judged stale
  // after T and taken over like any other, never a storage error.
  if (!info.is_dir) {
    s.owner_present = true;
    s.owner_bytes = "<" + lock_path_ + " is not a directory>";
    *out = std::move(s);
    return Status::OK();
  }
  st = fs_->ReadFile(owner_path_, &s.owner_bytes);
  if (st.IsNotFound()) {
    s.owner_bytes.clear();
  } else if (st.IsCorruption()) {
    s.owner_present = true;
    s.owner_bytes = "<" + st.ToString() + ">";
  } else {
    DAGU_RETURN_IF_ERROR(st);
    s.owner_present = true;
    LockOwner owner;
    if (DecodeLockOwner(s.owner_bytes, &owner).ok()) s.owner = std::move(owner);
  }
  *out = std::move(s);
  return Status::OK();
}

Status SchedulerLockStore::MakeLockDir() { return fs_->MakeDir(lock_path_, 0700); }

Status SchedulerLockStore::OpenLock(std::shared_ptr<DirectoryHandle>* out, LockSnapshot* identity) {
  std::unique_ptr<DirectoryHandle> dir;
  DAGU_RETURN_IF_ERROR(fs_->OpenDirectory(lock_path_, &dir));
  FileInfo info;
  DAGU_RETURN_IF_ERROR(dir->Stat(&info));
  LockSnapshot id;
  id.exists = true;
  id.device = info.device;
  id.inode = info.inode;
  id.mtime = info.mtime;
  *identity = std::move(id);
  *out = std::move(dir);
  return Status::OK();
}

Status SchedulerLockStore::WriteOwnerAt(DirectoryHandle* lock, const LockOwner& owner, WallTime touch) {
  // Temp file in the lock directory + rename. No fsync: the record only has
  // to be atomic, not durable (after a power loss the lock goes stale
  // anyway), and an fsync would put disk latency into every renewal.
  std::string tmp = std::string(kSchedulerLockOwnerName) + ".tmp." + std::to_string(::getpid()) + "." + RandomHex16();
  Status s = lock->WriteFile(tmp, EncodeLockOwner(owner), 0600);
  if (s.ok()) s = lock->Rename(tmp, kSchedulerLockOwnerName);
  if (!s.ok()) {
    (void)lock->RemoveFile(tmp);
    return s;
  }
  return lock->SetMtime(touch);
}

Status SchedulerLockStore::ReadOwnerAt(DirectoryHandle* lock, std::string* bytes) {
  return lock->ReadFile(kSchedulerLockOwnerName, bytes);
}

Status SchedulerLockStore::WriteOwner(const LockOwner& owner, WallTime touch) {
  std::shared_ptr<DirectoryHandle> dir;
  LockSnapshot identity;
  DAGU_RETURN_IF_ERROR(OpenLock(&dir, &identity));
  return WriteOwnerAt(dir.get(), owner, touch);
}

Status SchedulerLockStore::MoveAside(std::string* aside_path) {
  std::string aside = JoinPath(locks_dir_, std::string(kSchedulerLockAsidePrefix) +
                                               std::to_string(::getpid()) + "." + RandomHex16());
  DAGU_RETURN_IF_ERROR(fs_->Rename(lock_path_, aside));
  *aside_path = std::move(aside);
  return Status::OK();
}

Status SchedulerLockStore::MoveBack(const std::string& aside_path) { return fs_->Rename(aside_path, lock_path_); }

Status SchedulerLockStore::RemoveAside(const std::string& aside_path) { return fs_->RemoveAll(aside_path); }

Status SchedulerLockStore::StatPath(const std::string& path, FileInfo* out) { return fs_->Stat(path, out); }

}  // namespace dagu
