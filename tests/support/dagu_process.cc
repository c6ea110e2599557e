#include "support/dagu_process.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace dagu::testing {

DaguHome::DaguHome() : home_(tmp_.Sub("home")) {
  std::filesystem::create_directories(dags_dir());
}

std::string DaguHome::WriteDag(const std::string& name, const std::string& yaml, const std::string& dir) const {
  std::string base = dir.empty() ? dags_dir() : dir;
  std::filesystem::create_directories(base);
  std::string path = base + "/" + name + ".yaml";
  std::ofstream(path, std::ios::binary) << yaml;
  return path;
}

std::string HealthReply::Describe() const {
  std::ostringstream os;
  os << "HTTP " << http_status << " " << (body.is_null() ? "(no JSON body)" : body.dump());
  return os.str();
}

bool DaguProcess::Start(const std::string& binary, const std::vector<std::string>& args,
                        const std::map<std::string, std::string>& env) {
  argv_ = {binary};
  argv_.insert(argv_.end(), args.begin(), args.end());
  return proc_.Start(argv_, env, log_path_);
}

HealthReply DaguProcess::Health(bool role_active, std::chrono::milliseconds timeout) const {
  HealthReply reply;
  if (health_port == 0) return reply;
  HttpResponse r = HttpGet(health_address, health_port, role_active ? "/health?role=active" : "/health", timeout);
  reply.http_status = r.status;
  auto parsed = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_discarded()) reply.body = parsed;
  if (reply.body.is_object() && reply.body.contains("role") && reply.body["role"].is_string()) {
    reply.role = reply.body["role"].get<std::string>();
  }
  return reply;
}

HttpResponse DaguProcess::Web(const std::string& target, std::chrono::milliseconds timeout) const {
  if (web_port == 0) return {};
  return HttpGet(web_port, target, timeout);
}

std::optional<int> DaguProcess::Wait(std::chrono::milliseconds timeout) { return proc_.Wait(timeout); }

std::string DaguProcess::Describe(size_t max_lines) {
  std::ostringstream os;
  os << "=== instance " << name_ << " pid=" << proc_.pid() << " health_port=" << health_port
     << " web_port=" << web_port << " exit=";
  auto st = exit_status();
  if (st) {
    os << *st;
  } else {
    os << "(running)";
  }
  os << "\n    argv:";
  for (const auto& a : argv_) os << " " << a;
  std::string out = Output();
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  size_t first = lines.size() > max_lines ? lines.size() - max_lines : 0;
  os << "\n    output (" << lines.size() << " lines" << (first > 0 ? ", last shown" : "") << "):\n";
  for (size_t i = first; i < lines.size(); ++i) os << "    | " << lines[i] << "\n";
  return os.str();
}

}  // namespace dagu::testing
