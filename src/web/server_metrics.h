// The /metrics content of `dagu server` and `dagu start-all`, computed at
// scrape time (so nothing goes stale between scrapes):
//
//   dagu_info{version}                                  1
//   dagu_uptime_seconds                                 since the process started
//   dagu_scheduler_instances{status="active"|"standby"} live service-registry entries (stale ones excluded)
//   dagu_scheduler_running                              1 when any live instance is active (Dagu's metric)
//   dagu_scheduler_instance_last_renewal_age_seconds{instance,role}
//                                                       per live instance, as of its last registry report
//   dagu_dags                                           DAG files in the DAG directory
//   dagu_queue_depth{queue}                             queue items waiting
//   dagu_queue_running{queue}                           live runs in the queue's proc group
//   dagu_dag_runs_today{status}                         runs created since 00:00 UTC, by latest status
//
// and, when this process runs a scheduler (start-all), that instance's own
// families (dagu_scheduler_role, _lock_renewals_total, ...; the list is in
// src/http/scheduler_metrics.h, the one place that writes them),
//
// and the web port's serving loop (http::Counters):
//
//   dagu_web_connections                                connections open now
//   dagu_web_connections_accepted_total
//   dagu_web_connections_dropped_total{reason}          refused (no room), evicted (room made for a
//                                                       newer one), idle (nothing sent), timeout (408)
//   dagu_web_requests_total{outcome}                    handled, rejected (answered by the loop: 4xx
//                                                       before a handler), busy (503: queue full)
//
// and, from WebApp itself, dagu_web_warm_up_done (1 once its background reads
// at start have ended: web/warm_up.h).
//
// Every name passes `promtool check metrics`.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "http/http_server.h"
#include "metrics/registry.h"
#include "web/api_context.h"

namespace dagu::web {

// Appends the families of the scheduler running in this process
// (CollectInstanceMetrics); empty in `dagu server`.
using SchedulerMetricsSource = std::function<void(std::vector<metrics::MetricFamily>*)>;

// Adds the collectors. `ctx` must outlive the registry; `local` may be empty.
void AddServerMetrics(metrics::Registry* registry, const ApiContext* ctx, SchedulerMetricsSource local,
                      std::string version, WallTime started);
// Adds the serving loop's counters; `counters` is called at scrape time.
void AddHttpMetrics(metrics::Registry* registry, std::function<http::Counters()> counters);

}  // namespace dagu::web
