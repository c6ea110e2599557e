#include "dagwatch/dag_catalog.h"

#include <malloc.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

namespace dagu {
namespace {

constexpr size_t kTrimAfterLoads = 100;

}  // namespace

bool IsDagFileName(const std::string& name) {
  if (name.empty() || name[0] == '.') return false;
  auto ends_with = [&](const char* suffix) {
    std::string s(suffix);
    return name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends_with(".yaml") || ends_with(".yml");
}

DagCatalog::DagCatalog(FileSystem* fs, std::string dags_dir, DagFileLoader loader)
    : fs_(fs), dir_(std::move(dags_dir)), loader_(std::move(loader)) {}

Status DagCatalog::Refresh() {
  if (watched_ && !dirty_) return Status::OK();
  struct Inside {
    std::atomic<int>& n;
    explicit Inside(std::atomic<int>& count) : n(count) { ++n; }
    ~Inside() { --n; }
  } inside(refreshing_);
  return Rescan();
}

void DagCatalog::NoteProgress() {
  if (clock_ == nullptr) return;
  progress_ns_.store(
      std::chrono::duration_cast<std::chrono::nanoseconds>(clock_->Monotonic().time_since_epoch()).count());
}

std::optional<MonoTime> DagCatalog::LastLoadProgress() const {
  const int64_t ns = progress_ns_.load();
  if (ns < 0) return std::nullopt;
  return MonoTime(std::chrono::nanoseconds(ns));
}

Status DagCatalog::Rescan(const std::atomic<bool>* stop) {
  std::lock_guard<std::mutex> rescan(rescan_mu_);
  dirty_ = false;  // a change seen from here on marks it again
  std::vector<std::string> names;
  Status listed = fs_->ListDir(dir_, &names);
  NoteProgress();
  if (!listed.ok()) return listed.WithContext("listing DAG directory " + dir_);

  bool changed = false;
  size_t loads = 0;
  std::set<std::string> present;
  for (const std::string& name : names) {
    if (stop != nullptr && stop->load()) {
      // Cut short: publish what was loaded, forget nothing (the files not
      // reached are not gone), and let the next Refresh() finish the job.
      dirty_ = true;
      if (changed) Publish(loads);
      return Status::Aborted("rescan of DAG directory " + dir_ + " stopped");
    }
    NoteProgress();
    if (!IsDagFileName(name)) continue;
    std::string path = JoinPath(dir_, name);
    FileInfo info;
    Status st = fs_->Stat(path, &info);
    if (st.IsNotFound()) continue;  // removed since the listing
    if (!st.ok()) {
      spdlog::error("DAG file {}: {}; keeping what was loaded before", path, st.ToString());
      if (files_.count(name)) present.insert(name);
      continue;
    }
    if (info.is_dir) continue;
    present.insert(name);
    changed = UpdateFile(name, &info, &loads) || changed;
  }
  for (auto it = stuck_.begin(); it != stuck_.end();) {
    it = std::find(names.begin(), names.end(), *it) == names.end() ? stuck_.erase(it) : std::next(it);
  }
  std::vector<std::string> gone;
  for (const auto& [name, entry] : files_) {
    if (!present.count(name)) gone.push_back(name);
  }
  for (const std::string& name : gone) changed = UpdateFile(name, nullptr, &loads) || changed;
  if (changed) Publish(loads);
  NoteProgress();
  return Status::OK();
}

Status DagCatalog::RescanFiles(const std::set<std::string>& names) {
  std::lock_guard<std::mutex> rescan(rescan_mu_);
  dirty_ = false;
  bool changed = false;
  size_t loads = 0;
  for (const std::string& name : names) {
    NoteProgress();
    if (!IsDagFileName(name)) continue;
    std::string path = JoinPath(dir_, name);
    FileInfo info;
    Status st = fs_->Stat(path, &info);
    if (st.IsNotFound() || (st.ok() && info.is_dir)) {
      stuck_.erase(name);
      changed = UpdateFile(name, nullptr, &loads) || changed;
    } else if (!st.ok()) {
      spdlog::error("DAG file {}: {}; keeping what was loaded before", path, st.ToString());
    } else {
      changed = UpdateFile(name, &info, &loads) || changed;
    }
  }
  if (changed) Publish(loads);
  NoteProgress();
  return Status::OK();
}

bool DagCatalog::UpdateFile(const std::string& name, const FileInfo* info, size_t* loads) {
  const std::string path = JoinPath(dir_, name);
  auto it = files_.find(name);
  if (info == nullptr) {
    if (it == files_.end()) return false;
    spdlog::info("DAG file {} removed", path);
    files_.erase(it);
    return true;
  }
  if (it != files_.end() && SameFileVersion(it->second.key, *info)) return false;

  Entry entry;
  entry.key = *info;
  auto dag = std::make_unique<Dag>();
  Status loaded = loader_(path, dag.get());
  if (loaded.IsTimedOut()) {
    // A read that hangs is not this version's verdict: try again at the
    // next rescan (the reader answers at once while it is still stuck).
    if (stuck_.insert(name).second) spdlog::error("DAG file {} skipped for now: {}", path, loaded.ToString());
    return false;
  }
  if (stuck_.erase(name) > 0) spdlog::info("DAG file {} can be read again", path);
  if (loaded.ok()) {
    entry.dag = std::make_shared<const DagHeader>(std::move(static_cast<DagHeader&>(*dag)));
    spdlog::info("DAG {} {} from {}", entry.dag->name, it == files_.end() ? "loaded" : "reloaded", path);
  } else {
    spdlog::error("DAG file {} skipped: {}", path, loaded.ToString());
  }
  files_[name] = std::move(entry);
  ++*loads;
  return true;
}

void DagCatalog::Publish(size_t loads) {
  // files_ is ordered by file name, so the first file of a name wins.
  std::map<std::string, DagPtr> by_name;
  std::map<std::string, WallTime> mtimes;
  for (const auto& [file, entry] : files_) {
    if (!entry.dag) continue;
    auto [pos, inserted] = by_name.emplace(entry.dag->name, entry.dag);
    if (inserted) mtimes.emplace(entry.dag->name, entry.key.mtime);
    if (!inserted) {
      spdlog::error("DAG file {} skipped: DAG name \"{}\" is already defined by {}", JoinPath(dir_, file),
                    entry.dag->name, pos->second->location);
    }
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    by_name_ = std::move(by_name);
    mtime_by_name_ = std::move(mtimes);
    ++generation_;
  }
  // Parsing leaves freed memory behind in the allocator's arenas; a scan
  // that loaded many files gives it back (10,000 files: tens of MB).
  if (loads >= kTrimAfterLoads) ::malloc_trim(0);
}

std::vector<DagPtr> DagCatalog::Snapshot() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<DagPtr> out;
  out.reserve(by_name_.size());
  for (const auto& [name, dag] : by_name_) out.push_back(dag);
  return out;
}

DagPtr DagCatalog::Find(const std::string& name) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::optional<WallTime> DagCatalog::FileMtime(const std::string& name) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = mtime_by_name_.find(name);
  if (it == mtime_by_name_.end()) return std::nullopt;
  return it->second;
}

Status DagCatalog::LoadFull(const std::string& name, Dag* out) const {
  DagPtr header = Find(name);
  if (!header) return Status::NotFound("DAG \"" + name + "\" is not in " + dir_);
  DAGU_RETURN_IF_ERROR(loader_(header->location, out));
  if (out->name != name) {
    return Status::InvalidArgument("DAG file " + header->location + " now defines DAG \"" + out->name +
                                      "\", not \"" + name + "\"");
  }
  return Status::OK();
}

uint64_t DagCatalog::generation() const {
  std::lock_guard<std::mutex> l(mu_);
  return generation_;
}

}  // namespace dagu
