// DaguHome and DaguProcess: a temporary DAGU_HOME and the `dagu` processes
// that run on it, for process-level and conformance tests that drive the real
// binary the way an operator does (signals, HTTP, files).
//
//   DaguHome home;
//   home.WriteDag("every-minute", "schedule: \"* * * * *\"\nsteps: ...");
//   DaguProcess a("a", home.LogPath("a"));
//   a.Start(DAGU_BINARY, {"scheduler"}, env_with_ports);
//   a.Health().role == "active";
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu::testing {

// A DAGU_HOME in a fresh temporary directory (unified layout: dags/, data/,
// logs/), removed when the object goes.
class DaguHome {
 public:
  DaguHome();

  const std::string& home() const { return home_; }
  std::string dags_dir() const { return home_ + "/dags"; }
  std::string data_dir() const { return home_ + "/data"; }
  std::string lock_dir() const { return data_dir() + "/scheduler/locks/.dagu_lock"; }
  std::string owner_file() const { return lock_dir() + "/owner"; }
  std::string registry_dir() const { return data_dir() + "/service-registry/scheduler"; }
  // A path outside the home for a process's captured output.
  std::string LogPath(const std::string& name) const { return tmp_.Sub("proc-" + name + ".log"); }
  // A path outside the home for anything else a test needs (markers, ...).
  std::string Scratch(const std::string& name) const { return tmp_.Sub(name); }

  // Writes <dir>/<name>.yaml (dir defaults to dags_dir()); returns its path.
  std::string WriteDag(const std::string& name, const std::string& yaml, const std::string& dir = "") const;

 private:
  TempDir tmp_;
  std::string home_;
};

struct HealthReply {
  int http_status = 0;        // 0: no answer
  nlohmann::json body;        // null when the body is not JSON
  std::string role;           // body["role"] when it is a string
  std::string Describe() const;
};

// One `dagu` process: its command line, ports and captured output.
class DaguProcess {
 public:
  DaguProcess(std::string name, std::string log_path) : name_(std::move(name)), log_path_(std::move(log_path)) {}

  // Starts `binary args...` with `env` added to this process's environment.
  bool Start(const std::string& binary, const std::vector<std::string>& args,
             const std::map<std::string, std::string>& env);

  const std::string& name() const { return name_; }
  pid_t pid() const { return proc_.pid(); }
  int health_port = 0;  // scheduler.port
  std::string health_address = "127.0.0.1";  // where /health is reached (another namespace's address)
  int web_port = 0;     // the web server's port (start-all / server), 0 if none

  // GET /health (or /health?role=active) on health_port.
  HealthReply Health(bool role_active = false,
                     std::chrono::milliseconds timeout = std::chrono::milliseconds(500)) const;
  // GET `target` on web_port.
  HttpResponse Web(const std::string& target,
                   std::chrono::milliseconds timeout = std::chrono::milliseconds(1000)) const;

  bool running() { return proc_.running(); }
  void Signal(int sig) { proc_.Signal(sig); }
  // Exit status (128+signal when killed) or nullopt when still running at the deadline.
  std::optional<int> Wait(std::chrono::milliseconds timeout);
  // The exit status if it has exited (without waiting).
  std::optional<int> exit_status() { return proc_.running() ? std::nullopt : proc_.Wait(std::chrono::milliseconds(0)); }
  std::string Output() const { return proc_.Output(); }
  // Name, command line, pid, ports, exit status and the last `max_lines` of output.
  std::string Describe(size_t max_lines = 200);

 private:
  std::string name_;
  std::string log_path_;
  std::vector<std::string> argv_;
  Subprocess proc_;
};

}  // namespace dagu::testing
