// A worker's /metrics and /health bodies (ours; Dagu 1.30.2's worker serves
// none; docs/distributed.md "Worker /metrics"), from Worker::Stats(). Pure.
//
//   dagu_worker_info{worker_id}            1
//   dagu_worker_pollers                    pollers (= worker.max_active_runs)
//   dagu_worker_running_tasks              tasks running now
//   dagu_worker_coordinator_connected      1 when the last call to a coordinator answered
//   dagu_worker_polls_total                polls answered
//   dagu_worker_poll_failures_total        polls that failed
//   dagu_worker_tasks_total{result}        tasks ended: succeeded / failed
#pragma once

#include <string>
#include <vector>

#include "distributed/worker.h"
#include "metrics/exposition.h"

namespace dagu::distributed {

std::vector<metrics::MetricFamily> WorkerMetricFamilies(const WorkerStats& stats);

// {"status":"healthy","role":"worker","workerId":...,"coordinatorConnected":...,
//  "runningTasks":...,"pollers":...}
std::string WorkerHealthJson(const WorkerStats& stats);

}  // namespace dagu::distributed
