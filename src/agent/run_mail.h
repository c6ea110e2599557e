// The mails a finished run sends (Dagu 1.30.2): for every failed step with
// mailOnError, and then under mailOn (failure: the errorMail for a failed
// or partially succeeded run; success: the infoMail for a succeeded one),
// each the run report of src/notify/run_report.h through the DAG's smtp
// settings, with the step stdout logs attached when attachLogs is set.
// Failures are logged to the run log ("Mail notification failed"), never
// change the run's result. `cancelled` abandons a transfer at once.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include "agent/run_log.h"
#include "dag/dag.h"
#include "store/run_status.h"

namespace dagu {

// `lookup` expands variables in the smtp settings and addresses.
void SendRunMails(const Dag& dag, const RunRecord& record,
                  const std::function<std::optional<std::string>(std::string_view)>& lookup, RunLog* log,
                  const std::atomic<bool>* cancelled);

}  // namespace dagu
