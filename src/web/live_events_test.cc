// LiveEventSource against the real file system and inotify: what changes in
// the data directories publish. Every wait is bounded; no timing is asserted.
#include "web/live_events.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include "core/clock.h"
#include "core/file_system.h"
#include "store/proc_store.h"
#include "store/run_store.h"
#include "store/sub_runs.h"
#include "support/temp_dir.h"

namespace dagu::web {
namespace {

using namespace std::chrono_literals;

struct LiveFixture : ::testing::Test {
  LiveFixture()
      : runs(PosixFileSystem(), Clock::Real(), dir.Sub("data/dag-runs")),
        procs(PosixFileSystem(), Clock::Real(), dir.Sub("data/proc")),
        source(LivePaths{dir.Sub("dags"), dir.Sub("data/proc"), dir.Sub("data/queue")}, &hub, &runs) {
    for (const char* d : {"dags", "data", "data/dag-runs", "data/proc", "data/queue"}) ::mkdir(dir.Sub(d).c_str(), 0755);
  }
  void SetUp() override {
    Status s = source.Open();
    ASSERT_TRUE(s.ok()) << s.ToString();
    stream = hub.Subscribe();
    bool ended = false;
    stream->Take(&ended);  // the hello
  }
  // Polls until the stream received `needle` (bounded); what it received.
  std::string WaitFor(const std::string& needle) {
    for (int i = 0; i < 50 && received.find(needle) == std::string::npos; ++i) {
      source.Poll(100ms);
      bool ended = false;
      received += stream->Take(&ended);
    }
    return received;
  }

  dagu::testing::TempDir dir;
  EventHub hub;
  RunStore runs;
  ProcStore procs;
  LiveEventSource source;
  std::shared_ptr<http::BodyStream> stream;
  std::string received;
};

TEST_F(LiveFixture, ARunStartingAndEndingIsPublishedFromItsProcFile) {
  ProcEntry entry;
  // The group and DAG folders are new: they are watched as they appear and
  // the file already in them is seen.
  ASSERT_TRUE(procs.Acquire("etl", "etl", "r1", &entry).ok());
  EXPECT_NE(WaitFor("{\"kind\":\"run\",\"dag\":\"etl\",\"runId\":\"r1\"}").find("runId\":\"r1"), std::string::npos)
      << received;
  received.clear();
  ASSERT_TRUE(procs.Acquire("etl", "etl", "r2", &entry).ok());
  EXPECT_NE(WaitFor("\"runId\":\"r2\"").find("\"runId\":\"r2\""), std::string::npos) << "a second run of a watched DAG";
  received.clear();
  ASSERT_TRUE(procs.Release(entry).ok());
  EXPECT_NE(WaitFor("\"runId\":\"r2\"").find("\"runId\":\"r2\""), std::string::npos) << "its end";
}

TEST_F(LiveFixture, StatusWritesOfARunningRunArePublished) {
  RunDir run;
  ASSERT_TRUE(runs.CreateRun("etl", "r1", Clock::Real()->Now(), &run).ok());
  AttemptDir attempt;
  ASSERT_TRUE(runs.CreateAttempt(run, nullptr, &attempt).ok());
  ProcEntry entry;
  ASSERT_TRUE(procs.Acquire("etl", "etl", "r1", &entry).ok());
  WaitFor("\"runId\":\"r1\"");
  received.clear();
  while (source.Poll(50ms) > 0) {}  // what the start raised
  bool ended = false;
  stream->Take(&ended);
  RunRecord record;
  record.name = "etl";
  record.dag_run_id = "r1";
  record.status = RunStatus::kRunning;
  ASSERT_TRUE(runs.AppendStatus(attempt, record).ok());
  EXPECT_NE(WaitFor("\"runId\":\"r1\"").find("{\"kind\":\"run\",\"dag\":\"etl\",\"runId\":\"r1\"}"), std::string::npos)
      << "a step's change reaches the clients while the run goes on";
}

// Dagu 1.30.2's `dagu start` takes the proc file first and creates the run's
// folder after it: the run is watched once its folder appears, so its status
// writes (each step's start and end) are published, not only its start and end.
TEST_F(LiveFixture, StatusWritesOfARunWhoseFolderCameAfterItsProcFileArePublished) {
  ProcEntry entry;
  ASSERT_TRUE(procs.Acquire("etl", "etl", "r1", &entry).ok());
  WaitFor("\"runId\":\"r1\"");
  while (source.Poll(50ms) > 0) {}  // what the start raised
  bool ended = false;
  stream->Take(&ended);
  received.clear();
  RunDir run;
  ASSERT_TRUE(runs.CreateRun("etl", "r1", Clock::Real()->Now(), &run).ok());
  AttemptDir attempt;
  ASSERT_TRUE(runs.CreateAttempt(run, nullptr, &attempt).ok());
  RunRecord record;
  record.name = "etl";
  record.dag_run_id = "r1";
  record.status = RunStatus::kRunning;
  ASSERT_TRUE(runs.AppendStatus(attempt, record).ok());
  EXPECT_NE(WaitFor("\"runId\":\"r1\"").find("{\"kind\":\"run\",\"dag\":\"etl\",\"runId\":\"r1\"}"), std::string::npos)
      << "the run found once its folder is there";
  for (int i = 0; i < 5; ++i) source.Poll(50ms);  // nothing else pending
  stream->Take(&ended);
  received.clear();
  ASSERT_TRUE(runs.AppendStatus(attempt, record).ok());  // a step's change
  EXPECT_NE(WaitFor("\"runId\":\"r1\"").find("{\"kind\":\"run\",\"dag\":\"etl\",\"runId\":\"r1\"}"), std::string::npos)
      << "a step's change reaches the clients while the run goes on";
}

// A sub-DAG run's folder is inside its root run's: the sub-run's start and
// its status writes (its steps) are published as the ROOT run's events, at
// every depth (a grandchild lives in the same children/ folder).
TEST_F(LiveFixture, SubRunStepsArePublishedAsTheirRootRunsEvents) {
  RunDir run;
  ASSERT_TRUE(runs.CreateRun("parent", "r1", Clock::Real()->Now(), &run).ok());
  AttemptDir attempt;
  ASSERT_TRUE(runs.CreateAttempt(run, nullptr, &attempt).ok());
  ProcEntry entry;
  ASSERT_TRUE(procs.Acquire("parent", "parent", "r1", &entry).ok());
  WaitFor("\"runId\":\"r1\"");
  const std::string root_event = "{\"kind\":\"run\",\"dag\":\"parent\",\"runId\":\"r1\"}";
  auto settle = [&] {
    while (source.Poll(50ms) > 0) {}
    bool ended = false;
    stream->Take(&ended);
    received.clear();
  };
  settle();
  SubRunStore subs(PosixFileSystem(), Clock::Real(), &runs);
  RunDir child;
  ASSERT_TRUE(subs.CreateSubRun(RunRef{"parent", "r1"}, "child", "s1", &child).ok());
  EXPECT_NE(WaitFor(root_event).find(root_event), std::string::npos) << "the sub-run started: " << received;
  settle();
  AttemptDir child_attempt;
  ASSERT_TRUE(runs.CreateAttempt(child, nullptr, &child_attempt).ok());
  EXPECT_NE(WaitFor(root_event).find(root_event), std::string::npos) << "its attempt: " << received;
  settle();
  RunRecord record;
  record.name = "child";
  record.dag_run_id = "s1";
  record.status = RunStatus::kRunning;
  ASSERT_TRUE(runs.AppendStatus(child_attempt, record).ok());
  EXPECT_NE(WaitFor(root_event).find(root_event), std::string::npos) << "a step of the sub-run: " << received;
  settle();
  RunDir grandchild;
  ASSERT_TRUE(subs.CreateSubRun(RunRef{"parent", "r1"}, "leaf", "s2", &grandchild).ok());
  AttemptDir grandchild_attempt;
  ASSERT_TRUE(runs.CreateAttempt(grandchild, nullptr, &grandchild_attempt).ok());
  settle();
  record.name = "leaf";
  record.dag_run_id = "s2";
  ASSERT_TRUE(runs.AppendStatus(grandchild_attempt, record).ok());
  EXPECT_NE(WaitFor(root_event).find(root_event), std::string::npos) << "a step of a deeper sub-run: " << received;
  settle();
  // The run ended: its sub-runs are not watched any more.
  ASSERT_TRUE(procs.Release(entry).ok());
  WaitFor(root_event);
  settle();
  ASSERT_TRUE(runs.AppendStatus(child_attempt, record).ok());
  for (int i = 0; i < 5; ++i) source.Poll(50ms);
  bool ended = false;
  EXPECT_EQ(stream->Take(&ended).find("runId"), std::string::npos) << "a write after the run's end";
}

TEST_F(LiveFixture, DagFilesAndQueueItemsArePublished) {
  dir.WriteFile("dags/hello.yaml", "steps:\n  - command: echo hi\n");
  EXPECT_NE(WaitFor("\"dag\":\"hello\"").find("{\"kind\":\"dag\",\"dag\":\"hello\"}"), std::string::npos) << received;
  received.clear();
  dir.WriteFile("data/queue/q1/item_low_20260101_000000_000000000Z_r9.json", "{}");
  EXPECT_NE(WaitFor("\"runId\":\"r9\"").find("{\"kind\":\"queue\",\"runId\":\"r9\",\"queue\":\"q1\"}"), std::string::npos)
      << received;
}

TEST_F(LiveFixture, OtherFilesPublishNothing) {
  dir.WriteFile("dags/notes.txt", "x");
  dir.WriteFile("data/proc/README", "x");
  size_t published = 0;
  for (int i = 0; i < 3; ++i) published += source.Poll(50ms);
  EXPECT_EQ(published, 0u);
}

TEST(LiveNamesTest, RunIdsFromProcFilesAndQueueItems) {
  EXPECT_EQ(RunIdOfProcFile("proc_20260101_120000Z_abc-1.proc"), "abc-1");
  EXPECT_EQ(RunIdOfProcFile("proc_x.proc"), "");
  EXPECT_EQ(RunIdOfProcFile("other"), "");
  EXPECT_EQ(RunIdOfQueueItem("item_high_20260101_120000_123456789Z_r_Z_2.json"), "r_Z_2");
  EXPECT_EQ(RunIdOfQueueItem("item_low_20260101_120000_123456789Z_run1.json"), "run1");
  EXPECT_EQ(RunIdOfQueueItem(".claim_item_low_x.json"), "");
}

TEST(LiveSourceTest, StopJoinsTheThreadFromAnotherThread) {
  dagu::testing::TempDir dir;
  EventHub hub;
  LiveEventSource source(LivePaths{dir.path(), dir.path(), dir.path()}, &hub, nullptr);
  source.Start(1h);
  source.Stop();
  source.Stop();  // idempotent
  SUCCEED();
}

}  // namespace
}  // namespace dagu::web
