#include "http/health_server.h"

#include <httplib.h>

#include <chrono>

#include "http/health_json.h"

namespace dagu {

HealthServer::HealthServer(std::string bind_host, int port, SnapshotFn snapshot, std::string version)
    : bind_host_(std::move(bind_host)), port_(port), snapshot_(std::move(snapshot)), version_(std::move(version)) {}

HealthServer::~HealthServer() { Stop(); }

Status HealthServer::Start() {
  server_ = std::make_unique<httplib::Server>();
  server_->new_task_queue = [] { return new httplib::ThreadPool(2); };
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, which would let a
  // second scheduler bind the same port and answer half the probes.
  server_->set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server_->set_read_timeout(10, 0);
  server_->set_write_timeout(5, 0);
  server_->set_keep_alive_max_count(10);
  server_->Get("/health", [this](const httplib::Request& req, httplib::Response& res) {
    RoleSnapshot s = snapshot_();
    std::string want = req.has_param("role") ? req.get_param_value("role") : "";
    res.status = HealthStatusCode(s, want);
    if (res.status == 400) {
      res.set_content("{\"error\":\"role must be active or standby\"}\n", "application/json");
      return;
    }
    res.set_content(HealthJson(s, version_), "application/json");
  });
  auto not_allowed = [](const httplib::Request&, httplib::Response& res) {
    res.status = 405;
    res.set_header("Allow", "GET");
  };
  server_->Post("/health", not_allowed);
  server_->Put("/health", not_allowed);
  server_->Delete("/health", not_allowed);
  server_->Patch("/health", not_allowed);
  if (!server_->bind_to_port(bind_host_, port_)) {
    server_.reset();
    return Status::IOError("cannot listen on " + bind_host_ + ":" + std::to_string(port_) +
                           " for /health (scheduler.port): address in use or not allowed");
  }
  thread_ = std::thread([s = server_.get()] { s->listen_after_bind(); });
  // httplib's stop() is a no-op until the listen loop runs: wait for it, so
  // that an early Stop() cannot leave the thread listening forever.
  for (int i = 0; i < 5000 && !server_->is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return Status::OK();
}

void HealthServer::Stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

}  // namespace dagu
