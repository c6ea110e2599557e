#include "distributed/agent_task_runner.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "core/temp_file.h"

namespace dagu::distributed {
namespace {

// How often a running agent is checked for its exit.
constexpr std::chrono::milliseconds kReapEvery{100};

// The task's target as a file name part (1.30.2 uses it as is; a '/' would
// point into a directory that does not exist).
std::string FilePart(const std::string& target) {
  std::string out = target.empty() ? "dag" : target;
  for (char& c : out) {
    if (c == '/') c = '_';
  }
  return out;
}

Status WriteDefinition(const std::string& temp_dir, const WireTask& task, std::string* path) {
  const std::string dir = (std::filesystem::path(temp_dir) / "dagu" / "worker-dags").string();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create " + dir + ": " + ec.message());
  StatusOr<int> fd = CreateGoTempFile(dir, FilePart(task.target) + "-*.yaml", 0600, path);
  if (!fd.ok()) return fd.status();
  const std::string& text = task.definition;
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd.value(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status s = Status::FromErrno(errno, "write " + *path);
      ::close(fd.value());
      ::unlink(path->c_str());
      return s;
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd.value());
  return Status::OK();
}

}  // namespace

AgentTaskRunner::AgentTaskRunner(ProcessSpawner* spawner, LaunchContext context, std::string temp_dir)
    : spawner_(spawner), context_(std::move(context)), temp_dir_(std::move(temp_dir)) {}

std::vector<std::string> AgentTaskRunner::CommandFor(const WireTask& task, const std::string& target) const {
  DistributedTaskArgs args;
  args.root_name = task.root_dag_run_name;
  args.root_id = task.root_dag_run_id;
  args.parent_name = task.parent_dag_run_name;
  args.parent_id = task.parent_dag_run_id;
  args.run_id = task.dag_run_id;
  args.worker_id = task.worker_id;
  args.target = target;
  args.params = task.params;
  args.step = task.step;
  return task.operation == TaskOperation::kRetry ? TaskRetryCommand(context_, args) : TaskStartCommand(context_, args);
}

Status AgentTaskRunner::Run(const WireTask& task) {
  if (task.operation != TaskOperation::kStart && task.operation != TaskOperation::kRetry) {
    return Status::InvalidArgument(task.operation == TaskOperation::kUnspecified
                                       ? "operation not specified"
                                       : "unknown operation: " + std::to_string(static_cast<int>(task.operation)));
  }
  if (task.dag_run_id.empty()) return Status::InvalidArgument("the task has no dag_run_id");
  std::string target = task.target;
  std::string temp_file;
  if (!task.definition.empty()) {
    DAGU_RETURN_IF_ERROR(WriteDefinition(temp_dir_, task, &temp_file));
    target = temp_file;
  }
  pid_t pid = 0;
  Status spawned = spawner_->Spawn(CommandFor(task, target), ChildEnvironment(context_, {}), {}, &pid);
  if (spawned.ok()) {
    std::lock_guard<std::mutex> l(mu_);
    running_.insert(pid);
  }
  int exit_status = 0;
  if (spawned.ok()) {
    while (!spawner_->TryReap(pid, &exit_status)) std::this_thread::sleep_for(kReapEvery);
    std::lock_guard<std::mutex> l(mu_);
    running_.erase(pid);
  }
  if (!temp_file.empty()) ::unlink(temp_file.c_str());
  DAGU_RETURN_IF_ERROR(spawned);
  if (exit_status != 0) return Status::Aborted("the run agent exited with status " + std::to_string(exit_status));
  return Status::OK();
}

void AgentTaskRunner::CancelAll() {
  std::set<pid_t> pids;
  {
    std::lock_guard<std::mutex> l(mu_);
    pids = running_;
  }
  for (pid_t pid : pids) spawner_->Signal(pid, SIGTERM).LogIfError("stopping a task's run agent");
}

}  // namespace dagu::distributed
