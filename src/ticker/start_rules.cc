#include <algorithm>

#include "ticker/slots.h"
#include "ticker/start_rules.h"

namespace dagu {

std::optional<WallTime> RunTime(const RunSummary& run) {
  if (run.schedule_time) return run.schedule_time;
  std::optional<WallTime> t;
  for (const std::optional<WallTime>& c : {run.started_at, run.queued_at}) {
    if (c && (!t || *c < *t)) t = c;
  }
  return t;
}

std::optional<WallTime> ReferenceTime(const RunSummary& run) {
  std::optional<WallTime> t = RunTime(run);
  if (!t) return std::nullopt;
  return FloorToMinute(*t);
}

bool StampedAhead(const RunSummary& run, WallTime now) {
  std::optional<WallTime> t = RunTime(run);
  return t && *t > now + kFutureRunTolerance;
}

StartRule CheckStartRules(const DagHeader& dag, WallTime slot, const std::optional<RunSummary>& latest,
                          WallTime now) {
  if (!latest || StampedAhead(*latest, now)) return StartRule::kStart;
  std::optional<WallTime> ref = ReferenceTime(*latest);
  if (!ref) return StartRule::kStart;
  const std::vector<CronSchedule>& schedules = dag.schedules.start;
  bool slot_run =
      std::any_of(schedules.begin(), schedules.end(), [&](const CronSchedule& s) { return DueAt(s, *ref); });
  if (slot_run) return *ref >= slot ? StartRule::kAlreadyRan : StartRule::kStart;
  if (!dag.skip_if_successful || latest->status != RunStatus::kSucceeded) return StartRule::kStart;
  std::optional<WallTime> prev;
  for (const CronSchedule& s : schedules) {
    std::optional<WallTime> p = s.Prev(slot);
    if (p && (!prev || *p > *prev)) prev = p;
  }
  if (prev && *ref >= *prev && *ref < slot) return StartRule::kRecentSuccess;
  return StartRule::kStart;
}

const char* StartRuleName(StartRule rule) {
  switch (rule) {
    case StartRule::kStart:
      return "start";
    case StartRule::kAlreadyRan:
      return "already ran";
    case StartRule::kRecentSuccess:
      return "succeeded since the previous slot";
  }
  return "?";
}

}  // namespace dagu
