// Starting runs from API handlers through the CLI (cli_runner.h), as Dagu
// 1.30.2's server does:
//
//   StartAndWait  `dagu start <flags> <target>`, then waits (ctx.start_timeout,
//                 Dagu: 5 s) until the run `dag_name`/`run_id` has a record
//                 that says it started (or was queued);
//   RunCommand    any short command (enqueue, dequeue, stop), waited for
//                 (ctx.command_timeout).
//
// Both block the calling request thread only (no lock is held). Internal
// (500) errors say what failed without server paths.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "web/api_context.h"

namespace dagu::web {

Status StartAndWait(const ApiContext& ctx, const std::vector<std::string>& flags, const std::string& target,
                    const std::string& dag_name, const std::string& run_id);

Status RunCommand(const ApiContext& ctx, const std::string& subcommand, const std::vector<std::string>& flags,
                  const std::vector<std::string>& positional);

}  // namespace dagu::web
