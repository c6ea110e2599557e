// The REST API under <base>/api/v2 (Dagu 1.30.2's shapes, see api_views.h):
//
//   GET    /dags?page&perPage&name&tag&sort&order  {dags:[DAGFile], errors, pagination}   (api_dags.cc)
//   GET    /dags/tags, /dags/search?q=               {tags, errors}, {results, errors}
//   GET    /dags/{fileName}                          {dag, latestDAGRun, suspended, localDags, errors}
//   POST   /dags {name, spec?}, /dags/validate {spec, name?}                  (api_dag_specs.cc)
//   GET|PUT /dags/{fileName}/spec, DELETE /dags/{fileName}, POST .../rename {newFileName}
//   POST   /dags/{fileName}/start|enqueue|suspend|stop-all                   (api_dag_actions.cc)
//   GET    /workers, /services/coordinator, /services/resources/history     (api_services.cc)
//   GET    /dags/{fileName}/dag-runs                 {dagRuns, gridData}
//   GET    /dags/{fileName}/dag-runs/{id|latest}     {dagRun}
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

void AddDagRoutes(WebServer* server, const ApiContext* ctx);  // with the two below
void AddDagSpecRoutes(WebServer* server, const ApiContext* ctx);    // api_dag_specs.cc
void AddDagActionRoutes(WebServer* server, const ApiContext* ctx);  // api_dag_actions.cc
void AddRunRoutes(WebServer* server, const ApiContext* ctx);  // with the two below
void AddRunActionRoutes(WebServer* server, const ApiContext* ctx);  // api_run_actions.cc
void AddRunCreateRoutes(WebServer* server, const ApiContext* ctx);  // api_run_create.cc
void AddSubRunRoutes(WebServer* server, const ApiContext* ctx);
void AddQueueRoutes(WebServer* server, const ApiContext* ctx);
void AddServiceRoutes(WebServer* server, const ApiContext* ctx);

// All of the above.
void AddApiRoutes(WebServer* server, const ApiContext* ctx);

}  // namespace dagu::web
