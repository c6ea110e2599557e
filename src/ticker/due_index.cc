#include "ticker/due_index.h"

#include <algorithm>

#include "ticker/slots.h"

namespace dagu {

namespace {

// How far ahead a DAG none of whose schedules fires within CronSchedule's
// horizon (5 years) is looked at again.
constexpr std::chrono::hours kNoFireRecheck{24 * 365};

}  // namespace

WallTime DueIndex::HintFrom(const DagHeader& dag, WallTime from) {
  std::optional<WallTime> earliest;
  for (const auto* list : {&dag.schedules.start, &dag.schedules.stop, &dag.schedules.restart}) {
    for (const CronSchedule& s : *list) {
      // DueAt(s, t) means Next(t - 1s) <= t; Next is monotonic, so no minute
      // before this one can be due.
      std::optional<WallTime> next = s.Next(from - std::chrono::seconds(1));
      if (next && (!earliest || *next < *earliest)) earliest = *next;
    }
  }
  if (!earliest) return FloorToMinute(from + kNoFireRecheck);
  return std::max(from, FloorToMinute(*earliest));
}

void DueIndex::Set(const std::string& name, WallTime hint) {
  Entry& e = entries_.at(name);
  by_hint_.erase({e.hint, name});
  e.hint = hint;
  by_hint_.insert({hint, name});
}

void DueIndex::Merge() {
  const uint64_t generation = dags_->generation();  // before the snapshot: a later change is merged next time
  std::map<std::string, Entry> merged;
  for (const DagPtr& dag : dags_->Snapshot()) {
    auto old = entries_.find(dag->name);
    if (old != entries_.end() && old->second.dag == dag) {
      merged.emplace(dag->name, std::move(old->second));
    } else {
      merged.emplace(dag->name, Entry{dag, HintFrom(*dag, *floor_)});
    }
  }
  entries_ = std::move(merged);
  by_hint_.clear();
  for (const auto& [name, e] : entries_) by_hint_.insert({e.hint, name});
  generation_ = generation;
}

void DueIndex::Recompute(WallTime from) {
  floor_ = from;
  by_hint_.clear();
  for (auto& [name, e] : entries_) {
    e.hint = HintFrom(*e.dag, from);
    by_hint_.insert({e.hint, name});
  }
}

std::vector<DagPtr> DueIndex::Candidates(WallTime slot) {
  if (!floor_ || slot < *floor_) Recompute(slot);
  if (generation_ != dags_->generation()) Merge();
  // Hints that fell behind: the DAG was not due at the minutes before `slot`
  // that were asked about, or they were never asked about (a skipped
  // stretch); either way its next candidate minute is counted from `slot`.
  while (!by_hint_.empty() && by_hint_.begin()->first < slot) {
    std::string name = by_hint_.begin()->second;
    Set(name, HintFrom(*entries_.at(name).dag, slot));
  }
  floor_ = slot;
  std::vector<DagPtr> out;
  for (auto it = by_hint_.lower_bound({slot, std::string()}); it != by_hint_.end() && it->first == slot; ++it) {
    out.push_back(entries_.at(it->second).dag);
  }
  return out;  // by name: the set orders equal hints by name
}

}  // namespace dagu
