// Differential tests of sub-DAG calls and parallel: each case under
// cases/subdag/ (README.md: a DAG file plus an optional .case with the child
// DAGs as `files:` and the `commands:`) runs under Dagu 1.30.2 and under
// ours, each on a fresh DAGU_HOME, and what the sub-DAG machinery produced is
// compared: exit statuses; the run's and every call step's status, error,
// recorded call (executorConfig type, childDag, params, parallel), children
// and stdout (the result JSON, parallel results sorted: Dagu lists them in Go
// map order); and every child run -- its ID (the parent runs with a fixed
// run ID, so the deterministic sub-run IDs must be equal), DAG name, status,
// params, root and parent, attempts, steps and outputs -- plus the record
// and log layout (file paths with times and attempt IDs masked).
//
// The general run observations of the same cases (step logs, outputs.json,
// ...) are the run harness's (diff_cases_test.cc when present); output
// variables DAGU_CONTINUE_ON.<step> that Dagu adds for a failed step are a
// run semantic observed there and left out here.
//
// Also here: Dagu 1.30.2's `status` and server read our parent and child
// records, and ours read Dagu's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "peer.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Json = nlohmann::json;
using Observation = std::map<std::string, std::string>;

const std::string kCasesDir = std::string(DAGU_SOURCE_DIR) + "/tests/compat/cases/subdag";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct SubCase {
  std::string name;
  std::string dag;                            // the DAG file's text
  std::map<std::string, std::string> files;   // more files in the DAGs dir
  std::vector<std::vector<std::string>> commands;
  std::string about;
};

// Words of a command line: spaces separate, '...' and "..." group.
std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool in = false;
  char quote = 0;
  for (char c : line) {
    if (quote != 0) {
      if (c == quote) quote = 0;
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in = true;
    } else if (c == ' ') {
      if (in) out.push_back(cur);
      cur.clear();
      in = false;
    } else {
      cur += c;
      in = true;
    }
  }
  if (in) out.push_back(cur);
  return out;
}

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kCasesDir, ec)) {
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

SubCase LoadCase(const std::string& name) {
  SubCase c;
  c.name = name;
  c.dag = ReadFile(kCasesDir + "/" + name + ".yaml");
  std::string case_path = kCasesDir + "/" + name + ".case";
  if (fs::exists(case_path)) {
    YAML::Node root = YAML::LoadFile(case_path);
    if (root["about"]) c.about = root["about"].as<std::string>();
    for (auto it = root["files"].begin(); root["files"] && it != root["files"].end(); ++it) {
      c.files[it->first.as<std::string>()] = it->second.as<std::string>();
    }
    for (const auto& n : root["commands"]) {
      c.commands.push_back(Words(n.IsMap() ? n["run"].as<std::string>() : n.as<std::string>()));
    }
  }
  if (c.commands.empty()) c.commands.push_back({"start", "--run-id=r1", "{dag}"});
  return c;
}

// --- normalising -----------------------------------------------------------

std::string Mask(std::string s, const std::string& home) {
  for (size_t p = s.find(home); !home.empty() && p != std::string::npos; p = s.find(home)) s.replace(p, home.size(), "<HOME>");
  static const std::vector<std::pair<std::regex, std::string>> kRules = {
      {std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d))"), "<TIME>"},
      {std::regex(R"(attempt_\d{8}_\d{6}_\d{3}Z_[0-9a-f]{6})"), "attempt_<TS>_<ATTEMPT>"},
      {std::regex(R"(run_\d{8}_\d{6}Z_[0-9a-f]{6})"), "run_<TS>_<ATTEMPT>"},
      {std::regex(R"(dag-run_\d{8}_\d{6}Z_)"), "dag-run_<TS>_"},
      {std::regex(R"(\d{8}\.\d{6}\.\d{3})"), "<TS>"},
      // Temp files of local DAGs: <name>-<random digits>.yaml in both.
      {std::regex(R"(/tmp/dagu/local-dags/([A-Za-z0-9_.-]+)-[A-Za-z0-9]+\.yaml)"), "<LOCAL-DAG:$1>"},
  };
  for (const auto& [re, to] : kRules) s = std::regex_replace(s, re, to);
  return s;
}

// Output maps without Dagu's DAGU_CONTINUE_ON.<step> entries (see the top).
Json WithoutContinueOn(const Json& outputs) {
  if (!outputs.is_object()) return outputs;
  Json out = Json::object();
  for (auto it = outputs.begin(); it != outputs.end(); ++it) {
    if (it.key().rfind("DAGU_CONTINUE_ON.", 0) != 0) out[it.key()] = it.value();
  }
  return out;
}

// One result JSON, parallel results sorted.
Json NormalizeOneResult(Json j) {
  auto fix = [](Json& r) {
    if (r.contains("outputs")) r["outputs"] = WithoutContinueOn(r["outputs"]);
  };
  if (j.contains("results") && j["results"].is_array()) {
    for (auto& r : j["results"]) fix(r);
    std::sort(j["results"].begin(), j["results"].end(),
              [](const Json& a, const Json& b) { return a.value("dagRunId", "") < b.value("dagRunId", ""); });
    std::vector<std::string> outs;
    for (const auto& o : j["outputs"]) outs.push_back(WithoutContinueOn(o).dump());
    std::sort(outs.begin(), outs.end());
    j["outputs"] = outs;
  } else {
    fix(j);
  }
  return j;
}

// A call step's output: the child result JSON (one per try of the step, as
// the log holds them), normalised; other text as it is.
std::string NormalizeResult(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  while (in >> std::ws && in.peek() != EOF) {
    Json j;
    try {
      in >> j;
    } catch (const Json::exception&) {
      return text;
    }
    if (!j.is_object()) return text;
    out += NormalizeOneResult(std::move(j)).dump() + "\n";
  }
  return out.empty() ? text : out;
}

// --- running and observing ---------------------------------------------------

Json LastLine(const std::string& path) {
  std::istringstream in(ReadFile(path));
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return Json::parse(last, nullptr, false);
}

std::vector<std::string> Attempts(const std::string& run_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(run_dir, ec)) {
    if (e.path().filename().string().rfind("attempt_", 0) == 0) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string FileList(const std::string& dir, const std::string& home) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    if (e.is_regular_file()) files.push_back(Mask(fs::relative(e.path(), dir).string(), home));
  }
  std::sort(files.begin(), files.end());
  std::string out;
  for (const auto& f : files) out += f + "\n";
  return out;
}

void ObserveRecord(const Json& rec, const std::string& prefix, const std::string& home, Observation* o) {
  (*o)[prefix + "status"] = rec.contains("status") ? std::to_string(rec["status"].get<int>()) : "<absent>";
  for (const auto& n : rec.value("nodes", Json::array())) {
    const Json& step = n["step"];
    std::string p = prefix + "node." + step.value("name", "") + ".";
    (*o)[p + "status"] = std::to_string(n.value("status", -1));
    (*o)[p + "error"] = Mask(n.value("error", ""), home);
    if (step.contains("childDag")) {
      (*o)[p + "exec"] = step["executorConfig"].value("type", "");
      (*o)[p + "childDag"] = step["childDag"].dump();
      (*o)[p + "params"] = step.value("params", Json()).dump();
      (*o)[p + "parallel"] = step.value("parallel", Json()).dump();
      Json children = n.value("children", Json::array());
      std::sort(children.begin(), children.end(),
                [](const Json& a, const Json& b) { return a.value("dagRunId", "") < b.value("dagRunId", ""); });
      (*o)[p + "children"] = children.dump();
      std::string out_path = n.value("stdout", "");
      (*o)[p + "stdout"] = out_path.empty() ? "" : Mask(NormalizeResult(ReadFile(out_path)), home);
      Json vars = Json::object();
      const Json recorded = n.contains("outputVariables") ? n["outputVariables"] : Json::object();
      for (auto it = recorded.begin(); it != recorded.end(); ++it) {
        if (it.key().rfind("DAGU_CONTINUE_ON.", 0) == 0) continue;
        std::string kv = it.value().get<std::string>();
        vars[it.key()] = Mask(NormalizeResult(kv.substr(kv.find('=') + 1)), home);
      }
      (*o)[p + "outputVariables"] = vars.dump();
    }
  }
}

Observation Observe(const SubCase& c, const std::string& binary, const std::string& work) {
  Observation o;
  const std::string home = work + "/home";
  fs::remove_all(work);
  fs::create_directories(home + "/dags");
  std::ofstream(home + "/dags/.examples-created");
  std::ofstream(home + "/dags/" + c.name + ".yaml") << c.dag;
  for (const auto& [rel, text] : c.files) std::ofstream(home + "/dags/" + rel) << text;
  std::map<std::string, std::string> env = {{"DAGU_HOME", home}, {"TZ", "UTC"}, {"HOME", work + "/user"},
                                            {"SHELL", "/bin/sh"}};
  for (const char* name : {"DAGU_PORT", "DAGU_HOST", "DAGU_TZ", "DAGU_DATA_DIR", "DAGU_DAGS", "DAGU_DAGS_DIR",
                           "DAGU_LOG_DIR", "DAGU_EXECUTABLE", "DAGU_QUEUE_DISPATCH_RETRY"}) {
    env[name] = "";
  }
  for (size_t i = 0; i < c.commands.size(); ++i) {
    std::vector<std::string> argv{binary};
    for (std::string w : c.commands[i]) {
      auto put = [&](const std::string& from, const std::string& to) {
        for (size_t p = w.find(from); p != std::string::npos; p = w.find(from)) w.replace(p, from.size(), to);
      };
      put("{dag}", c.name);
      put("{file}", home + "/dags/" + c.name + ".yaml");
      put("{home}", home);
      put("{dags}", home + "/dags");
      argv.push_back(w);
    }
    Subprocess p;
    std::string key = "sub.cmd" + std::to_string(i + 1) + "." + c.commands[i][0] + ".exit";
    if (!p.Start(argv, env, work + "/cmd" + std::to_string(i + 1) + ".log")) {
      o[key] = "<not started>";
      continue;
    }
    auto st = p.Wait(60000ms);
    o[key] = st ? std::to_string(*st) : "<timeout>";
  }
  // The root run (the DAG's only run).
  std::string root_dir;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(home + "/data/dag-runs/" + c.name + "/dag-runs", ec)) {
    if (e.is_directory() && e.path().filename().string().rfind("dag-run_", 0) == 0) root_dir = e.path().string();
  }
  if (root_dir.empty()) {
    o["sub.run"] = "<absent>";
    return o;
  }
  std::vector<std::string> attempts = Attempts(root_dir);
  o["sub.run.attempts"] = std::to_string(attempts.size());
  if (!attempts.empty()) ObserveRecord(LastLine(attempts.back() + "/status.jsonl"), "sub.run.", home, &o);
  o["sub.layout"] = FileList(root_dir, home);
  o["sub.logs"] = FileList(home + "/logs", home);
  for (const auto& e : fs::directory_iterator(root_dir + "/children", ec)) {
    std::string id = e.path().filename().string().substr(std::string("child_").size());
    std::vector<std::string> child_attempts = Attempts(e.path().string());
    std::string p = "sub.child." + id + ".";
    o[p + "attempts"] = std::to_string(child_attempts.size());
    if (child_attempts.empty()) continue;
    Json rec = LastLine(child_attempts.back() + "/status.jsonl");
    o[p + "name"] = rec.value("name", "");
    o[p + "params"] = rec.value("params", "");
    o[p + "paramsList"] = rec.value("paramsList", Json::array()).dump();
    o[p + "root"] = rec.value("root", Json()).dump();
    o[p + "parent"] = rec.value("parent", Json()).dump();
    o[p + "workerId"] = rec.value("workerId", "");
    ObserveRecord(rec, p, home, &o);
    for (const auto& n : rec.value("nodes", Json::array())) {
      std::string out_path = n.value("stdout", "");
      o[p + "step." + n["step"].value("name", "") + ".stdout"] = out_path.empty() ? "" : Mask(ReadFile(out_path), home);
    }
    Json outputs = Json::parse(ReadFile(child_attempts.back() + "/outputs.json"), nullptr, false);
    o[p + "outputs.json"] = outputs.is_object() ? WithoutContinueOn(outputs["outputs"]).dump() : "<absent>";
    Json dag_json = Json::parse(ReadFile(child_attempts.back() + "/dag.json"), nullptr, false);
    o[p + "dag.location"] = dag_json.is_object() ? Mask(dag_json.value("location", ""), home) : "<absent>";
    o[p + "dag.workingDir"] = dag_json.is_object() ? Mask(dag_json.value("workingDir", ""), home) : "<absent>";
  }
  return o;
}

std::string Describe(const Observation& ours, const Observation& theirs) {
  std::set<std::string> keys;
  for (const auto& [k, v] : ours) keys.insert(k);
  for (const auto& [k, v] : theirs) keys.insert(k);
  std::string out;
  for (const auto& k : keys) {
    std::string a = ours.count(k) ? ours.at(k) : "<absent>", b = theirs.count(k) ? theirs.at(k) : "<absent>";
    if (a == b) continue;
    out += "! " + k + "\n    ours:   " + a + "\n    theirs: " + b + "\n";
  }
  return out;
}

class SubDagDiffTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SubDagDiffTest, SameAsDagu) {
  const Peer& peer = GetPeer();
  if (peer.binary.empty()) GTEST_SKIP() << peer.why_not;
  SubCase c = LoadCase(GetParam());
  TempDir dir;
  Observation theirs = Observe(c, peer.binary, dir.Sub("theirs"));
  Observation ours = Observe(c, DAGU_BINARY, dir.Sub("ours"));
  std::string diff = Describe(ours, theirs);
  EXPECT_TRUE(diff.empty()) << c.name << ": " << c.about << "\n" << diff;
  EXPECT_FALSE(theirs.count("sub.run")) << "Dagu wrote no run for " << c.name;
}

std::string CaseTestName(const ::testing::TestParamInfo<std::string>& param) {
  std::string n = param.param;
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

INSTANTIATE_TEST_SUITE_P(Cases, SubDagDiffTest, ::testing::ValuesIn(CaseNames()), CaseTestName);

// --- each reads the other's parent and child records --------------------------

class SubDagInteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Peer& peer = GetPeer();
    if (peer.binary.empty()) GTEST_SKIP() << peer.why_not;
    peer_ = peer.binary;
    home_ = dir_.Sub("home");
    fs::create_directories(home_ + "/dags");
    std::ofstream(home_ + "/dags/.examples-created");
    env_ = {{"DAGU_HOME", home_}, {"TZ", "UTC"}, {"HOME", dir_.Sub("user")}, {"DAGU_EXECUTABLE", ""}, {"DAGU_PORT", ""}};
    std::ofstream(home_ + "/dags/parent.yaml") << "steps:\n  - name: call\n    call: child\n    params: NAME=x\n";
    std::ofstream(home_ + "/dags/child.yaml") << "params: NAME=none\nsteps:\n  - name: greet\n    command: echo hi ${NAME}\n";
  }

  std::pair<int, std::string> Exec(const std::string& binary, const std::vector<std::string>& args) {
    std::vector<std::string> argv{binary};
    argv.insert(argv.end(), args.begin(), args.end());
    Subprocess p;
    EXPECT_TRUE(p.Start(argv, env_, dir_.Sub("out-" + std::to_string(n_++) + ".log")));
    auto st = p.Wait(60000ms);
    return {st.value_or(-1), p.Output()};
  }

  // Starts `binary server` on a free port; returns the port.
  int StartServer(const std::string& binary) {
    int port = FreePort();
    server_ = std::make_unique<Subprocess>();
    EXPECT_TRUE(server_->Start({binary, "server", "--host", "127.0.0.1", "--port", std::to_string(port)}, env_,
                               dir_.Sub("server.log")));
    EXPECT_TRUE(PollUntil([&] { return HttpGet(port, "/api/v2/health").status == 200; }, 20000ms, 100ms))
        << server_->Output();
    return port;
  }

  // Checks the sub-dag-runs API of the server on `port` for run r1 of parent.
  void CheckSubRunsApi(int port) {
    auto list = Json::parse(HttpGet(port, "/api/v2/dag-runs/parent/r1/sub-dag-runs", 5000ms).body, nullptr, false);
    ASSERT_TRUE(list.is_object()) << list;
    ASSERT_EQ(list["subRuns"].size(), 1u) << list;
    EXPECT_EQ(list["subRuns"][0]["statusLabel"], "succeeded");
    EXPECT_EQ(list["subRuns"][0]["params"], "NAME=\"x\"");
    std::string id = list["subRuns"][0]["dagRunId"];
    auto details = Json::parse(HttpGet(port, "/api/v2/dag-runs/parent/r1/sub-dag-runs/" + id, 5000ms).body, nullptr,
                               false)["dagRunDetails"];
    EXPECT_EQ(details["name"], "child");
    EXPECT_EQ(details["parentDAGRunId"], "r1");
    EXPECT_EQ(details["rootDAGRunName"], "parent");
    auto log = Json::parse(
        HttpGet(port, "/api/v2/dag-runs/parent/r1/sub-dag-runs/" + id + "/steps/greet/log?stream=stdout", 5000ms).body,
        nullptr, false);
    EXPECT_EQ(log["content"], "hi x");
    auto run = Json::parse(HttpGet(port, "/api/v2/dag-runs/parent/r1", 5000ms).body, nullptr, false)["dagRunDetails"];
    EXPECT_EQ(run["nodes"][0]["subRuns"][0]["dagRunId"], id);
  }

  TempDir dir_;
  std::string peer_, home_;
  std::map<std::string, std::string> env_;
  std::unique_ptr<Subprocess> server_;
  int n_ = 0;
};

TEST_F(SubDagInteropTest, DaguReadsOurParentAndChildRecords) {
  ASSERT_EQ(Exec(DAGU_BINARY, {"start", "-q", "--run-id=r1", "parent"}).first, 0);
  auto [rc, out] = Exec(peer_, {"status", "--run-id=r1", "parent"});
  EXPECT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("Result: Succeeded"));
  EXPECT_THAT(out, HasSubstr("subdag: "));
  EXPECT_THAT(out, HasSubstr("\"params\": \"NAME=x\""));  // the child's result JSON as the step's stdout
  CheckSubRunsApi(StartServer(peer_));
}

TEST_F(SubDagInteropTest, WeReadDagusParentAndChildRecords) {
  ASSERT_EQ(Exec(peer_, {"start", "-q", "--run-id=r1", "parent"}).first, 0);
  auto [rc, out] = Exec(DAGU_BINARY, {"status", "--run-id=r1", "parent"});
  EXPECT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("Succeeded"));
  EXPECT_THAT(out, HasSubstr("subdag: "));
  CheckSubRunsApi(StartServer(DAGU_BINARY));
}

// Retrying a parent whose child Dagu ran: our child run picks up Dagu's
// sub-run as a retry (same ID, new attempt).
TEST_F(SubDagInteropTest, OurRetryOfDagusParentRetriesItsChild) {
  std::ofstream(home_ + "/dags/child.yaml") << "steps:\n  - name: once\n    command: sh -c 'test -f "
                                            << dir_.Sub("ok") << "'\n";
  ASSERT_NE(Exec(peer_, {"start", "-q", "--run-id=r1", "parent"}).first, 0);
  std::ofstream(dir_.Sub("ok"));
  auto [rc, out] = Exec(DAGU_BINARY, {"retry", "-q", "--run-id=r1", "parent"});
  EXPECT_EQ(rc, 0) << out;
  auto [src, status] = Exec(peer_, {"status", "--run-id=r1", "parent"});
  EXPECT_THAT(status, HasSubstr("Result: Succeeded")) << status;
  size_t children = 0;
  for (const auto& e : fs::recursive_directory_iterator(home_ + "/data/dag-runs/parent")) {
    if (e.is_directory() && e.path().filename().string().rfind("child_", 0) == 0) {
      ++children;
      EXPECT_EQ(Attempts(e.path().string()).size(), 2u);
    }
  }
  EXPECT_EQ(children, 1u);
}

}  // namespace
}  // namespace dagu::testing
