// Shared by the web process tests: a temp DAGU_HOME, the environment that
// pins every setting the web server and scheduler read (so the machine's own
// environment cannot leak in), and helpers to start `dagu server` /
// `dagu start-all` on free loopback ports and talk to them over HTTP.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/dagu_process.h"
#include "support/http_client.h"
#include "support/promtool.h"
#include "support/subprocess.h"

namespace dagu::testing {

using namespace std::chrono_literals;

class WebProcessTest : public ::testing::Test {
 protected:
  WebProcessTest() {
    env_["HOME"] = home_.Scratch("user");
    env_["DAGU_HOME"] = home_.home();
    env_["DAGU_SCHEDULER_LOCK_STALE_THRESHOLD"] = "3s";
    env_["DAGU_SCHEDULER_LOCK_RETRY_INTERVAL"] = "1s";
    for (const char* name : {"DAGU_PORT", "DAGU_HOST", "DAGU_TZ", "DAGU_DATA_DIR", "DAGU_DAGS", "DAGU_DAGS_DIR",
                             "DAGU_QUEUE_ENABLED", "DAGU_BASICAUTH_USERNAME", "DAGU_BASICAUTH_PASSWORD",
                             "DAGU_AUTHTOKEN", "DAGU_CERT_FILE", "DAGU_KEY_FILE", "DAGU_BASE_PATH", "XDG_DATA_HOME"}) {
      env_[name] = "";  // empty counts as unset
    }
  }

  ~WebProcessTest() override {
    for (auto& p : procs_) {
      if (p->running()) {
        p->Signal(SIGKILL);
        p->Wait(5s);
      }
    }
    for (auto& p : procs_) {
      if (::testing::Test::HasFailure()) std::cerr << p->Describe(80);
    }
  }

  void WriteConfig(const std::string& yaml) { std::ofstream(home_.home() + "/config.yaml") << yaml; }

  // Starts `dagu <command> --port P` with a scheduler health port too.
  DaguProcess* Launch(const std::string& name, const std::string& command) {
    auto p = std::make_unique<DaguProcess>(name, home_.LogPath(name));
    p->web_port = FreePort();
    p->health_port = FreePort();
    auto env = env_;
    env["DAGU_SCHEDULER_PORT"] = std::to_string(p->health_port);
    EXPECT_TRUE(p->Start(DAGU_BINARY, {command, "--host", "127.0.0.1", "--port", std::to_string(p->web_port)}, env));
    procs_.push_back(std::move(p));
    return procs_.back().get();
  }

  // Polls until the web server answers /health.
  static bool WaitWeb(DaguProcess* p, std::chrono::milliseconds timeout = 20s) {
    return PollUntil([&] { return p->Web("/health").status == 200; }, timeout, 50ms);
  }

  static HttpReply Call(DaguProcess* p, const std::string& method, const std::string& target,
                        const std::string& body = "", const std::map<std::string, std::string>& headers = {}) {
    return HttpRequest(p->web_port, method, target, body, headers);
  }
  static nlohmann::json Json(const HttpReply& r) { return nlohmann::json::parse(r.body, nullptr, false); }
  static nlohmann::json GetJson(DaguProcess* p, const std::string& target) { return Json(Call(p, "GET", target)); }

  // The roles the web API lists, e.g. {"active", "standby"} (active first).
  static std::vector<std::string> ListedRoles(DaguProcess* p) {
    std::vector<std::string> roles;
    auto j = GetJson(p, "/api/v2/services/scheduler");
    if (!j.is_object() || !j["schedulers"].is_array()) return roles;
    for (const auto& s : j["schedulers"]) roles.push_back(s.value("role", "?"));
    return roles;
  }

  // What `promtool check metrics` says of `scrape` ("" when it passes:
  // support/promtool.h).
  std::string Promtool(const std::string& scrape) {
    return PromtoolComplaint(scrape, home_.Scratch("scrape-" + std::to_string(++scratch_) + ".txt"));
  }

  DaguHome home_;
  std::map<std::string, std::string> env_;
  std::vector<std::unique_ptr<DaguProcess>> procs_;
  int scratch_ = 0;
};

}  // namespace dagu::testing
