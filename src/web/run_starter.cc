#include "web/run_starter.h"

#include <thread>

namespace dagu::web {

Status StartAndWait(const ApiContext& ctx, const std::vector<std::string>& flags, const std::string& target,
                    const std::string& dag_name, const std::string& run_id) {
  pid_t pid = 0;
  DAGU_RETURN_IF_ERROR(ctx.cli->Spawn("start", flags, {target}, &pid));
  auto deadline = std::chrono::steady_clock::now() + ctx.start_timeout;
  std::optional<int> exit_status;
  for (;;) {
    RunRecord record;
    if (ctx.runs->ReadLatest(dag_name, run_id, nullptr, nullptr, &record).ok() &&
        record.status != RunStatus::kNotStarted) {
      return Status::OK();
    }
    if (!exit_status) exit_status = ctx.cli->Wait(pid, std::chrono::milliseconds(50));
    if ((exit_status && *exit_status != 0) || std::chrono::steady_clock::now() >= deadline) break;
    if (ctx.cli->waits_cancelled()) return Status::Aborted("the server is stopping");
    if (exit_status) std::this_thread::sleep_for(std::chrono::milliseconds(50));  // exited 0: the record follows
  }
  return Status::IOError(exit_status ? "dagu start exited with status " + std::to_string(*exit_status) +
                                            " (see the server log)"
                                      : "DAG did not start within " + std::to_string(ctx.start_timeout.count()) + " ms");
}

Status RunCommand(const ApiContext& ctx, const std::string& subcommand, const std::vector<std::string>& flags,
                  const std::vector<std::string>& positional) {
  pid_t pid = 0;
  DAGU_RETURN_IF_ERROR(ctx.cli->Spawn(subcommand, flags, positional, &pid));
  std::optional<int> rc = ctx.cli->Wait(pid, ctx.command_timeout);
  if (rc && *rc == 0) return Status::OK();
  return Status::IOError(rc ? "dagu " + subcommand + " exited with status " + std::to_string(*rc) + " (see the server log)"
                             : "dagu " + subcommand + " did not finish in time");
}

}  // namespace dagu::web
