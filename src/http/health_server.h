// HealthServer: GET /health on scheduler.port, served by every scheduler
// instance, standby included, from before its first attempt at the lock
// (spec 085 "Observability"). Body: HealthJson(); GET /health?role=active
// answers 503 on an instance that is not active (so a load balancer or probe
// can pick the active one), ?role=standby the reverse. Other paths get 404,
// other methods on /health 405.
//
// Binds all interfaces by default, like Dagu. Start() binds synchronously
// and reports a bind failure (the caller decides what to do: `dagu scheduler`
// logs it and carries on, as Dagu does), then serves on its own threads.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "core/status.h"
#include "role/role_snapshot.h"

namespace httplib {
class Server;
}

namespace dagu {

class HealthServer {
 public:
  using SnapshotFn = std::function<RoleSnapshot()>;

  // `bind_host` "0.0.0.0" (all interfaces) or an address; `port` > 0.
  HealthServer(std::string bind_host, int port, SnapshotFn snapshot, std::string version);
  ~HealthServer();  // stops

  // Binds and starts serving. IOError naming host:port when the bind fails.
  Status Start();
  void Stop();
  int port() const { return port_; }

 private:
  std::string bind_host_;
  int port_;
  SnapshotFn snapshot_;
  std::string version_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
};

}  // namespace dagu
