#include "support/fleet.h"

#include <csignal>
#include <filesystem>

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

bool StartScheduler(DaguProcess* scheduler, const std::string& binary, const DaguHome& home) {
  std::filesystem::create_directories(home.Scratch("tmp"));
  auto env = HomeEnv(home);
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

}  // namespace dagu::testing
