// WarmUp: what the first pages ask for, read in the background when the
// server starts, so that the first request after a start is answered from
// the caches instead of the disk (docs/web.md, "At scale"):
//  1. the DAG list: every DAG file parsed and the listing kept (DagFiles);
//  2. today's runs over all DAGs: the day index's day (the day folders of
//     every DAG folder) and the summaries of its newest kRunsPerDay runs;
//  3. the same for yesterday (a day's first hours show both).
// At 10,000 DAGs a cold first request of each took 5-15 s; the warm-up takes
// about as long, once, while the server already answers.
//
// It runs on one thread at a low CPU and I/O priority (nice 10, best-effort
// level 7), its reads side by side as the index does them. Stop() cancels
// it at once (the listings check a flag between folders) and joins it.
// Nothing is written. A step that fails (a folder that cannot be read) is
// logged and the warm-up goes on: requests then read as they would have.
//
// Only for the real file system, whose caches inotify proves current.
#pragma once

#include <atomic>
#include <cstddef>
#include <thread>

#include "core/clock.h"
#include "store/run_store.h"
#include "web/dag_files.h"

namespace dagu::web {

class WarmUp {
 public:
  // Runs of a day whose summaries are read (a runs page asks for up to 1,000).
  static constexpr size_t kRunsPerDay = 1000;

  // All three must outlive this.
  WarmUp(const DagFiles* dags, RunStore* runs, const Clock* clock);
  ~WarmUp();
  WarmUp(const WarmUp&) = delete;
  WarmUp& operator=(const WarmUp&) = delete;

  // Starts the background read (once).
  void Start();
  // Cancels a read in progress at once and waits for its thread; idempotent.
  void Stop();
  // True once every step has ended (read, failed or cancelled).
  bool done() const { return done_.load(); }
  // Seconds the whole warm-up took (0 until done).
  double seconds() const { return seconds_.load(); }

 private:
  void Run();

  const DagFiles* dags_;
  RunStore* runs_;
  const Clock* clock_;
  std::atomic<bool> cancel_{false};
  std::atomic<bool> done_{false};
  std::atomic<double> seconds_{0};
  std::thread thread_;
};

}  // namespace dagu::web
