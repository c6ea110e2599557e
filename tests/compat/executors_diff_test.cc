// Differential tests of the executors, mail notifications and secrets: every
// DAG in tests/compat/cases/executors/ runs under this binary and under the
// real Dagu 1.30.2, each with its own DAGU_HOME and its own SMTP server,
// against the same local HTTP and SSH servers, and what each produced is
// compared:
//   exit  the exit status of `dagu start`
//   status, error        the run's final status and error (status.jsonl)
//   nodes.<step>.status / .error / .stdout / .stderr   each step's status,
//                        error and log files
//   outputs              outputs.json's outputs
//   mails[i].from / .to / .data   what the SMTP server received (base64
//                        parts decoded)
// Run IDs, timestamps, DAGU_HOME paths, log-file stamps and the archive
// executor's "duration" fields are normalised first. Chat steps (chat*.yaml)
// ask the HTTP server's chat-completions, Anthropic messages or Gemini
// generateContent API (OPENAI_API_KEY, ANTHROPIC_API_KEY and GOOGLE_API_KEY
// are set): what it received is compared too
//   chat_requests.<i>.path / .headers / .body   each request, in order
//   messages.<step>.json                        the conversations kept
// In a case file, `@HTTP@`, `@SMTP_PORT@`, `@SSH_PORT@`, `@SSH_USER@`,
// `@SSH_KEY@`, `@SSH_KNOWN_HOSTS@` and `@DIR@` (a directory holding
// secret.txt) are replaced before the run; a line `# ignore: <field>` names a
// field whose difference is known and documented (docs/dag-format.md). The
// peer comes from bench/fetch_peer.sh; without it the tests are skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/case_files.h"
#include "compat/peer.h"
#include "core/base64.h"
#include "support/counterparts.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu::testing {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using namespace std::chrono_literals;

const std::string kCasesDir = std::string(DAGU_SOURCE_DIR) + "/tests/compat/cases/executors";
constexpr const char kSecret[] = "supersecret123";
constexpr const char kFileSecret[] = "filesecretvalue";
constexpr const char kLlmKey[] = "sk-llm-test-key";
constexpr const char kAnthropicKey[] = "sk-ant-test-key";
constexpr const char kGoogleKey[] = "google-test-key";

using dagu::testing::ReplaceAll;
using dagu::testing::Slurp;

std::vector<std::string> CaseNames() { return dagu::testing::YamlCaseNames(kCasesDir); }

// Mail data with each base64 part decoded, so that a difference reads as text.
std::string DecodeMail(const std::string& data) {
  static const std::regex part("(Content-Transfer-Encoding: base64\r?\n\r?\n)([A-Za-z0-9+/=]+)");
  std::string out;
  auto begin = std::sregex_iterator(data.begin(), data.end(), part);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    out += data.substr(last, static_cast<size_t>(m.position(0)) - last) + m[1].str();
    std::string decoded;
    out += Base64Decode(m[2].str(), &decoded) ? "<decoded>" + decoded + "</decoded>" : m[2].str();
    last = static_cast<size_t>(m.position(0) + m.length(0));
  }
  return out + data.substr(last);
}

class ExecutorsDiffTest : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    servers_ = new Servers;
    servers_->ok = servers_->http.Start(servers_->dir.path()) && servers_->ssh.Start(servers_->dir.path());
  }
  static void TearDownTestSuite() {
    delete servers_;
    servers_ = nullptr;
  }

  void SetUp() override {
    const Peer& peer = GetPeer();
    if (peer.binary.empty()) GTEST_SKIP() << peer.why_not;
    ASSERT_TRUE(servers_->ok) << "could not start the HTTP and SSH servers";
    peer_ = peer.binary;
    std::ofstream(dir_.Sub("secret.txt")) << kFileSecret;
  }

  // Runs the case under `binary`; the normalised summary of what it did.
  Json RunCase(const std::string& binary, const std::string& tag) {
    last_home_ = dir_.Sub(tag + "/home");
    std::string home = dir_.Sub(tag + "/home");
    fs::create_directories(home + "/dags");
    std::ofstream(home + "/dags/.examples-created");
    SmtpServer smtp;
    EXPECT_TRUE(smtp.Start(dir_.Sub(tag).c_str()));
    std::string text = Slurp(kCasesDir + "/" + GetParam() + ".yaml");
    const std::map<std::string, std::string> vars = {
        {"@HTTP@", "http://127.0.0.1:" + std::to_string(servers_->http.port())},
        {"@SMTP_PORT@", std::to_string(smtp.port())},
        {"@SSH_PORT@", std::to_string(servers_->ssh.port())},
        {"@SSH_USER@", servers_->ssh.user()},
        {"@SSH_KEY@", servers_->ssh.user_key()},
        {"@SSH_KNOWN_HOSTS@", servers_->ssh.known_hosts()},
        {"@DIR@", dir_.path()}};
    for (const auto& [k, v] : vars) text = ReplaceAll(text, k, v);
    std::string dag = home + "/dags/" + GetParam() + ".yaml";
    std::ofstream(dag) << text;
    std::map<std::string, std::string> env = {{"HOME", dir_.Sub(tag + "/user")}, {"DAGU_HOME", home},
                                              {"TZ", "UTC"}, {"DAGU_SKIP_EXAMPLES", "true"},
                                              {"MY_SRC_TOKEN", kSecret}, {"OPENAI_API_KEY", kLlmKey},
                                              {"ANTHROPIC_API_KEY", kAnthropicKey}, {"GOOGLE_API_KEY", kGoogleKey}};
    for (const char* name : {"DAGU_PORT", "DAGU_HOST", "DAGU_TZ", "DAGU_DATA_DIR", "DAGU_DAGS", "DAGU_DAGS_DIR",
                             "DAGU_LOG_DIR", "DAGU_QUEUE_ENABLED", "XDG_DATA_HOME", "DAGU_EXECUTABLE",
                             "SSL_CERT_FILE", "SSL_CERT_DIR"}) {
      env[name] = "";
    }
    last_env_ = env;
    const size_t requests_before = servers_->http.Requests().size();
    Subprocess proc;
    EXPECT_TRUE(proc.Start({binary, "start", dag}, env, dir_.Sub(tag + "/start.log")));
    auto exit = proc.Wait(60000ms);
    EXPECT_TRUE(exit.has_value()) << binary << " did not exit";
    Json summary;
    summary["exit"] = exit.value_or(-1);
    std::string record_path, run_id;
    // The run's own record: the shortest path (a sub-DAG's lies below it).
    std::error_code no_data;  // a DAG that does not load leaves no data directory
    for (const auto& e : fs::recursive_directory_iterator(home + "/data", no_data)) {
      if (e.path().filename() != "status.jsonl") continue;
      if (record_path.empty() || e.path().string().size() < record_path.size()) record_path = e.path().string();
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
      last_run_id_ = run_id;
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
      std::string outputs = Slurp(fs::path(record_path).parent_path().string() + "/outputs.json");
      if (!outputs.empty()) summary["outputs"] = Json::parse(outputs, nullptr, false).value("outputs", Json());
    }
    // What a chat step sent to the chat-completions API (the server is
    // shared: the requests since this run started), and the conversations
    // the run kept (<dag-run dir>/messages/<step>.json).
    std::vector<nlohmann::json> requests = servers_->http.Requests();
    for (size_t i = requests_before, n = 0; i < requests.size(); ++i) {
      const std::string path = requests[i].value("p", "");
      if (path.find("/chat/completions") == std::string::npos && path.find("/v1/messages") == std::string::npos &&
          path.find("Content") == std::string::npos) {  // gemini's :generateContent, :streamGenerateContent
        continue;
      }
      nlohmann::json headers = requests[i]["h"];
      headers.erase("Host");
      Json r;
      r["path"] = requests[i].value("p", "");
      r["headers"] = Json::parse(headers.dump());
      r["body"] = requests[i].value("b", "");
      summary["chat_requests"][std::to_string(n++)] = r;
    }
    if (!record_path.empty()) {
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(fs::path(record_path).parent_path().parent_path() / "messages", ec)) {
        summary["messages"][e.path().filename().string()] = Slurp(e.path().string());
      }
    }
    smtp.WaitFor(1, 1500ms);  // mails are sent as the run ends
    // Mails sent at the same moment (a step's mailOnError and the run's)
    // may arrive in either order: compare them sorted.
    std::vector<Json> mails;
    for (const auto& m : smtp.Messages()) {
      Json mail;
      mail["from"] = m.from;
      mail["to"] = m.to;
      mail["data"] = Normalise(DecodeMail(m.data), run_id, home);
      mails.push_back(mail);
    }
    std::sort(mails.begin(), mails.end(), [](const Json& x, const Json& y) { return x.dump() < y.dump(); });
    for (size_t i = 0; i < mails.size(); ++i) summary["mails"][std::to_string(i)] = mails[i];
    return Normalise(summary, run_id, home);
  }

  static Json Normalise(const Json& j, const std::string& run_id, const std::string& home) {
    if (j.is_string()) {
      std::string s = j.get<std::string>();
      s = ReplaceAll(s, run_id, "<RUN_ID>");
      s = ReplaceAll(s, home, "<HOME>");
      static const std::regex time(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d))");
      static const std::regex stamp(R"(\.\d{8}\.\d{6}\.\d{3}\.[0-9a-f]{8}\.)");
      // The archive executor's summaries say how long the operation took.
      static const std::regex duration(R"re(("duration": ")[^"]*")re");
      // Sub-DAG run IDs (44 base58 characters): derived from the parent's,
      // so they differ between the two runs.
      static const std::regex sub_run(R"(\b[1-9A-HJ-NP-Za-km-z]{43,44}\b)");
      s = std::regex_replace(s, sub_run, "<SUB_RUN_ID>");
      s = std::regex_replace(s, time, "<TIME>");
      s = std::regex_replace(s, stamp, ".<STAMP>.");
      s = std::regex_replace(s, duration, "$1<DUR>\"");
      return s;
    }
    if (j.is_object() || j.is_array()) {
      Json out = j;
      for (auto it = out.begin(); it != out.end(); ++it) *it = Normalise(*it, run_id, home);
      return out;
    }
    return j;
  }

  // Fields `# ignore:` in the case file.
  std::set<std::string> Ignored() const {
    std::set<std::string> out;
    std::istringstream in(Slurp(kCasesDir + "/" + GetParam() + ".yaml"));
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("# ignore: ", 0) == 0) out.insert(line.substr(10));
    }
    return out;
  }

  static void Flatten(const Json& j, const std::string& path, std::map<std::string, Json>* out) {
    if (j.is_object() && !j.empty()) {
      for (auto it = j.begin(); it != j.end(); ++it) Flatten(*it, path.empty() ? it.key() : path + "." + it.key(), out);
      return;
    }
    (*out)[path] = j;
  }

  // Every file our run left under DAGU_HOME (records, outputs, run and step
  // logs) and every REST API answer about the run, which the UI shows:
  // none may hold a secret value.
  void ExpectNoSecretAnywhere() {
    for (const auto& e : fs::recursive_directory_iterator(last_home_)) {
      if (!e.is_regular_file()) continue;
      std::string text = Slurp(e.path().string());
      EXPECT_EQ(text.find(kSecret), std::string::npos) << e.path();
      EXPECT_EQ(text.find(kFileSecret), std::string::npos) << e.path();
    }
    int port = FreePort();
    std::map<std::string, std::string> env = last_env_;
    env["DAGU_PORT"] = std::to_string(port);
    env["DAGU_HOST"] = "127.0.0.1";
    Subprocess server;
    ASSERT_TRUE(server.Start({DAGU_BINARY, "server"}, env, dir_.Sub("server.log")));
    ASSERT_TRUE(PollUntil([&] { return HttpGet(port, "/api/v2/health").status == 200; }, 15000ms));
    const std::string run = "/api/v2/dag-runs/" + GetParam() + "/" + last_run_id_;
    std::vector<std::string> targets = {"/api/v2/dag-runs", run, run + "/log", "/api/v2/dags/" + GetParam(),
                                        "/api/v2/dags/" + GetParam() + "/dag-runs",
                                        "/api/v2/dags/" + GetParam() + "/dag-runs/" + last_run_id_};
    auto details = Json::parse(HttpGet(port, run).body, nullptr, false);
    for (const auto& n : details.value("dagRunDetails", details).value("nodes", Json::array())) {
      targets.push_back(run + "/steps/" + n["step"].value("name", "") + "/log");
    }
    for (const auto& t : targets) {
      HttpResponse r = HttpGet(port, t, 5000ms);
      EXPECT_EQ(r.status, 200) << t;
      EXPECT_EQ(r.body.find(kSecret), std::string::npos) << t << ": " << r.body;
      EXPECT_EQ(r.body.find(kFileSecret), std::string::npos) << t << ": " << r.body;
    }
    EXPECT_GE(targets.size(), 9u) << "the run's steps were not listed: " << details.dump();
  }

  TempDir dir_;
  std::string peer_;
  std::string last_home_, last_run_id_;
  std::map<std::string, std::string> last_env_;

  struct Servers {
    TempDir dir;
    HttpTestServer http;
    SshServer ssh;
    bool ok = false;
  };
  static Servers* servers_;
};

ExecutorsDiffTest::Servers* ExecutorsDiffTest::servers_ = nullptr;

TEST_P(ExecutorsDiffTest, SameAsDagu1302) {
  Json theirs = RunCase(peer_, "theirs");
  Json ours = RunCase(DAGU_BINARY, "ours");
  std::map<std::string, Json> a, b;
  Flatten(theirs, "", &a);
  Flatten(ours, "", &b);
  std::set<std::string> keys;
  for (const auto& [k, v] : a) keys.insert(k);
  for (const auto& [k, v] : b) keys.insert(k);
  const std::set<std::string> ignored = Ignored();
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
  // The secrets must never reach what the run wrote, nor the API.
  const std::string all = ours.dump();
  EXPECT_EQ(all.find(kSecret), std::string::npos) << all;
  EXPECT_EQ(all.find(kFileSecret), std::string::npos) << all;
  if (GetParam() == "secrets") ExpectNoSecretAnywhere();
  // Nor the LLM API keys (masked like secrets), but in the requests the
  // chat steps sent.
  Json written = ours;
  written.erase("chat_requests");
  for (const char* key : {kLlmKey, kAnthropicKey, kGoogleKey}) {
    EXPECT_EQ(written.dump().find(key), std::string::npos) << key << " in " << written.dump();
  }
  std::cout << "[ diff     ] " << GetParam() << ": " << keys.size() << " fields, " << differences << " differ, "
            << ignored.size() << " known differences\n";
}

INSTANTIATE_TEST_SUITE_P(Cases, ExecutorsDiffTest, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace dagu::testing
