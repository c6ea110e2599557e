// HaCluster: the fixture of the HA process tests (tests/process/ha_*_test.cc).
// One temporary DAGU_HOME, short lock settings (T = 3s, R = 0.5s, so
// I = 0.75s and a standby looks every 0.25s) and real `dagu scheduler`
// processes on free ports, observed through /health, the lock directory,
// the service registry and the role journal -- as an operator would.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/dagu_process.h"
#include "support/ha_settings.h"
#include "support/peer_binary.h"

namespace dagu::testing {

using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;
using Ms = std::chrono::milliseconds;

inline double SecondsSince(Steady::time_point t) {
  return std::chrono::duration<double>(Steady::now() - t).count();
}

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class HaCluster : public ::testing::Test {
 protected:
  void TearDown() override {
    if (HasFailure()) {
      for (auto& p : procs_) std::cerr << p->Describe(80);
      std::cerr << "lock owner: " << ReadText(home_.owner_file()) << "\n";
    }
  }

  std::map<std::string, std::string> Env(int port) const { return ShortLockEnv(home_, port); }

  // Starts `binary args...` (our `dagu scheduler` by default) on the home.
  DaguProcess& Start(const std::string& name, std::vector<std::string> args = {"scheduler"},
                     std::map<std::string, std::string> extra_env = {}, const std::string& binary = DAGU_BINARY) {
    auto p = std::make_unique<DaguProcess>(name, home_.LogPath(name));
    p->health_port = FreePort();
    auto env = Env(p->health_port);
    for (auto& [k, v] : extra_env) env[k] = v;
    EXPECT_TRUE(p->Start(binary, args, env)) << "cannot start " << binary;
    procs_.push_back(std::move(p));
    return *procs_.back();
  }

  // Polls /health until `p` reports `role` (for "standby": also past its
  // first look at the lock, state "standby"); the moment it was seen, or nullopt.
  static std::optional<Steady::time_point> WaitForRole(DaguProcess& p, const std::string& role, Ms timeout) {
    return PollForRole(p, role, timeout, /*waiting=*/true);
  }

  // Number of processes in `ps` whose /health?role=active answers 200.
  static int ActiveCount(const std::vector<DaguProcess*>& ps) {
    int n = 0;
    for (DaguProcess* p : ps) n += p->Health(true, 300ms).http_status == 200 ? 1 : 0;
    return n;
  }

  // Runs `dagu <args>` to completion; returns its exit status and output.
  std::pair<int, std::string> Run(const std::vector<std::string>& args) {
    DaguProcess p("cmd", home_.LogPath("cmd-" + std::to_string(++commands_)));
    std::vector<std::string> a = args;
    EXPECT_TRUE(p.Start(DAGU_BINARY, a, {{"DAGU_HOME", home_.home()}}));
    std::optional<int> st = p.Wait(20s);
    return {st.value_or(-1), p.Output()};
  }

  std::vector<nlohmann::json> RegistryEntries() const {
    std::vector<nlohmann::json> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(home_.registry_dir(), ec)) {
      if (e.path().extension() != ".json") continue;
      auto j = nlohmann::json::parse(ReadText(e.path()), nullptr, false);
      if (!j.is_discarded()) out.push_back(j);
    }
    return out;
  }

  std::vector<nlohmann::json> Journal() const {
    std::vector<nlohmann::json> out;
    std::istringstream in(ReadText(home_.data_dir() + "/scheduler/role-journal.jsonl"));
    for (std::string line; std::getline(in, line);) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_discarded()) out.push_back(j);
    }
    return out;
  }

  static int CountOf(const std::string& text, const std::string& needle) {
    int n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
  }

  DaguHome home_;
  std::vector<std::unique_ptr<DaguProcess>> procs_;
  int commands_ = 0;
};

}  // namespace dagu::testing
