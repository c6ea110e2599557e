#include "ha_scenario.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

namespace dagu::conformance {
namespace {

std::string WallStamp(SysTime t) {
  auto ms = std::chrono::duration_cast<Ms>(t - std::chrono::floor<std::chrono::seconds>(t)).count();
  std::ostringstream os;
  os << dt::SlotStamp(t) << "." << std::setw(3) << std::setfill('0') << ms << "Z";
  return os.str();
}

}  // namespace

std::string Seconds(Steady::duration d) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(3) << std::chrono::duration<double>(d).count() << "s";
  return os.str();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int64_t MtimeNs(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return -1;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

std::string EveryMinuteDag(const std::string& command, const std::string& extra_root_keys) {
  return "schedule: \"* * * * *\"\n" + extra_root_keys + "steps:\n  - name: work\n    run: " + command + "\n";
}

std::string SequentialDag(const std::vector<std::string>& commands, const std::string& extra_root_keys) {
  std::string yaml = extra_root_keys + "steps:\n";
  for (size_t i = 0; i < commands.size(); ++i) {
    yaml += "  - name: step" + std::to_string(i + 1) + "\n    run: " + commands[i] + "\n";
    if (i > 0) yaml += "    depends: [step" + std::to_string(i) + "]\n";
  }
  return yaml;
}

void HaScenario::TearDown() {
  if (HasFailure()) std::cout << Evidence() << std::flush;
}

void HaScenario::Clause(const std::string& text) {
  RecordProperty("spec_clause", text);
  std::cout << "[spec 085] " << text << std::endl;
}

void HaScenario::Note(const std::string& text) {
  std::string line = "[" + Seconds(Steady::now() - started_) + " | " + WallStamp(Now()) + "] " + text;
  notes_.push_back(line);
  std::cout << line << std::endl;
}

std::map<std::string, std::string> HaScenario::BaseEnv(int health_port) const {
  std::map<std::string, std::string> env = dt::ShortLockEnv(home_, health_port);
  env["DAGU_SCHEDULER_FAILOVER_RECOVERY_WINDOW"] = "5m";
  env["DAGU_HOST"] = "127.0.0.1";
  return env;
}

dt::DaguProcess& HaScenario::Launch(const std::string& name, const std::vector<std::string>& args,
                                    const std::map<std::string, std::string>& env, int health_port, int web_port) {
  auto p = std::make_unique<dt::DaguProcess>(name, home_.LogPath(name));
  p->health_port = health_port;
  p->web_port = web_port;
  if (!p->Start(DAGU_BINARY, args, env)) ADD_FAILURE() << "could not start " << DAGU_BINARY << " for " << name;
  std::string cmdline;
  for (const auto& a : args) cmdline += " " + a;
  Note("started " + name + " (pid " + std::to_string(p->pid()) + "): dagu" + cmdline);
  procs_.push_back(std::move(p));
  return *procs_.back();
}

dt::DaguProcess& HaScenario::StartScheduler(const std::string& name, const std::map<std::string, std::string>& extra_env,
                                            const std::vector<std::string>& extra_args) {
  int port = dt::FreePort();
  auto env = BaseEnv(port);
  for (const auto& [k, v] : extra_env) env[k] = v;
  std::vector<std::string> args = {"scheduler"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  return Launch(name, args, env, port, 0);
}

dt::DaguProcess& HaScenario::StartAll(const std::string& name, const std::map<std::string, std::string>& extra_env) {
  int health_port = dt::FreePort();
  int web_port = dt::FreePort();
  auto env = BaseEnv(health_port);
  for (const auto& [k, v] : extra_env) env[k] = v;
  return Launch(name, {"start-all", "--host", "127.0.0.1", "--port", std::to_string(web_port)}, env, health_port,
                web_port);
}

std::optional<int> HaScenario::RunCommand(const std::string& name, const std::vector<std::string>& args, Ms timeout) {
  auto& p = Launch(name, args, BaseEnv(0), 0, 0);
  auto st = p.Wait(timeout);
  Note(name + " exited with " + (st ? std::to_string(*st) : std::string("(still running)")));
  return st;
}

std::optional<Steady::time_point> HaScenario::WaitForRole(dt::DaguProcess& p, const std::string& role, Ms timeout) {
  std::optional<Steady::time_point> seen = dt::PollForRole(p, role, timeout);
  const bool exited = !seen && !p.running();
  if (seen) Note(p.name() + " reports role " + role);
  if (exited) Note(p.name() + " exited while waiting for it to report role " + role);
  return seen;
}

std::pair<dt::DaguProcess*, dt::DaguProcess*> HaScenario::StartActiveAndStandby(
    const std::map<std::string, std::string>& a_env) {
  auto& a = StartScheduler("a", a_env);
  EXPECT_TRUE(WaitForRole(a, "active", 10s)) << "the first scheduler on a fresh home never became active";
  auto& b = StartScheduler("b");
  EXPECT_TRUE(WaitUntilWaiting(b, 10s)) << "the second scheduler never reported standby (waiting for the lock): "
                                        << b.Health().Describe();
  return {&a, &b};
}

bool HaScenario::KeepsRole(dt::DaguProcess& p, const std::string& role, Ms how_long) {
  auto until = Steady::now() + how_long;
  while (Steady::now() < until) {
    if (!p.running()) {
      ADD_FAILURE() << p.name() << " exited while it should have stayed " << role;
      return false;
    }
    dt::HealthReply h = p.Health();
    if (h.role != role) {
      ADD_FAILURE() << p.name() << " was expected to stay " << role << ": " << h.Describe();
      return false;
    }
    std::this_thread::sleep_for(100ms);  // sampling the role, not waiting for a condition
  }
  Note(p.name() + " stayed " + role + " for " + Seconds(how_long));
  return true;
}

bool HaScenario::WaitUntilWaiting(dt::DaguProcess& p, Ms timeout) {
  bool waiting = dt::PollForRole(p, "standby", timeout, /*waiting=*/true).has_value();
  if (waiting) Note(p.name() + " reports role standby, waiting for the lock");
  return waiting;
}

std::optional<Steady::duration> HaScenario::TakeoverAfter(dt::DaguProcess& from, int sig, dt::DaguProcess& to) {
  auto sent = Steady::now();
  from.Signal(sig);
  Note("signal " + std::to_string(sig) + " to " + from.name());
  auto active = WaitForRole(to, "active", kT + 2 * kR + 10s);
  if (!active) return std::nullopt;
  return *active - sent;
}

void HaScenario::Measure(const std::string& key, const std::string& what, Steady::duration took,
                         const std::string& bound) {
  std::cout << "[measure] " << what << ": " << Seconds(took) << " (" << bound << ")" << std::endl;
  RecordProperty(key + "_ms", static_cast<int>(std::chrono::duration_cast<Ms>(took).count()));
}

dt::DaguProcess* HaScenario::WaitForOneActive(const std::vector<dt::DaguProcess*>& procs, Ms timeout) {
  dt::DaguProcess* active = nullptr;
  dt::PollUntil(
      [&] {
        int count = 0;
        for (auto* p : procs) {
          if (p->Health(false, 250ms).role == "active") {
            active = p;
            ++count;
          }
        }
        return count == 1;
      },
      timeout, 20ms);
  if (active) Note(active->name() + " is the one active instance");
  return active;
}

std::string HaScenario::SlotId(const std::string& dag, SysTime slot) const {
  return dt::SlotRunId(home_.data_dir(), dag, slot);
}

std::vector<dt::RunRecord> HaScenario::Runs(const std::string& dag) const {
  return dt::ReadRunRecords(home_.data_dir(), dag);
}

std::optional<dt::RunRecord> HaScenario::WaitForRun(const std::string& dag, const std::string& run_id,
                                                    const std::function<bool(const dt::RunRecord&)>& pred,
                                                    Ms timeout) {
  std::optional<dt::RunRecord> found;
  dt::PollUntil(
      [&] {
        auto runs = dt::RunsWithId(Runs(dag), run_id);
        if (runs.empty() || !pred(runs.back())) return false;
        found = runs.back();
        return true;
      },
      timeout, 50ms);
  return found;
}

std::optional<dt::RunRecord> HaScenario::WaitForFinished(const std::string& dag, const std::string& run_id,
                                                         Ms timeout) {
  auto r = WaitForRun(
      dag, run_id,
      [](const dt::RunRecord& run) {
        int s = run.status_code();
        return s != -1 && s != 0 && s != dt::kRunRunning && s != dt::kRunQueued && s != 7;
      },
      timeout);
  if (r) Note("run " + run_id + " finished with status " + std::to_string(r->status_code()));
  return r;
}

void HaScenario::ExpectSlotsRanOnce(const std::string& dag, const std::vector<SysTime>& slots) {
  auto runs = Runs(dag);
  for (SysTime slot : slots) {
    std::string id = SlotId(dag, slot);
    EXPECT_EQ(dt::RunsWithId(runs, id).size(), 1u) << "slot " << dt::SlotStamp(slot) << " of " << dag << " (" << id
                                                   << ") must have exactly one run";
  }
  std::string prefix = SlotId(dag, SysTime{}).substr(0, std::string("sched-").size() + 12 + 1);
  std::map<std::string, int> seen;
  for (const auto& r : runs) {
    EXPECT_EQ(r.run_id.rfind(prefix, 0), 0u) << dag << " has a run whose ID is not a slot ID of this data directory ("
                                             << prefix << "...): " << r.Describe();
    EXPECT_EQ(++seen[r.run_id], 1) << "run ID " << r.run_id << " of " << dag << " has more than one run directory";
  }
}

void HaScenario::SleepUntil(SysTime t) {
  for (;;) {
    auto left = t - Now();
    if (left <= 0ms) return;
    // Coarse sleeps while far away, then fine ones so the moment is hit closely.
    if (left > 50ms) {
      std::this_thread::sleep_for(left - 20ms);
    } else {
      std::this_thread::sleep_for(1ms);
    }
  }
}

SysTime HaScenario::EnsureMinuteLeft(Ms lead) { return EnsureMinuteWindow(100ms, lead); }

SysTime HaScenario::EnsureMinuteWindow(Ms earliest, Ms lead) {
  SysTime minute = dt::FloorMinute(Now());
  if (minute + 1min - Now() < lead) minute += 1min;
  SleepUntil(minute + earliest);
  return minute;
}

std::string HaScenario::Evidence() {
  std::ostringstream os;
  os << "\n################ what the scenario saw ################\n";
  os << "DAGU_HOME=" << home_.home() << "\n--- timeline\n";
  for (const auto& n : notes_) os << n << "\n";
  for (auto& p : procs_) {
    os << p->Describe();
    if (p->health_port != 0 && p->running()) os << "    /health now: " << p->Health().Describe() << "\n";
  }
  os << "--- scheduler directory (lock, owner record, ledger, journal)\n"
     << dt::DumpTree(home_.data_dir() + "/scheduler");
  os << "--- service registry\n" << dt::DumpTree(home_.registry_dir());
  os << "--- queue items\n";
  for (const auto& item : dt::ListQueueItems(home_.data_dir())) os << dt::DumpTree(item);
  os << "--- run records\n";
  std::error_code ec;
  for (std::filesystem::directory_iterator it(home_.data_dir() + "/dag-runs", ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string dag = it->path().filename().string();
    for (const auto& r : Runs(dag)) os << dag << ": " << r.Describe() << "\n";
  }
  os << "#######################################################\n";
  return os.str();
}

}  // namespace dagu::conformance
