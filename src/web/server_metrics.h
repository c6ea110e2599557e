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
// and, when this process runs a scheduler (start-all), its own figures:
//
//   dagu_scheduler_role{role="active"|"standby"}        1 for the current role
//   dagu_scheduler_lock_renewals_total / dagu_scheduler_lock_renewal_failures_total
//   dagu_scheduler_failovers_total                      times this instance took over a stale lock
//   dagu_scheduler_activations_total                    times this instance became active
//   dagu_scheduler_last_renewal_age_seconds             since the last renewal it made or saw
//   dagu_scheduler_last_takeover_seconds                how long its last takeover took
//   dagu_scheduler_ticks_total / dagu_scheduler_runs_dispatched_total / dagu_scheduler_slots_replayed_total
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
// Every name passes `promtool check metrics`.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/clock.h"
#include "http/http_server.h"
#include "metrics/registry.h"
#include "web/api_context.h"

namespace dagu::web {

// The scheduler's own figures, as the scheduler service of this process
// reports them (the CLI adapts the scheduler's API to this). A figure the
// scheduler does not report is nullopt and its metric is left out.
struct SchedulerFigures {
  std::string instance_id;
  bool active = false;
  std::optional<uint64_t> lock_renewals;
  std::optional<uint64_t> lock_renewal_failures;
  std::optional<uint64_t> failovers;
  std::optional<uint64_t> activations;
  std::optional<uint64_t> ticks;
  std::optional<uint64_t> runs_dispatched;
  std::optional<uint64_t> slots_replayed;
  std::optional<double> last_renewal_age_seconds;
  std::optional<double> last_takeover_seconds;
};

// Returns nullopt when no scheduler runs in this process.
using SchedulerFiguresSource = std::function<std::optional<SchedulerFigures>()>;

// Adds the collectors. `ctx` must outlive the registry; `local` may be empty.
void AddServerMetrics(metrics::Registry* registry, const ApiContext* ctx, SchedulerFiguresSource local,
                      std::string version, WallTime started);
// Adds the serving loop's counters; `counters` is called at scrape time.
void AddHttpMetrics(metrics::Registry* registry, std::function<http::Counters()> counters);

}  // namespace dagu::web
