#include "store/proc_store.h"

#include <algorithm>

#include "core/time_format.h"

namespace dagu {
namespace {

// proc_YYYYMMDD_HHMMSSZ_<runId>.proc
bool ParseProcFileName(const std::string& name, WallTime* started, std::string* run_id) {
  const std::string prefix = "proc_";
  const std::string suffix = ".proc";
  if (name.rfind(prefix, 0) != 0 || name.size() < prefix.size() + 17 + suffix.size()) return false;
  if (name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  std::string rest = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (rest.size() < 17 || rest[15] != 'Z' || rest[16] != '_') return false;
  if (!ParseCompactUTC(rest.substr(0, 15), started).ok()) return false;
  *run_id = rest.substr(17);
  return true;
}

}  // namespace

ProcStore::ProcStore(FileSystem* fs, const Clock* clock, std::string proc_dir, std::chrono::nanoseconds stale_time)
    : fs_(fs), clock_(clock), proc_dir_(std::move(proc_dir)), stale_time_(stale_time) {}

std::string ProcStore::EncodeHeartbeat(WallTime t) {
  uint64_t s = static_cast<uint64_t>(UnixSeconds(t));
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((s >> (8 * (7 - i))) & 0xff);
  return out;
}

bool ProcStore::DecodeHeartbeat(const std::string& bytes, WallTime* t) {
  if (bytes.size() < 8) return false;
  uint64_t s = 0;
  for (size_t i = 0; i < 8; ++i) s = (s << 8) | static_cast<uint8_t>(bytes[i]);
  *t = FromUnixSeconds(static_cast<int64_t>(s));
  return true;
}

Status ProcStore::Acquire(const std::string& group, const std::string& dag_name, const std::string& run_id,
                          ProcEntry* out) {
  WallTime now = clock_->Now();
  ProcEntry e;
  e.group = group;
  e.dag_name = dag_name;
  e.run_id = run_id;
  e.started = FromUnixSeconds(UnixSeconds(now));
  const std::string dir = JoinPath(JoinPath(proc_dir_, group), dag_name);
  e.path = JoinPath(dir, "proc_" + FormatCompactUTC(now) + "Z_" + run_id + ".proc");
  DAGU_RETURN_IF_ERROR(fs_->MakeDirs(dir, 0750));
  DAGU_RETURN_IF_ERROR(fs_->CreateFileExclusive(e.path, EncodeHeartbeat(now), 0600));
  *out = std::move(e);
  return Status::OK();
}

Status ProcStore::Heartbeat(const ProcEntry& entry) {
  return fs_->WriteFile(entry.path, EncodeHeartbeat(clock_->Now()), 0600);
}

Status ProcStore::Release(const ProcEntry& entry) {
  Status s = fs_->RemoveFile(entry.path);
  if (!s.ok() && !s.IsNotFound()) return s;
  fs_->RemoveDir(DirName(entry.path)).IgnoreError();  // fails unless empty; the group dir stays (as Dagu)
  return Status::OK();
}

bool ProcStore::IsAliveFile(const std::string& path) {
  WallTime now = clock_->Now();
  FileInfo info;
  if (!fs_->Stat(path, &info).ok()) return false;
  if (now - info.mtime < stale_time_) return true;
  std::string bytes;
  WallTime beat;
  if (!fs_->ReadFile(path, &bytes).ok() || !DecodeHeartbeat(bytes, &beat)) return false;
  if (beat > now + std::chrono::minutes(5)) return false;
  return now - beat < stale_time_;
}

Status ProcStore::ListAlive(const std::string& group, std::vector<ProcEntry>* out) {
  out->clear();
  const std::string group_dir = JoinPath(proc_dir_, group);
  std::vector<std::string> dags;
  Status s = fs_->ListDir(group_dir, &dags);
  if (s.IsNotFound()) return Status::OK();
  DAGU_RETURN_IF_ERROR(s);
  std::sort(dags.begin(), dags.end());
  for (const auto& d : dags) {
    if (d.empty() || d[0] == '.') continue;
    std::vector<std::string> files;
    s = fs_->ListDir(JoinPath(group_dir, d), &files);
    if (s.IsNotFound() || s.code() == Status::Code::kInvalidArgument) continue;  // raced with Release / not a dir
    DAGU_RETURN_IF_ERROR(s);
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      ProcEntry e;
      if (!ParseProcFileName(f, &e.started, &e.run_id)) continue;
      e.group = group;
      e.dag_name = d;
      e.path = JoinPath(JoinPath(group_dir, d), f);
      if (IsAliveFile(e.path)) out->push_back(std::move(e));
    }
  }
  return Status::OK();
}

StatusOr<int> ProcStore::CountAlive(const std::string& group) {
  std::vector<ProcEntry> alive;
  DAGU_RETURN_IF_ERROR(ListAlive(group, &alive));
  return static_cast<int>(alive.size());
}

StatusOr<bool> ProcStore::IsRunAlive(const std::string& group, const std::string& dag_name,
                                     const std::string& run_id) {
  std::vector<ProcEntry> entries;
  DAGU_RETURN_IF_ERROR(ListAlive(group, &entries));
  for (const auto& e : entries) {
    if (e.dag_name == dag_name && e.run_id == run_id) return true;
  }
  return false;
}

}  // namespace dagu
