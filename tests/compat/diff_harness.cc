#include "diff_harness.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "support/subprocess.h"

namespace dagu::testing {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return kAbsent;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAll(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// Splits a command line into words: whitespace separates, '...' and "..."
// group (without escapes).
std::vector<std::string> SplitWords(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      if (c == quote) quote = 0;
      else word += c;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'' || c == '"') quote = c;
    else word += c;
  }
  if (in_word) out.push_back(word);
  return out;
}

int SignalByName(const std::string& name) {
  static const std::map<std::string, int> kByName = {{"TERM", SIGTERM}, {"INT", SIGINT},   {"KILL", SIGKILL},
                                                     {"HUP", SIGHUP},   {"QUIT", SIGQUIT}, {"USR1", SIGUSR1},
                                                     {"USR2", SIGUSR2}};
  std::string n = name.rfind("SIG", 0) == 0 ? name.substr(3) : name;
  auto it = kByName.find(n);
  return it == kByName.end() ? 0 : it->second;
}

std::string ParseStep(const YAML::Node& node, CaseStep* out) {
  if (node.IsScalar()) {
    out->text = node.Scalar();
    out->args = SplitWords(node.Scalar());
    return out->args.empty() ? "empty command" : "";
  }
  if (!node.IsMap()) return "a command must be a string or a mapping";
  if (node["run"]) {
    out->kind = CaseStep::Kind::kRun;
    out->text = node["run"].as<std::string>();
    out->args = SplitWords(out->text);
    if (out->args.empty()) return "empty command";
    if (node["background"]) out->background = node["background"].as<bool>();
    if (node["stdout"]) out->compare_stdout = node["stdout"].as<bool>();
    if (node["stderr"]) out->compare_stderr = node["stderr"].as<bool>();
    return "";
  }
  if (node["wait_file"]) {
    out->kind = CaseStep::Kind::kWaitFile;
    out->file = node["wait_file"].as<std::string>();
    out->text = "wait_file " + out->file;
    return "";
  }
  if (node["signal"]) {
    out->kind = CaseStep::Kind::kSignal;
    out->signal = SignalByName(node["signal"].as<std::string>());
    out->target = node["to"] ? node["to"].as<int>() : 1;
    out->text = "signal " + node["signal"].as<std::string>();
    return out->signal == 0 ? "unknown signal " + node["signal"].as<std::string>() : "";
  }
  if (node["wait"]) {
    out->kind = CaseStep::Kind::kWait;
    out->target = node["wait"].as<int>();
    out->text = "wait " + std::to_string(out->target);
    return "";
  }
  if (node["sleep_ms"]) {
    out->kind = CaseStep::Kind::kSleep;
    out->ms = node["sleep_ms"].as<int>();
    out->text = "sleep_ms " + std::to_string(out->ms);
    return "";
  }
  return "unknown command form (run, wait_file, signal, wait, sleep_ms)";
}

std::string Str(const YAML::Node& n) { return n.IsNull() ? std::string(kAbsent) : n.as<std::string>(); }

std::string LoadCaseFile(const std::string& path, DiffCase* c) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    return path + ": " + e.what();
  }
  if (root.IsNull()) return "";
  if (!root.IsMap()) return path + ": must be a mapping";
  static const std::set<std::string> kKeys = {"about",  "env", "files",      "commands", "observe",
                                              "differs", "ignore", "dag", "timeout_ms", "run_log"};
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (kKeys.count(it->first.as<std::string>()) == 0) return path + ": unknown key " + it->first.as<std::string>();
  }
  try {
    if (root["about"]) c->about = root["about"].as<std::string>();
    if (root["dag"]) c->dag_name = root["dag"].as<std::string>();
    for (auto it = root["env"].begin(); root["env"] && it != root["env"].end(); ++it) {
      c->env[it->first.as<std::string>()] = it->second.as<std::string>();
    }
    for (auto it = root["files"].begin(); root["files"] && it != root["files"].end(); ++it) {
      c->files[it->first.as<std::string>()] = it->second.as<std::string>();
    }
    if (root["commands"]) {
      c->steps.clear();
      for (const auto& n : root["commands"]) {
        CaseStep s;
        std::string problem = ParseStep(n, &s);
        if (!problem.empty()) return path + ": commands: " + problem;
        c->steps.push_back(std::move(s));
      }
    }
    for (const auto& n : root["observe"]) c->observe_files.push_back(n.as<std::string>());
    for (const auto& n : root["differs"]) {
      KnownDifference d;
      d.key = n["key"].as<std::string>();
      if (!n["ours"] || !n["theirs"] || !n["why"]) return path + ": differs: " + d.key + " needs ours, theirs and why";
      d.ours = Str(n["ours"]);
      d.theirs = Str(n["theirs"]);
      d.why = n["why"].as<std::string>();
      c->differs.push_back(std::move(d));
    }
    for (auto it = root["ignore"].begin(); root["ignore"] && it != root["ignore"].end(); ++it) {
      c->ignore[it->first.as<std::string>()] = it->second.as<std::string>();
    }
    if (root["timeout_ms"]) c->timeout_ms = root["timeout_ms"].as<int>();
    if (root["run_log"]) c->observe_run_log = root["run_log"].as<bool>();
  } catch (const YAML::Exception& e) {
    return path + ": " + e.what();
  }
  return "";
}

// --- running ---------------------------------------------------------------

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
  return s;
}

struct Home {
  std::string root;  // DAGU_HOME
  std::string dags;
  std::string user;  // HOME of the commands
};

// Normalises what must differ between two runs of one case.
class Normaliser {
 public:
  explicit Normaliser(const Home& home) {
    literals_.emplace_back(home.root, "<HOME>");
    std::error_code ec;
    std::string real = fs::canonical(home.root, ec).string();
    if (!ec && real != home.root) literals_.emplace_back(real, "<HOME>");
  }
  void AddRun(const std::string& run_id, const std::string& attempt_id) {
    static const std::regex kUuid("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    if (std::regex_match(run_id, kUuid)) {
      literals_.emplace_back(run_id, "<RUN_ID>");
      literals_.emplace_back("." + run_id.substr(0, 8) + ".", ".<RUN_ID8>.");
    }
    if (!attempt_id.empty()) {
      literals_.emplace_back("_" + attempt_id, "_<ATTEMPT>");
      literals_.emplace_back("attempt-id=" + attempt_id, "attempt-id=<ATTEMPT>");  // retry-target-attempt-id=
    }
  }
  std::string operator()(std::string s) const {
    for (const auto& [from, to] : literals_) s = ReplaceAll(s, from, to);
    static const std::regex kRfc3339(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2}))");
    static const std::regex kCompact(R"(\d{8}[._]\d{6}([._]\d{3})?Z?)");
    static const std::regex kScript(R"(dagu_script-[A-Za-z0-9]+)");
    // Local DAGs' temp files: <name>-<random digits>.yaml in both.
    static const std::regex kLocalDag(R"(/tmp/dagu/local-dags/([A-Za-z0-9_.-]+)-[0-9]+\.yaml)");
    static const std::regex kUuid("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}");
    s = std::regex_replace(s, kRfc3339, "<TIME>");
    s = std::regex_replace(s, kCompact, "<TS>");
    s = std::regex_replace(s, kScript, "dagu_script-<X>");
    s = std::regex_replace(s, kLocalDag, "<LOCAL-DAG:$1>");
    s = std::regex_replace(s, kUuid, "<RUN_ID>");
    return s;
  }
  // Durations ("1.002s", "500ms", "1m3s"): timings differ from run to run.
  static std::string Durations(const std::string& s) {
    static const std::regex kDuration(R"(\b\d+(\.\d+)?(ns|µs|us|ms|s|m|h)(\d+(\.\d+)?(ms|s|m))*\b)");
    return std::regex_replace(s, kDuration, "<DUR>");
  }
  // For errors (a step timeout says how long it ran).
  std::string Error(std::string s) const { return Durations((*this)(std::move(s))); }
  // For command output: also the time= fields of log lines.
  // The attempt-id field of run log lines is left out: 1.30.2 logs it empty,
  // this binary logs the real attempt ID (and none in a dry run), a
  // documented difference (docs/cli.md) that HygieneTest checks.
  std::string Output(std::string s) const {
    static const std::regex kLogTime(R"(time=\S+)");
    static const std::regex kAttemptId(R"( attempt-id=(""|[^ \n]*))");
    s = (*this)(std::move(s));
    s = std::regex_replace(s, kAttemptId, "");
    return Durations(std::regex_replace(s, kLogTime, "time=<TIME>"));
  }

 private:
  std::vector<std::pair<std::string, std::string>> literals_;
};

const char* RunStatusName(int s) {
  static const char* kNames[] = {"not_started", "running", "failed", "aborted", "succeeded",
                                 "queued",      "partially_succeeded", "waiting", "rejected"};
  return s >= 0 && s < 9 ? kNames[s] : "unknown";
}

const char* NodeStatusName(int s) {
  static const char* kNames[] = {"not_started", "running",  "failed", "aborted", "succeeded",
                                 "skipped",     "partially_succeeded", "waiting", "rejected", "retrying"};
  return s >= 0 && s < 10 ? kNames[s] : "unknown";
}

// The attempt dirs of every run of `dag`, oldest run first; each run's
// attempts in order.
std::vector<std::vector<std::string>> RunAttempts(const std::string& home, const std::string& dag) {
  std::vector<std::vector<std::string>> runs;
  std::string base = home + "/data/dag-runs/" + dag + "/dag-runs";
  std::error_code ec;
  if (!fs::is_directory(base, ec)) return runs;
  std::vector<std::string> run_dirs;
  for (auto it = fs::recursive_directory_iterator(base, ec); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && name.rfind("dag-run_", 0) == 0) {
      run_dirs.push_back(it->path().string());
      it.disable_recursion_pending();
    }
  }
  std::sort(run_dirs.begin(), run_dirs.end(), [](const std::string& a, const std::string& b) {
    return fs::path(a).filename() < fs::path(b).filename();
  });
  for (const auto& dir : run_dirs) {
    std::vector<std::string> attempts;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (e.is_directory() && e.path().filename().string().rfind("attempt_", 0) == 0) {
        attempts.push_back(e.path().string());
      }
    }
    std::sort(attempts.begin(), attempts.end());
    runs.push_back(std::move(attempts));
  }
  return runs;
}

Json LastStatus(const std::string& attempt_dir) {
  std::string text = ReadAll(attempt_dir + "/status.jsonl");
  if (text == kAbsent) return Json();
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return Json::parse(last, nullptr, false);
}

void ObserveNode(const Json& n, const std::string& prefix, const Normaliser& norm, Observation* obs) {
  auto& o = *obs;
  o[prefix + ".status"] = NodeStatusName(n.value("status", -1));
  o[prefix + ".doneCount"] = std::to_string(n.value("doneCount", 0));
  o[prefix + ".retryCount"] = std::to_string(n.value("retryCount", 0));
  o[prefix + ".error"] = norm.Error(n.value("error", ""));
  for (const char* stream : {"stdout", "stderr"}) {
    std::string path = n.value(stream, "");
    o[prefix + "." + stream] = path.empty() ? std::string(kAbsent) : norm(ReadAll(path));
  }
  std::string vars;
  if (n.contains("outputVariables") && n["outputVariables"].is_object()) {
    for (const auto& [k, v] : n["outputVariables"].items()) vars += norm(v.is_string() ? v.get<std::string>() : v.dump()) + "\n";
  }
  o[prefix + ".outputVariables"] = vars;
}

void ObserveRuns(const DiffCase& c, const Home& home, Normaliser* norm, Observation* obs) {
  auto runs = RunAttempts(home.root, c.dag_name);
  (*obs)["runs"] = std::to_string(runs.size());
  if (runs.empty() || runs.back().empty()) return;
  std::vector<Json> records;
  for (const auto& attempts : runs) {
    for (const auto& a : attempts) {
      Json rec = LastStatus(a);
      if (rec.is_object()) norm->AddRun(rec.value("dagRunId", ""), rec.value("attemptId", ""));
    }
  }
  const std::string latest = runs.back().back();
  (*obs)["run.attempts"] = std::to_string(runs.back().size());
  Json rec = LastStatus(latest);
  if (!rec.is_object()) {
    (*obs)["run.status"] = "<unreadable status.jsonl>";
    return;
  }
  auto& o = *obs;
  o["run.status"] = RunStatusName(rec.value("status", -1));
  o["run.params"] = (*norm)(rec.value("params", ""));
  if (c.observe_run_log) o["run.log"] = norm->Output(ReadAll(rec.value("log", "")));
  std::string names;
  for (const auto& n : rec.value("nodes", Json::array())) {
    std::string name = n["step"].value("name", "");
    names += (names.empty() ? "" : ", ") + name;
    ObserveNode(n, "step." + name, *norm, obs);
  }
  o["run.steps"] = names;
  for (const char* h : {"onInit", "onSuccess", "onFailure", "onCancel", "onExit", "onWait"}) {
    if (rec.contains(h) && rec[h].is_object()) ObserveNode(rec[h], std::string("handler.") + h, *norm, obs);
  }
  std::string outputs = ReadAll(latest + "/outputs.json");
  if (outputs == kAbsent) {
    o["outputs.json"] = kAbsent;
  } else {
    Json j = Json::parse(outputs, nullptr, false);
    if (j.is_object() && j.contains("metadata") && j["metadata"].is_object()) {
      for (const char* volatile_key : {"completedAt", "attemptId", "dagRunId"}) {
        if (j["metadata"].contains(volatile_key)) j["metadata"][volatile_key] = "<set>";
      }
    }
    o["outputs.json"] = (*norm)(j.is_discarded() ? outputs : j.dump(1));
  }
}

}  // namespace

std::string LoadDiffCase(const std::string& cases_root, const std::string& id, DiffCase* out) {
  *out = DiffCase();
  out->id = id;
  out->name = fs::path(id).filename().string();
  out->dag_name = out->name;
  out->dag_path = cases_root + "/" + id + ".yaml";
  CaseStep start;
  start.args = {"start", "{dag}"};
  start.text = "start {dag}";
  out->steps.push_back(start);
  std::error_code ec;
  if (!fs::exists(out->dag_path, ec)) return out->dag_path + " does not exist";
  std::string case_file = cases_root + "/" + id + ".case";
  if (fs::exists(case_file, ec)) {
    std::string problem = LoadCaseFile(case_file, out);
    if (!problem.empty()) return problem;
  }
  std::string files_dir = cases_root + "/" + id + ".files";
  if (fs::is_directory(files_dir, ec)) {
    for (auto it = fs::recursive_directory_iterator(files_dir, ec); it != fs::recursive_directory_iterator(); ++it) {
      if (!it->is_regular_file()) continue;
      out->files[fs::relative(it->path(), files_dir).string()] = ReadAll(it->path().string());
    }
  }
  for (const auto& s : out->steps) {
    if ((s.kind == CaseStep::Kind::kSignal || s.kind == CaseStep::Kind::kWait) &&
        (s.target < 1 || s.target > static_cast<int>(out->steps.size()) ||
         !out->steps[s.target - 1].background)) {
      return case_file + ": " + s.text + ": `to`/`wait` must name a background command by its 1-based position";
    }
  }
  return "";
}

Observation RunDiffCase(const DiffCase& c, const std::string& binary, const std::string& work_dir,
                        std::vector<std::string>* problems) {
  Home home;
  home.root = work_dir + "/home";
  home.dags = home.root + "/dags";
  home.user = work_dir + "/user";
  fs::create_directories(home.dags);
  fs::create_directories(home.user);
  WriteAll(home.dags + "/.examples-created", "");  // keeps Dagu from writing its examples
  WriteAll(home.dags + "/" + c.name + ".yaml", ReadAll(c.dag_path));
  for (const auto& [rel, text] : c.files) WriteAll(home.dags + "/" + rel, text);

  std::map<std::string, std::string> env = {
      {"HOME", home.user}, {"DAGU_HOME", home.root}, {"TZ", "UTC"}, {"SHELL", "/bin/sh"},
      {"DAGU_SKIP_EXAMPLES", "true"}, {"NO_COLOR", "1"}};
  for (const char* name : {"DAGU_PORT", "DAGU_HOST", "DAGU_TZ", "DAGU_DATA_DIR", "DAGU_DAGS", "DAGU_DAGS_DIR",
                           "DAGU_LOG_DIR", "DAGU_QUEUE_ENABLED", "DAGU_QUEUE_DISPATCH_RETRY", "XDG_DATA_HOME",
                           "XDG_CONFIG_HOME", "DAGU_EXECUTABLE", "DAGU_SCHEDULER_PORT", "DAGU_DEFAULT_SHELL"}) {
    env[name] = "";
  }
  for (const auto& [k, v] : c.env) env[k] = ReplaceAll(ReplaceAll(v, "{home}", home.root), "{dags}", home.dags);

  auto expand = [&](const std::string& arg) {
    std::string a = ReplaceAll(arg, "{dag}", c.name);
    a = ReplaceAll(a, "{file}", home.dags + "/" + c.name + ".yaml");
    a = ReplaceAll(a, "{home}", home.root);
    return ReplaceAll(a, "{dags}", home.dags);
  };

  Normaliser norm(home);
  Observation obs;
  struct Started {
    std::unique_ptr<Subprocess> proc;
    std::string out, err;
    std::string key;
    const CaseStep* step = nullptr;
  };
  std::map<int, Started> background;
  struct Finished {
    std::string out, err;
    const CaseStep* step;
  };
  std::vector<std::pair<std::string, Finished>> output_files;  // read after the run is observed
  const auto timeout = std::chrono::milliseconds(c.timeout_ms);

  auto finish = [&](Started& s) {
    auto status = s.proc->Wait(timeout);
    if (!status) {
      problems->push_back(s.step->text + ": did not exit within " + std::to_string(c.timeout_ms) + " ms");
      s.proc->Signal(SIGKILL);
      s.proc->Wait(std::chrono::milliseconds(5000));
    }
    obs[s.key + ".exit"] = status ? std::to_string(*status) : "<timeout>";
    output_files.push_back({s.key, Finished{s.out, s.err, s.step}});
  };

  for (size_t i = 0; i < c.steps.size(); ++i) {
    const CaseStep& step = c.steps[i];
    const int index = static_cast<int>(i) + 1;
    switch (step.kind) {
      case CaseStep::Kind::kRun: {
        std::vector<std::string> argv{binary};
        for (const auto& a : step.args) argv.push_back(expand(a));
        Started s;
        s.proc = std::make_unique<Subprocess>();
        s.out = work_dir + "/cmd" + std::to_string(index) + ".out";
        s.err = work_dir + "/cmd" + std::to_string(index) + ".err";
        s.key = "cmd" + std::to_string(index) + "." + step.args[0];
        s.step = &step;
        if (!s.proc->Start(argv, env, s.out, s.err, home.dags)) {
          problems->push_back(step.text + ": cannot start " + binary);
          break;
        }
        if (step.background) {
          background[index] = std::move(s);
        } else {
          finish(s);
        }
        break;
      }
      case CaseStep::Kind::kWaitFile: {
        std::string path = home.dags + "/" + step.file;
        if (!PollUntil([&] { return fs::exists(path); }, timeout, std::chrono::milliseconds(20))) {
          problems->push_back(step.text + ": the file did not appear within " + std::to_string(c.timeout_ms) + " ms");
        }
        break;
      }
      case CaseStep::Kind::kSignal:
        background[step.target].proc->Signal(step.signal);
        break;
      case CaseStep::Kind::kWait:
        finish(background[step.target]);
        background.erase(step.target);
        break;
      case CaseStep::Kind::kSleep:
        std::this_thread::sleep_for(std::chrono::milliseconds(step.ms));
        break;
    }
  }
  for (auto& [index, s] : background) finish(s);

  ObserveRuns(c, home, &norm, &obs);
  for (const auto& [key, files] : output_files) {
    const CaseStep& step = *files.step;
    if (step.compare_stdout) obs[key + ".stdout"] = norm.Output(ReadAll(files.out));
    if (step.compare_stderr) obs[key + ".stderr"] = norm.Output(ReadAll(files.err));
  }
  for (const auto& rel : c.observe_files) obs["file." + rel] = norm(ReadAll(home.dags + "/" + rel));
  return obs;
}

std::vector<std::string> CompareObservations(const DiffCase& c, const Observation& ours, const Observation& theirs) {
  std::set<std::string> keys;
  for (const auto& [k, v] : ours) keys.insert(k);
  for (const auto& [k, v] : theirs) keys.insert(k);
  auto get = [](const Observation& o, const std::string& k) {
    auto it = o.find(k);
    return it == o.end() ? std::string(kAbsent) : it->second;
  };
  auto ignored = [&](const std::string& key) {
    for (const auto& [pattern, why] : c.ignore) {
      if (pattern == key) return true;
      if (!pattern.empty() && pattern.back() == '*' && key.rfind(pattern.substr(0, pattern.size() - 1), 0) == 0) {
        return true;
      }
    }
    return false;
  };
  std::vector<std::string> out;
  for (const auto& d : c.differs) keys.insert(d.key);
  for (const auto& key : keys) {
    if (ignored(key)) continue;
    const std::string a = get(ours, key), b = get(theirs, key);
    auto known = std::find_if(c.differs.begin(), c.differs.end(), [&](const KnownDifference& d) { return d.key == key; });
    if (known != c.differs.end()) {
      if (a != known->ours || b != known->theirs) {
        out.push_back(key + ": the known difference changed (" + known->why + ")\n    ours:   " + Json(a).dump() +
                      " (declared " + Json(known->ours).dump() + ")\n    theirs: " + Json(b).dump() + " (declared " +
                      Json(known->theirs).dump() + ")");
      }
      continue;
    }
    if (a != b) out.push_back(key + ":\n    ours:   " + Json(a).dump() + "\n    theirs: " + Json(b).dump());
  }
  return out;
}

std::string DescribeObservations(const Observation& ours, const Observation& theirs) {
  std::set<std::string> keys;
  for (const auto& [k, v] : ours) keys.insert(k);
  for (const auto& [k, v] : theirs) keys.insert(k);
  std::string out;
  for (const auto& k : keys) {
    auto a = ours.count(k) ? ours.at(k) : std::string(kAbsent);
    auto b = theirs.count(k) ? theirs.at(k) : std::string(kAbsent);
    if (a == b) out += "  " + k + " = " + Json(a).dump() + "\n";
    else out += "! " + k + "\n    ours:   " + Json(a).dump() + "\n    theirs: " + Json(b).dump() + "\n";
  }
  return out;
}

}  // namespace dagu::testing
