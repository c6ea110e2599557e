#include "launcher/run_commands.h"

#include "core/dispatch_deadline.h"
#include "core/time_format.h"

namespace dagu {
namespace {

void AddConfig(const LaunchContext& ctx, std::vector<std::string>* argv) {
  if (ctx.config_file.empty()) return;
  argv->push_back("--config");
  argv->push_back(ctx.config_file);
}

}  // namespace

namespace {

// `<verb> -q --run-id=... --trigger-type=scheduled --schedule-time=... [--config ...] <dag>`.
std::vector<std::string> SlotCommand(const LaunchContext& ctx, const char* verb, const std::string& run_id,
                                     WallTime slot, const std::string& dag_location) {
  std::vector<std::string> argv = {ctx.executable,
                                   verb,
                                   "-q",
                                   "--run-id=" + run_id,
                                   std::string("--trigger-type=") + kScheduledTriggerType,
                                   "--schedule-time=" + FormatRFC3339Local(slot)};
  AddConfig(ctx, &argv);
  argv.push_back(dag_location);
  return argv;
}

}  // namespace

std::vector<std::string> StartSlotCommand(const LaunchContext& ctx, const std::string& run_id, WallTime slot,
                                          const std::string& dag_location) {
  return SlotCommand(ctx, "start", run_id, slot, dag_location);
}

std::vector<std::string> EnqueueSlotCommand(const LaunchContext& ctx, const std::string& run_id, WallTime slot,
                                            const std::string& dag_location) {
  return SlotCommand(ctx, "enqueue", run_id, slot, dag_location);
}

std::vector<std::string> RetryQueuedCommand(const LaunchContext& ctx, const std::string& run_id,
                                            const std::string& dag_name) {
  std::vector<std::string> argv = {ctx.executable, "retry", "--run-id=" + run_id, "-q"};
  AddConfig(ctx, &argv);
  argv.push_back("--");  // a name 1.30.2 accepted may start with '-'
  argv.push_back(dag_name);
  return argv;
}

std::vector<std::string> StopDagCommand(const LaunchContext& ctx, const std::string& dag_location) {
  std::vector<std::string> argv = {ctx.executable, "stop", "-q"};
  AddConfig(ctx, &argv);
  argv.push_back("--");
  argv.push_back(dag_location);
  return argv;
}

std::vector<std::string> TaskStartCommand(const LaunchContext& ctx, const DistributedTaskArgs& task) {
  std::vector<std::string> argv = {ctx.executable, "start", "-q"};
  if (!task.root_id.empty()) argv.push_back("--root=" + task.root_name + ":" + task.root_id);
  if (!task.parent_id.empty()) argv.push_back("--parent=" + task.parent_name + ":" + task.parent_id);
  argv.push_back("--run-id=" + task.run_id);
  if (!task.worker_id.empty()) argv.push_back("--worker-id=" + task.worker_id);
  AddConfig(ctx, &argv);
  argv.push_back(task.target);
  if (!task.params.empty()) {
    argv.push_back("--");
    argv.push_back(task.params);
  }
  return argv;
}

std::vector<std::string> TaskRetryCommand(const LaunchContext& ctx, const DistributedTaskArgs& task) {
  std::vector<std::string> argv = {ctx.executable, "retry", "--run-id=" + task.run_id, "-q"};
  if (!task.step.empty()) argv.push_back("--step=" + task.step);
  if (!task.worker_id.empty()) argv.push_back("--worker-id=" + task.worker_id);
  AddConfig(ctx, &argv);
  argv.push_back("--");  // a name 1.30.2 accepted may start with '-'
  argv.push_back(task.root_name);
  return argv;
}

std::vector<std::string> ChildEnvironment(const LaunchContext& ctx, const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> env = ctx.environment;
  for (const char* key : {"DAGU_QUEUE_DISPATCH_RETRY", "DAGU_DAG_DEFINITION_ID", "DAGU_PARALLEL_ITEM",
                          kDispatchDeadlineEnv, kDispatchLeaseEnv}) {
    env.erase(key);
  }
  for (const auto& [k, v] : extra) env[k] = v;
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

}  // namespace dagu
