#include "http/scheduler_metrics.h"

#include <chrono>

#include "store/worker_wait.h"

namespace dagu {
namespace {

using metrics::MetricFamily;
using metrics::MetricType;

MetricFamily Gauge(const char* name, const char* help) { return MetricFamily{name, help, MetricType::kGauge, {}}; }
MetricFamily Counter(const char* name, const char* help) { return MetricFamily{name, help, MetricType::kCounter, {}}; }
double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }
double Value(const std::atomic<uint64_t>& v) { return static_cast<double>(v.load(std::memory_order_relaxed)); }

}  // namespace

void CollectInstanceMetrics(const RoleSnapshot& s, const SchedulerCounters* counters, std::vector<MetricFamily>* out) {
  out->push_back(Gauge("dagu_scheduler_role", "The role of this scheduler instance (1 for the current role).")
                     .Add({{"role", "active"}}, s.active ? 1 : 0)
                     .Add({{"role", "standby"}}, s.active ? 0 : 1));
  out->push_back(Gauge("dagu_scheduler_role_changed_timestamp_seconds",
                       "Unix time of this instance's last role change.")
                     .Add(std::chrono::duration<double>(s.role_since.time_since_epoch()).count()));
  bool gone = s.state == RoleState::kLost || s.state == RoleState::kFailed;
  out->push_back(Gauge("dagu_scheduler_healthy",
                       "1 while this instance's role machine is healthy; 0 when the active tick loop is wedged or "
                       "the role was lost.")
                     .Add(s.healthy && !gone ? 1 : 0));
  if (s.lease_remaining) {
    out->push_back(Gauge("dagu_scheduler_lease_remaining_seconds",
                         "Active only: seconds left before this instance's lease deadline.")
                       .Add(Seconds(*s.lease_remaining)));
  }
  if (s.last_renewal_seen_age) {
    out->push_back(Gauge("dagu_scheduler_last_renewal_age_seconds",
                         "Seconds since this scheduler last renewed the lock (active) or saw it renewed (standby).")
                       .Add(Seconds(*s.last_renewal_seen_age)));
  }
  if (s.takeover) {
    out->push_back(Gauge("dagu_scheduler_last_takeover_seconds",
                         "How long this scheduler's last takeover took, from the last renewal it saw to active.")
                       .Add(Seconds(*s.takeover)));
  }
  out->push_back(Gauge("dagu_scheduler_lock_stale_threshold_seconds",
                       "This instance's lock stale threshold T (scheduler.lock_stale_threshold).")
                     .Add(Seconds(s.stale_threshold)));
  out->push_back(Gauge("dagu_scheduler_lock_retry_interval_seconds",
                       "This instance's lock retry interval R (scheduler.lock_retry_interval).")
                     .Add(Seconds(s.retry_interval)));
  if (counters == nullptr) return;
  const SchedulerCounters& c = *counters;
  out->push_back(Counter("dagu_scheduler_lock_renewals_total", "Lock renewals by this scheduler that counted.")
                     .Add(Value(c.lock_renewals)));
  out->push_back(Counter("dagu_scheduler_lock_renewal_failures_total",
                         "Lock renewals by this scheduler that failed, took longer than their deadline or came too "
                         "late.")
                     .Add(Value(c.lock_renewal_failures)));
  MetricFamily latency{"dagu_scheduler_lock_renewal_duration_seconds",
                       "How long each lock renewal attempt took, successful or not.", MetricType::kHistogram, {}};
  c.renewal_latency.AppendTo(&latency);
  out->push_back(std::move(latency));
  out->push_back(Counter("dagu_scheduler_activations_total", "Times this scheduler became active.")
                     .Add(Value(c.activations)));
  out->push_back(Counter("dagu_scheduler_failovers_total", "Times this scheduler took over a stale lock.")
                     .Add(Value(c.failovers)));
  out->push_back(Counter("dagu_scheduler_ticks_total", "Minute ticks handled while active.").Add(Value(c.ticks)));
  out->push_back(Counter("dagu_scheduler_runs_dispatched_total",
                         "Runs started by this scheduler (schedules and queued runs).")
                     .Add(Value(c.runs_dispatched)));
  out->push_back(Counter("dagu_scheduler_slots_replayed_total", "Missed slots replayed as catch-up runs.")
                     .Add(Value(c.slots_replayed)));
  out->push_back(Counter("dagu_scheduler_fenced_dispatches_refused_total",
                         "Dispatches or dispatch batches this scheduler refused because its lease had ended or the "
                         "lock was not confirmed its own.")
                     .Add(Value(c.fenced_refusals)));
  out->push_back(Counter("dagu_scheduler_dispatch_failures_total",
                         "Tries to hand a queued run of a DAG with a workerSelector to a worker that no coordinator "
                         "accepted (no coordinator, or no worker matching the selector); the run stays queued.")
                     .Add(Value(c.dispatch_failures)));
  out->push_back(Gauge("dagu_scheduler_runs_waiting_for_worker",
                       "Queued runs of DAGs with a workerSelector that no coordinator accepted at their last try, "
                       "by reason: no_coordinator (none registered), no_matching_worker (no worker matches the "
                       "selector), coordinator_failed (the coordinators failed or could not be reached).")
                     .Add({{"reason", kWaitNoCoordinator}}, Value(c.runs_waiting_no_coordinator))
                     .Add({{"reason", kWaitNoMatchingWorker}}, Value(c.runs_waiting_no_matching_worker))
                     .Add({{"reason", kWaitCoordinatorFailed}}, Value(c.runs_waiting_coordinator_failed)));
}

void CollectInstancesMetrics(const std::vector<ServiceEntry>& live, std::vector<MetricFamily>* out) {
  MetricFamily instances =
      Gauge("dagu_scheduler_instances", "Live scheduler instances by role, from the service registry.");
  MetricFamily running = Gauge("dagu_scheduler_running", "1 when a live scheduler instance is active.");
  MetricFamily ages = Gauge("dagu_scheduler_instance_last_renewal_age_seconds",
                            "Per live instance: seconds from its last renewal made (active) or seen (standby) to "
                            "its last registry report.");
  int active = 0, standby = 0;
  for (const ServiceEntry& e : live) {
    bool is_active = e.role.empty() ? e.status == kServiceStatusActive : e.role == "active";
    (is_active ? active : standby)++;
    if (e.last_renewal_seen_seconds) {
      ages.Add({{"instance", e.id}, {"role", is_active ? "active" : "standby"}}, *e.last_renewal_seen_seconds);
    }
  }
  instances.Add({{"status", "active"}}, active).Add({{"status", "standby"}}, standby);
  running.Add(active > 0 ? 1 : 0);
  out->push_back(std::move(instances));
  out->push_back(std::move(running));
  out->push_back(std::move(ages));
}

}  // namespace dagu
