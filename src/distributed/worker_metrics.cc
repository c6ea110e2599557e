#include "distributed/worker_metrics.h"

#include <nlohmann/json.hpp>

namespace dagu::distributed {

using metrics::MetricFamily;
using metrics::MetricType;

namespace {

MetricFamily Family(const char* name, const char* help, MetricType type) {
  MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  return f;
}

}  // namespace

std::vector<MetricFamily> WorkerMetricFamilies(const WorkerStats& s) {
  std::vector<MetricFamily> out;
  out.push_back(Family("dagu_worker_info", "This worker (its ID); always 1.", MetricType::kGauge)
                    .Add({{"worker_id", s.id}}, 1));
  out.push_back(Family("dagu_worker_pollers", "Pollers of this worker (worker.max_active_runs).", MetricType::kGauge)
                    .Add(s.total_pollers));
  out.push_back(
      Family("dagu_worker_running_tasks", "Tasks this worker is running now.", MetricType::kGauge).Add(s.busy_pollers));
  out.push_back(Family("dagu_worker_coordinator_connected",
                       "1 when the last call to a coordinator answered, else 0 (none registered or unreachable).",
                       MetricType::kGauge)
                    .Add(s.coordinator_connected ? 1 : 0));
  out.push_back(Family("dagu_worker_polls_total", "Polls a coordinator answered (with a task or not).",
                       MetricType::kCounter)
                    .Add(static_cast<double>(s.polls)));
  out.push_back(Family("dagu_worker_poll_failures_total", "Polls that failed (coordinator gone, refused, ...).",
                       MetricType::kCounter)
                    .Add(static_cast<double>(s.poll_failures)));
  out.push_back(Family("dagu_worker_tasks_total",
                       "Tasks that ended: succeeded (run agent exit 0) or failed (not started, or exit != 0).",
                       MetricType::kCounter)
                    .Add({{"result", "succeeded"}}, static_cast<double>(s.tasks_succeeded))
                    .Add({{"result", "failed"}}, static_cast<double>(s.tasks_failed)));
  return out;
}

std::string WorkerHealthJson(const WorkerStats& s) {
  nlohmann::ordered_json j;
  j["status"] = "healthy";
  j["role"] = "worker";
  j["workerId"] = s.id;
  j["coordinatorConnected"] = s.coordinator_connected;
  j["runningTasks"] = s.busy_pollers;
  j["pollers"] = s.total_pollers;
  return j.dump() + "\n";
}

}  // namespace dagu::distributed
