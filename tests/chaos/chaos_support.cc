#include "chaos_support.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

namespace dagu::chaos {
namespace {

namespace fs = std::filesystem;

constexpr char kNsenter[] = "/usr/bin/nsenter";
constexpr char kUnshare[] = "/usr/bin/unshare";
constexpr char kIp[] = "/usr/sbin/ip";
constexpr char kSh[] = "/bin/sh";
constexpr char kFakeTimeLib[] = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";

// What a regular file holds; "" for anything else (a FIFO a test put there
// must not block the harness).
std::string ReadText(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return "";
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAtomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::ofstream(tmp, std::ios::binary | std::ios::trunc) << text;
  fs::rename(tmp, path);
}

int g_scratch_counter = 0;

}  // namespace

CommandResult RunCommand(const std::vector<std::string>& argv, Ms timeout,
                         const std::map<std::string, std::string>& env) {
  CommandResult r;
  dt::TempDir tmp;
  dt::Subprocess p;
  if (!p.Start(argv, env, tmp.Sub("out.log"))) return r;
  r.status = p.Wait(timeout).value_or(-1);
  r.output = p.Output();
  return r;
}

std::string MissingForChaos(bool need_fuse) {
  if (::geteuid() != 0) return "needs root (namespaces, FUSE mounts)";
  for (const char* tool : {kNsenter, kUnshare, kIp}) {
    if (::access(tool, X_OK) != 0) return std::string("needs ") + tool + " (util-linux, iproute2)";
  }
  if (need_fuse) {
    if (::access("/dev/fuse", R_OK | W_OK) != 0) return "needs /dev/fuse";
    if (::access(FAULTFS_BINARY, X_OK) != 0) return "needs faultfs (libfuse3-dev at build time)";
  }
  return "";
}

std::map<std::string, std::string> FakeTimeEnv(const std::string& offset) {
  return {{"LD_PRELOAD", kFakeTimeLib}, {"FAKETIME", offset}, {"DONT_FAKE_MONOTONIC", "1"}};
}

std::map<std::string, std::string> FakeTimeFileEnv(const std::string& clock_file) {
  return {{"LD_PRELOAD", kFakeTimeLib},
          {"FAKETIME_TIMESTAMP_FILE", clock_file},
          {"FAKETIME_NO_CACHE", "1"},
          {"DONT_FAKE_MONOTONIC", "1"}};
}

void SetFakeTime(const std::string& clock_file, const std::string& offset) {
  WriteAtomically(clock_file, offset + "\n");
}

// --- Host -------------------------------------------------------------------

Host::~Host() {
  if (!veth_.empty()) (void)RunCommand({kIp, "link", "del", veth_}, 5000ms);
  holder_.Signal(SIGKILL);
  (void)holder_.Wait(5000ms);
}

bool Host::Start(const std::string& name, int index, const Options& options, const std::string& scratch,
                 std::string* error) {
  name_ = name;
  options_ = options;
  fs::create_directories(scratch);
  std::string ready = scratch + "/host-" + name + ".ready";
  std::vector<std::string> argv{kUnshare, "--mount", "--propagation", "private"};
  std::string script;
  if (!options.hostname.empty()) {
    argv.push_back("--uts");
    script += "hostname " + options.hostname + " || exit 1; ";
  }
  if (options.own_network) {
    argv.push_back("--net");
    script += std::string(kIp) + " link set lo up || exit 1; ";
  }
  // The holder lives as long as this test process.
  script += "touch " + ready + "; while kill -0 " + std::to_string(::getpid()) + " 2>/dev/null; do sleep 1; done";
  argv.insert(argv.end(), {"--", kSh, "-c", script});
  if (!holder_.Start(argv, {}, scratch + "/host-" + name + ".log")) {
    *error = "cannot start the namespace holder of host " + name;
    return false;
  }
  if (!dt::PollUntil([&] { return fs::exists(ready) || !holder_.running(); }, 10000ms, 10ms) ||
      !fs::exists(ready)) {
    *error = "host " + name + " did not come up: " + holder_.Output();
    return false;
  }
  if (!options.own_network) return true;
  // veth pair: dgc<pid><index> here, eth0 in the host; 10.<100+index>.<pid>.1/.2.
  veth_ = "dgc" + std::to_string(::getpid() % 100000) + "x" + std::to_string(index);
  std::string net = "10." + std::to_string(100 + index) + "." + std::to_string(::getpid() % 250);
  std::string pid = std::to_string(holder_.pid());
  address_ = net + ".2";
  std::vector<std::vector<std::string>> steps{
      {kIp, "link", "add", veth_, "type", "veth", "peer", "name", "eth0", "netns", pid},
      {kIp, "addr", "add", net + ".1/30", "dev", veth_},
      {kIp, "link", "set", veth_, "up"},
      {kNsenter, "-t", pid, "--net", "--", kIp, "addr", "add", address_ + "/30", "dev", "eth0"},
      {kNsenter, "-t", pid, "--net", "--", kIp, "link", "set", "eth0", "up"},
  };
  for (const auto& step : steps) {
    CommandResult r = RunCommand(step, 10000ms);
    if (r.status != 0) {
      std::string cmd;
      for (const auto& a : step) cmd += a + " ";
      *error = "host " + name + ": " + cmd + "failed: " + r.output;
      return false;
    }
  }
  return true;
}

bool Host::SetLink(bool up, std::string* error) {
  if (!options_.own_network) {
    *error = "host " + name_ + " has no network of its own";
    return false;
  }
  CommandResult r = RunCommand(Wrap({kIp, "link", "set", "eth0", up ? "up" : "down"}), 10000ms);
  if (r.status != 0) {
    *error = "host " + name_ + ": ip link set eth0 " + (up ? "up" : "down") + " failed: " + r.output;
    return false;
  }
  return true;
}

std::vector<std::string> Host::Wrap(const std::vector<std::string>& argv) const {
  std::vector<std::string> out{kNsenter, "-t", std::to_string(holder_.pid()), "--mount"};
  if (!options_.hostname.empty()) out.push_back("--uts");
  if (options_.own_network) out.push_back("--net");
  out.push_back("--");
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

// --- FaultFs ----------------------------------------------------------------

FaultFs::~FaultFs() { Unmount(); }

bool FaultFs::Mount(const Host& host, const std::string& backing, const std::string& mountpoint,
                    const std::string& fuse_options, const std::string& scratch, std::string* error) {
  host_ = &host;
  mountpoint_ = mountpoint;
  std::string tag = std::to_string(++g_scratch_counter);
  rules_path_ = scratch + "/faultfs-" + tag + ".rules";
  log_path_ = scratch + "/faultfs-" + tag + ".hits";
  fs::create_directories(backing);
  fs::create_directories(mountpoint);
  SetRules("");
  std::string options = fuse_options.empty() ? "attr_timeout=0,entry_timeout=0,negative_timeout=0" : fuse_options;
  proc_ = std::make_unique<dt::Subprocess>();
  std::vector<std::string> argv = host.Wrap({FAULTFS_BINARY, "--backing=" + backing, "--rules=" + rules_path_,
                                             "--log=" + log_path_, mountpoint, "-f", "-o",
                                             options + ",fsname=faultfs,subtype=faultfs"});
  if (!proc_->Start(argv, {}, scratch + "/faultfs-" + tag + ".log")) {
    *error = "cannot start faultfs";
    return false;
  }
  auto mounted = [&] {
    return ReadText("/proc/" + std::to_string(proc_->pid()) + "/mountinfo").find(" " + mountpoint + " ") !=
           std::string::npos;
  };
  if (!dt::PollUntil([&] { return mounted() || !proc_->running(); }, 10000ms, 10ms) || !mounted()) {
    *error = "faultfs did not mount " + mountpoint + ": " + proc_->Output();
    return false;
  }
  return true;
}

void FaultFs::SetRules(const std::string& rules) {
  if (!rules_path_.empty()) WriteAtomically(rules_path_, rules);
}

bool FaultFs::WaitForHit(const std::string& needle, Ms timeout) const {
  return dt::PollUntil([&] { return ReadText(log_path_).find(needle) != std::string::npos; }, timeout, 10ms);
}

std::string FaultFs::Hits() const { return ReadText(log_path_); }

void FaultFs::Unmount() {
  if (!proc_) return;
  SetRules("");
  proc_->Signal(SIGTERM);
  if (!proc_->Wait(5000ms)) {
    proc_->Signal(SIGKILL);
    (void)proc_->Wait(5000ms);
    if (host_ != nullptr) (void)RunCommand(host_->Wrap({"/usr/bin/umount", "-l", mountpoint_}), 5000ms);
  }
  proc_.reset();
}

// --- Cluster ----------------------------------------------------------------

Cluster::Cluster(std::string home_seen, std::string home_backing, std::string scratch)
    : home_seen_(std::move(home_seen)), home_backing_(std::move(home_backing)), scratch_(std::move(scratch)) {
  fs::create_directories(home_backing_ + "/dags");
  fs::create_directories(scratch_);
  std::ofstream(executions_file(), std::ios::app);
}

void Cluster::WriteDag(const std::string& name, const std::string& schedule, const std::string& extra) {
  std::string yaml;
  if (!schedule.empty()) yaml += "schedule: \"" + schedule + "\"\n";
  yaml += "steps:\n  - name: mark\n    command: sh -c 'echo $DAG_RUN_ID >> " + executions_file() + "; " + extra +
          "'\n";
  WriteDagYaml(name, yaml);
}

void Cluster::WriteDagYaml(const std::string& name, const std::string& yaml) {
  WriteAtomically(home_backing_ + "/dags/" + name + ".yaml", yaml);
}

std::map<std::string, std::string> Cluster::Env(int port, Ms t, Ms r) const {
  auto go = [](Ms d) { return std::to_string(d.count()) + "ms"; };
  return {{"DAGU_HOME", home_seen_},
          {"DAGU_SCHEDULER_LOCK_STALE_THRESHOLD", go(t)},
          {"DAGU_SCHEDULER_LOCK_RETRY_INTERVAL", go(r)},
          {"DAGU_SCHEDULER_FAILOVER_RECOVERY_WINDOW", "5m"},
          {"DAGU_SCHEDULER_PORT", std::to_string(port)},
          {"DAGU_SCHEDULER_HEALTH_HOST", "0.0.0.0"},
          {"DAGU_TZ", "UTC"}};
}

dt::DaguProcess& Cluster::Launch(const std::string& name, const Placement& where) {
  auto p = std::make_unique<dt::DaguProcess>(name, scratch_ + "/proc-" + name + "-" +
                                                       std::to_string(++generation_) + ".log");
  p->health_port = where.port;
  if (where.host != nullptr) p->health_address = where.host->address();
  auto env = Env(where.port, where.t, where.r);
  for (const auto& [k, v] : where.extra_env) env[k] = v;
  std::vector<std::string> argv{DAGU_BINARY};
  argv.insert(argv.end(), where.args.begin(), where.args.end());
  if (where.host != nullptr) argv = where.host->Wrap(argv);
  std::vector<std::string> rest(argv.begin() + 1, argv.end());
  EXPECT_TRUE(p->Start(argv[0], rest, env)) << "cannot start " << name;
  placement_[p.get()] = where;
  procs_.push_back(std::move(p));
  return *procs_.back();
}

dt::DaguProcess& Cluster::Start(const std::string& name, Host* host, Ms t, Ms r,
                                const std::map<std::string, std::string>& extra_env,
                                const std::vector<std::string>& args) {
  Placement where{host, t, r, extra_env, args, dt::FreePort()};
  return Launch(name, where);
}

dt::DaguProcess& Cluster::Restart(dt::DaguProcess& p) {
  Placement where = placement_.at(&p);
  std::string name = p.name();
  return Launch(name, where);
}

std::vector<dt::DaguProcess*> Cluster::Running() {
  std::vector<dt::DaguProcess*> out;
  for (auto& p : procs_) {
    if (p->running()) out.push_back(p.get());
  }
  return out;
}

std::vector<dt::DaguProcess*> Cluster::All() {
  std::vector<dt::DaguProcess*> out;
  for (auto& p : procs_) out.push_back(p.get());
  return out;
}

CommandResult Cluster::Dagu(const std::vector<std::string>& args, Host* host, Ms timeout) {
  std::vector<std::string> argv{DAGU_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  if (host != nullptr) argv = host->Wrap(argv);
  dt::Subprocess p;
  CommandResult r;
  if (!p.Start(argv, {{"DAGU_HOME", home_seen_}, {"DAGU_TZ", "UTC"}},
               scratch_ + "/cmd-" + std::to_string(++commands_) + ".log")) {
    return r;
  }
  r.status = p.Wait(timeout).value_or(-1);
  r.output = p.Output();
  return r;
}

std::vector<dt::DaguProcess*> Cluster::Actives() {
  std::vector<dt::DaguProcess*> out;
  for (dt::DaguProcess* p : Running()) {
    if (p->Health(true, 400ms).http_status == 200) out.push_back(p);
  }
  return out;
}

dt::DaguProcess* Cluster::WaitForOneActive(Ms timeout) {
  dt::DaguProcess* active = nullptr;
  dt::PollUntil(
      [&] {
        auto a = Actives();
        active = a.size() == 1 ? a[0] : nullptr;
        return active != nullptr;
      },
      timeout, 50ms);
  return active;
}

std::optional<Steady::time_point> Cluster::WaitForRole(dt::DaguProcess& p, const std::string& role, Ms timeout) {
  std::optional<Steady::time_point> seen;
  dt::PollUntil(
      [&] {
        dt::HealthReply h = p.Health(false, 300ms);
        if (h.role != role) return false;
        if (role == "standby" && h.body.value("state", "") != "standby") return false;
        seen = Steady::now();
        return true;
      },
      timeout, 20ms);
  return seen;
}

std::map<std::string, int> Cluster::Executions() const {
  std::map<std::string, int> out;
  std::istringstream in(ReadText(executions_file()));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) ++out[line];
  }
  return out;
}

SlotCounts Cluster::CountSlots(const std::string& dag, SysTime from, SysTime to) const {
  SlotCounts c;
  auto runs = dt::ReadRunRecords(data_backing(), dag);
  auto executions = Executions();
  std::ostringstream details;
  for (SysTime slot = Minute(from); slot <= to; slot += std::chrono::minutes(1)) {
    ++c.due;
    std::string id = dt::SlotRunId(data_seen(), dag, slot);
    auto same = dt::RunsWithId(runs, id);
    int attempts = 0;
    for (const auto& r : same) attempts += static_cast<int>(r.attempt_dirs.size());
    int executed = executions.count(id) ? executions.at(id) : 0;
    if (same.empty() && executed == 0) {
      ++c.missed;
      details << "  slot " << dt::SlotStamp(slot) << " (" << id << "): no run\n";
    } else if (same.size() > 1 || attempts > 1 || executed > 1) {
      ++c.duplicated;
      details << "  slot " << dt::SlotStamp(slot) << " (" << id << "): " << same.size() << " run dir(s), "
              << attempts << " attempt(s), " << executed << " execution(s)\n";
    } else if (executed == 0) {
      ++c.missed;
      details << "  slot " << dt::SlotStamp(slot) << " (" << id << "): a run record but no execution: "
              << (same.empty() ? std::string("-") : same[0].Describe()) << "\n";
    } else {
      ++c.ran;
    }
  }
  c.details = details.str();
  return c;
}

QueueCounts Cluster::CountQueued(const std::string& dag, const std::vector<std::string>& ids) const {
  QueueCounts c;
  auto runs = dt::ReadRunRecords(data_backing(), dag);
  auto executions = Executions();
  std::ostringstream details;
  for (const auto& id : ids) {
    ++c.queued;
    int executed = executions.count(id) ? executions.at(id) : 0;
    auto same = dt::RunsWithId(runs, id);
    if (executed == 1 && same.size() == 1) {
      ++c.executed_once;
    } else if (executed == 0) {
      ++c.never_executed;
      details << "  queued run " << id << ": never executed; "
              << (same.empty() ? std::string("no record") : same.back().Describe()) << "\n";
    } else {
      ++c.executed_twice;
      details << "  queued run " << id << ": " << executed << " executions, " << same.size() << " run dir(s)\n";
    }
  }
  c.details = details.str();
  return c;
}

bool Cluster::WaitForAllFinished(const std::string& dag, Ms timeout) const {
  return dt::PollUntil(
      [&] {
        for (const auto& r : dt::ReadRunRecords(data_backing(), dag)) {
          int s = r.status_code();
          if (s == dt::kRunRunning || s == dt::kRunQueued || s == 0 || s == -1) return false;
        }
        return true;
      },
      timeout, 250ms);
}

std::string Cluster::Evidence() {
  std::ostringstream os;
  for (auto& p : procs_) os << p->Describe(60);
  os << "lock owner: " << ReadText(data_backing() + "/scheduler/locks/.dagu_lock/owner") << "\n";
  os << "role journal:\n" << ReadText(data_backing() + "/scheduler/role-journal.jsonl");
  os << "tick ledger: " << ReadText(data_backing() + "/scheduler/tick_ledger.json") << "\n";
  return os.str();
}

// --- ChaosTest --------------------------------------------------------------

void ChaosTest::TearDown() {
  if (HasFailure()) {
    if (cluster_) std::cerr << cluster_->Evidence();
    for (const auto& m : mounts_) std::cerr << "faultfs hits at " << m->mountpoint() << ":\n" << m->Hits();
  }
  // Blocked calls are released first: an instance stuck in one could not
  // be killed and waited for.
  for (const auto& m : mounts_) m->SetRules("");
  cluster_.reset();
  mounts_.clear();
  hosts_.clear();
}

Cluster& ChaosTest::UseLocalHome() {
  cluster_ = std::make_unique<Cluster>(tmp_.Sub("home"), tmp_.Sub("home"), tmp_.Sub("scratch"));
  return *cluster_;
}

Host* ChaosTest::AddHost(const std::string& name, const Host::Options& options) {
  auto h = std::make_unique<Host>();
  std::string error;
  if (!h->Start(name, static_cast<int>(hosts_.size()), options, tmp_.Sub("scratch"), &error)) {
    ADD_FAILURE() << error;
    return nullptr;
  }
  hosts_.push_back(std::move(h));
  return hosts_.back().get();
}

FaultFs* ChaosTest::AddMount(Host& host, const std::string& backing, const std::string& mountpoint,
                             const std::string& fuse_options) {
  auto m = std::make_unique<FaultFs>();
  std::string error;
  if (!m->Mount(host, backing, mountpoint, fuse_options, tmp_.Sub("scratch"), &error)) {
    ADD_FAILURE() << error;
    return nullptr;
  }
  mounts_.push_back(std::move(m));
  return mounts_.back().get();
}

void ChaosTest::Measure(const std::string& key, const std::string& value) {
  std::cout << "[measure] " << key << ": " << value << "\n";
  RecordProperty(key, value);
}

SysTime Minute(SysTime t) { return std::chrono::floor<std::chrono::minutes>(t); }

void SleepUntil(SysTime t) {
  while (std::chrono::system_clock::now() < t) {
    auto left = t - std::chrono::system_clock::now();
    std::this_thread::sleep_for(std::min<std::chrono::system_clock::duration>(left, 200ms));
  }
}

ChaosRandom::ChaosRandom() {
  const char* env = std::getenv("DAGU_CHAOS_SEED");
  seed_ = env != nullptr ? std::stoull(env) : std::random_device{}();
  rng_.seed(seed_);
  std::cout << "[chaos] seed " << seed_ << " (DAGU_CHAOS_SEED=" << seed_ << " repeats the choices)\n";
}

int ChaosRandom::Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

Ms ChaosRandom::UniformMs(Ms lo, Ms hi) {
  return Ms(std::uniform_int_distribution<int64_t>(lo.count(), hi.count())(rng_));
}

bool ChaosRandom::Chance(double p) { return std::bernoulli_distribution(p)(rng_); }

nlohmann::json OwnerRecord(const std::string& data) {
  auto j = nlohmann::json::parse(ReadText(data + "/scheduler/locks/.dagu_lock/owner"), nullptr, false);
  return j.is_object() ? j : nlohmann::json::object();
}

double Seconds(Steady::duration d) { return std::chrono::duration<double>(d).count(); }

double ChaosMinutes(double short_minutes) {
  const char* env = std::getenv("DAGU_CHAOS_MINUTES");
  return env != nullptr && *env != '\0' ? std::stod(env) : short_minutes;
}

}  // namespace dagu::chaos
