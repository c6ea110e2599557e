// The warm-up at server start (web/warm_up.h): once it is done, the DAG list
// and today's runs are answered without reading the disk; a stop ends it.
#include "web/warm_up.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "core/time_format.h"
#include "store/run_layout.h"
#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu::web {
namespace {

using namespace std::chrono_literals;
using dagu::testing::FaultyFileSystem;
using dagu::testing::TempDir;

class WarmUpTest : public ::testing::Test {
 protected:
  WarmUpTest()
      : faulty_(PosixFileSystem()),
        dags_(&faulty_, home_.Sub("dags"), home_.Sub("suspend"), LoadDagOptions{}),
        runs_(&faulty_, Clock::Real(), home_.Sub("data/dag-runs")),
        writer_(PosixFileSystem(), Clock::Real(), home_.Sub("data/dag-runs")) {
    RunIndexLimits limits;
    limits.max_watched_days = 4;
    limits.max_watches = 1000;
    runs_.EnableIndex(limits);
    // The suspend-flag folder exists (the listing cache watches it).
    std::filesystem::create_directories(home_.Sub("suspend"));
  }

  // A DAG file old enough that its parse is kept (DagFiles::kRacyWindow).
  void WriteDag(const std::string& name) {
    const std::string path = home_.WriteFile("dags/" + name + ".yaml", "steps:\n  - command: echo " + name + "\n");
    std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now() - 1min);
  }

  void WriteRun(const std::string& dag, const std::string& id, WallTime created, RunStatus status) {
    RunDir run;
    ASSERT_TRUE(writer_.CreateRun(dag, id, created, &run).ok());
    AttemptDir a;
    ASSERT_TRUE(writer_.CreateAttempt(run, nullptr, &a).ok());
    RunRecord r;
    r.root = {dag, id};
    r.name = dag;
    r.dag_run_id = id;
    r.status = status;
    ASSERT_TRUE(writer_.AppendStatus(a, r).ok());
  }

  static RunQuery Today() {
    const int64_t day = UnixSeconds(Clock::Real()->Now()) / 86400 * 86400;
    RunQuery q;
    q.from = FromUnixSeconds(day);
    q.to = FromUnixSeconds(day + 86399);
    q.summaries = true;
    q.limit = 50;
    return q;
  }

  static void WaitDone(const WarmUp& w) {
    for (int i = 0; i < 3000 && !w.done(); ++i) std::this_thread::sleep_for(10ms);
    ASSERT_TRUE(w.done()) << "the warm-up did not end in 30 s";
  }

  TempDir home_;
  FaultyFileSystem faulty_;
  DagFiles dags_;
  RunStore runs_;
  RunStore writer_;  // another process writing runs
};

TEST_F(WarmUpTest, TheDagListAndTodaysRunsAreThenAnsweredWithoutTheDisk) {
  for (const char* name : {"a", "b", "c"}) WriteDag(name);
  const WallTime now = Clock::Real()->Now();
  WriteRun("a", "r1", now - 2s, RunStatus::kSucceeded);
  WriteRun("b", "r2", now - 1s, RunStatus::kFailed);
  dags_.WatchForChanges();
  WarmUp w(&dags_, &runs_, Clock::Real());
  w.Start();
  WaitDone(w);
  EXPECT_GT(w.seconds(), 0);
  // From here on every read of the home fails: what answers comes from memory.
  faulty_.FailWith("*", home_.path(), Status::IOError("the disk is gone"));
  std::vector<std::shared_ptr<const DagFile>> files;
  ASSERT_TRUE(dags_.ListShared(/*metadata_only=*/true, &files).ok());
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0]->file_name, "a");
  EXPECT_TRUE(files[2]->dag.has_value());
  std::vector<RunEntry> entries;
  Status s = runs_.ListRuns(Today(), &entries);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].run.run_id, "r2");
  EXPECT_TRUE(entries[0].error.ok()) << entries[0].error.ToString();
  EXPECT_EQ(entries[0].record.status, RunStatus::kFailed);
  EXPECT_EQ(entries[1].record.status, RunStatus::kSucceeded);
  // Without the warm-up the same listing reads the disk (and fails here).
  faulty_.Clear();
  RunStore cold(&faulty_, Clock::Real(), home_.Sub("data/dag-runs"));
  RunIndexLimits limits;
  limits.max_watched_days = 4;
  limits.max_watches = 1000;
  cold.EnableIndex(limits);
  faulty_.FailWith("*", home_.path(), Status::IOError("the disk is gone"));
  EXPECT_FALSE(cold.ListRuns(Today(), &entries).ok());
}

TEST_F(WarmUpTest, AStopEndsItAndWhatItLeftIsStillCurrent) {
  for (int i = 0; i < 50; ++i) WriteDag("d" + std::to_string(i));
  WriteRun("d1", "r1", Clock::Real()->Now(), RunStatus::kRunning);
  dags_.WatchForChanges();
  WarmUp w(&dags_, &runs_, Clock::Real());
  w.Start();
  w.Stop();
  EXPECT_TRUE(w.done());
  w.Stop();  // idempotent
  // Whatever it read before the stop, the listings equal the files, also
  // after another writer's change.
  WriteRun("d2", "r2", Clock::Real()->Now() + 2s, RunStatus::kQueued);
  std::vector<RunEntry> entries;
  ASSERT_TRUE(runs_.ListRuns(Today(), &entries).ok());
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].run.run_id, "r2");
  std::vector<std::shared_ptr<const DagFile>> files;
  ASSERT_TRUE(dags_.ListShared(/*metadata_only=*/true, &files).ok());
  EXPECT_EQ(files.size(), 50u);
}

TEST(DagFilesCancelTest, ACancelledListingAnswersAbortedWithNothing) {
  TempDir home;
  home.WriteFile("dags/a.yaml", "steps:\n  - command: echo a\n");
  DagFiles dags(PosixFileSystem(), home.Sub("dags"), home.Sub("suspend"), LoadDagOptions{});
  std::atomic<bool> cancel{true};
  std::vector<std::shared_ptr<const DagFile>> files(2);
  EXPECT_EQ(dags.ListShared(/*metadata_only=*/true, &files, &cancel).code(), Status::Code::kAborted);
  EXPECT_TRUE(files.empty());
  cancel = false;
  ASSERT_TRUE(dags.ListShared(/*metadata_only=*/true, &files, &cancel).ok());
  EXPECT_EQ(files.size(), 1u);
}

}  // namespace
}  // namespace dagu::web
