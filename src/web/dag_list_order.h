// DagListOrders: the orders of the DAG list (GET /api/v2/dags: `sort`,
// `order`), kept with the listing they were computed for (DagListing, from
// DagFiles::ListSnapshot), so that a request on an unchanged DAG folder does
// not sort 10,000 files again (docs/web.md, "At scale").
//
// THE ORDERS, as Dagu 1.30.2 answers (a stable sort of the listing, which is
// by file name):
//  - by name: the DAG's name lower-cased (ASCII), ascending, or descending
//    with `desc` (equal names keep the file-name order either way);
//  - by next run: the earliest next start after `now` of the DAG's start
//    schedules, earliest first (latest first with `desc`; equal times keep
//    the file-name order); the DAGs without one after all others, by name as
//    above.
//
// WHAT PROVES A KEPT ORDER CURRENT. A name order: the very listing object
// it was computed from (a listing never changes; a changed folder gives a
// new one). A next-run order computed at t0: the same listing, and a `now`
// with t0 <= now < the earliest of the next starts found at t0 (CronSchedule
// ::Next(t) is the first fire time after t, so no DAG's next start can
// differ before that instant); the DAGs that had schedules but no start
// within CronSchedule's 5-year horizon at t0 are asked again per request
// (their horizon moves with `now`). Otherwise the order is computed again.
//
// Thread-safe: the mutex is held only to copy or swap pointers; orders are
// computed outside it, and a handed-out order never changes.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/clock.h"
#include "web/dag_files.h"

namespace dagu::web {

enum class DagListSort { kName, kNextRun };

// The earliest next start after `now` of the DAG's start schedules; nullopt
// when it has none (or none within 5 years).
std::optional<WallTime> DagNextRun(const Dag* dag, WallTime now);

class DagListOrders {
 public:
  using Order = std::vector<uint32_t>;  // indices into DagListing::files

  // The listing's order for `sort` and `desc` at `now` (see the header
  // comment). Never null.
  std::shared_ptr<const Order> Get(const std::shared_ptr<const DagListing>& listing, DagListSort sort, bool desc,
                                   WallTime now);

  // How often a kept order answered, and how often one was computed.
  struct Counters {
    uint64_t hits = 0, computed = 0;
  };
  Counters counters() const;

 private:
  struct NextRuns {
    WallTime from, until;          // valid for from <= now < until
    std::vector<std::optional<WallTime>> at;  // by listing index, as of `from`
    std::vector<uint32_t> beyond;  // DAGs with schedules but no start within the horizon at `from`
    std::shared_ptr<const Order> order[2];  // [desc]
  };
  struct State {
    std::shared_ptr<const DagListing> listing;  // held: its address identifies it
    std::shared_ptr<const Order> by_name[2];    // [desc]
    std::shared_ptr<const NextRuns> next;
  };
  static bool NextRunsHold(const DagListing& listing, const NextRuns& next, WallTime now);

  mutable std::mutex mu_;
  std::shared_ptr<const State> state_;  // guarded by mu_
  Counters counters_;                   // guarded by mu_
};

}  // namespace dagu::web
