// RunSummary: the fields of a run's record that a run list shows
// (RunStore::SummaryOf), kept compactly by the run indexes: a RunRecord
// holds its step and handler nodes inline, a summary none of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "store/run_status.h"

namespace dagu {

struct RunSummary {
  RunRef root;
  std::optional<RunRef> parent;
  std::string name, dag_run_id, attempt_id;
  RunStatus status = RunStatus::kNotStarted;
  std::string worker_id;
  int pid = 0;
  int64_t created_at = 0;
  std::string queued_at, started_at, finished_at, log, error, params;
  TriggerType trigger_type = TriggerType::kUnknown;
  std::string schedule_time;
};

RunSummary ToSummary(const RunRecord& r);
// A record holding exactly the summary's fields.
RunRecord FromSummary(const RunSummary& s);

}  // namespace dagu
