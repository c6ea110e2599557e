// DagCatalog: the DAGs the scheduler knows, kept in step with the DAG
// directory. Rescan() lists the directory (not recursive: *.yaml and *.yml,
// hidden files skipped), loads files that are new or changed (by size, mtime
// and inode), and forgets files that were removed. A file that does not load
// is reported once per version of the file (logged with the file and the
// error) and skipped; when two files define the same DAG name, the later
// file (in name order) is reported and skipped, as the DAG loader does. A
// load that times out (the loader bounds its reads: dag_file_loader.h) is
// reported once and tried again at every rescan until it answers; what was
// loaded from the file before stays in the catalog meanwhile.
//
// The catalog keeps each DAG's DagHeader only (name, file, schedules and the
// fields the scheduling parts read: dag/dag.h), not the whole definition, so
// 10,000 files cost a few MB; LoadFull() reads the whole DAG from its file
// when a run is to be written (a catch-up or a repaired enqueue).
//
// Readers take immutable snapshots, so a DAG object never changes under a
// tick that is using it.
//
// Loading is progress, not a stall (docs/scheduling.md §8): with a clock
// set, the catalog notes the moment each file of a rescan was handled, and
// LastLoadProgress() gives it to whoever waits for a rescan (the tick loop
// inside Refresh(), the activation waiting for the first scan), so a long
// scan of a big folder that keeps loading files is never taken for a wedged
// tick loop, while a scan stuck on one call is.
//
// Thread-safe. Rescans are serialised; readers never wait for a load.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/file_system.h"
#include "core/status.h"
#include "dag/dag.h"

namespace dagu {

// Loads one DAG file. The real one wraps LoadDag (see MakeDagFileLoader).
using DagFileLoader = std::function<Status(const std::string& path, Dag* out)>;

using DagPtr = std::shared_ptr<const DagHeader>;

// A file the catalog reads: *.yaml or *.yml, not hidden.
bool IsDagFileName(const std::string& name);

class DagCatalog {
 public:
  // `fs` must outlive the catalog.
  DagCatalog(FileSystem* fs, std::string dags_dir, DagFileLoader loader);

  // Brings the catalog in line with the directory. An error listing the
  // directory is returned (and the catalog kept as it was); a file that
  // fails to load is not an error of the rescan. When `*stop` becomes true
  // the rescan ends after the file in hand (Aborted): what it loaded so far
  // is published, nothing is forgotten, and the next Refresh() rescans.
  Status Rescan(const std::atomic<bool>* stop = nullptr);

  // Brings only the files `names` (in the directory) in line: loaded when
  // new or changed, forgotten when gone; what DagWatcher does when inotify
  // named the files that changed. The rest of the catalog is not read.
  Status RescanFiles(const std::set<std::string>& names);

  // Rescan(), unless a DagWatcher's inotify watch covers the directory and
  // has seen no change since the last rescan: then nothing (an unchanged
  // directory costs nothing). What the ticker calls at every tick. While a
  // caller is inside (waiting for another rescan or doing its own),
  // refreshing() is true.
  Status Refresh();
  bool refreshing() const { return refreshing_.load() > 0; }

  // Notes the moment of each file a rescan handles on `clock` (null: none).
  // Set before the first rescan; `clock` must outlive the catalog.
  void SetClock(const Clock* clock) { clock_ = clock; }
  // The last moment a rescan handled a file (loaded, found unchanged,
  // skipped, or timed out) or finished; nullopt before any, or without a clock.
  std::optional<MonoTime> LastLoadProgress() const;
  // For DagWatcher: whether an inotify watch covers the directory now, and
  // that it saw a change no rescan has covered yet.
  void SetWatched(bool watched) { watched_ = watched; }
  void MarkDirty() { dirty_ = true; }

  // Every loaded DAG, sorted by name.
  std::vector<DagPtr> Snapshot() const;
  // The DAG of that name, or null.
  DagPtr Find(const std::string& name) const;
  // Bumped whenever the set of DAGs or any DAG changes.
  uint64_t generation() const;
  // The mtime of the file version the DAG `name` was loaded from; nullopt
  // when the catalog has no such DAG. The replayer's evidence of when the
  // DAG existed (replayer.h).
  std::optional<WallTime> FileMtime(const std::string& name) const;

  // The whole definition of the DAG `name` as its file reads now (with the
  // catalog's loader); NotFound when the catalog has no such DAG, and an
  // error when the file no longer loads or now defines another name.
  Status LoadFull(const std::string& name, Dag* out) const;

  const std::string& dir() const { return dir_; }

 private:
  struct Entry {
    FileInfo key;  // the version loaded (SameFileVersion)
    DagPtr dag;  // null when the file failed to load
  };

  // Brings files_[name] in line with the file (its FileInfo `info`; null
  // when it is gone). True when the catalog changed. Needs rescan_mu_.
  bool UpdateFile(const std::string& name, const FileInfo* info, size_t* loads);
  // Republishes by_name_ from files_. Needs rescan_mu_.
  void Publish(size_t loads);
  void NoteProgress();

  FileSystem* fs_;
  std::string dir_;
  DagFileLoader loader_;

  const Clock* clock_ = nullptr;
  std::atomic<int64_t> progress_ns_{-1};  // monotonic ns of the last file handled; -1: none
  std::atomic<int> refreshing_{0};        // callers inside Refresh()
  std::atomic<bool> watched_{false};
  std::atomic<bool> dirty_{true};

  std::mutex rescan_mu_;              // serialises Rescan
  std::map<std::string, Entry> files_;  // by file name; guarded by rescan_mu_
  std::set<std::string> stuck_;         // files whose last load timed out; guarded by rescan_mu_

  mutable std::mutex mu_;             // guards the published view
  std::map<std::string, DagPtr> by_name_;
  std::map<std::string, WallTime> mtime_by_name_;  // FileMtime, published with by_name_
  uint64_t generation_ = 0;
};

}  // namespace dagu
