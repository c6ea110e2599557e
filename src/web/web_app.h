// WebApp: the whole web server of `dagu server` / `dagu start-all` built
// from a Config: the stores over the data directory, the DAG files, the CLI
// runner that starts runs, the REST API, /health, /metrics and the UI, on
// config.host:config.port (TLS and auth from the config).
//
//   WebApp app(config, {});
//   DAGU_RETURN_IF_ERROR(app.Start());   // binds; serves on its own threads
//   ...
//   app.Stop();                          // stops answering; idempotent
#pragma once

#include <memory>
#include <string>

#include "config/config.h"
#include "core/clock.h"
#include "core/file_system.h"
#include "core/status.h"
#include "launcher/process_spawner.h"
#include "web/server_metrics.h"

namespace dagu::web {

struct WebAppDeps {
  Clock* clock = nullptr;              // null: Clock::Real()
  FileSystem* fs = nullptr;            // null: PosixFileSystem()
  ProcessSpawner* spawner = nullptr;   // null: PosixProcessSpawner()
  SchedulerMetricsSource scheduler;    // empty in `dagu server`
  std::string version;                 // "" = this build's version
};

class WebApp {
 public:
  WebApp(const Config& config, WebAppDeps deps);
  ~WebApp();
  WebApp(const WebApp&) = delete;
  WebApp& operator=(const WebApp&) = delete;

  // Binds and starts serving. Errors name the address or the TLS files;
  // InvalidArgument (the CLI exits 78) when config.auth.error is set: auth
  // settings this binary cannot enforce are refused, never ignored.
  Status Start();
  void Stop();

  int port() const;
  std::string Url() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dagu::web
