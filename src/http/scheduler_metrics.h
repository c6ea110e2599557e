// Scheduler metrics: the families a scheduler instance exports, in one
// place, for /metrics on scheduler.port (HealthServer) and for the web
// server of `dagu start-all`. Every name passes `promtool check metrics`.
//
// This instance (CollectInstanceMetrics), from its RoleSnapshot and
// SchedulerCounters:
//
//   dagu_scheduler_role{role="active"|"standby"}          1 for the current role
//   dagu_scheduler_role_changed_timestamp_seconds        Unix time of the last role change
//   dagu_scheduler_healthy                               0 when the active tick loop is wedged or the role lost
//   dagu_scheduler_lease_remaining_seconds               active: time left before the lease deadline
//   dagu_scheduler_last_renewal_age_seconds              since the last renewal made (active) or seen (standby)
//   dagu_scheduler_lock_renewals_total                   renewals that counted
//   dagu_scheduler_lock_renewal_failures_total           failed, too slow or too late
//   dagu_scheduler_lock_renewal_duration_seconds         histogram of every renewal attempt's latency
//   dagu_scheduler_activations_total                     times this instance became active
//   dagu_scheduler_failovers_total                       activations that took over a stale lock
//   dagu_scheduler_last_takeover_seconds                 last renewal of the previous holder seen -> active
//   dagu_scheduler_ticks_total                           minute ticks handled
//   dagu_scheduler_runs_dispatched_total                 runs started by the ticker and the queue consumer
//   dagu_scheduler_slots_replayed_total                  missed slots enqueued as catch-up runs
//   dagu_scheduler_fenced_dispatches_refused_total       dispatches or batches refused by the lease fence
//   dagu_scheduler_dispatch_failures_total               queued runs of DAGs with a workerSelector not accepted
//                                                        by a coordinator (docs/distributed.md)
//   dagu_scheduler_runs_waiting_for_worker{reason}       such runs waiting now (their last try failed), by
//                                                        reason (store/worker_wait.h: no_coordinator,
//                                                        no_matching_worker, coordinator_failed)
//   dagu_scheduler_lease_stale_threshold_seconds         T, and dagu_scheduler_lock_retry_interval_seconds R
//                                                        (for alert rules on the takeover bound T + 2R)
//
// The installation (CollectInstancesMetrics), from the live entries of the
// service registry (ServiceRegistry::List with kServiceEntryStaleAfter):
//
//   dagu_scheduler_instances{status="active"|"standby"}
//   dagu_scheduler_running                               1 when a live instance is active (Dagu's metric)
//   dagu_scheduler_instance_last_renewal_age_seconds{instance,role}
#pragma once

#include <vector>

#include "metrics/exposition.h"
#include "role/role_snapshot.h"
#include "role/scheduler_counters.h"
#include "store/service_registry.h"

namespace dagu {

// `counters` may be null (only the snapshot's families are written).
void CollectInstanceMetrics(const RoleSnapshot& snapshot, const SchedulerCounters* counters,
                            std::vector<metrics::MetricFamily>* out);

void CollectInstancesMetrics(const std::vector<ServiceEntry>& live, std::vector<metrics::MetricFamily>* out);

}  // namespace dagu
