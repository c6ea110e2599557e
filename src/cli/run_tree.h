// The run summary Dagu 1.30.2 prints after `start`, `retry`, `exec`, `dry`
// and for `status`: a header ("Succeeded - <startedAt>"), the DAG line with
// its duration, one tree branch per step (name, duration, [status], its
// commands, the tail of its stdout/stderr, its error) and a last line
// "Result: <Status>" ("Status: Running" while the run goes on):
//
//   Succeeded - 2026-12-03T09:17:45Z
//
//   dag: hello (0s)
//   │
//   ├─first (0s) [succeeded]
//   │ ├─echo hello world
//   │ │
//   │ └─stdout: hello world
//   │
//   └─second [aborted]
//
//   Result: Succeeded
//
// Layout rules (checked line by line against the real binary, see
// docs/cli.md): lines wrap at 80 bytes on word boundaries; step output
// shows its last 50 non-blank lines, trimmed, with "... (N more lines)"
// when cut; skipped, aborted and not-started steps show only their line;
// handler steps are not shown; sub-DAG runs of a step show as
// "subdag: <run ID> [params]".
#pragma once

#include <string>

#include "core/clock.h"
#include "core/file_system.h"
#include "store/run_status.h"

namespace dagu {

struct RunTreeOptions {
  bool color = false;           // ANSI colours (Dagu uses them when stdout is a terminal)
  size_t max_output_lines = 50;
  size_t max_width = 80;
};

// Renders `record`. Step output is read from the paths in the record
// through `fs` (a missing or unreadable file shows nothing). `now` ends the
// durations of running steps, and stands in for a missing start time.
std::string RenderRunTree(const RunRecord& record, FileSystem* fs, WallTime now, const RunTreeOptions& options = {});

// Dagu's short duration form: "0s", "850ms", "2.0s", "3m 5s", "1h 2m".
std::string FormatShortDuration(std::chrono::nanoseconds d);

}  // namespace dagu
