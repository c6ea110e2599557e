#include "web/server_metrics.h"

#include <map>
#include <set>

#include "core/time_format.h"
#include "http/scheduler_metrics.h"

namespace dagu::web {
namespace {

using metrics::MetricFamily;
using metrics::MetricType;

MetricFamily Gauge(const char* name, const char* help) { return MetricFamily{name, help, MetricType::kGauge, {}}; }
MetricFamily Counter(const char* name, const char* help) { return MetricFamily{name, help, MetricType::kCounter, {}}; }

void CollectQueues(const ApiContext& ctx, std::vector<MetricFamily>* out) {
  MetricFamily dags = Gauge("dagu_dags", "DAG files in the DAG directory.");
  MetricFamily depth = Gauge("dagu_queue_depth", "Queued runs waiting per queue.");
  MetricFamily running = Gauge("dagu_queue_running", "Live runs per queue (proc group).");
  std::vector<DagFile> files;
  std::set<std::string> groups;
  if (ctx.dags->List(/*metadata_only=*/true, &files).ok()) {
    dags.Add(static_cast<double>(files.size()));
    for (const DagFile& f : files) {
      if (f.dag) groups.insert(f.dag->ProcGroup());
    }
  }
  std::vector<std::string> queues;
  if (ctx.queues->ListQueues(&queues).ok()) groups.insert(queues.begin(), queues.end());
  for (const auto& [name, limit] : ctx.global_queues) groups.insert(name);
  for (const std::string& q : groups) {
    std::vector<QueueItem> items;
    if (ctx.queues->List(q, &items).ok()) depth.Add({{"queue", q}}, static_cast<double>(items.size()));
    if (StatusOr<int> alive = ctx.procs->CountAlive(q); alive.ok()) running.Add({{"queue", q}}, *alive);
  }
  out->push_back(std::move(dags));
  out->push_back(std::move(depth));
  out->push_back(std::move(running));
}

void CollectRuns(const ApiContext& ctx, std::vector<MetricFamily>* out) {
  MetricFamily runs = Gauge("dagu_dag_runs_today", "DAG runs created since 00:00 UTC, by latest status.");
  std::map<RunStatus, int> counts;
  for (int s = 0; s <= 8; ++s) counts[static_cast<RunStatus>(s)] = 0;
  // Not through the day index (a closed range with summaries would be): it
  // would keep every run of today, two inotify watches each, and at ~33,000
  // runs a day that takes the watch budget the API's lists need
  // (docs/web.md, "At scale").
  RunQuery q;
  q.from = FromUnixSeconds(UnixSeconds(ctx.clock->Now()) / 86400 * 86400);
  q.limit = 0;
  std::vector<RunEntry> entries;
  if (ctx.runs->ListRuns(q, &entries).ok()) {
    for (const RunEntry& e : entries) {
      if (e.error.ok()) counts[e.record.status]++;
    }
  }
  for (const auto& [status, n] : counts) runs.Add({{"status", RunStatusLabel(status)}}, n);
  out->push_back(std::move(runs));
}

}  // namespace

void AddServerMetrics(metrics::Registry* registry, const ApiContext* ctx, SchedulerMetricsSource local,
                      std::string version, WallTime started) {
  registry->AddCollector([ctx, version, started](std::vector<MetricFamily>* out) {
    out->push_back(Gauge("dagu_info", "Build information.").Add({{"version", version}}, 1));
    double uptime = std::chrono::duration<double>(ctx->clock->Now() - started).count();
    out->push_back(Gauge("dagu_uptime_seconds", "Seconds since the server started.").Add(uptime));
    std::vector<ServiceEntry> live;  // a registry that cannot be read gives zero instances
    if (!ctx->registry->List(kSchedulerServiceName, ctx->clock->Now(), kServiceEntryStaleAfter, &live).ok()) live.clear();
    CollectInstancesMetrics(live, out);
    CollectQueues(*ctx, out);
    CollectRuns(*ctx, out);
  });
  if (local) registry->AddCollector(std::move(local));
}

void AddHttpMetrics(metrics::Registry* registry, std::function<http::Counters()> counters) {
  registry->AddCollector([counters](std::vector<MetricFamily>* out) {
    http::Counters c = counters();
    out->push_back(Gauge("dagu_web_connections", "Connections open on the web port.").Add(static_cast<double>(c.open)));
    out->push_back(Counter("dagu_web_connections_accepted_total", "Connections accepted on the web port.")
                       .Add(static_cast<double>(c.accepted)));
    out->push_back(Counter("dagu_web_connections_dropped_total",
                           "Connections the web port closed early: refused (no room), evicted (room made for a "
                           "newer one), idle (nothing sent in time), timeout (request not received in time).")
                       .Add({{"reason", "refused"}}, static_cast<double>(c.refused))
                       .Add({{"reason", "evicted"}}, static_cast<double>(c.evicted))
                       .Add({{"reason", "idle"}}, static_cast<double>(c.idle_closed))
                       .Add({{"reason", "timeout"}}, static_cast<double>(c.head_timeouts)));
    out->push_back(Counter("dagu_web_requests_total",
                           "Requests on the web port: handled, rejected by the serving loop before a handler "
                           "(4xx), busy (503, worker queue full).")
                       .Add({{"outcome", "handled"}}, static_cast<double>(c.handled))
                       .Add({{"outcome", "rejected"}}, static_cast<double>(c.rejected))
                       .Add({{"outcome", "busy"}}, static_cast<double>(c.busy)));
  });
}

}  // namespace dagu::web
