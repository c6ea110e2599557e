#include "http/health_server.h"

#include <nlohmann/json.hpp>

#include "http/health_json.h"
#include "core/json_text.h"
#include "metrics/exposition.h"

namespace dagu {

http::Limits HealthServerOptions::DefaultLimits() {
  http::Limits l;
  l.head.max_head_bytes = 8 * 1024;
  l.head.max_request_line = 4 * 1024;
  l.head.max_header_count = 50;
  l.max_body_bytes = 0;
  l.max_connections = 64;
  l.max_connections_per_client = 16;
  l.workers = 2;
  l.priority_workers = 0;
  l.max_queued = 32;
  l.idle_timeout = std::chrono::seconds(5);
  l.head_timeout = std::chrono::seconds(5);
  l.body_timeout = std::chrono::seconds(5);
  l.write_timeout = std::chrono::seconds(5);
  return l;
}

HealthServerOptions HealthServerOptions::FromConfig(const Config& config) {
  HealthServerOptions o;
  o.host = config.HealthHost();
  o.port = config.scheduler.port;
  o.details = config.health.details;
  return o;
}

std::string HealthJsonWithoutDetails(const std::string& full_json) {
  nlohmann::ordered_json full = nlohmann::ordered_json::parse(full_json, nullptr, false);
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (full.is_object()) {
    for (const char* key : {"status", "role", "state"}) {
      if (full.contains(key)) out[key] = full[key];
    }
  }
  return JsonText(out) + "\n";
}

HealthServer::HealthServer(HealthServerOptions options, SnapshotFn snapshot, std::string version)
    : options_(std::move(options)), snapshot_(std::move(snapshot)), version_(std::move(version)) {}

HealthServer::HealthServer(std::string bind_host, int port, SnapshotFn snapshot, std::string version)
    : HealthServer(
          [&] {
            HealthServerOptions o;
            o.host = std::move(bind_host);
            o.port = port;
            return o;
          }(),
          std::move(snapshot), std::move(version)) {}

HealthServer::~HealthServer() { Stop(); }

bool AnswerNonProbe(const http::Request& req, http::Response& res, bool serves_metrics) {
  if (req.path != "/health" && !(serves_metrics && req.path == "/metrics")) {
    res.status = 404;
    res.set_content("{\"error\":\"not found\"}\n", "application/json");
    return true;
  }
  if (req.method != "GET" && req.method != "HEAD") {
    res.status = 405;
    res.set_header("Allow", "GET, HEAD");
    return true;
  }
  return false;
}

void HealthServer::Handle(const http::Request& req, http::Response& res) const {
  if (AnswerNonProbe(req, res, metrics_ != nullptr)) return;
  if (req.path == "/metrics") {
    res.status = 200;
    res.set_content(metrics_(), metrics::kTextContentType);
    res.set_header("Cache-Control", "no-store");
    return;
  }
  RoleSnapshot s = snapshot_();
  std::string want = req.has_param("role") ? req.get_param_value("role") : "";
  res.status = HealthStatusCode(s, want);
  if (res.status == 400) {
    res.set_content("{\"error\":\"role must be active or standby\"}\n", "application/json");
    return;
  }
  std::string body = HealthJson(s, version_);
  res.set_content(options_.details ? body : HealthJsonWithoutDetails(body), "application/json");
  res.set_header("Cache-Control", "no-store");
}

Status HealthServer::Start() {
  if (server_) return Status::OK();
  http::Options o;
  o.name = "health";
  o.host = options_.host;
  o.port = options_.port;
  o.limits = options_.limits;
  http::Handlers h;
  h.handle = [this](const http::Request& req, http::Response& res) { Handle(req, res); };
  h.error = [](int status, const std::string& message, http::Response& res) {
    res.status = status;
    res.set_content(JsonText(nlohmann::json{{"error", message}}) + "\n", "application/json");
  };
  auto server = std::make_unique<http::Server>(o, h);
  Status s = server->Start();
  if (!s.ok()) {
    return Status::IOError(s.message() + " (the /health port, scheduler.port)");
  }
  server_ = std::move(server);
  return Status::OK();
}

void HealthServer::Stop() {
  if (server_) server_->Stop();
  server_.reset();
}

int HealthServer::port() const { return server_ ? server_->port() : options_.port; }

}  // namespace dagu
