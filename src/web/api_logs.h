// Log responses shared by the run and sub-run endpoints: the window query
// (tail, head, offset, limit; log_view.h) and sending a log file or a step's
// stdout/stderr log (`stream`, default stdout) as Dagu's Log object.
#pragma once

#include <optional>
#include <string>

#include "store/run_status.h"
#include "web/log_view.h"
#include "web/web_server.h"

namespace dagu::web {

// The window of the request's query; nullopt after a 400.
std::optional<LogWindow> ParseLogWindow(const http::Request& req, http::Response& res);

// 200 with the window of the file at `path`; 404 naming `what` when the
// path is empty (no log yet) or the file is missing.
void SendLogFile(const std::string& path, const LogWindow& window, const std::string& what, http::Response& res);

// A step log request's query: the window and ?stream=stdout|stderr
// (default stdout); nullopt after a 400. Checked before the run is looked up.
struct StepLogQuery {
  LogWindow window;
  std::string stream;
};
std::optional<StepLogQuery> ParseStepLogQuery(const http::Request& req, http::Response& res);

// The log of step `step` of `record`; 404 "step <step> not found in DAG
// <dag_name>" when the run has no such step (1.30.2 names the DAG of the
// request path, also for a sub-run's step).
void SendStepLog(const RunRecord& record, const std::string& step, const StepLogQuery& query,
                 const std::string& dag_name, http::Response& res);

}  // namespace dagu::web
