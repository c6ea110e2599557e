// DagWatcher: keeps a DagCatalog in step with its directory while the
// scheduler runs, so adding, changing or removing a DAG file takes effect
// without a restart. It watches the directory with inotify and rescans only
// the files the events name (a burst of events is coalesced: one rescan
// kSettle after the last complete change, or `debounce` after the last
// write while a file is still open for writing; the catalog is marked dirty
// at the first event, so a tick in between rescans it itself)
// and also rescans every `rescan_interval` as a fallback, which covers what
// inotify cannot see (edits made by another NFS client, a directory that did
// not exist yet or was replaced). While the watch is in place on a local
// file system, where inotify sees every change, the fallback runs only every
// kLocalRescanInterval, so an unchanged directory costs (almost) nothing. If
// inotify is unavailable it logs why and relies on the periodic rescan alone.
//
// Its thread waits in poll(2) on the inotify descriptor and an eventfd that
// Stop() writes, so it is not a StoppableThread (whose waits are condition
// variables): a documented exception, like the renewal thread.
//
// Start/Stop are not thread-safe with each other; the catalog is.
#pragma once

#include <atomic>
#include <chrono>
#include <thread>

#include "dagwatch/dag_catalog.h"

namespace dagu {

class DagWatcher {
 public:
  // `catalog` must outlive the watcher.
  DagWatcher(DagCatalog* catalog, std::chrono::milliseconds rescan_interval,
             std::chrono::milliseconds debounce = std::chrono::milliseconds(100));
  ~DagWatcher();

  DagWatcher(const DagWatcher&) = delete;
  DagWatcher& operator=(const DagWatcher&) = delete;

  // Starts its thread, which scans the whole directory once (logging
  // "DAG directory <dir> scanned: <n> DAGs loaded in <ms> ms"), then
  // watches. Returns at once; scanned() says when the first scan is over.
  // Idempotent.
  void Start();
  // Stops and joins the thread promptly (a scan in progress ends after the
  // file in hand).
  void Stop();

  // True once the first scan after Start() has been through the whole
  // directory (or found it cannot be listed, which it logged).
  bool scanned() const { return scanned_.load(); }

  // True while an inotify watch on the directory is in place.
  bool watching() const { return watching_.load(); }

  // The fallback rescan's period while watched on a local file system.
  static constexpr std::chrono::minutes kLocalRescanInterval{10};
  // How long a burst of complete changes (files closed after writing,
  // moved or removed) is coalesced before the rescan; `debounce` applies
  // while a DAG file is still open for writing.
  static constexpr std::chrono::milliseconds kSettle{2};

 private:
  void Run();
  bool AddWatch();  // (re)creates the inotify watch; false when it cannot
  void SetWatching(bool on);
  std::chrono::milliseconds RescanInterval() const;

  DagCatalog* catalog_;
  std::chrono::milliseconds rescan_interval_;
  std::chrono::milliseconds debounce_;
  int inotify_fd_ = -1;
  int watch_ = -1;
  bool warned_ = false;  // "cannot watch" logged, until it works again
  bool local_ = false;   // the directory is on a local file system (statfs)
  int wake_fd_ = -1;  // eventfd that Stop() writes to
  std::atomic<bool> stop_{false};
  std::atomic<bool> watching_{false};
  std::atomic<bool> scanned_{false};
  std::thread thread_;
};

}  // namespace dagu
