#include "support/fleet.h"

#include <sys/types.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "support/subprocess.h"

namespace dagu::testing {

using namespace std::chrono_literals;

std::map<std::string, std::string> HomeEnv(const DaguHome& home) {
  return {{"DAGU_HOME", home.home()}, {"DAGU_SKIP_EXAMPLES", "true"}, {"TMPDIR", home.Scratch("tmp")}};
}

size_t RegistryFiles(const DaguHome& home) {
  std::error_code ec;
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(home.data_dir() + "/service-registry/coordinator", ec)) {
    if (e.path().extension() == ".json") ++n;
  }
  return n;
}

int RunToEnd(const DaguHome& home, const std::string& binary, const std::vector<std::string>& args,
             const std::string& name, std::string* output, const std::map<std::string, std::string>& env,
             std::chrono::milliseconds timeout) {
  std::filesystem::create_directories(home.Scratch("tmp"));
  Subprocess p;
  std::vector<std::string> argv{binary};
  argv.insert(argv.end(), args.begin(), args.end());
  if (!p.Start(argv, env.empty() ? HomeEnv(home) : env, home.LogPath(name))) return -1;
  std::optional<int> rc = p.Wait(timeout);
  if (output != nullptr) *output = p.Output();
  if (!rc.has_value()) {
    p.Signal(SIGKILL);
    p.Wait(5s);
  }
  return rc.value_or(-1);
}

bool StartCoordinator(DaguProcess* coordinator, const std::string& binary, const DaguHome& home,
                      const std::vector<std::string>& extra_args, const std::map<std::string, std::string>& env) {
  std::filesystem::create_directories(home.Scratch("tmp"));
  std::vector<std::string> args{"coordinator", "--coordinator.port", std::to_string(FreePort())};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  if (!coordinator->Start(binary, args, env.empty() ? HomeEnv(home) : env)) return false;
  return PollUntil([&] { return RegistryFiles(home) == 1; }, 10s, 50ms);
}

bool StartWorker(DaguProcess* worker, const std::string& binary, const DaguHome& home,
                 const std::vector<std::string>& worker_args, const std::map<std::string, std::string>& env) {
  std::filesystem::create_directories(home.Scratch("tmp"));
  std::vector<std::string> args{"worker"};
  args.insert(args.end(), worker_args.begin(), worker_args.end());
  return worker->Start(binary, args, env.empty() ? HomeEnv(home) : env);
}

bool StartScheduler(DaguProcess* scheduler, const std::string& binary, const DaguHome& home,
                    const std::map<std::string, std::string>& extra_env) {
  std::filesystem::create_directories(home.Scratch("tmp"));
  auto env = HomeEnv(home);
  for (const auto& [k, v] : extra_env) env[k] = v;
  scheduler->health_port = FreePort();
  env["DAGU_SCHEDULER_PORT"] = std::to_string(scheduler->health_port);
  return scheduler->Start(binary, {"scheduler"}, env);
}

RunRecord LatestRun(const DaguHome& home, const std::string& dag, const std::string& run_id) {
  auto runs = RunsWithId(ReadRunRecords(home.data_dir(), dag), run_id);
  return runs.empty() ? RunRecord{} : runs.front();
}

RunRecord LatestRun(const DaguHome& home, const std::string& dag) {
  auto runs = ReadRunRecords(home.data_dir(), dag);
  return runs.empty() ? RunRecord{} : runs.back();
}

namespace {

std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The parent's PID of `pid` from /proc/<pid>/stat (-1 when gone).
pid_t ParentOf(pid_t pid) {
  const std::string stat = ReadAll("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');  // the command may hold spaces and parentheses
  if (close == std::string::npos) return -1;
  std::istringstream rest(stat.substr(close + 1));
  std::string state;
  pid_t ppid = -1;
  rest >> state >> ppid;
  return ppid;
}

}  // namespace

std::vector<std::string> ChildIds(const RunRecord& parent) {
  std::vector<std::string> out;
  if (!parent.has_status) return out;
  for (const auto& n : parent.status.value("nodes", nlohmann::json::array())) {
    for (const auto& c : n.value("children", nlohmann::json::array())) out.push_back(c.value("dagRunId", ""));
  }
  return out;
}

nlohmann::json SubRunStatus(const DaguHome& home, const std::string& sub_id) {
  std::error_code ec;
  nlohmann::json last = nlohmann::json::object();
  std::string newest_attempt;
  for (const auto& e : std::filesystem::recursive_directory_iterator(home.data_dir() + "/dag-runs", ec)) {
    if (e.path().filename() != "status.jsonl") continue;
    const auto attempt = e.path().parent_path();
    if (attempt.parent_path().filename() != "child_" + sub_id) continue;
    if (attempt.filename().string() < newest_attempt) continue;
    newest_attempt = attempt.filename().string();
    std::istringstream lines(ReadAll(e.path()));
    for (std::string line; std::getline(lines, line);) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_object()) last = j;
    }
  }
  return last;
}

void KillProcessTree(pid_t root) {
  if (root <= 1) return;  // kill(0) or kill(-1) would reach far more than the tree
  std::set<pid_t> tree{root};
  ::kill(root, SIGSTOP);
  for (bool grew = true; grew;) {
    grew = false;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
      const std::string name = e.path().filename().string();
      if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
      const pid_t pid = static_cast<pid_t>(std::stol(name));
      if (tree.contains(pid) || !tree.contains(ParentOf(pid))) continue;
      ::kill(pid, SIGSTOP);
      tree.insert(pid);
      grew = true;
    }
  }
  for (pid_t pid : tree) ::kill(pid, SIGKILL);
}

bool AgeHeartbeat(const DaguHome& home, const std::string& run_id, std::chrono::seconds age) {
  const std::string suffix = "_" + run_id + ".proc";
  std::error_code ec;
  bool found = false;
  for (const auto& e : std::filesystem::recursive_directory_iterator(home.data_dir() + "/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || !name.starts_with("proc_") || !name.ends_with(suffix)) continue;
    const auto then = std::chrono::system_clock::now() - age;
    const auto secs = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(then.time_since_epoch()).count());
    char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((secs >> (8 * (7 - i))) & 0xff);
    std::ofstream(e.path(), std::ios::binary | std::ios::in | std::ios::out).write(bytes, 8);
    std::filesystem::last_write_time(
        e.path(), std::filesystem::file_time_type::clock::now() - std::chrono::duration_cast<std::filesystem::file_time_type::duration>(age), ec);
    found = true;
  }
  return found;
}

}  // namespace dagu::testing
