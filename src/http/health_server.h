// HealthServer: GET /health on scheduler.port, served by every scheduler
// instance, standby included, from before its first attempt at the lock
// (spec 085 "Observability"). Body: HealthJson(); GET /health?role=active
// answers 503 on an instance that is not active (so a load balancer or probe
// can pick the active one), ?role=standby the reverse. HEAD /health answers
// the same status without a body. GET /metrics answers the Prometheus text
// exposition that SetMetrics() renders (404 when none was set). Other paths
// get 404, other methods on /health and /metrics 405.
//
// Served by http::Server (src/http/http_server.h): a whole-head deadline,
// caps on head size and header lines, per-client connection limits and its
// own two workers, so slow or idle clients cannot starve the probes. With
// options.details false the body carries only status, role and state (no
// host, pid, instance or lock holder) for ports reachable by others.
//
// Start() binds synchronously and reports a bind failure (the caller decides
// what to do: `dagu scheduler` and `start-all` refuse to start, where Dagu
// 1.30.2 logs it and carries on), then serves on its own threads.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "config/config.h"
#include "core/status.h"
#include "http/http_server.h"
#include "role/role_snapshot.h"

namespace dagu {

struct HealthServerOptions {
  std::string host = "127.0.0.1";  // "0.0.0.0" for all interfaces
  int port = 0;                    // > 0 (0 picks a free one, for tests)
  bool details = true;             // false: only status, role and state
  http::Limits limits = DefaultLimits();

  // Small: two workers, 64 connections, 16 per client, 5 s for a head, no body.
  static http::Limits DefaultLimits();
  // From the settings: config.HealthHost() (scheduler.health_host, else
  // `host`), scheduler.port, health.details.
  static HealthServerOptions FromConfig(const Config& config);
};

class HealthServer {
 public:
  using SnapshotFn = std::function<RoleSnapshot()>;

  HealthServer(HealthServerOptions options, SnapshotFn snapshot, std::string version);
  // `bind_host` "0.0.0.0" (all interfaces) or an address; `port` > 0.
  HealthServer(std::string bind_host, int port, SnapshotFn snapshot, std::string version);
  ~HealthServer();  // stops

  // The /metrics body (metrics::kTextContentType), rendered at each scrape
  // on a serving thread; call before Start().
  void SetMetrics(std::function<std::string()> render) { metrics_ = std::move(render); }

  // Binds and starts serving. IOError naming host:port when the bind fails.
  Status Start();
  void Stop();
  int port() const;

 private:
  void Handle(const http::Request& req, http::Response& res) const;

  HealthServerOptions options_;
  SnapshotFn snapshot_;
  std::string version_;
  std::function<std::string()> metrics_;
  std::unique_ptr<http::Server> server_;
};

// The /health body with details removed: {"status","role","state"} only.
std::string HealthJsonWithoutDetails(const std::string& full_json);

// The probe ports' answer to what is not a probe: 404 for a path other than
// /health (and /metrics when `serves_metrics`), 405 with Allow for a method
// other than GET and HEAD. True when it answered; false leaves the request
// to the caller. Shared by HealthServer and the worker's /metrics port.
bool AnswerNonProbe(const http::Request& req, http::Response& res, bool serves_metrics);

}  // namespace dagu
