#include "agent/status_report.h"

#include <sstream>

#include "store/sub_runs.h"

namespace dagu {
namespace {

// The child runs of a call step, as Dagu prints them: "subdag: <id> [params]".
void SubRunLines(std::ostringstream& out, const NodeRecord& n) {
  for (const SubRunRef& r : NodeSubRuns(n)) {
    out << "    subdag: " << r.dag_run_id;
    if (!r.params.empty()) out << " [" << r.params << "]";
    out << "\n";
  }
}

void StepLine(std::ostringstream& out, const NodeRecord& n) {
  std::string name = n.StepName();
  out << "  " << name;
  for (size_t i = name.size(); i < 20; ++i) out << ' ';
  out << " " << NodeStatusLabel(n.status);
  if (!n.started_at.empty() && n.started_at != "-") out << "  started " << n.started_at;
  if (!n.finished_at.empty() && n.finished_at != "-") out << "  finished " << n.finished_at;
  if (n.retry_count > 0) out << "  retries " << n.retry_count;
  out << "\n";
  if (!n.error.empty()) {
    std::string error = n.error;
    for (size_t p = error.find('\n'); p != std::string::npos; p = error.find('\n', p + 5)) error.replace(p, 1, "\n    ");
    out << "    error: " << error << "\n";
  }
  if (!n.stdout_path.empty()) out << "    stdout: " << n.stdout_path << "\n";
  SubRunLines(out, n);
}

}  // namespace

std::string FormatStatusReport(const RunRecord& r, bool stale) {
  std::ostringstream out;
  RunStatus shown = stale && r.status == RunStatus::kRunning ? RunStatus::kFailed : r.status;
  out << "DAG:       " << r.name << "\n";
  out << "Run ID:    " << r.dag_run_id << "\n";
  out << "Attempt:   " << r.attempt_id << "\n";
  out << "Status:    " << RunStatusDisplay(shown);
  if (shown != r.status) out << " (recorded as running, but its heartbeat is gone)";
  out << "\n";
  if (!r.queued_at.empty()) out << "Queued:    " << r.queued_at << "\n";
  if (!r.started_at.empty()) out << "Started:   " << r.started_at << "\n";
  if (!r.finished_at.empty()) out << "Finished:  " << r.finished_at << "\n";
  if (!r.params.empty()) out << "Params:    " << r.params << "\n";
  if (!r.log.empty()) out << "Log:       " << r.log << "\n";
  if (!r.error.empty()) out << "Error:     " << r.error << "\n";
  if (r.trigger_type != TriggerType::kUnknown) out << "Trigger:   " << TriggerTypeName(r.trigger_type) << "\n";
  if (!r.schedule_time.empty()) out << "Scheduled: " << r.schedule_time << "\n";
  out << "Steps:\n";
  for (const auto& n : r.nodes) StepLine(out, n);
  for (const auto* h : {&r.on_init, &r.on_success, &r.on_failure, &r.on_cancel, &r.on_exit, &r.on_wait}) {
    if (h->has_value()) StepLine(out, **h);
  }
  return out.str();
}

}  // namespace dagu
