// What the chaos tests (tests/chaos/*_test.cc, docs/reliability.md) are made
// of, besides the real `dagu` binary:
//
//   Host      a "machine" for instances: its own mount namespace, and when
//             asked its own UTS (host name) and network namespace, joined to
//             this one by a veth pair so its /health port is reached at its
//             own address. Instances started through Host::Wrap share
//             nothing with another host but the data directory.
//   FaultFs   faultfs (tests/chaos/faultfs.cc) mounted in a host: the host's
//             view of a backing directory, with storage faults a test turns
//             on and off (FaultFs::SetRules) and NFS-like client caches.
//   Cluster   the instances of one scenario on one data directory: starts
//             them (on hosts, with extra environment such as libfaketime),
//             watches /health, kills and restarts them, and counts what ran:
//             slots due, runs per slot, executions per run (each test step
//             appends its run ID to a marker file), queued runs.
//
// Everything runs as root (namespaces, FUSE mounts); Skip() names what the
// environment lacks, and the test is skipped with that reason.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/dagu_process.h"
#include "support/run_records.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu::chaos {

namespace dt = dagu::testing;
using namespace std::chrono_literals;
using Ms = std::chrono::milliseconds;
using Steady = std::chrono::steady_clock;
using SysTime = std::chrono::system_clock::time_point;

struct CommandResult {
  int status = -1;  // exit status, 128+signal, -1 when it did not end in time
  std::string output;
};
// Runs argv (argv[0] an absolute path) to completion.
CommandResult RunCommand(const std::vector<std::string>& argv, Ms timeout = 20000ms,
                         const std::map<std::string, std::string>& env = {});

// Why the chaos tests cannot run here ("" when they can): not root, no
// unshare/nsenter/ip, no /dev/fuse or faultfs (when `need_fuse`).
std::string MissingForChaos(bool need_fuse);

// The libfaketime environment of a host whose wall clock is `offset` away
// from the real one, or follows the file `clock_file` (FAKETIME_TIMESTAMP_FILE,
// re-read every call: write "+1h" into it to jump). The monotonic clock is
// never faked: real clocks never jump backwards or forwards on it.
std::map<std::string, std::string> FakeTimeEnv(const std::string& offset);
std::map<std::string, std::string> FakeTimeFileEnv(const std::string& clock_file);
// Writes a libfaketime offset ("+3600s") to `clock_file` atomically.
void SetFakeTime(const std::string& clock_file, const std::string& offset);

class Host {
 public:
  struct Options {
    std::string hostname;      // "" keeps this machine's UTS namespace
    bool own_network = false;  // own network namespace and a veth pair
  };
  Host() = default;
  ~Host();
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  // Starts the namespace holder. `index` (0..63) picks the veth pair's
  // addresses. `scratch` is a directory for the holder's files.
  bool Start(const std::string& name, int index, const Options& options, const std::string& scratch,
             std::string* error);
  // argv run inside the host's namespaces (nsenter execs it: the pid is argv's).
  std::vector<std::string> Wrap(const std::vector<std::string>& argv) const;
  // The address of this host's services as seen from here.
  const std::string& address() const { return address_; }
  // Takes the host's end of its veth pair (eth0) down or up again: down,
  // the host is cut off (packets to and from it are dropped, connections to
  // it time out rather than being refused); up, it is reachable again.
  // Needs own_network. False (and why in *error) when `ip` failed.
  bool SetLink(bool up, std::string* error);
  const std::string& name() const { return name_; }
  pid_t pid() const { return holder_.pid(); }

 private:
  std::string name_;
  Options options_;
  dt::Subprocess holder_;
  std::string address_ = "127.0.0.1";
  std::string veth_;
};

class FaultFs {
 public:
  FaultFs() = default;
  ~FaultFs();
  FaultFs(const FaultFs&) = delete;
  FaultFs& operator=(const FaultFs&) = delete;

  // Mounts faultfs of `backing` at `mountpoint` in `host`'s mount namespace.
  // `fuse_options` are FUSE -o options; "" means no caching at all
  // (attr_timeout=0,entry_timeout=0,negative_timeout=0).
  bool Mount(const Host& host, const std::string& backing, const std::string& mountpoint,
             const std::string& fuse_options, const std::string& scratch, std::string* error);
  // Replaces the rules (see faultfs.cc for their form); "" clears them and
  // releases every blocked call.
  void SetRules(const std::string& rules);
  // Polls the hit log until a line contains `needle`.
  bool WaitForHit(const std::string& needle, Ms timeout) const;
  std::string Hits() const;
  void Unmount();
  const std::string& mountpoint() const { return mountpoint_; }

 private:
  const Host* host_ = nullptr;
  std::string mountpoint_;
  std::string rules_path_;
  std::string log_path_;
  std::unique_ptr<dt::Subprocess> proc_;
};

// Counts of a scheduled DAG over a span of minutes.
struct SlotCounts {
  int due = 0;           // slots in the span
  int ran = 0;           // slots with exactly one run and one execution
  int missed = 0;        // slots without a run
  int duplicated = 0;    // slots with more than one run directory, attempt or execution
  std::string details;   // one line per slot that was not exactly once
};

// Counts of runs queued with `dagu enqueue`.
struct QueueCounts {
  int queued = 0;
  int executed_once = 0;
  int never_executed = 0;
  int executed_twice = 0;
  std::string details;
};

class Cluster {
 public:
  // `home_seen` is DAGU_HOME as the instances see it (a mount point, or the
  // backing directory itself); `home_backing` where this process reads it.
  Cluster(std::string home_seen, std::string home_backing, std::string scratch);

  const std::string& home_seen() const { return home_seen_; }
  std::string data_backing() const { return home_backing_ + "/data"; }
  std::string data_seen() const { return home_seen_ + "/data"; }
  // The marker file every test step appends its run ID to.
  std::string executions_file() const { return scratch_ + "/executions.log"; }

  // A DAG file (written to the backing directory) with `schedule` whose one
  // step appends $DAG_RUN_ID to the executions file, then runs `extra`.
  void WriteDag(const std::string& name, const std::string& schedule, const std::string& extra = "true");
  // A DAG file of this text (written to the backing directory).
  void WriteDagYaml(const std::string& name, const std::string& yaml);

  // The environment of an instance: T, R, its port, a recovery window of 5m.
  std::map<std::string, std::string> Env(int port, Ms t, Ms r) const;
  // Starts `dagu <args>` (scheduler by default) on `host` (null: here).
  dt::DaguProcess& Start(const std::string& name, Host* host, Ms t = 3000ms, Ms r = 500ms,
                         const std::map<std::string, std::string>& extra_env = {},
                         const std::vector<std::string>& args = {"scheduler"});
  // Starts a new process in the place of `p` (same host, settings and port).
  dt::DaguProcess& Restart(dt::DaguProcess& p);
  std::vector<dt::DaguProcess*> Running();
  std::vector<dt::DaguProcess*> All();

  // Runs `dagu <args>` on `host` (null: here) to completion.
  CommandResult Dagu(const std::vector<std::string>& args, Host* host = nullptr, Ms timeout = 30000ms);

  // Instances whose /health says role active (and answers 200 to role=active).
  std::vector<dt::DaguProcess*> Actives();
  // Polls until exactly one instance is active; returns it or null.
  dt::DaguProcess* WaitForOneActive(Ms timeout);
  static std::optional<Steady::time_point> WaitForRole(dt::DaguProcess& p, const std::string& role, Ms timeout);

  // Run IDs and how often each was executed (lines of the executions file).
  std::map<std::string, int> Executions() const;
  // Slot counts of `dag` for the slots in [from, to] (minute starts).
  SlotCounts CountSlots(const std::string& dag, SysTime from, SysTime to) const;
  // Queue counts of `dag` for the run IDs in `ids`.
  QueueCounts CountQueued(const std::string& dag, const std::vector<std::string>& ids) const;
  // Polls until every run of `dag` has a final status.
  bool WaitForAllFinished(const std::string& dag, Ms timeout) const;

  // Instances, the lock and the data directory, for failure output.
  std::string Evidence();

 private:
  struct Placement {
    Host* host = nullptr;
    Ms t{}, r{};
    std::map<std::string, std::string> extra_env;
    std::vector<std::string> args;
    int port = 0;
  };
  dt::DaguProcess& Launch(const std::string& name, const Placement& where);

  std::string home_seen_;
  std::string home_backing_;
  std::string scratch_;
  std::vector<std::unique_ptr<dt::DaguProcess>> procs_;
  std::map<const dt::DaguProcess*, Placement> placement_;
  int commands_ = 0;
  int generation_ = 0;
};

// Skips the test when the environment cannot run it (see MissingForChaos).
#define CHAOS_REQUIRE(need_fuse)                                          \
  do {                                                                    \
    std::string chaos_missing = ::dagu::chaos::MissingForChaos(need_fuse); \
    if (!chaos_missing.empty()) GTEST_SKIP() << chaos_missing;            \
  } while (0)

// The fixture of every chaos test: a scratch directory, hosts, faultfs
// mounts and one Cluster (made by UseLocalHome or by the test), torn down in
// that reverse order: instances first, then mounts, then hosts. On failure
// it prints the cluster's evidence and every faultfs hit.
class ChaosTest : public ::testing::Test {
 protected:
  void TearDown() override;
  // A cluster on a plain directory of this machine (no namespaces).
  Cluster& UseLocalHome();
  // Starts a host (see Host) or fails the test.
  Host* AddHost(const std::string& name, const Host::Options& options);
  // Mounts faultfs of `backing` at `mountpoint` in `host`, or fails the test.
  FaultFs* AddMount(Host& host, const std::string& backing, const std::string& mountpoint,
                    const std::string& fuse_options = "");
  // Records a figure: printed as "[measure] key: value" and kept as the test
  // property `key` (ctest --output-junit shows it).
  void Measure(const std::string& key, const std::string& value);

  dt::TempDir tmp_;
  std::vector<std::unique_ptr<Host>> hosts_;
  std::vector<std::unique_ptr<FaultFs>> mounts_;
  std::unique_ptr<Cluster> cluster_;
};

// The minute containing `t`, and its successors.
SysTime Minute(SysTime t);
// Sleeps until the wall clock reaches `t`.
void SleepUntil(SysTime t);

// A random source a scenario prints the seed of (DAGU_CHAOS_SEED sets it).
class ChaosRandom {
 public:
  ChaosRandom();
  uint64_t seed() const { return seed_; }
  int Uniform(int lo, int hi);  // inclusive
  Ms UniformMs(Ms lo, Ms hi);
  bool Chance(double p);

 private:
  uint64_t seed_;
  std::mt19937_64 rng_;
};

// The lock's owner record under `data`: a JSON object, empty when the
// record is missing or not a JSON object.
nlohmann::json OwnerRecord(const std::string& data);
// A duration in seconds, for figures.
double Seconds(Steady::duration d);

// Minutes of the long mode (DAGU_CHAOS_MINUTES), else `short_minutes`.
double ChaosMinutes(double short_minutes);

}  // namespace dagu::chaos
