// `peer.*` TLS between coordinator and its clients (docs/distributed.md
// "TLS"), with certificates made by `openssl` here, on one shared home whose
// processes all get the same DAGU_PEER_* environment (mutual TLS: the
// coordinator requires a client certificate signed by the CA; the clients
// check the coordinator against that CA and its address):
//   * our coordinator + Dagu 1.30.2's worker, and 1.30.2's coordinator + our
//     worker: our parent run's call step dispatches its child (our run
//     agent's TLS client) and the child runs on the worker;
//   * our coordinator + our worker with peer.skip_tls_verify and no CA;
//   * a client without a certificate is refused by our mutual-TLS
//     coordinator (the child is never dispatched), and plaintext is refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/dagu_process.h"
#include "support/fleet.h"
#include "support/peer_binary.h"
#include "support/run_records.h"
#include "support/subprocess.h"

namespace dagu::testing {
namespace {

using namespace std::chrono_literals;

// `name` looked up in PATH ("" when missing).
std::string InPath(const std::string& name) {
  const char* path = ::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && ::access((dir + "/" + name).c_str(), X_OK) == 0) return dir + "/" + name;
  }
  return "";
}

// Runs a command (argv[0] looked up in PATH) to its end; its exit status
// (-1 when it could not run).
int Sh(std::vector<std::string> argv, const std::string& log) {
  argv[0] = InPath(argv[0]);
  if (argv[0].empty()) return -1;
  Subprocess p;
  if (!p.Start(argv, {}, log)) return -1;
  return p.Wait(60s).value_or(-1);
}

// A CA and one leaf certificate (no extended key usage: good for server
// and client; SAN localhost and 127.0.0.1) signed by it, under `dir`.
bool MakeCertificates(const std::string& dir, std::string* why) {
  std::filesystem::create_directories(dir);
  const std::string log = dir + "/openssl.log";
  std::ofstream(dir + "/leaf.ext") << "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n";
  const std::vector<std::vector<std::string>> steps = {
      {"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir + "/ca.key", "-out", dir + "/ca.crt",
       "-days", "2", "-subj", "/CN=dagu-test-ca"},
      {"openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", dir + "/leaf.key", "-out", dir + "/leaf.csr",
       "-subj", "/CN=localhost"},
      {"openssl", "x509", "-req", "-in", dir + "/leaf.csr", "-CA", dir + "/ca.crt", "-CAkey", dir + "/ca.key",
       "-CAcreateserial", "-out", dir + "/leaf.crt", "-days", "2", "-extfile", dir + "/leaf.ext"},
  };
  if (InPath("openssl").empty()) {
    *why = "openssl is not installed";
    return false;
  }
  for (const auto& step : steps) {
    if (Sh(step, log) != 0) {
      std::ifstream in(log);
      std::stringstream ss;
      ss << in.rdbuf();
      *why = "openssl failed: " + ss.str();
      return false;
    }
  }
  return true;
}

std::map<std::string, std::string> MutualTlsEnv(const DaguHome& home, const std::string& certs) {
  auto env = HomeEnv(home);
  env["DAGU_PEER_CERT_FILE"] = certs + "/leaf.crt";
  env["DAGU_PEER_KEY_FILE"] = certs + "/leaf.key";
  env["DAGU_PEER_CLIENT_CA_FILE"] = certs + "/ca.crt";
  env["DAGU_PEER_INSECURE"] = "false";
  return env;
}

const char kChild[] = "workerSelector:\n  pool: a\nsteps:\n  - name: s\n    command: echo over-tls\n";
const char kParent[] = "steps:\n  - name: call\n    call: child\n";

struct TlsFleet {
  DaguHome home;
  std::string certs = home.Scratch("certs");
  DaguProcess coordinator{"coordinator", home.LogPath("coordinator")};
  DaguProcess worker{"worker", home.LogPath("worker")};

  // Starts the coordinator (advertised as 127.0.0.1, which the certificate
  // names) with `coordinator_env` and the worker (pool=a) with `worker_env`.
  bool Start(const std::string& coordinator_bin, const std::map<std::string, std::string>& coordinator_env,
             const std::string& worker_bin, const std::map<std::string, std::string>& worker_env, std::string* why) {
    if (!StartCoordinator(&coordinator, coordinator_bin, home, {"--coordinator.advertise", "127.0.0.1"},
                          coordinator_env)) {
      *why = coordinator.Describe(40);
      return false;
    }
    if (!StartWorker(&worker, worker_bin, home, {"--worker.id", "w1", "--worker.labels", "pool=a"}, worker_env)) {
      *why = worker.Describe(40);
      return false;
    }
    std::this_thread::sleep_for(2s);  // the worker polls
    return true;
  }
  std::string Describe() { return coordinator.Describe(30) + worker.Describe(30); }
};

// Our parent run (with `parent_env`) to its end: its exit status and output.
int RunParent(TlsFleet* fleet, const std::map<std::string, std::string>& parent_env, std::string* output,
              std::chrono::seconds timeout = 60s) {
  fleet->home.WriteDag("child", kChild);
  const std::string parent = fleet->home.WriteDag("parent", kParent);
  Subprocess run;
  if (!run.Start({DAGU_BINARY, "start", "--run-id", "p-1", parent}, parent_env, fleet->home.LogPath("parent"))) {
    return -1;
  }
  std::optional<int> rc = run.Wait(timeout);
  *output = run.Output();
  if (!rc.has_value()) {
    run.Signal(SIGTERM);
    run.Wait(20s);
  }
  return rc.value_or(-1);
}

// The child of parent run p-1 ran on worker w1 and succeeded.
void ExpectChildRanOnTheWorker(TlsFleet* fleet, const std::string& output) {
  auto runs = ReadRunRecords(fleet->home.data_dir(), "parent");
  ASSERT_FALSE(runs.empty());
  EXPECT_EQ(runs.back().status_code(), kRunSucceeded) << runs.back().Describe() << output << fleet->Describe();
  std::string sub_id;
  for (const auto& n : runs.back().status.value("nodes", nlohmann::json::array())) {
    for (const auto& c : n.value("children", nlohmann::json::array())) sub_id = c.value("dagRunId", "");
  }
  nlohmann::json child = SubRunStatus(fleet->home, sub_id);
  EXPECT_EQ(child.value("status", -1), kRunSucceeded) << child.dump(2);
  EXPECT_EQ(child.value("workerId", ""), "w1") << child.dump(2);
}

void MutualTls(const std::string& coordinator_bin, const std::string& worker_bin) {
  TlsFleet fleet;
  std::string why;
  ASSERT_TRUE(MakeCertificates(fleet.certs, &why)) << why;
  const auto env = MutualTlsEnv(fleet.home, fleet.certs);
  ASSERT_TRUE(fleet.Start(coordinator_bin, env, worker_bin, env, &why)) << why;
  std::string output;
  ASSERT_EQ(RunParent(&fleet, env, &output), 0) << output << fleet.Describe();
  ExpectChildRanOnTheWorker(&fleet, output);
}

TEST(PeerTlsTest, OurMutualTlsCoordinatorWithA1302Worker) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  MutualTls(DAGU_BINARY, peer);
}

TEST(PeerTlsTest, A1302MutualTlsCoordinatorWithOurWorker) {
  std::string why;
  const std::string peer = FetchPeer(&why);
  if (peer.empty()) GTEST_SKIP() << "Dagu 1.30.2 is not available: " << why;
  MutualTls(peer, DAGU_BINARY);
}

// Server TLS without client certificates; the clients skip verification.
TEST(PeerTlsTest, SkipTlsVerifyReachesATlsCoordinator) {
  TlsFleet fleet;
  std::string why;
  ASSERT_TRUE(MakeCertificates(fleet.certs, &why)) << why;
  auto server = HomeEnv(fleet.home);
  server["DAGU_PEER_CERT_FILE"] = fleet.certs + "/leaf.crt";
  server["DAGU_PEER_KEY_FILE"] = fleet.certs + "/leaf.key";
  auto client = HomeEnv(fleet.home);
  client["DAGU_PEER_INSECURE"] = "false";
  client["DAGU_PEER_SKIP_TLS_VERIFY"] = "true";
  ASSERT_TRUE(fleet.Start(DAGU_BINARY, server, DAGU_BINARY, client, &why)) << why;
  std::string output;
  ASSERT_EQ(RunParent(&fleet, client, &output), 0) << output << fleet.Describe();
  ExpectChildRanOnTheWorker(&fleet, output);
}

// A client without a certificate, or in plaintext, gets nothing from a
// mutual-TLS coordinator: the child is not dispatched (the step keeps
// trying) and the worker says it cannot reach the coordinator.
TEST(PeerTlsTest, AMutualTlsCoordinatorRefusesOtherClients) {
  TlsFleet fleet;
  std::string why;
  ASSERT_TRUE(MakeCertificates(fleet.certs, &why)) << why;
  const auto env = MutualTlsEnv(fleet.home, fleet.certs);
  auto no_cert = HomeEnv(fleet.home);
  no_cert["DAGU_PEER_INSECURE"] = "false";
  no_cert["DAGU_PEER_CLIENT_CA_FILE"] = fleet.certs + "/ca.crt";
  ASSERT_TRUE(fleet.Start(DAGU_BINARY, env, DAGU_BINARY, no_cert, &why)) << why;
  EXPECT_TRUE(PollUntil([&] { return fleet.worker.Output().find(" failed (") != std::string::npos; }, 10s, 100ms))
      << fleet.Describe();
  EXPECT_EQ(fleet.worker.Output().find("Connected to coordinator"), std::string::npos) << fleet.Describe();
  std::string output;
  RunParent(&fleet, HomeEnv(fleet.home), &output, 6s);  // plaintext parent
  EXPECT_NE(output.find("Sub DAG not dispatched yet"), std::string::npos) << output;
  auto runs = ReadRunRecords(fleet.home.data_dir(), "parent");
  ASSERT_FALSE(runs.empty());
  EXPECT_NE(runs.back().status_code(), kRunSucceeded) << runs.back().Describe();
}

}  // namespace
}  // namespace dagu::testing
