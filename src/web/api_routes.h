// The REST API under <base>/api/v2 (Dagu 1.30.2's shapes, see api_views.h):
//
//   GET    /dags?page&perPage&name&tag&sort&order  {dags:[DAGFile], errors, pagination}   (api_dags.cc)
//   GET    /dags/tags, /dags/search?q=               {tags, errors}, {results, errors}
//   GET    /dags/{fileName}                          {dag, latestDAGRun, suspended, localDags, errors}
//   GET    /dags/{fileName}/dag-runs                 {dagRuns, gridData}
//   GET    /dags/{fileName}/dag-runs/{id|latest}     {dagRun}
//   POST   /dags {name, spec?}, /dags/validate {spec, name?}                  (api_dag_specs.cc)
//   GET|PUT /dags/{fileName}/spec, DELETE /dags/{fileName}, POST .../rename {newFileName}
//   POST   /dags/{fileName}/start|enqueue|suspend|stop-all                   (api_dag_actions.cc)
//   GET    /workers, /services/coordinator, /services/resources/history     (api_services.cc)
//   GET  /dag-runs?status&fromDate&toDate&name&dagRunId&limit  {dagRuns:[DAGRunSummary]}
//   GET  /dag-runs/{name}                    {dagRuns}
//   GET  /dag-runs/{name}/{id}               {dagRunDetails}
//   GET  /dag-runs/{name}/{id}/log           Log
//   GET  /dag-runs/{name}/{id}/steps/{step}/log?stream=stdout|stderr   Log
//   POST /dag-runs/{name}/{id}/stop          {}
//   POST /dag-runs/{name}/{id}/retry {dagRunId?, stepName?}  {}
//   POST /dag-runs/{name}/{id}/dequeue       {}   (GET: 405, it changes state)
//   GET  /dag-runs/{name}/{id}/sub-dag-runs  {subRuns:[...]}   (api_subruns.cc)
//   GET  /dag-runs/{name}/{id}/sub-dag-runs/{subId}[/log|/steps/{step}/log]
//   GET  /queues                             {queues:[...], summary}
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
void AddRunRoutes(WebServer* server, const ApiContext* ctx);
void AddSubRunRoutes(WebServer* server, const ApiContext* ctx);
void AddQueueRoutes(WebServer* server, const ApiContext* ctx);
void AddServiceRoutes(WebServer* server, const ApiContext* ctx);

// All of the above.
void AddApiRoutes(WebServer* server, const ApiContext* ctx);

}  // namespace dagu::web
