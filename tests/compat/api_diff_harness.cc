#include "api_diff_harness.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <yaml-cpp/yaml.h>

#include "peer.h"
#include "support/http_client.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dagu::testing {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

std::string ApiRoot() { return std::string(DAGU_SOURCE_DIR) + "/tests/compat/api"; }

std::vector<std::string> StringList(const YAML::Node& n) {
  std::vector<std::string> out;
  if (!n) return out;
  if (n.IsScalar()) {
    out.push_back(n.as<std::string>());
    return out;
  }
  for (const auto& e : n) out.push_back(e.as<std::string>());
  return out;
}

// A YAML body: a string is sent as written, anything else as its JSON.
json YamlToJson(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      json o = json::object();
      for (const auto& kv : n) o[kv.first.as<std::string>()] = YamlToJson(kv.second);
      return o;
    }
    case YAML::NodeType::Sequence: {
      json a = json::array();
      for (const auto& e : n) a.push_back(YamlToJson(e));
      return a;
    }
    case YAML::NodeType::Scalar: {
      const std::string s = n.Scalar();
      if (n.Tag() == "!") return s;  // quoted
      if (s == "true") return true;
      if (s == "false") return false;
      if (s == "null" || s == "~") return nullptr;
      char* end = nullptr;
      long long v = std::strtoll(s.c_str(), &end, 10);
      if (!s.empty() && end && *end == '\0') return v;
      return s;
    }
    default:
      return nullptr;
  }
}

bool MatchesAny(const std::string& path, const std::vector<std::string>& patterns) {
  for (const auto& p : patterns) {
    if (!p.empty() && p.back() == '*') {
      if (path.compare(0, p.size() - 1, p, 0, p.size() - 1) == 0) return true;
    } else if (p == path) {
      return true;
    }
  }
  return false;
}

// Keys whose values are compared everywhere (enums and names; the second
// line: /api/v1's PascalCase ones).
const std::set<std::string>& EnumKeys() {
  static const std::set<std::string> keys = {"code", "status", "statusLabel", "name", "fileName", "type",
                                             "role", "triggerType", "stream",
                                             "Status", "StatusText", "Name", "Title", "PageCount", "DagID", "NewName"};
  return keys;
}

const char* TypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "bool";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return "number";
    case json::value_t::string: return "string";
    case json::value_t::object: return "object";
    case json::value_t::array: return "array";
    default: return "?";
  }
}

std::string Short(const json& v) {
  std::string s = v.dump();
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

struct DiffContext {
  const ApiCase& c;
  const std::map<std::string, std::string>& allow_extra;
  std::vector<std::string>* out;
};

void Diff(const DiffContext& dc, const std::string& path, const std::string& key, const json& ours,
          const json& theirs) {
  const ApiCase& c = dc.c;
  std::vector<std::string>* out = dc.out;
  if (MatchesAny(path, c.ignore)) return;
  const std::string p = path.empty() ? "(root)" : path;
  if (std::string(TypeName(ours)) != TypeName(theirs)) {
    out->push_back(p + ": ours is " + TypeName(ours) + " " + Short(ours) + ", 1.30.2's is " + TypeName(theirs) + " " +
                   Short(theirs));
    return;
  }
  if (theirs.is_object()) {
    const bool dynamic = MatchesAny(path, c.dynamic_keys);
    for (const auto& [k, v] : theirs.items()) {
      if (!ours.contains(k)) {
        if (!dynamic && !MatchesAny(path + "." + k, c.ignore))
          out->push_back(p + ": missing key \"" + k + "\" (1.30.2: " + Short(v) + ")");
        continue;
      }
      Diff(dc, path + "." + k, k, ours[k], v);
    }
    if (!dynamic) {
      for (const auto& [k, v] : ours.items()) {
        if (!theirs.contains(k) && !dc.allow_extra.count(k) && !MatchesAny(path + "." + k, c.ignore))
          out->push_back(p + ": extra key \"" + k + "\" (ours: " + Short(v) + ")");
      }
    }
    return;
  }
  if (theirs.is_array()) {
    if (ours.size() != theirs.size() && !MatchesAny(path, c.any_length)) {
      out->push_back(p + ": " + std::to_string(ours.size()) + " elements, 1.30.2 has " +
                     std::to_string(theirs.size()));
    }
    size_t n = std::min(ours.size(), theirs.size());
    for (size_t i = 0; i < n; ++i) Diff(dc, path + "[]", key, ours[i], theirs[i]);
    return;
  }
  const bool compare_value = theirs.is_boolean() || EnumKeys().count(key) || MatchesAny(path, c.values);
  if (!compare_value) return;
  std::string a = ours.is_string() ? NormaliseApiValue(ours.get<std::string>()) : ours.dump();
  std::string b = theirs.is_string() ? NormaliseApiValue(theirs.get<std::string>()) : theirs.dump();
  if (a != b) out->push_back(p + ": ours is " + Short(a) + ", 1.30.2's is " + Short(b));
}

// One `dagu` binary serving one copy of the fixture home.
struct Side {
  std::string label;  // "ours" / "1.30.2"
  std::string binary;
  std::string home;
  std::map<std::string, std::string> env;
  std::unique_ptr<Subprocess> server;
  int port = 0;
  std::map<std::string, std::string> vars;

  std::string Expand(std::string s) const {
    for (const auto& [k, v] : vars) {
      const std::string key = "{" + k + "}";
      for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + v.size())) s.replace(at, key.size(), v);
    }
    return s;
  }
  // Normalises this side's home out of a body.
  std::string Scrub(std::string s) const {
    for (size_t at = s.find(home); at != std::string::npos; at = s.find(home, at)) s.replace(at, home.size(), "<home>");
    return s;
  }
};

std::string RunCli(Side& side, const std::vector<std::string>& args, const std::string& log) {
  Subprocess p;
  std::vector<std::string> argv = {side.binary};
  argv.insert(argv.end(), args.begin(), args.end());
  if (!p.Start(argv, side.env, log, "", side.home + "/dags")) return "cannot start " + side.binary;
  auto rc = p.Wait(60s);
  if (!rc) {
    p.Signal(SIGKILL);
    return side.label + ": `dagu " + args[0] + "` did not finish in 60 s";
  }
  return "";
}

HttpReply Send(Side& side, const std::string& method, const std::string& path, const std::optional<std::string>& body,
               const std::map<std::string, std::string>& headers) {
  std::map<std::string, std::string> h;
  for (const auto& [name, value] : headers) h[name] = side.Expand(value);
  std::string b = body ? side.Expand(*body) : "";
  if (body && !h.count("Content-Type")) h["Content-Type"] = "application/json";
  // With the port, as HTTP clients send it: 1.30.2's /api/v1 request
  // validator matches the Host against its server URL and answers 404 "no
  // matching operation was found" without it.
  if (!h.count("Host")) h["Host"] = "127.0.0.1:" + std::to_string(side.port);
  return HttpRequest(side.port, method, side.Expand(path), b, h, 15s);
}

std::string StartServer(Side& side, const std::string& log) {
  side.port = FreePort();
  std::vector<std::string> argv = {side.binary, "start-all", "--host", "127.0.0.1", "--port", std::to_string(side.port)};
  // Both run a coordinator (docs/distributed.md): each on a free port.
  argv.push_back("--coordinator.port");
  argv.push_back(std::to_string(FreePort()));
  auto env = side.env;
  env["DAGU_SCHEDULER_PORT"] = std::to_string(FreePort());
  side.server = std::make_unique<Subprocess>();
  if (!side.server->Start(argv, env, log, "", side.home)) return side.label + ": cannot start start-all";
  bool up = PollUntil([&] { return HttpRequest(side.port, "GET", "/api/v2/health", "", {}, 1s).status == 200; }, 30s,
                      100ms);
  if (!up) return side.label + ": start-all did not answer /api/v2/health in 30 s:\n" + side.server->Output();
  return "";
}

}  // namespace

std::string NormaliseApiValue(const std::string& s) {
  static const std::regex uuid("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  static const std::regex time(
      R"(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?)");
  static const std::regex compact(R"(\d{8}[._]\d{6}(\.\d{3})?Z?)");
  static const std::regex short_id(R"(\.[0-9a-f]{8}\.log)");
  std::string out = std::regex_replace(s, uuid, "<id>");
  out = std::regex_replace(out, time, "<time>");
  out = std::regex_replace(out, compact, "<ts>");
  out = std::regex_replace(out, short_id, ".<id8>.log");
  return out;
}

json JsonAt(const json& doc, const std::string& path) {
  const json* cur = &doc;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      size_t j = path.find_first_of(".[", i + 1);
      std::string key = path.substr(i + 1, j == std::string::npos ? std::string::npos : j - i - 1);
      if (!cur->is_object() || !cur->contains(key)) return nullptr;
      cur = &(*cur)[key];
      i = j == std::string::npos ? path.size() : j;
    } else if (path[i] == '[') {
      size_t j = path.find(']', i);
      if (j == std::string::npos) return nullptr;
      size_t idx = std::strtoul(path.substr(i + 1, j - i - 1).c_str(), nullptr, 10);
      if (!cur->is_array() || idx >= cur->size()) return nullptr;
      cur = &(*cur)[idx];
      i = j + 1;
    } else {
      return nullptr;
    }
  }
  return *cur;
}

std::string LoadApiCases(const std::string& path, ApiCaseFile* out) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const std::exception& e) {
    return path + ": " + e.what();
  }
  std::set<std::string> names;
  if (root["allow_extra_keys"])
    for (const auto& kv : root["allow_extra_keys"])
      out->allow_extra_keys[kv.first.as<std::string>()] = kv.second.as<std::string>();
  if (root["env"])
    for (const auto& kv : root["env"]) out->env[kv.first.as<std::string>()] = kv.second.as<std::string>();
  out->seed_http = root["seed_http"].as<bool>(true);
  const YAML::Node cases = root["cases"];
  if (!cases || !cases.IsSequence()) return path + ": no `cases:` list";
  for (const auto& n : cases) {
    ApiCase c;
    try {
      c.name = n["name"].as<std::string>("");
      if (c.name.empty()) return path + ": a case without a name";
      if (!names.insert(c.name).second) return path + ": two cases named " + c.name;
      std::string req = n["request"].as<std::string>("");  // "GET /api/v2/dags"
      size_t sp = req.find(' ');
      if (sp == std::string::npos) return path + ": " + c.name + ": request is not \"METHOD /path\"";
      c.method = req.substr(0, sp);
      c.path = req.substr(sp + 1);
      if (n["body"]) c.body = n["body"].IsScalar() ? n["body"].as<std::string>() : YamlToJson(n["body"]).dump();
      if (n["headers"])
        for (const auto& kv : n["headers"]) c.headers[kv.first.as<std::string>()] = kv.second.as<std::string>();
      if (n["status"]) c.status = n["status"].as<int>();
      c.text = n["text"].as<bool>(false);
      c.ignore = StringList(n["ignore"]);
      c.values = StringList(n["values"]);
      c.any_length = StringList(n["any_length"]);
      c.dynamic_keys = StringList(n["dynamic_keys"]);
      if (n["capture"])
        for (const auto& kv : n["capture"]) c.capture[kv.first.as<std::string>()] = kv.second.as<std::string>();
      if (n["until"]) {
        c.until_path = n["until"]["path"].as<std::string>("");
        c.until_in = StringList(n["until"]["in"]);
        if (n["until"]["changed"]) {
          c.until_changed_path = n["until"]["changed"]["path"].as<std::string>("");
          c.until_changed_from = n["until"]["changed"]["from"].as<std::string>("");
        }
      }
      c.known_difference = n["known_difference"].as<std::string>("");
    } catch (const std::exception& e) {
      return path + ": " + c.name + ": " + e.what();
    }
    out->cases.push_back(std::move(c));
  }
  return "";
}

std::vector<std::string> CompareApiJson(const ApiCase& c, const json& ours, const json& theirs,
                                        const std::map<std::string, std::string>& allow_extra_keys) {
  std::vector<std::string> out;
  Diff(DiffContext{c, allow_extra_keys, &out}, "", "", ours, theirs);
  return out;
}

std::string ApiCaseResult::Describe() const {
  std::ostringstream os;
  os << "case " << name << " (" << request << "): ours " << ours_status << ", 1.30.2 " << theirs_status;
  if (!known_difference.empty()) os << " [known difference: " << known_difference << "]";
  os << "\n";
  size_t shown = 0;
  for (const auto& d : diffs) {
    if (++shown > 25) {
      os << "  ... " << diffs.size() - 25 << " more\n";
      break;
    }
    os << "  " << d << "\n";
  }
  if (!diffs.empty()) {
    auto cut = [](const std::string& s) { return s.size() > 1500 ? s.substr(0, 1500) + "..." : s; };
    os << "  ours:   " << cut(ours_body) << "\n  1.30.2: " << cut(theirs_body) << "\n";
  }
  return os.str();
}

int ApiDiffReport::same() const {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(), [](const auto& c) { return c.same(); }));
}

std::string ApiDiffReport::Summary() const {
  int known = 0, differ = 0;
  for (const auto& c : cases) {
    if (c.same()) continue;
    (c.known_difference.empty() ? differ : known)++;
  }
  return std::to_string(cases.size()) + " cases, " + std::to_string(same()) + " same, " + std::to_string(known) +
         " known differences, " + std::to_string(differ) + " differ";
}

ApiDiffReport RunApiCaseFile(const std::string& file_name) {
  ApiDiffReport report;
  const Peer& peer = GetPeer();
  if (peer.binary.empty()) {
    report.skipped = peer.why_not;
    return report;
  }
  ApiCaseFile file;
  if (std::string err = LoadApiCases(ApiRoot() + "/cases/" + file_name, &file); !err.empty()) {
    report.problem = err;
    return report;
  }
  YAML::Node seed;
  try {
    seed = YAML::LoadFile(ApiRoot() + "/fixture/seed.yaml");
  } catch (const std::exception& e) {
    report.problem = std::string("fixture/seed.yaml: ") + e.what();
    return report;
  }

  TempDir tmp;
  Side sides[2];
  sides[0].label = "ours";
  sides[0].binary = DAGU_BINARY;
  sides[1].label = "1.30.2";
  sides[1].binary = peer.binary;
  for (int i = 0; i < 2; ++i) {
    Side& s = sides[i];
    s.home = tmp.Sub(i == 0 ? "ours" : "peer");
    fs::create_directories(s.home);
    fs::copy(ApiRoot() + "/fixture/dags", s.home + "/dags", fs::copy_options::recursive);
    fs::create_directories(tmp.Sub(i == 0 ? "ours-user" : "peer-user"));
    s.env["DAGU_HOME"] = s.home;
    s.env["HOME"] = tmp.Sub(i == 0 ? "ours-user" : "peer-user");
    s.env["TZ"] = "UTC";
    s.env["SHELL"] = "/bin/sh";
    for (const char* name : {"DAGU_PORT", "DAGU_HOST", "DAGU_TZ", "DAGU_DATA_DIR", "DAGU_DAGS", "DAGU_DAGS_DIR",
                             "DAGU_QUEUE_ENABLED", "DAGU_BASICAUTH_USERNAME", "DAGU_BASICAUTH_PASSWORD",
                             "DAGU_AUTHTOKEN", "DAGU_AUTH_MODE", "DAGU_CERT_FILE", "DAGU_KEY_FILE", "DAGU_BASE_PATH",
                             "XDG_DATA_HOME", "XDG_CONFIG_HOME", "DAGU_LOG_DIR"}) {
      s.env[name] = "";
    }
    for (const auto& [name, value] : file.env) s.env[name] = value;
  }
  // Runs recorded by each binary's own CLI, before the servers start.
  for (int i = 0; i < 2; ++i) {
    int n = 0;
    for (const auto& cmd : seed["cli"]) {
      std::string err = RunCli(sides[i], StringList(cmd), tmp.Sub("cli-" + std::to_string(i) + "-" + std::to_string(++n)));
      if (!err.empty()) {
        report.problem = err;
        return report;
      }
    }
  }
  for (int i = 0; i < 2; ++i) {
    std::string err = StartServer(sides[i], tmp.Sub(i == 0 ? "server-ours.log" : "server-peer.log"));
    if (!err.empty()) {
      report.problem = err;
      return report;
    }
  }
  for (const auto& req : file.seed_http ? seed["http"] : YAML::Node()) {
    std::string r = req["request"].as<std::string>();
    size_t sp = r.find(' ');
    std::optional<std::string> body;
    if (req["body"]) body = YamlToJson(req["body"]).dump();
    for (auto& s : sides) {
      HttpReply rep = Send(s, r.substr(0, sp), r.substr(sp + 1), body, {});
      if (rep.status / 100 != 2) {
        report.problem = s.label + ": seed " + r + " answered " + std::to_string(rep.status) + " " + rep.body;
        return report;
      }
    }
  }

  const bool dump = std::getenv("DAGU_API_DIFF_DUMP") != nullptr;
  for (const ApiCase& c : file.cases) {
    ApiCaseResult res;
    res.name = c.name;
    res.request = c.method + " " + c.path;
    res.known_difference = c.known_difference;
    HttpReply replies[2];
    for (int i = 0; i < 2; ++i) {
      auto deadline = std::chrono::steady_clock::now() + 30s;
      for (;;) {
        replies[i] = Send(sides[i], c.method, c.path, c.body, c.headers);
        if (c.until_path.empty()) break;
        if (std::chrono::steady_clock::now() > deadline) {
          res.diffs.push_back(sides[i].label + ": the until condition did not hold within 30 s");
          break;
        }
        json j = json::parse(replies[i].body, nullptr, false);
        json v = j.is_discarded() ? json() : JsonAt(j, c.until_path);
        std::string text = v.is_string() ? v.get<std::string>() : v.dump();
        bool changed = true;
        if (!c.until_changed_path.empty()) {
          json w = j.is_discarded() ? json() : JsonAt(j, c.until_changed_path);
          changed = (w.is_string() ? w.get<std::string>() : w.dump()) != sides[i].Expand(c.until_changed_from);
        }
        if (changed && std::find(c.until_in.begin(), c.until_in.end(), text) != c.until_in.end()) break;
        std::this_thread::sleep_for(200ms);
      }
    }
    res.ours_status = replies[0].status;
    res.theirs_status = replies[1].status;
    res.ours_body = sides[0].Scrub(replies[0].body);
    res.theirs_body = sides[1].Scrub(replies[1].body);
    if (res.ours_status != res.theirs_status) {
      res.diffs.push_back("status: ours " + std::to_string(res.ours_status) + ", 1.30.2 " +
                          std::to_string(res.theirs_status));
    }
    if (c.status && *c.status != res.theirs_status) {
      res.diffs.push_back("1.30.2 answered " + std::to_string(res.theirs_status) + ", the case expects " +
                          std::to_string(*c.status) + " (fix the case)");
    }
    if (c.text) {
      auto ct = [](const HttpReply& r) {
        auto it = r.headers.find("content-type");
        return it == r.headers.end() ? std::string() : it->second.substr(0, it->second.find(';'));
      };
      if (ct(replies[0]) != ct(replies[1]))
        res.diffs.push_back("Content-Type: ours " + ct(replies[0]) + ", 1.30.2 " + ct(replies[1]));
    } else {
      json ours = json::parse(res.ours_body, nullptr, false);
      json theirs = json::parse(res.theirs_body, nullptr, false);
      if (theirs.is_discarded()) {
        if (!ours.is_discarded()) res.diffs.push_back("body: ours is JSON, 1.30.2's is not");
      } else if (ours.is_discarded()) {
        res.diffs.push_back("body: ours is not JSON");
      } else {
        auto d = CompareApiJson(c, ours, theirs, file.allow_extra_keys);
        res.diffs.insert(res.diffs.end(), d.begin(), d.end());
      }
      for (int i = 0; i < 2; ++i) {
        json j = i == 0 ? ours : theirs;
        for (const auto& [var, path] : c.capture) {
          json v = j.is_discarded() ? json() : JsonAt(j, path);
          sides[i].vars[var] = v.is_string() ? v.get<std::string>() : v.dump();
        }
      }
    }
    if (dump) std::cerr << "== " << res.name << " " << res.request << "\n  ours:   " << res.ours_status << " "
                        << res.ours_body << "\n  1.30.2: " << res.theirs_status << " " << res.theirs_body << "\n";
    report.cases.push_back(std::move(res));
  }
  for (auto& s : sides) {
    s.server->Signal(SIGTERM);
    if (!s.server->Wait(10s)) s.server->Signal(SIGKILL);
  }
  return report;
}

}  // namespace dagu::testing
