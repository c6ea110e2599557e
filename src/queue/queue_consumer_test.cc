#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "core/time_format.h"
#include "queue/queue_consumer.h"
#include "support/fake_clock.h"
#include "support/faulty_file_system.h"
#include "support/scheduling_fakes.h"
#include "support/test_dags.h"
#include "support/test_stores.h"

namespace dagu {
namespace {

using std::chrono::seconds;
using testing::FakeClock;
using testing::FakeLease;
using testing::FaultyFileSystem;
using testing::T;
using testing::TempDir;
using testing::TestDags;

class FakeStarter final : public QueuedRunStarter {
 public:
  Status RetryQueued(const std::string& dag_name, const std::string& run_id, bool propagate, MonoTime /*not_after*/,
                     pid_t* pid) override {
    std::lock_guard<std::mutex> l(mu);
    if (!fail.ok()) return fail;
    *pid = next_pid++;
    started.push_back(run_id);
    propagated.push_back(propagate);
    (void)dag_name;
    return Status::OK();
  }
  std::optional<int> ExitStatusOf(pid_t pid) override {
    std::lock_guard<std::mutex> l(mu);
    auto it = exited.find(pid);
    if (it == exited.end()) return std::nullopt;
    return it->second;
  }
  void ForgetExitStatus(pid_t pid) override {
    std::lock_guard<std::mutex> l(mu);
    forgotten.insert(pid);
  }
  std::vector<std::string> Started() {
    std::lock_guard<std::mutex> l(mu);
    return started;
  }

  std::mutex mu;
  Status fail;
  pid_t next_pid = 500;
  std::vector<std::string> started;
  std::vector<bool> propagated;
  std::map<pid_t, int> exited;
  std::set<pid_t> forgotten;
};

class QueueConsumerTest : public ::testing::Test {
 protected:
  QueueConsumerTest()
      : fs_(PosixFileSystem()),
        stores_(&fs_, &clock_, dir_.Sub("data")),
        dags_(dir_, &fs_),
        suspend_(&fs_, dir_.Sub("suspend")) {}

  Dag& AddDag(const std::string& name, int max_active_runs = 1, const std::string& queue = "", bool propagate = false) {
    Dag& d = dags_.Add(name, {});
    d.max_active_runs = max_active_runs;
    d.queue = queue;
    d.signal_propagation = propagate;
    d.steps = testing::OneStepDag(name).steps;
    EXPECT_TRUE(dags_.catalog().Rescan().ok());
    return d;
  }

  void Enqueue(const std::string& dag, const std::string& id, TriggerType trigger = TriggerType::kManual) {
    Dag d;  // the whole definition, as a run is written from it
    ASSERT_TRUE(dags_.catalog().LoadFull(dag, &d).ok());
    Status s = stores_.Enqueue(d, id, trigger);
    ASSERT_TRUE(s.ok()) << s.ToString();
    clock_.Advance(std::chrono::milliseconds(10));  // distinct queue times
  }

  // What the started `retry` does: the record leaves "queued" and a heartbeat appears.
  void RunStarts(const std::string& dag, const std::string& group, const std::string& id, ProcEntry* proc) {
    AttemptDir attempt;
    RunRecord rec;
    ASSERT_TRUE(stores_.runs.ReadLatest(dag, id, nullptr, &attempt, &rec).ok());
    rec.status = RunStatus::kRunning;
    ASSERT_TRUE(stores_.runs.AppendStatus(attempt, rec).ok());
    ASSERT_TRUE(stores_.procs.Acquire(group, dag, id, proc).ok());
  }

  RunStatus StatusOf(const std::string& dag, const std::string& id) {
    RunRecord rec;
    EXPECT_TRUE(stores_.runs.ReadLatest(dag, id, nullptr, nullptr, &rec).ok());
    return rec.status;
  }

  std::vector<std::string> Items(const std::string& queue) {
    std::vector<QueueItem> items;
    EXPECT_TRUE(stores_.queues.List(queue, &items).ok());
    std::vector<std::string> ids;
    for (const QueueItem& i : items) ids.push_back(i.run_id);
    return ids;
  }

  std::unique_ptr<QueueConsumer> Make(QueueConsumerOptions o = {}) {
    if (o.owner.empty()) o.owner = "host-a-1-1";
    return std::make_unique<QueueConsumer>(&clock_, &stores_.queues, &stores_.runs, &stores_.procs, &dags_.catalog(),
                                           &suspend_, &starter_, o);
  }

  TempDir dir_;
  FakeClock clock_{T("2026-03-12T14:00:00Z")};
  FaultyFileSystem fs_;
  testing::TestStores stores_;
  TestDags dags_;
  SuspendFlags suspend_;
  FakeLease lease_;
  FakeStarter starter_;
};

TEST_F(QueueConsumerTest, StartsTheOldestWithinTheDagsConcurrencyAndRemovesItAfterStartup) {
  AddDag("etl");
  Enqueue("etl", "q1");
  Enqueue("etl", "q2");
  auto c = Make();
  EXPECT_EQ(c->RunPass(&lease_), 1);
  EXPECT_EQ(starter_.Started(), std::vector<std::string>{"q1"});
  EXPECT_EQ(Items("etl"), (std::vector<std::string>{"q1", "q2"}));  // kept until startup is seen
  EXPECT_EQ(c->RunPass(&lease_), 0);                                // q1 is in flight: the queue is full

  ProcEntry proc;
  RunStarts("etl", "etl", "q1", &proc);
  EXPECT_EQ(c->RunPass(&lease_), 0);  // q1 alive: still full
  EXPECT_EQ(Items("etl"), std::vector<std::string>{"q2"});
  EXPECT_EQ(c->in_flight(), 0u);
  EXPECT_EQ(starter_.forgotten.count(500), 1u);

  ASSERT_TRUE(stores_.procs.Release(proc).ok());  // q1 finished
  EXPECT_EQ(c->RunPass(&lease_), 1);
  EXPECT_EQ(starter_.Started(), (std::vector<std::string>{"q1", "q2"}));
}

TEST_F(QueueConsumerTest, HighPriorityItemsGoFirst) {
  AddDag("etl");
  Enqueue("etl", "low-old");
  QueueItem high;
  ASSERT_TRUE(
      stores_.queues.Enqueue("etl", QueuePriority::kHigh, "etl", "low-old", &high).ok());  // a retry re-queued high
  auto c = Make();
  std::vector<QueueItem> items;
  ASSERT_TRUE(stores_.queues.List("etl", &items).ok());
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].priority, QueuePriority::kHigh);
  EXPECT_EQ(c->RunPass(&lease_), 1);
  EXPECT_EQ(starter_.Started(), std::vector<std::string>{"low-old"});
}

TEST_F(QueueConsumerTest, GlobalQueueCapacityComesFromConfig) {
  AddDag("a", 1, "shared");
  AddDag("b", 1, "shared");
  for (const char* id : {"a1", "a2", "a3"}) Enqueue("a", id);
  Enqueue("b", "b1");
  QueueConsumerOptions o;
  o.global_queues = {{"shared", 3}};
  auto c = Make(o);
  ProcEntry busy;
  ASSERT_TRUE(stores_.procs.Acquire("shared", "b", "already-running", &busy).ok());  // one slot taken
  EXPECT_EQ(c->RunPass(&lease_), 2);
  EXPECT_EQ(starter_.Started(), (std::vector<std::string>{"a1", "a2"}));
}

TEST_F(QueueConsumerTest, DagMaxActiveRunsIsTheCapacityOfItsOwnQueue) {
  AddDag("etl", 3);
  for (const char* id : {"q1", "q2", "q3", "q4"}) Enqueue("etl", id);
  auto c = Make();
  EXPECT_EQ(c->RunPass(&lease_), 3);
}

TEST_F(QueueConsumerTest, NothingWhenDisabledOrFenced) {
  AddDag("etl");
  Enqueue("etl", "q1");
  QueueConsumerOptions off;
  off.enabled = false;
  EXPECT_EQ(Make(off)->RunPass(&lease_), 0);
  lease_.may = false;
  auto c = Make();
  EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_TRUE(starter_.Started().empty());
  std::vector<QueueItem> items;
  ASSERT_TRUE(stores_.queues.List("etl", &items).ok());
  QueueClaim claim;
  EXPECT_TRUE(stores_.queues.ReadClaim(items[0], &claim).IsNotFound());  // not even claimed
}

TEST_F(QueueConsumerTest, ItemsOfRunsThatAreNotQueuedAreDiscarded) {
  AddDag("etl", 5);
  Enqueue("etl", "done");
  Enqueue("etl", "gone");
  Enqueue("etl", "ok");
  AttemptDir attempt;
  RunRecord rec;
  ASSERT_TRUE(stores_.runs.ReadLatest("etl", "done", nullptr, &attempt, &rec).ok());
  rec.status = RunStatus::kSucceeded;
  ASSERT_TRUE(stores_.runs.WriteFinalStatus(attempt, rec).ok());
  RunDir gone;
  ASSERT_TRUE(stores_.runs.FindRun("etl", "gone", &gone).ok());
  ASSERT_TRUE(stores_.runs.RemoveRun(gone).ok());
  clock_.Advance(kUnseenRecordGrace);  // a missing record of a young item may just not be visible yet
  auto c = Make();
  EXPECT_EQ(c->RunPass(&lease_), 1);
  EXPECT_EQ(starter_.Started(), std::vector<std::string>{"ok"});
  EXPECT_EQ(Items("etl"), std::vector<std::string>{"ok"});
}

// Found by tests/chaos (two hosts with NFS-like caches): a run queued on
// one host was discarded by the active on another whose client still
// cached "no such directory" for the run's record, and so was lost.
TEST_F(QueueConsumerTest, AYoungItemWhoseRecordIsNotVisibleYetIsLeftForLater) {
  AddDag("etl", 5);
  Enqueue("etl", "q1");
  fs_.FailWith("ListDir", "dag-runs", Status::NotFound("cached: no such directory"));
  fs_.FailWith("Stat", "dag-runs", Status::NotFound("cached: no such directory"));
  auto c = Make();
  EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_EQ(Items("etl"), std::vector<std::string>{"q1"});
  clock_.Advance(kUnseenRecordGrace / 2);
  EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_EQ(Items("etl"), std::vector<std::string>{"q1"});
  fs_.Clear();  // the cache expired: the record is seen, the run starts
  EXPECT_EQ(c->RunPass(&lease_), 1);
  EXPECT_EQ(starter_.Started(), std::vector<std::string>{"q1"});
}

TEST_F(QueueConsumerTest, AnItemWhoseRecordStaysMissingIsDiscardedAfterTheGrace) {
  AddDag("etl", 5);
  Enqueue("etl", "gone");
  RunDir gone;
  ASSERT_TRUE(stores_.runs.FindRun("etl", "gone", &gone).ok());
  ASSERT_TRUE(stores_.runs.RemoveRun(gone).ok());
  auto c = Make();
  EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_EQ(Items("etl"), std::vector<std::string>{"gone"});
  clock_.Advance(kUnseenRecordGrace);
  EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_TRUE(Items("etl").empty());
}

TEST_F(QueueConsumerTest, UnreadableRunIsLeftForLater) {
  AddDag("etl");
  Enqueue("etl", "q1");
  fs_.FailWith("ReadFile", "status.jsonl", Status::IOError("EIO"));
  auto c = Make();
  EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_EQ(Items("etl"), std::vector<std::string>{"q1"});
  fs_.Clear();
  EXPECT_EQ(c->RunPass(&lease_), 1);
}

// Found by tests/chaos (corrupt files): an item whose content could not be
// read (garbage, a directory, or an I/O error on the read) was deleted as
// "its content cannot be read", losing the run on a passing I/O error. Dagu
// 1.30.2 keeps such items; so do we, and the others still run.
TEST_F(QueueConsumerTest, ItemsThatCannotBeReadAreKeptAndTheOthersRun) {
  AddDag("etl", 5);
  Enqueue("etl", "eio");
  Enqueue("etl", "ok");
  std::vector<QueueItem> items;
  ASSERT_TRUE(stores_.queues.List("etl", &items).ok());
  ASSERT_EQ(items.size(), 2u);
  std::string dir = std::filesystem::path(items[0].path).parent_path();
  std::ofstream(dir + "/item_low_20240101_000000_000000001Z_junk.json") << "{garbage";
  std::filesystem::create_directories(dir + "/item_low_20240101_000000_000000002Z_dir.json");
  fs_.FailWith("ReadFile", "_eio.json", Status::IOError("EIO"));
  auto c = Make();
  EXPECT_EQ(c->RunPass(&lease_), 1);
  EXPECT_EQ(starter_.Started(), std::vector<std::string>{"ok"});
  EXPECT_EQ(c->RunPass(&lease_), 0);
  std::vector<std::string> left = Items("etl");
  EXPECT_EQ(std::set<std::string>(left.begin(), left.end()), (std::set<std::string>{"junk", "dir", "eio", "ok"}));
  fs_.Clear();
  EXPECT_EQ(c->RunPass(&lease_), 1) << "the item that had an I/O error runs once it can be read";
}

TEST_F(QueueConsumerTest, ScheduledRunsOfASuspendedDagAreAbortedManualOnesRun) {
  AddDag("etl", 5);
  Enqueue("etl", "catchup", TriggerType::kCatchUp);
  Enqueue("etl", "manual", TriggerType::kManual);
  dir_.WriteFile("suspend/etl.suspend", "");
  auto c = Make();
  EXPECT_EQ(c->RunPass(&lease_), 1);
  EXPECT_EQ(starter_.Started(), std::vector<std::string>{"manual"});
  EXPECT_EQ(StatusOf("etl", "catchup"), RunStatus::kAborted);
  EXPECT_EQ(Items("etl"), std::vector<std::string>{"manual"});
}

TEST_F(QueueConsumerTest, ProcessThatExitsBeforeStartupFailsTheRun) {
  AddDag("etl");
  Enqueue("etl", "q1");
  auto c = Make();
  EXPECT_EQ(c->RunPass(&lease_), 1);
  starter_.exited[500] = 1;
  c->RunPass(&lease_);
  EXPECT_EQ(StatusOf("etl", "q1"), RunStatus::kFailed);
  RunRecord rec;
  ASSERT_TRUE(stores_.runs.ReadLatest("etl", "q1", nullptr, nullptr, &rec).ok());
  EXPECT_NE(rec.error.find("exited with status 1"), std::string::npos) << rec.error;
  EXPECT_TRUE(Items("etl").empty());
}

// Whether a started run is alive is unknown while its heartbeats cannot be
// read: the consumer waits rather than judge from a missing answer.
TEST_F(QueueConsumerTest, AnUnreadableHeartbeatLeavesAStartedRunForTheNextPass) {
  AddDag("etl");
  Enqueue("etl", "q1");
  auto c = Make();
  EXPECT_EQ(c->RunPass(&lease_), 1);
  starter_.exited[500] = 1;
  fs_.FailWith("ListDir", "proc", Status::IOError("EIO"));
  c->RunPass(&lease_);
  EXPECT_EQ(StatusOf("etl", "q1"), RunStatus::kQueued);
  EXPECT_EQ(Items("etl"), std::vector<std::string>{"q1"});
  EXPECT_EQ(c->in_flight(), 1u);
  fs_.Clear();
  c->RunPass(&lease_);
  EXPECT_EQ(StatusOf("etl", "q1"), RunStatus::kFailed);
  EXPECT_TRUE(Items("etl").empty());
}

TEST_F(QueueConsumerTest, StartFailureReleasesTheClaimAndRetries) {
  AddDag("etl");
  Enqueue("etl", "q1");
  auto c = Make();
  starter_.fail = Status::IOError("fork: EAGAIN");
  EXPECT_EQ(c->RunPass(&lease_), 0);
  starter_.fail = Status::OK();
  EXPECT_EQ(c->RunPass(&lease_), 1);
}

TEST_F(QueueConsumerTest, ItemClaimedByAnotherConsumerIsLeftAloneUntilTheClaimGoesStale) {
  AddDag("etl");
  Enqueue("etl", "q1");
  std::vector<QueueItem> items;
  ASSERT_TRUE(stores_.queues.List("etl", &items).ok());
  ASSERT_TRUE(stores_.queues.ClaimItem(items[0], "host-b-9-9").ok());  // a consumer that then died
  QueueConsumerOptions o;
  o.stale_claim_after = seconds(60);
  auto c = Make(o);
  EXPECT_EQ(c->RunPass(&lease_), 0);
  clock_.Advance(seconds(59));
  EXPECT_EQ(c->RunPass(&lease_), 0);
  clock_.Advance(seconds(2));
  EXPECT_EQ(c->RunPass(&lease_), 1);
  QueueClaim claim;
  ASSERT_TRUE(stores_.queues.ReadClaim(items[0], &claim).ok());
  EXPECT_EQ(claim.owner, "host-a-1-1");
}

TEST_F(QueueConsumerTest, PropagationFollowsTheDag) {
  AddDag("plain");
  AddDag("prop", 1, "", /*propagate=*/true);
  Enqueue("plain", "p1");
  Enqueue("prop", "s1");
  auto c = Make();
  EXPECT_EQ(c->RunPass(&lease_), 2);
  EXPECT_EQ(starter_.propagated, (std::vector<bool>{false, true}));
}

// Two consumers (two instances in a split brain) race over one queue: every
// run is started exactly once.
TEST_F(QueueConsumerTest, TwoConsumersRacingStartEachRunExactlyOnce) {
  AddDag("etl", 100);
  constexpr int kRuns = 24;
  for (int i = 0; i < kRuns; ++i) Enqueue("etl", "q" + std::to_string(i));
  FakeStarter other_starter;
  QueueConsumerOptions o;
  o.owner = "host-b-2-2";
  QueueConsumer other(&clock_, &stores_.queues, &stores_.runs, &stores_.procs, &dags_.catalog(), &suspend_,
                      &other_starter, o);
  auto mine = Make();
  std::atomic<int> total{0};
  std::thread t1([&] {
    for (int i = 0; i < 5; ++i) total += mine->RunPass(&lease_);
  });
  std::thread t2([&] {
    for (int i = 0; i < 5; ++i) total += other.RunPass(&lease_);
  });
  t1.join();
  t2.join();
  std::vector<std::string> all = starter_.Started();
  for (const std::string& id : other_starter.Started()) all.push_back(id);
  std::set<std::string> unique(all.begin(), all.end());
  EXPECT_EQ(all.size(), static_cast<size_t>(kRuns));
  EXPECT_EQ(unique.size(), static_cast<size_t>(kRuns));
  EXPECT_EQ(total.load(), kRuns);
}

// Issue 10 item 6: fences right before each write. The lease ends while the
// item's record is being read: the discard it decided on is not written.
TEST_F(QueueConsumerTest, ADiscardIsNotWrittenOnceTheLeaseHasEnded) {
  AddDag("etl");
  Enqueue("etl", "done");
  AttemptDir attempt;
  RunRecord rec;
  ASSERT_TRUE(stores_.runs.ReadLatest("etl", "done", nullptr, &attempt, &rec).ok());
  rec.status = RunStatus::kSucceeded;  // started elsewhere: its item would be discarded
  ASSERT_TRUE(stores_.runs.AppendStatus(attempt, rec).ok());
  fs_.BeforeOnce("ReadFile", "status.jsonl", [this] { lease_.may = false; });
  auto c = Make();
  EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_EQ(Items("etl"), std::vector<std::string>{"done"}) << "a deposed instance discarded a queue item";
}

// ... and the lease ends between the claim and the spawn: nothing is started.
TEST_F(QueueConsumerTest, NothingIsStartedWhenTheLeaseEndsAfterTheClaim) {
  AddDag("etl");
  Enqueue("etl", "q1");
  fs_.BeforeOnce("CreateFileExclusive", ".claim_", [this] { lease_.may = false; });
  auto c = Make();
  EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_TRUE(starter_.Started().empty()) << "a deposed instance started a queued run";
  EXPECT_EQ(Items("etl"), std::vector<std::string>{"q1"});
}

// Issue 10 item 9: a pass is one batch; a lock no longer ours stops it.
TEST_F(QueueConsumerTest, APassStartsNothingWhenTheLockIsNoLongerOurs) {
  AddDag("etl");
  Enqueue("etl", "q1");
  lease_.held = false;
  auto c = Make();
  EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_TRUE(starter_.Started().empty());
  EXPECT_GE(lease_.verifications.load(), 1);
}

// Issue 15: an empty queue directory costs nothing (no pass, no lock check
// every poll interval); an enqueue wakes the consumer at once.
TEST_F(QueueConsumerTest, WhileEverythingIsEmptyItWaitsForAnEnqueueInsteadOfPolling) {
  AddDag("etl");
  std::filesystem::create_directories(stores_.queues.queue_dir());
  QueueConsumerOptions o;
  o.poll_interval = std::chrono::hours(1);  // only the watch can wake it in time
  o.idle_interval = std::chrono::hours(1);
  auto c = Make(o);
  c->Start(Activation{}, &lease_);
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!c->idle() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(c->idle());
  EXPECT_EQ(lease_.verifications.load(), 0) << "an empty pass read the lock";

  Enqueue("etl", "q1");  // creates queue/etl/ and the item in it
  while (starter_.Started().empty() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(starter_.Started(), std::vector<std::string>{"q1"});
  EXPECT_FALSE(c->idle());
  c->Stop();
}

// --- DAGs with a workerSelector: dispatched to a worker (issue 32) ---

class FakeDispatcher final : public TaskDispatcher {
 public:
  Status Dispatch(const DispatchTask& task) override {
    std::lock_guard<std::mutex> l(mu);
    tasks.push_back(task);
    return answer;
  }
  size_t Calls() {
    std::lock_guard<std::mutex> l(mu);
    return tasks.size();
  }
  std::mutex mu;
  Status answer;
  std::vector<DispatchTask> tasks;
};

class QueueDispatchTest : public QueueConsumerTest {
 protected:
  Dag& AddRemoteDag(const std::string& name, int max_active_runs = 1) {
    Dag& d = AddDag(name, max_active_runs);
    d.worker_selector = {{"pool", "a"}};
    d.yaml_data = "workerSelector:\n  pool: a\nsteps:\n  - command: echo " + name + "\n";
    EXPECT_TRUE(dags_.catalog().Rescan().ok());
    return d;
  }
  std::unique_ptr<QueueConsumer> MakeDispatching() {
    QueueConsumerOptions o;
    o.dispatcher = &dispatcher_;
    o.counters = &counters_;
    o.waits = &waits_;
    return Make(o);
  }
  // What the web server reads (store/worker_wait.h): the record of the run,
  // or nullopt when there is none.
  std::optional<WorkerWait> PublishedWait(const std::string& dag, const std::string& id) {
    RunDir run;
    EXPECT_TRUE(stores_.runs.FindRun(dag, id, &run).ok());
    WorkerWait w;
    Status s = waits_.Read(run.path, &w);
    if (s.IsNotFound()) return std::nullopt;
    EXPECT_TRUE(s.ok()) << s.ToString();
    return w;
  }
  WorkerWaitStore waits_{&fs_};
  bool Claimed(const std::string& queue) {
    std::vector<QueueItem> items;
    EXPECT_TRUE(stores_.queues.List(queue, &items).ok());
    QueueClaim claim;
    return !items.empty() && stores_.queues.ReadClaim(items[0], &claim).ok();
  }
  FakeDispatcher dispatcher_;
  SchedulerCounters counters_;
};

TEST_F(QueueDispatchTest, ARunOfADagWithASelectorIsDispatchedAsARetryTaskAndRemovedOnceItStarts) {
  AddRemoteDag("remote");
  Enqueue("remote", "r1");
  auto c = MakeDispatching();
  EXPECT_EQ(c->RunPass(&lease_), 1);
  EXPECT_TRUE(starter_.Started().empty()) << "started locally";
  ASSERT_EQ(dispatcher_.Calls(), 1u);
  const DispatchTask& t = dispatcher_.tasks[0];
  EXPECT_EQ(t.operation, TaskOperation::kRetry);
  EXPECT_EQ(t.root_name, "remote");
  EXPECT_EQ(t.root_id, "r1");
  EXPECT_EQ(t.run_id, "r1");
  EXPECT_EQ(t.target, "remote");
  EXPECT_EQ(t.worker_selector, (std::map<std::string, std::string>{{"pool", "a"}}));
  EXPECT_EQ(t.definition, "workerSelector:\n  pool: a\nsteps:\n  - command: echo remote\n");
  EXPECT_TRUE(t.parent_name.empty() && t.parent_id.empty() && t.params.empty());
  EXPECT_EQ(counters_.runs_dispatched.load(), 1u);
  EXPECT_EQ(c->in_flight(), 1u);
  EXPECT_EQ(Items("remote"), std::vector<std::string>{"r1"});  // kept until the worker's run is seen
  EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_EQ(dispatcher_.Calls(), 1u) << "dispatched twice";

  ProcEntry proc;
  RunStarts("remote", "remote", "r1", &proc);  // what the worker's retry does in the shared home
  EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_TRUE(Items("remote").empty());
  EXPECT_EQ(c->in_flight(), 0u);
  EXPECT_TRUE(starter_.forgotten.empty());  // no local process to forget
}

TEST_F(QueueDispatchTest, WhileNoWorkerAcceptsTheRunStaysQueuedAndIsTriedWithBackoff) {
  AddRemoteDag("remote");
  Enqueue("remote", "r1");
  dispatcher_.answer = Status::Busy("no workers match the required selector");
  auto c = MakeDispatching();
  EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_EQ(dispatcher_.Calls(), 1u);
  EXPECT_EQ(Items("remote"), std::vector<std::string>{"r1"});
  EXPECT_FALSE(Claimed("remote")) << "the claim must go back";
  EXPECT_EQ(StatusOf("remote", "r1"), RunStatus::kQueued);
  ASSERT_EQ(c->waiting_for_worker().size(), 1u);
  EXPECT_EQ(c->waiting_for_worker()[0].run_id, "r1");
  EXPECT_NE(c->waiting_for_worker()[0].why.find("no workers match"), std::string::npos);
  EXPECT_EQ(counters_.dispatch_failures.load(), 1u);
  EXPECT_EQ(counters_.runs_waiting_for_worker.load(), 1u);

  // Not every pass: 2 s, then 4 s, then 8 s ...
  for (int i = 0; i < 5; ++i) EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_EQ(dispatcher_.Calls(), 1u) << "tried again before its back-off";
  clock_.Advance(seconds(2));
  c->RunPass(&lease_);
  EXPECT_EQ(dispatcher_.Calls(), 2u);
  clock_.Advance(seconds(2));
  c->RunPass(&lease_);
  EXPECT_EQ(dispatcher_.Calls(), 2u);
  clock_.Advance(seconds(2));
  c->RunPass(&lease_);
  EXPECT_EQ(dispatcher_.Calls(), 3u);
  for (int i = 0; i < 10; ++i) {  // capped at dispatch_retry_max (30 s)
    clock_.Advance(seconds(30));
    c->RunPass(&lease_);
  }
  EXPECT_EQ(dispatcher_.Calls(), 13u);

  dispatcher_.answer = Status::OK();  // a worker came
  clock_.Advance(seconds(30));
  EXPECT_EQ(c->RunPass(&lease_), 1);
  EXPECT_TRUE(c->waiting_for_worker().empty());
  EXPECT_EQ(counters_.runs_waiting_for_worker.load(), 0u);
  EXPECT_TRUE(starter_.Started().empty());
}

TEST_F(QueueDispatchTest, WhyTheRunWaitsIsPublishedOnChangeAndRemovedWhenDispatched) {
  AddRemoteDag("remote");
  Enqueue("remote", "r1");
  auto c = MakeDispatching();
  dispatcher_.answer = Status::NotFound("no coordinator in the service registry");
  c->RunPass(&lease_);
  std::optional<WorkerWait> w = PublishedWait("remote", "r1");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->reason, kWaitNoCoordinator);
  EXPECT_EQ(w->message, "no coordinator is registered");
  EXPECT_EQ(w->detail, Status::NotFound("no coordinator in the service registry").ToString());
  EXPECT_EQ(w->worker_selector, (std::map<std::string, std::string>{{"pool", "a"}}));
  EXPECT_EQ(w->since, FormatRFC3339UTC(clock_.Now()));
  EXPECT_EQ(counters_.runs_waiting_no_coordinator.load(), 1u);
  EXPECT_EQ(counters_.runs_waiting_no_matching_worker.load(), 0u);

  // Another reason: rewritten, with a new `since`.
  const std::string first_since = w->since;
  clock_.Advance(seconds(2));
  dispatcher_.answer = Status::Busy("coordinator 127.0.0.1:1: no workers match the required selector");
  c->RunPass(&lease_);
  EXPECT_EQ(dispatcher_.Calls(), 2u);
  w = PublishedWait("remote", "r1");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->reason, kWaitNoMatchingWorker);
  EXPECT_EQ(w->message, "no worker matches pool=a");
  EXPECT_NE(w->since, first_since) << "a new reason starts a new wait";
  // The same reason again: the record stays as it was.
  const WorkerWait second = *w;
  clock_.Advance(seconds(4));
  c->RunPass(&lease_);
  EXPECT_EQ(dispatcher_.Calls(), 3u);
  EXPECT_EQ(PublishedWait("remote", "r1"), second);
  EXPECT_EQ(counters_.runs_waiting_no_coordinator.load(), 0u);
  EXPECT_EQ(counters_.runs_waiting_no_matching_worker.load(), 1u);
  EXPECT_EQ(counters_.runs_waiting_for_worker.load(), 1u);
  EXPECT_EQ(c->waiting_for_worker()[0].wait, *w);

  dispatcher_.answer = Status::OK();  // a matching worker came
  clock_.Advance(seconds(30));
  EXPECT_EQ(c->RunPass(&lease_), 1);
  EXPECT_FALSE(PublishedWait("remote", "r1").has_value()) << "the record must go once the run is dispatched";
  EXPECT_EQ(counters_.runs_waiting_no_matching_worker.load(), 0u);
}

TEST_F(QueueDispatchTest, ThePublishedWaitGoesWhenTheItemIsGone) {
  AddRemoteDag("remote");
  Enqueue("remote", "r1");
  auto c = MakeDispatching();
  dispatcher_.answer = Status::IOError("coordinator 127.0.0.1:1: unavailable");
  c->RunPass(&lease_);
  std::optional<WorkerWait> w = PublishedWait("remote", "r1");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->reason, kWaitCoordinatorFailed);
  EXPECT_EQ(counters_.runs_waiting_coordinator_failed.load(), 1u);
  std::vector<QueueItem> items;
  ASSERT_TRUE(stores_.queues.List("remote", &items).ok());
  ASSERT_EQ(items.size(), 1u);
  ASSERT_TRUE(stores_.queues.RemoveItem(items[0]).ok());  // started or dequeued elsewhere
  c->RunPass(&lease_);
  EXPECT_FALSE(PublishedWait("remote", "r1").has_value());
  EXPECT_EQ(counters_.runs_waiting_coordinator_failed.load(), 0u);
  EXPECT_EQ(counters_.runs_waiting_for_worker.load(), 0u);
}

TEST_F(QueueDispatchTest, WithNoCoordinatorTheOtherRunsOfThePassAreNotTried) {
  AddRemoteDag("remote", 3);
  for (const char* id : {"r1", "r2", "r3"}) Enqueue("remote", id);
  dispatcher_.answer = Status::NotFound("no coordinator in the service registry");
  auto c = MakeDispatching();
  EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_EQ(dispatcher_.Calls(), 1u);
  EXPECT_EQ(Items("remote"), (std::vector<std::string>{"r1", "r2", "r3"}));
  for (const char* id : {"r1", "r2", "r3"}) EXPECT_EQ(StatusOf("remote", id), RunStatus::kQueued);
  EXPECT_EQ(c->waiting_for_worker().size(), 3u);  // each backs off: not claimed again every pass
  EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_EQ(dispatcher_.Calls(), 1u);
  EXPECT_FALSE(Claimed("remote"));
}

TEST_F(QueueDispatchTest, ADispatchedRunNeverSeenStartingIsDispatchedAgain) {
  AddRemoteDag("remote");
  Enqueue("remote", "r1");
  auto c = MakeDispatching();
  EXPECT_EQ(c->RunPass(&lease_), 1);
  clock_.Advance(std::chrono::minutes(1));
  EXPECT_EQ(c->RunPass(&lease_), 0);
  EXPECT_EQ(dispatcher_.Calls(), 1u);
  clock_.Advance(std::chrono::minutes(1));  // dispatch_start_timeout (2 min): the worker lost it
  EXPECT_EQ(c->RunPass(&lease_), 1);
  EXPECT_EQ(dispatcher_.Calls(), 2u);
}

TEST_F(QueueDispatchTest, DagsWithoutASelectorAndConsumersWithoutADispatcherStartLocally) {
  AddDag("local");
  Enqueue("local", "l1");
  auto c = MakeDispatching();
  EXPECT_EQ(c->RunPass(&lease_), 1);
  EXPECT_EQ(dispatcher_.Calls(), 0u);
  EXPECT_EQ(starter_.Started(), std::vector<std::string>{"l1"});

  AddRemoteDag("remote");
  Enqueue("remote", "r1");
  EXPECT_EQ(Make()->RunPass(&lease_), 1);  // no dispatcher (1.30.2 without a coordinator client)
  EXPECT_EQ(dispatcher_.Calls(), 0u);
  EXPECT_EQ(starter_.Started(), (std::vector<std::string>{"l1", "r1"}));
}

TEST_F(QueueDispatchTest, TheSelectorIsTheQueuedSnapshotsNotTheFilesNow) {
  AddRemoteDag("remote");
  Enqueue("remote", "r1");
  AddDag("remote");  // the file lost its selector after the run was queued
  auto c = MakeDispatching();
  EXPECT_EQ(c->RunPass(&lease_), 1);
  EXPECT_EQ(dispatcher_.Calls(), 1u);
  EXPECT_TRUE(starter_.Started().empty());
}

}  // namespace
}  // namespace dagu
