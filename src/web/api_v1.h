// Dagu 1.30.2's older REST API, still served at <base>/api/v1 (api_v1.cc),
// with 1.30.2's status codes, error bodies and PascalCase JSON shapes:
//
//   GET    /api/v1/health                (system_routes.cc)
//   GET    /api/v1/dags?page&limit&searchName&searchTag   {DAGs, Errors?, HasError, PageCount}
//   POST   /api/v1/dags {action, value}  creates <value>.yaml    201 {DagID}
//   GET    /api/v1/dags/{name}?tab=status|spec|history|log|scheduler-log&step&file
//          {Title, DAG: {DAG, File, Status, Suspended}, Errors, Definition?, LogData?, StepLog?, ScLog?}
//   POST   /api/v1/dags/{name} {action: start|suspend|stop|retry|mark-success|mark-failed|save|rename,
//                               value?, requestId?, step?, params?}   200 {} or {NewName}
//   DELETE /api/v1/dags/{name}           204
//   GET    /api/v1/search?q              {Errors, Results}
//   GET    /api/v1/tags                  {Errors, Tags}
//
// Request validation errors (1.30.2's OpenAPI validator) are text/plain 400s.
// The deliberate differences from 1.30.2 are listed in docs/web.md ("/api/v1").
#pragma once

#include "web/api_context.h"
#include "web/web_server.h"

namespace dagu::web {

void AddApiV1Routes(WebServer* server, const ApiContext* ctx);

}  // namespace dagu::web
