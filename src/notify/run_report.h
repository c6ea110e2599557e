// The mail Dagu 1.30.2 sends about a finished run (mailOn / errorMail /
// infoMail / a step's mailOnError): the subject "<prefix> <dag> (<status>)"
// and an HTML page with the run's status, ID, params, times and a table of
// its steps, reproduced byte for byte. Built from a RunReport, which the
// agent fills from the run record (values already masked).
#pragma once

#include <string>
#include <vector>

#include "dag/dag.h"

namespace dagu {

struct RunReport {
  std::string dag_name;
  std::string run_id;
  std::string params;       // "A=1 B=two"; "" shows as (none)
  std::string status;       // Dagu's label: "succeeded", "failed", "partially_succeeded", ...
  std::string started_at;   // as in the record (RFC 3339)
  std::string finished_at;
  struct Step {
    std::string name;
    std::string started_at;
    std::string finished_at;
    std::string status;     // node label: "succeeded", "failed", "skipped", "aborted", ...
    std::string command;    // the command line(s) as run; "" for a non-command step
    std::string error;
    std::string stdout_path;
  };
  std::vector<Step> steps;
};

// Which mail a finished run sends under `dag`'s mailOn: the error mail for
// failed and partially succeeded runs, the info mail for succeeded ones, the
// wait mail (mailOn.wait) for a run that stopped to wait for an approval,
// none otherwise (aborted runs send none, as in 1.30.2). Null: none.
const MailConfig* MailForStatus(const Dag& dag, const std::string& status);

std::string RunReportSubject(const std::string& prefix, const RunReport& report);
std::string RunReportHtml(const RunReport& report);

// The step logs attached when attachLogs is set: each step's stdout log.
std::vector<std::string> RunReportAttachments(const RunReport& report);

// &, < and > escaped (quotes are left as 1.30.2 leaves them).
std::string EscapeHtmlText(const std::string& text);

}  // namespace dagu
