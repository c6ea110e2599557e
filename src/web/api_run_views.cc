#include "web/api_run_views.h"

namespace dagu::web {

ApiJson SubRunDetailJson(const RunRecord& child, const std::string& params) {
  ApiJson j = ApiJson::object();
  j["dagRunId"] = child.dag_run_id;
  if (!params.empty()) j["params"] = params;
  j["status"] = static_cast<int>(child.status);
  j["statusLabel"] = RunStatusLabel(child.status);
  j["startedAt"] = child.started_at;
  j["finishedAt"] = child.finished_at;
  return j;
}

}  // namespace dagu::web
