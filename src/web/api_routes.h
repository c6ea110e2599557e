// The REST API under <base>/api/v2 (Dagu 1.30.2's shapes, see api_views.h):
//
//   GET  /dags                               {dags:[DAGFile], errors, pagination}
//   GET  /dags/{fileName}                    {dag, latestDAGRun, suspended, errors}
//   GET  /dags/{fileName}/dag-runs           {dagRuns:[DAGRunDetails]}
//   GET  /dags/{fileName}/dag-runs/{id}      {dagRun}
//   POST /dags/{fileName}/start   {params?, dagRunId?}          {dagRunId}
//   POST /dags/{fileName}/enqueue {params?, dagRunId?, queue?}  {dagRunId}
//   POST /dags/{fileName}/suspend {suspend}                     {}
//   /dag-runs* (Dagu 1.30.2's operations and shapes; api_runs.cc, api_run_actions.cc,
//   api_run_create.cc, api_subruns.cc describe each):
//   GET  /dag-runs, /dag-runs/{name}          POST /dag-runs, /dag-runs/enqueue (inline spec)
//   GET  /dag-runs/{name}/{id|latest}[/spec|/outputs]   GET .../{id}/log, .../steps/{step}/log
//   POST .../{id}/stop, /retry, /reschedule   GET .../{id}/dequeue (a GET, as in 1.30.2)
//   GET  .../{id}/sub-dag-runs[/{subId}[/log|/steps/{step}/log]]
//   PATCH .../steps/{step}/status, POST .../steps/{step}/approve|reject (also under sub-dag-runs/{subId})
//   GET  /queues                             {queues:[...], summary}   (api_queues.cc)
//   GET  /services/scheduler                 {schedulers:[...]}
//   GET  /services/scheduler/history?limit   {changes:[...]}   (the role journal, oldest first)
//
// Errors are {"code","message"} with 400 (bad input), 404 (no such DAG, run,
// step or log), 409 (run ID taken, run active), 500 (storage or command
// failure). A DAG run's status "running" whose heartbeat is gone is shown as
// "failed" (Dagu's display-side check), without writing anything.
#pragma once

#include "web/api_context.h"
#include "web/web_server.h"

namespace dagu::web {

void AddDagRoutes(WebServer* server, const ApiContext* ctx);
void AddRunRoutes(WebServer* server, const ApiContext* ctx);  // adds the two below too
void AddRunActionRoutes(WebServer* server, const ApiContext* ctx);  // api_run_actions.cc
void AddRunCreateRoutes(WebServer* server, const ApiContext* ctx);  // api_run_create.cc
void AddSubRunRoutes(WebServer* server, const ApiContext* ctx);
void AddQueueRoutes(WebServer* server, const ApiContext* ctx);
void AddServiceRoutes(WebServer* server, const ApiContext* ctx);

// All of the above.
void AddApiRoutes(WebServer* server, const ApiContext* ctx);

}  // namespace dagu::web
