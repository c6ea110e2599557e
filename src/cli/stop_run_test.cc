#include <gtest/gtest.h>

#include "cli/run_support.h"
#include "core/exit_codes.h"
#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu::cli {
namespace {

using dagu::testing::FaultyFileSystem;
using dagu::testing::TempDir;

RunRecord Record(RunStatus status) {
  RunRecord r;
  r.name = "etl";
  r.dag_run_id = "r1";
  r.status = status;
  return r;
}

// `dagu stop` read the record (running); then the run wrote its final record
// and removed its heartbeat file; then the stop checked the heartbeat. The
// run has stopped: the stop succeeds, it does not report a run without a
// live process (found by the ASan process tests,
// SubDagProcessTest.StopOfTheParentStopsEveryChild).
TEST(StopRunTest, ARunThatEndedBetweenTheReadAndTheHeartbeatCheckHasStopped) {
  TempDir dir;
  RunContext ctx;
  ctx.config.paths.dag_runs_dir = dir.Sub("dag-runs");
  ctx.config.paths.proc_dir = dir.Sub("proc");
  RunStore real = ctx.Runs();
  ProcStore procs = ctx.Procs();
  RunDir run;
  AttemptDir attempt;
  ASSERT_TRUE(real.CreateRun("etl", "r1", Clock::Real()->Now(), &run).ok());
  ASSERT_TRUE(real.CreateAttempt(run, nullptr, &attempt).ok());
  ASSERT_TRUE(real.AppendStatus(attempt, Record(RunStatus::kRunning)).ok());
  ProcEntry heartbeat;
  ASSERT_TRUE(procs.Acquire("etl", "etl", "r1", &heartbeat).ok());

  // The stop's reads of the record: the first (before the cancel request)
  // and the second (in its wait) see "running"; the heartbeat is gone by
  // the time it is checked, and the record says "aborted" from then on.
  FaultyFileSystem fs(PosixFileSystem());
  RunStore runs(&fs, Clock::Real(), ctx.config.paths.dag_runs_dir);
  fs.BeforeOnce("WriteFile", "CANCEL_REQUESTED", [&] {
    fs.BeforeOnce("ReadFile", "status.jsonl", [&] {
      ASSERT_TRUE(procs.Release(heartbeat).ok());
      fs.BeforeOnce("ReadFile", "status.jsonl", [&] {
        ASSERT_TRUE(
            real.AppendStatus(attempt, Record(RunStatus::kAborted)).ok());
      });
    });
  });
  EXPECT_EQ(
      StopRun(ctx, runs, "etl", "r1", /*found_by_name=*/false, /*quiet=*/true),
      kExitOk);
}

} // namespace
} // namespace dagu::cli
