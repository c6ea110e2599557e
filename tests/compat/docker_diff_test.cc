// Differential tests of the docker executor: every DAG in
// tests/compat/cases/docker/ runs under this binary and under the real Dagu
// 1.30.2 (which honours DOCKER_HOST), each with its own DAGU_HOME, against
// the same container runtime: rootful Podman serving the Docker Engine API
// on a unix socket, started by scripts/podman-service.sh (its images are
// imported offline from busybox-static). What each run produced is compared:
//   exit                 the exit status of `dagu start`
//   status, error        the run's final status and error (status.jsonl)
//   nodes.<step>.status / .error / .stdout / .stderr
//   left                 the containers the run left behind (image, state,
//                        name when it is not a generated one), which the test
//                        then removes
// Run IDs, timestamps, container IDs, DAGU_HOME paths and the duration in
// "step timed out after <DUR> (timeout: ...)" are normalised first. Lines of the
// case file drive it:
//   # before: <sh command>    run before each binary's run ($SOCK is the
//                             socket, $CASES this folder; e.g. create a
//                             container to exec into)
//   # after: <sh command>     run after each binary's run (clean-up)
//   # stop-after-output: T    start in the background, `dagu stop` once a
//                             step's stdout log holds T (at most 90 s)
//   # differs: <field> <ours JSON> | <theirs JSON>
//                             a known, documented difference
//                             (docs/dag-format.md, "docker"), asserted
//                             exactly: each side must be what is written
// A runtime that cannot be started fails the suite with the script's output
// (it is required, not optional); without the peer the tests are skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/case_files.h"
#include "compat/peer.h"
#include "support/counterparts.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu::testing {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using namespace std::chrono_literals;

const std::string kCasesDir = std::string(DAGU_SOURCE_DIR) + "/tests/compat/cases/docker";
const std::string kScript = std::string(DAGU_SOURCE_DIR) + "/scripts/podman-service.sh";

using dagu::testing::ReplaceAll;
using dagu::testing::Slurp;

std::vector<std::string> CaseNames() { return dagu::testing::YamlCaseNames(kCasesDir); }

std::string ShellQuote(const std::string& s) { return "'" + ReplaceAll(s, "'", "'\\''") + "'"; }

class DockerDiffTest : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    runtime_ok_ = RunCommand(ShellQuote(kScript) + " start", &runtime_output_);
    if (runtime_ok_) {
      std::istringstream lines(runtime_output_);
      std::string line;
      while (std::getline(lines, line)) {
        if (!line.empty() && line[0] == '/') socket_ = line;
      }
      runtime_ok_ = !socket_.empty();
    }
  }

  void SetUp() override {
    const Peer& peer = GetPeer();
    if (peer.binary.empty()) GTEST_SKIP() << peer.why_not;
    ASSERT_TRUE(runtime_ok_) << "the container runtime (scripts/podman-service.sh start) is required and did not "
                                "start:\n"
                             << runtime_output_;
    peer_ = peer.binary;
  }

  // The case file's `# <key>: value` lines.
  std::vector<std::string> Directives(const std::string& key) const {
    std::vector<std::string> out;
    std::istringstream in(Slurp(kCasesDir + "/" + GetParam() + ".yaml"));
    std::string line;
    const std::string prefix = "# " + key + ": ";
    while (std::getline(in, line)) {
      if (line.rfind(prefix, 0) == 0) out.push_back(line.substr(prefix.size()));
    }
    return out;
  }

  std::string Api(const std::string& method, const std::string& path) {
    std::string out;
    RunCommand("curl -s -X " + method + " --unix-socket " + ShellQuote(socket_) + " " + ShellQuote("http://d" + path),
               &out);
    return out;
  }

  std::set<std::string> ContainerIds() {
    std::set<std::string> ids;
    Json list = Json::parse(Api("GET", "/v1.41/containers/json?all=1"), nullptr, false);
    if (list.is_array()) {
      for (const auto& c : list) ids.insert(c.value("Id", ""));
    }
    return ids;
  }

  // Whether a step's stdout log (a .out file under the home) holds `text`.
  static bool StepOutputHas(const std::string& home, const std::string& text) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(home, ec); it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (ec) break;
      if (it->path().extension() == ".out" && Slurp(it->path().string()).find(text) != std::string::npos) return true;
    }
    return false;
  }

  void RunShell(const std::string& command) {
    std::string out;
    EXPECT_TRUE(RunCommand("SOCK=" + ShellQuote(socket_) + " CASES=" + ShellQuote(kCasesDir) + " sh -c " +
                               ShellQuote(command),
                           &out))
        << command << ":\n"
        << out;
  }

  // Runs the case under `binary`; the normalised summary of what it did.
  // `may_hang`: not exiting is returned (exit -1), not a failure.
  Json RunCase(const std::string& binary, const std::string& tag, bool may_hang = false) {
    std::string home = dir_.Sub(tag + "/home");
    fs::create_directories(home + "/dags");
    std::ofstream(home + "/dags/.examples-created");
    std::string dag = home + "/dags/" + GetParam() + ".yaml";
    std::ofstream(dag) << Slurp(kCasesDir + "/" + GetParam() + ".yaml");
    std::map<std::string, std::string> env = {{"HOME", dir_.Sub(tag + "/user")}, {"DAGU_HOME", home},
                                              {"TZ", "UTC"}, {"DAGU_SKIP_EXAMPLES", "true"},
                                              {"DOCKER_HOST", "unix://" + socket_}};
    for (const char* name : {"DAGU_PORT", "DAGU_HOST", "DAGU_TZ", "DAGU_DATA_DIR", "DAGU_DAGS", "DAGU_DAGS_DIR",
                             "DAGU_LOG_DIR", "DAGU_QUEUE_ENABLED", "XDG_DATA_HOME", "DAGU_EXECUTABLE"}) {
      env[name] = "";
    }
    for (const auto& c : Directives("before")) RunShell(c);
    const std::set<std::string> before = ContainerIds();
    Subprocess proc;
    EXPECT_TRUE(proc.Start({binary, "start", dag}, env, dir_.Sub(tag + "/start.log")));
    std::vector<std::string> stop_after = Directives("stop-after-output");
    if (!stop_after.empty()) {
      EXPECT_TRUE(PollUntil([&] { return StepOutputHas(home, stop_after[0]); }, 90000ms))
          << "no step printed " << stop_after[0];
      Subprocess stop;
      EXPECT_TRUE(stop.Start({binary, "stop", dag}, env, dir_.Sub(tag + "/stop.log")));
      EXPECT_EQ(stop.Wait(60000ms).value_or(-1), 0) << stop.Output();
    }
    auto exit = proc.Wait(120000ms);
    EXPECT_TRUE(may_hang || exit.has_value()) << binary << " did not exit";
    Json summary;
    summary["exit"] = exit.value_or(-1);
    std::string record_path, run_id;
    for (const auto& e : fs::recursive_directory_iterator(home + "/data")) {
      if (e.path().filename() == "status.jsonl") record_path = e.path().string();
    }
    Json record;
    if (!record_path.empty()) {
      std::istringstream lines(Slurp(record_path));
      std::string line, last;
      while (std::getline(lines, line)) {
        if (!line.empty()) last = line;
      }
      record = Json::parse(last, nullptr, false);
    }
    if (record.is_object()) {
      run_id = record.value("dagRunId", "");
      summary["status"] = record.value("status", -1);
      summary["error"] = record.value("error", "");
      for (const auto& n : record.value("nodes", Json::array())) {
        Json node;
        node["status"] = n.value("status", -1);
        node["error"] = n.value("error", "");
        node["stdout"] = n.value("stdout", "").empty() ? "" : Slurp(n.value("stdout", ""));
        node["stderr"] = n.value("stderr", "").empty() ? "" : Slurp(n.value("stderr", ""));
        summary["nodes"][n["step"].value("name", "?")] = node;
      }
    }
    // What the run left behind, then removed so that the next run starts clean.
    std::vector<std::string> left;
    Json list = Json::parse(Api("GET", "/v1.41/containers/json?all=1"), nullptr, false);
    for (const auto& c : list.is_array() ? list : Json::array()) {
      std::string id = c.value("Id", "");
      if (before.count(id) != 0) continue;
      std::string name = c.value("Names", Json::array()).empty() ? "" : c["Names"][0].get<std::string>();
      if (!name.empty() && name[0] == '/') name = name.substr(1);
      if (name.rfind("dagu-test-", 0) != 0) name = "<generated>";
      left.push_back(c.value("Image", "") + " " + c.value("State", "") + " " + name);
      Api("DELETE", "/v1.41/containers/" + id + "?force=1");
    }
    std::sort(left.begin(), left.end());
    summary["left"] = left;
    for (const auto& c : Directives("after")) RunShell(c);
    return Normalise(summary, run_id, home);
  }

  static Json Normalise(const Json& j, const std::string& run_id, const std::string& home) {
    if (j.is_string()) {
      std::string s = j.get<std::string>();
      s = ReplaceAll(s, run_id, "<RUN_ID>");
      s = ReplaceAll(s, home, "<HOME>");
      static const std::regex time(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d))");
      static const std::regex id(R"(\b[0-9a-f]{64}\b)");
      static const std::regex duration(R"(after [0-9hmsµn.]+ \()");
      s = std::regex_replace(s, duration, "after <DUR> (");
      s = std::regex_replace(s, time, "<TIME>");
      s = std::regex_replace(s, id, "<ID>");
      return s;
    }
    if (j.is_object() || j.is_array()) {
      Json out = j;
      for (auto it = out.begin(); it != out.end(); ++it) *it = Normalise(*it, run_id, home);
      return out;
    }
    return j;
  }

  static void Flatten(const Json& j, const std::string& path, std::map<std::string, Json>* out) {
    if (j.is_object() && !j.empty()) {
      for (auto it = j.begin(); it != j.end(); ++it) Flatten(*it, path.empty() ? it.key() : path + "." + it.key(), out);
      return;
    }
    (*out)[path] = j;
  }

  TempDir dir_;
  std::string peer_;
  static bool runtime_ok_;
  static std::string runtime_output_;
  static std::string socket_;
};

bool DockerDiffTest::runtime_ok_ = false;
std::string DockerDiffTest::runtime_output_;
std::string DockerDiffTest::socket_;

TEST_P(DockerDiffTest, SameAsDagu1302) {
  Json theirs = RunCase(peer_, "theirs", /*may_hang=*/true);
  if (theirs["exit"] == -1) {
    // Dagu 1.30.2 can wait forever on a log follow that Podman 4.3 leaves
    // open after a container has exited (the defect ours works around:
    // docs/dag-format.md, "docker"). That hang is not what this compares,
    // so its side runs once more; a second hang fails the case.
    std::cout << "[ retry    ] " << GetParam() << ": Dagu 1.30.2 did not exit; running its side again\n";
    theirs = RunCase(peer_, "theirs-again");
  }
  Json ours = RunCase(DAGU_BINARY, "ours");
  if (std::getenv("DAGU_COMPAT_DUMP") != nullptr) {
    std::cout << "Dagu 1.30.2: " << theirs.dump(2) << "\nours: " << ours.dump(2) << "\n";
  }
  std::map<std::string, Json> a, b;
  Flatten(theirs, "", &a);
  Flatten(ours, "", &b);
  std::set<std::string> keys;
  for (const auto& [k, v] : a) keys.insert(k);
  for (const auto& [k, v] : b) keys.insert(k);
  std::set<std::string> ignored;
  for (const auto& d : Directives("differs")) {
    size_t space = d.find(' ');
    size_t bar = d.find(" | ");
    ASSERT_TRUE(space != std::string::npos && bar != std::string::npos && bar > space) << "bad differs: " << d;
    const std::string field = d.substr(0, space);
    Json want_ours = Json::parse(d.substr(space + 1, bar - space - 1), nullptr, false);
    Json want_theirs = Json::parse(d.substr(bar + 3), nullptr, false);
    ASSERT_FALSE(want_ours.is_discarded() || want_theirs.is_discarded()) << "bad JSON in differs: " << d;
    ignored.insert(field);
    EXPECT_EQ(b.count(field) != 0 ? b[field] : Json(), want_ours) << field << " (ours)";
    EXPECT_EQ(a.count(field) != 0 ? a[field] : Json(), want_theirs) << field << " (Dagu 1.30.2)";
  }
  int differences = 0;
  for (const auto& k : keys) {
    if (ignored.count(k) != 0) continue;
    Json x = a.count(k) != 0 ? a[k] : Json();
    Json y = b.count(k) != 0 ? b[k] : Json();
    if (x != y) {
      ++differences;
      ADD_FAILURE() << GetParam() << ": " << k << "\n  Dagu 1.30.2: " << x.dump() << "\n  ours:        " << y.dump();
    }
  }
  std::cout << "[ diff     ] " << GetParam() << ": " << keys.size() << " fields, " << differences << " differ, "
            << ignored.size() << " known differences\n";
}

INSTANTIATE_TEST_SUITE_P(Cases, DockerDiffTest, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string name = p.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace dagu::testing
