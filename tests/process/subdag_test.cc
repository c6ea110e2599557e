// Sub-DAG runs as processes: a stop of the parent reaches every running
// child, a child whose process dies is marked failed (by its parent at once,
// or by the scheduler's zombie check when the parent died too), the parent's
// timeoutSec and maxActiveSteps bound its calls, and the children of a
// scheduled parent run once through a scheduler failover.
#include <signal.h>

#include <filesystem>
#include <fstream>

#include "scheduling_fixture.h"

namespace dagu::testing {
namespace {

namespace fs = std::filesystem;

// The latest record of every child run under a root run directory.
std::map<std::string, nlohmann::json> ChildRecords(const std::string& root_run_dir) {
  std::map<std::string, nlohmann::json> out;
  std::error_code ec;
  for (const auto& child : fs::directory_iterator(root_run_dir + "/children", ec)) {
    std::string id = child.path().filename().string().substr(std::string("child_").size());
    std::vector<std::string> attempts;
    for (const auto& a : fs::directory_iterator(child.path(), ec)) {
      if (a.path().filename().string().rfind("attempt_", 0) == 0) attempts.push_back(a.path().string());
    }
    std::sort(attempts.begin(), attempts.end());
    nlohmann::json rec;
    if (!attempts.empty()) {
      std::ifstream in(attempts.back() + "/status.jsonl");
      std::string line, last;
      while (std::getline(in, line)) {
        if (!line.empty()) last = line;
      }
      rec = nlohmann::json::parse(last, nullptr, false);
      if (!rec.is_object()) rec = nlohmann::json::object();  // read while being written: no status yet
      rec["__attempts"] = attempts.size();
      rec["__attempt_dir"] = attempts.back();
    }
    out[id] = rec;
  }
  return out;
}

int Status(const nlohmann::json& rec) { return rec.is_object() ? rec.value("status", -1) : -1; }

long ReadPid(const std::string& path) {
  std::ifstream in(path);
  long pid = 0;
  in >> pid;
  return pid;
}

// Writes an 8-byte heartbeat `age` old and sets the file's mtime to match:
// what a heartbeat file looks like that long after its writer died.
void AgeHeartbeat(const std::string& path, std::chrono::seconds age) {
  auto then = std::chrono::system_clock::now() - age;
  uint64_t secs = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(then.time_since_epoch()).count());
  std::string bytes(8, '\0');
  for (int i = 7; i >= 0; --i, secs >>= 8) bytes[i] = static_cast<char>(secs & 0xff);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  fs::last_write_time(path, fs::file_time_type::clock::now() - age);
}

class SubDagProcessTest : public SchedulingFixture {
 protected:
  void TearDown() override {
    for (long pid : stray_pids_) {
      if (pid > 0) ::kill(static_cast<pid_t>(pid), SIGKILL);
    }
    SchedulingFixture::TearDown();
  }

  // A child DAG whose step records its pid in <scratch>/pid-<ITEM> and sleeps.
  void WriteSleepyChild(int seconds) {
    home_.WriteDag("sleepy", "params: ITEM=one\n"
                             "steps:\n"
                             "  - name: nap\n"
                             "    command: sh -c 'echo $$ > " + home_.Scratch("pid-") + "$ITEM; exec sleep " +
                                 std::to_string(seconds) + "'\n");
  }

  std::string RootRunDir(const std::string& dag, const std::string& id) {
    auto runs = RunsWithId(Runs(dag), id);
    return runs.empty() ? "" : runs[0].run_dir;
  }

  // Waits until `n` children of run `id` of `dag` are running.
  bool WaitForRunningChildren(const std::string& dag, const std::string& id, size_t n) {
    return PollUntil(
        [&] {
          std::string dir = RootRunDir(dag, id);
          if (dir.empty()) return false;
          size_t running = 0;
          for (const auto& [cid, rec] : ChildRecords(dir)) running += Status(rec) == kRunRunning ? 1 : 0;
          return running >= n;
        },
        20s, 50ms);
  }

  // A parent "parent" (run p1) whose one step calls "sleepy", started and
  // waited for until its child runs; the child's ID and record in *child.
  DaguProcess& StartParentWithOneChild(std::string* child_id, nlohmann::json* child) {
    WriteSleepyChild(40);
    home_.WriteDag("parent", "steps:\n  - name: one\n    call: sleepy\n");
    DaguProcess& run = Launch("parent", {"start", "-q", "--run-id=p1", "parent"}, Env(0), 0);
    EXPECT_TRUE(WaitForRunningChildren("parent", "p1", 1));
    EXPECT_TRUE(PollUntil([&] { return fs::exists(home_.Scratch("pid-one")); }, 10s));
    stray_pids_ = {ReadPid(home_.Scratch("pid-one"))};
    auto children = ChildRecords(RootRunDir("parent", "p1"));
    EXPECT_EQ(children.size(), 1u);
    if (!children.empty()) {
      *child_id = children.begin()->first;
      *child = children.begin()->second;
    }
    return run;
  }

  std::vector<long> stray_pids_;
};

TEST_F(SubDagProcessTest, StopOfTheParentStopsEveryChild) {
  WriteSleepyChild(40);
  home_.WriteDag("parent", "type: graph\n"
                           "steps:\n"
                           "  - name: one\n"
                           "    call: sleepy\n"
                           "  - name: fan\n"
                           "    call: sleepy\n"
                           "    params: ITEM=${ITEM}\n"
                           "    parallel: [a, b]\n");
  DaguProcess& run = Launch("parent", {"start", "-q", "--run-id=p1", "parent"}, Env(0), 0);
  ASSERT_TRUE(WaitForRunningChildren("parent", "p1", 3)) << DumpTree(home_.data_dir() + "/dag-runs");
  ASSERT_TRUE(PollUntil([&] { return fs::exists(home_.Scratch("pid-a")) && fs::exists(home_.Scratch("pid-b")) &&
                                     fs::exists(home_.Scratch("pid-one")); }, 10s));
  std::vector<long> sleeps = {ReadPid(home_.Scratch("pid-a")), ReadPid(home_.Scratch("pid-b")),
                              ReadPid(home_.Scratch("pid-one"))};
  stray_pids_ = sleeps;

  auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(Dagu("stop", {"stop", "parent"}), 0);
  ASSERT_TRUE(run.Wait(15s).has_value()) << "the parent did not stop";
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 8s);

  auto parent = WaitForRun("parent", "p1", Finished, 5s);
  ASSERT_TRUE(parent);
  EXPECT_EQ(parent->status_code(), kRunAborted) << parent->Describe();
  auto children = ChildRecords(parent->run_dir);
  ASSERT_EQ(children.size(), 3u);
  for (const auto& [id, rec] : children) {
    EXPECT_EQ(Status(rec), kRunAborted) << id << ": " << rec.dump();
    EXPECT_EQ(rec["nodes"][0]["status"], 3) << rec.dump();
    EXPECT_FALSE(fs::exists(rec["__attempt_dir"].get<std::string>() + "/.dagu_heartbeat"));
  }
  for (long pid : sleeps) EXPECT_TRUE(PollUntil([&] { return !Alive(pid); }, 5s)) << "step process " << pid << " survived";
}

TEST_F(SubDagProcessTest, AChildWhoseProcessDiesIsMarkedFailedByItsParent) {
  std::string child_id;
  nlohmann::json child_rec;
  DaguProcess& run = StartParentWithOneChild(&child_id, &child_rec);
  ASSERT_FALSE(child_id.empty());
  long child_pid = child_rec.value("pid", 0L);
  ASSERT_GT(child_pid, 0);
  ASSERT_EQ(::kill(static_cast<pid_t>(child_pid), SIGKILL), 0);

  ASSERT_TRUE(run.Wait(10s).has_value()) << "the parent did not notice its child died";
  auto parent = WaitForRun("parent", "p1", Finished, 5s);
  ASSERT_TRUE(parent);
  EXPECT_EQ(parent->status_code(), kRunFailed);
  EXPECT_EQ(parent->status["nodes"][0]["error"],
            "failed to execute step \"one\": sub DAG run " + child_id + " failed with status: failed");
  auto child = ChildRecords(parent->run_dir)[child_id];
  EXPECT_EQ(Status(child), kRunFailed) << child.dump();
  EXPECT_EQ(child["nodes"][0]["error"], "process terminated unexpectedly - zombie process detected");
}

TEST_F(SubDagProcessTest, TheZombieCheckMarksAChildWhoseParentDiedToo) {
  std::string child_id;
  nlohmann::json child;
  DaguProcess& run = StartParentWithOneChild(&child_id, &child);
  ASSERT_FALSE(child_id.empty());
  std::string root_dir = RootRunDir("parent", "p1");
  run.Signal(SIGKILL);
  ASSERT_EQ(::kill(static_cast<pid_t>(child.value("pid", 0L)), SIGKILL), 0);
  ASSERT_TRUE(run.Wait(5s).has_value());
  // Both are gone; make their heartbeats as old as they will be in two minutes.
  std::string heartbeat = child["__attempt_dir"].get<std::string>() + "/.dagu_heartbeat";
  ASSERT_TRUE(fs::exists(heartbeat));
  AgeHeartbeat(heartbeat, 120s);
  for (const auto& e : fs::recursive_directory_iterator(home_.data_dir() + "/proc")) {
    if (e.is_regular_file()) AgeHeartbeat(e.path().string(), 120s);
  }
  EXPECT_EQ(Status(ChildRecords(root_dir)[child_id]), kRunRunning);

  StartActiveScheduler("scheduler", {{"DAGU_SCHEDULER_ZOMBIE_DETECTION_INTERVAL", "1s"}});
  ASSERT_TRUE(PollUntil([&] { return Status(ChildRecords(root_dir)[child_id]) == kRunFailed; }, 15s))
      << ChildRecords(root_dir)[child_id].dump();
  nlohmann::json marked = ChildRecords(root_dir)[child_id];
  EXPECT_EQ(marked["nodes"][0]["error"], "process terminated unexpectedly - zombie process detected");
  auto parent = WaitForRun("parent", "p1", Finished, 10s);
  ASSERT_TRUE(parent) << "the parent was not marked";
  EXPECT_EQ(parent->status_code(), kRunFailed);
}

TEST_F(SubDagProcessTest, TheParentsTimeoutStopsItsChildren) {
  WriteSleepyChild(40);
  home_.WriteDag("parent", "timeoutSec: 2\nsteps:\n  - name: one\n    call: sleepy\n");
  auto t0 = std::chrono::steady_clock::now();
  DaguProcess& run = Launch("parent", {"start", "-q", "--run-id=p1", "parent"}, Env(0), 0);
  ASSERT_TRUE(run.Wait(20s).has_value()) << "the parent outlived its timeout";
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 12s);
  if (fs::exists(home_.Scratch("pid-one"))) stray_pids_ = {ReadPid(home_.Scratch("pid-one"))};
  auto parent = WaitForRun("parent", "p1", Finished, 5s);
  ASSERT_TRUE(parent);
  EXPECT_EQ(parent->status_code(), kRunFailed) << parent->Describe();
  // The child got the stop and ends aborted on its own clock.
  EXPECT_TRUE(PollUntil([&] {
    auto c = ChildRecords(parent->run_dir);
    return c.size() == 1 && Status(c.begin()->second) == kRunAborted;
  }, 10s)) << DumpTree(parent->run_dir);
  for (long pid : stray_pids_) EXPECT_TRUE(PollUntil([&] { return !Alive(pid); }, 10s));
}

TEST_F(SubDagProcessTest, MaxActiveStepsCountsACallAsOneStep) {
  std::string log = home_.Scratch("order.log");
  home_.WriteDag("mark", "params: ITEM=x\nsteps:\n  - name: s\n    command: sh -c 'echo start-$ITEM >> " + log +
                             "; sleep 1; echo end-$ITEM >> " + log + "'\n");
  home_.WriteDag("parent", "type: graph\nmaxActiveSteps: 1\n"
                           "steps:\n"
                           "  - name: a\n    call: mark\n    params: ITEM=a\n"
                           "  - name: b\n    call: mark\n    params: ITEM=b\n");
  ASSERT_EQ(Dagu("parent", {"start", "-q", "--run-id=p1", "parent"}), 0);
  std::ifstream in(log);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 4u);
  // One call at a time: each child ends before the other starts.
  EXPECT_EQ(lines[0].substr(0, 6), "start-");
  EXPECT_EQ(lines[1], "end-" + lines[0].substr(6));
  EXPECT_EQ(lines[2].substr(0, 6), "start-");
  EXPECT_EQ(lines[3], "end-" + lines[2].substr(6));
}

TEST_F(SubDagProcessTest, ParallelRunsAtMostMaxConcurrentChildrenAtATime) {
  std::string log = home_.Scratch("order.log");
  home_.WriteDag("mark", "params: ITEM=x\nsteps:\n  - name: s\n    command: sh -c 'echo +$ITEM >> " + log +
                             "; sleep 0.5; echo -$ITEM >> " + log + "'\n");
  home_.WriteDag("parent", "steps:\n  - name: fan\n    call: mark\n    params: ITEM=${ITEM}\n"
                           "    parallel:\n      items: [a, b, c, d, e]\n      maxConcurrent: 2\n");
  ASSERT_EQ(Dagu("parent", {"start", "-q", "--run-id=p1", "parent"}), 0);
  std::ifstream in(log);
  int running = 0, most = 0, lines = 0;
  for (std::string l; std::getline(in, l); ++lines) {
    running += l[0] == '+' ? 1 : -1;
    most = std::max(most, running);
  }
  EXPECT_EQ(lines, 10);
  EXPECT_EQ(most, 2) << "children at once";
}

TEST_F(SubDagProcessTest, AScheduledParentsChildrenRunOnceThroughAFailover) {
  std::string log = home_.Scratch("items.log");
  home_.WriteDag("item", "params: ITEM=none\nsteps:\n  - name: s\n    command: sh -c 'echo $ITEM >> " + log +
                             "; sleep 2'\n");
  home_.WriteDag("nightly", "schedule: \"* * * * *\"\n"
                            "steps:\n"
                            "  - name: fan\n"
                            "    call: item\n"
                            "    params: ITEM=${ITEM}\n"
                            "    parallel:\n"
                            "      items: [1, 2, 3]\n"
                            "      maxConcurrent: 1\n");
  const std::string run_id = SlotRunId(home_.data_dir(), "nightly", EnsureMinuteLeft(25s));
  const std::map<std::string, std::string> zombie_check{{"DAGU_SCHEDULER_ZOMBIE_DETECTION_INTERVAL", "1s"}};
  DaguProcess& a = StartActiveScheduler("a", zombie_check);
  int b_port = FreePort();
  DaguProcess& b = Launch("b", {"scheduler"}, Env(b_port, zombie_check), b_port);
  ASSERT_TRUE(WaitForRunningChildren("nightly", run_id, 1)) << DumpTree(home_.data_dir() + "/dag-runs");

  a.Signal(SIGKILL);  // the active scheduler dies while the first child runs
  ASSERT_TRUE(a.Wait(5s).has_value());
  EXPECT_TRUE(PollUntil([&] { return b.Health(false, 250ms).role == "active"; }, 15s)) << "b did not take over";

  auto done = WaitForRun("nightly", run_id, Finished, 40s);
  ASSERT_TRUE(done) << "the parent never finished";
  EXPECT_EQ(done->status_code(), kRunSucceeded) << done->Describe();
  EXPECT_EQ(RunsWithId(Runs("nightly"), run_id).size(), 1u);
  auto children = ChildRecords(done->run_dir);
  ASSERT_EQ(children.size(), 3u);
  for (const auto& [id, rec] : children) {
    EXPECT_EQ(Status(rec), kRunSucceeded) << id << ": " << rec.dump();
    EXPECT_EQ(rec["__attempts"], 1) << id;
    EXPECT_EQ(rec["root"]["id"], run_id);
  }
  std::ifstream in(log);
  std::vector<std::string> items;
  for (std::string l; std::getline(in, l);) items.push_back(l);
  std::sort(items.begin(), items.end());
  EXPECT_EQ(items, (std::vector<std::string>{"1", "2", "3"})) << "each child must run exactly once";
}

}  // namespace
}  // namespace dagu::testing
