// The mails of a run (Dagu 1.30.2), each the run report of
// src/notify/run_report.h through the DAG's smtp settings, with the step
// stdout logs attached when attachLogs is set:
//  - SendStepMail: the errorMail the moment a step with mailOnError fails,
//    showing the run as it is then (running; 1.30.2 takes that picture a
//    little later or earlier at random, so the table may differ from its);
//  - SendRunMail: when the run has ended, under mailOn (failure: the
//    errorMail for a failed or partially succeeded run; success: the
//    infoMail for a succeeded one).
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

using MailLookup = std::function<std::optional<std::string>(std::string_view)>;

// `lookup` expands variables in the smtp settings and addresses.
void SendStepMail(const Dag& dag, const RunRecord& record, const MailLookup& lookup, RunLog* log,
                  const std::atomic<bool>* cancelled);
void SendRunMail(const Dag& dag, const RunRecord& record, const MailLookup& lookup, RunLog* log,
                 const std::atomic<bool>* cancelled);

}  // namespace dagu
