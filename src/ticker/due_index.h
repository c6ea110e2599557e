// DueIndex: which DAGs may have a schedule due at a given minute, without
// evaluating every DAG's cron expressions every minute. With 10,000 DAG
// files and nothing changing, a tick then costs what its due DAGs cost.
//
// For each DAG of the catalog it keeps a hint: a minute before which none of
// the DAG's start, stop or restart schedules is due (slots.h DueAt), the
// floor (in minutes) of the earliest Next() of its schedules. Candidates(t)
// returns the DAGs whose hint is t; the caller still asks DueAt for each, so
// the index only ever leaves out DAGs that are certainly not due and the
// result is the same as evaluating every DAG (ticker_test and
// due_index_test check this against the full evaluation).
//
// The hints are valid for the minutes at or after the last one asked about;
// asking about an earlier minute (the wall clock went back) recomputes them
// all. A catalog whose generation changed is merged by name: unchanged DAG
// objects keep their hints, new or changed ones are computed.
//
// Not thread-safe: one owner (the tick thread).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "dagwatch/dag_catalog.h"

namespace dagu {

class DueIndex {
 public:
  // `dags` must outlive the index.
  explicit DueIndex(const DagCatalog* dags) : dags_(dags) {}

  // The DAGs (sorted by name) that may have a schedule due at the whole
  // minute `slot`: every DAG that has one is among them. Asking about the
  // same minute again gives the same DAGs.
  std::vector<DagPtr> Candidates(WallTime slot);

  // DAGs indexed (tests).
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    DagPtr dag;
    WallTime hint;
  };
  // The hint of `dag` for minutes at or after `from`.
  static WallTime HintFrom(const DagHeader& dag, WallTime from);
  void Merge();                  // takes in a new catalog generation
  void Recompute(WallTime from);  // every hint, from `from`
  void Set(const std::string& name, WallTime hint);

  const DagCatalog* dags_;
  std::optional<uint64_t> generation_;
  std::optional<WallTime> floor_;  // hints hold for minutes >= floor_
  std::map<std::string, Entry> entries_;                 // by DAG name
  std::set<std::pair<WallTime, std::string>> by_hint_;  // (hint, name)
};

}  // namespace dagu
