#include "store/run_store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/time_format.h"
#include "store/run_claim.h"
#include "store/run_layout.h"
#include "store/status_json.h"
#include "support/fake_clock.h"
#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::FaultyFileSystem;
using testing::TempDir;

// 2026-12-02T16:24:40Z
WallTime T0() { return FromUnixSeconds(1796228680); }

RunRecord Record(const std::string& dag, const std::string& id, RunStatus status) {
  RunRecord r;
  r.root = {dag, id};
  r.name = dag;
  r.dag_run_id = id;
  r.status = status;
  return r;
}

size_t CountRunDirs(const std::string& root, const std::string& run_id) {
  size_t n = 0;
  if (!std::filesystem::exists(root)) return 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    std::string name = e.path().filename().string();
    if (e.is_directory() && name.rfind("dag-run_", 0) == 0 &&
        name.size() > run_id.size() && name.compare(name.size() - run_id.size() - 2, std::string::npos, "Z_" + run_id) == 0) {
      ++n;
    }
  }
  return n;
}

class RunStoreTest : public ::testing::Test {
 protected:
  RunStoreTest() : clock_(T0()), faulty_(PosixFileSystem()), store_(&faulty_, &clock_, dir_.Sub("dag-runs")) {}

  TempDir dir_;
  FakeClock clock_;
  FaultyFileSystem faulty_;
  RunStore store_;
};

TEST_F(RunStoreTest, CreatesDaguLayout) {
  RunDir run;
  ASSERT_TRUE(store_.CreateRun("hello", "demo-1", T0() + 414ms, &run).ok());
  EXPECT_EQ(run.path, dir_.Sub("dag-runs/hello/dag-runs/2026/12/02/dag-run_20261202_162440Z_demo-1"));
  EXPECT_EQ(run.created, T0());
  EXPECT_TRUE(std::filesystem::is_directory(run.path));
  EXPECT_TRUE(std::filesystem::exists(store_.ClaimPath("hello", "demo-1")));
  EXPECT_EQ(store_.ClaimPath("hello", "demo-1"), dir_.Sub("dag-runs/hello/dag-runs/.dagu_run_ids/demo-1"));
  // Names that need SafeName get Dagu's hash suffix.
  EXPECT_EQ(store_.DagRoot("my.dag"), dir_.Sub("dag-runs/my_dag-6663/dag-runs"));

  clock_.SetWall(FromUnixMillis(1796228680414));
  Json dag = Json{{"name", "hello"}};
  AttemptDir attempt;
  ASSERT_TRUE(store_.CreateAttempt(run, &dag, &attempt).ok());
  EXPECT_EQ(BaseName(attempt.path), AttemptDirName(FromUnixMillis(1796228680414), attempt.attempt_id));
  EXPECT_EQ(std::filesystem::status(attempt.DagJsonPath()).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  Json back;
  ASSERT_TRUE(store_.ReadDagJson(attempt, &back).ok());
  EXPECT_EQ(back["name"], "hello");
}

TEST_F(RunStoreTest, SecondCreatorOfAnIdFailsWhateverTheTime) {
  RunDir run;
  ASSERT_TRUE(store_.CreateRun("d", "slot-1", T0(), &run).ok());
  RunDir again;
  Status s = store_.CreateRun("d", "slot-1", T0() + 1s, &again);
  EXPECT_TRUE(s.IsAlreadyExists()) << s.ToString();
  s = store_.CreateRun("d", "slot-1", T0() + 48h, &again);
  EXPECT_TRUE(s.IsAlreadyExists()) << s.ToString();
  EXPECT_EQ(CountRunDirs(store_.DagRoot("d"), "slot-1"), 1u);
  // Same ID in another DAG is another run.
  EXPECT_TRUE(store_.CreateRun("e", "slot-1", T0(), &again).ok());
}

TEST_F(RunStoreTest, RunWrittenByDaguBlocksTheId) {
  // A directory made by Dagu has no claim.
  std::filesystem::create_directories(store_.DagRoot("d") + "/2026/11/30/dag-run_20261130_010203Z_old-1");
  RunDir run;
  Status s = store_.CreateRun("d", "old-1", T0(), &run);
  ASSERT_TRUE(s.IsAlreadyExists()) << s.ToString();
  EXPECT_NE(s.message().find("dag-run_20261130_010203Z_old-1"), std::string::npos);
  EXPECT_EQ(CountRunDirs(store_.DagRoot("d"), "old-1"), 1u);
  StatusOr<bool> exists = store_.RunExists("d", "old-1");
  ASSERT_TRUE(exists.ok());
  EXPECT_TRUE(*exists);
}

TEST_F(RunStoreTest, SuffixOfAnotherIdIsNotAMatch) {
  RunDir run;
  ASSERT_TRUE(store_.CreateRun("d", "x-run-1", T0(), &run).ok());
  ASSERT_TRUE(store_.CreateRun("d", "run-1", T0(), &run).ok());
  RunDir found;
  ASSERT_TRUE(store_.FindRun("d", "run-1", &found).ok());
  EXPECT_EQ(found.run_id, "run-1");
}

TEST_F(RunStoreTest, UnreadableExistingRunsMeanNoCreate) {
  std::filesystem::create_directories(store_.DagRoot("d") + "/2026/12/01");
  faulty_.FailWith("ListDir", "/2026/12", Status::IOError("EIO"));
  RunDir run;
  Status s = store_.CreateRun("d", "r1", T0(), &run);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kIOError);
  EXPECT_NE(s.message().find("run not created"), std::string::npos) << s.message();
  // Nothing left behind: no claim, no run dir.
  EXPECT_FALSE(std::filesystem::exists(store_.ClaimPath("d", "r1")));
  faulty_.Clear();
  EXPECT_EQ(CountRunDirs(store_.DagRoot("d"), "r1"), 0u);
  faulty_.FailWith("ListDir", "/2026/12", Status::IOError("EIO"));
  EXPECT_FALSE(store_.RunExists("d", "r1").ok());
  faulty_.Clear();
  EXPECT_TRUE(store_.CreateRun("d", "r1", T0(), &run).ok());
}

TEST_F(RunStoreTest, FailedClaimWriteLeavesNothing) {
  faulty_.FailWith("CreateFileExclusive", ".dagu_run_ids", Status::NoSpace("ENOSPC"));
  RunDir run;
  Status s = store_.CreateRun("d", "r1", T0(), &run);
  EXPECT_EQ(s.code(), Status::Code::kNoSpace);
  faulty_.Clear();
  EXPECT_TRUE(store_.CreateRun("d", "r1", T0(), &run).ok());
}

// Issue 10 item 10: a failed exclusive create of the claim removes nothing:
// when our O_EXCL open did not succeed, the claim that is there is someone
// else's (here a create that failed with EIO on a name another process holds).
TEST_F(RunStoreTest, AFailedClaimCreateNeverRemovesAnotherCreatorsClaim) {
  // Another creator has just claimed r1 and is making its directory (the
  // history scan, which now comes before the claim, finds no run yet).
  const std::string claim = store_.ClaimPath("d", "r1");
  std::filesystem::create_directories(DirName(claim));
  ASSERT_TRUE(PosixFileSystem()
                  ->CreateFileExclusive(claim, PendingClaimText(store_.DagRoot("d") + "/2026/12/02/dag-run_20261202_162440Z_r1"))
                  .ok());
  clock_.SetWall(std::chrono::system_clock::now());
  faulty_.FailWith("CreateFileExclusive", ".dagu_run_ids", Status::IOError("EIO"));
  RunDir run;
  EXPECT_EQ(store_.CreateRun("d", "r1", T0() + std::chrono::seconds(5), &run).code(), Status::Code::kIOError);
  faulty_.Clear();
  EXPECT_TRUE(std::filesystem::exists(store_.ClaimPath("d", "r1"))) << "another creator's claim was removed";
  EXPECT_TRUE(store_.CreateRun("d", "r1", T0() + std::chrono::seconds(5), &run).IsAlreadyExists());
}

TEST_F(RunStoreTest, BadRunIdIsRejected) {
  RunDir run;
  EXPECT_EQ(store_.CreateRun("d", "../x", T0(), &run).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(store_.CreateRun("d", "", T0(), &run).code(), Status::Code::kInvalidArgument);
}

// Many processes create the same run ID, each at a different "time": exactly
// one wins and exactly one directory exists.
TEST(RunStoreConcurrencyTest, ExactlyOneOfManyProcessesWins) {
  TempDir dir;
  const int kProcs = 24;
  for (int round = 0; round < 3; ++round) {
    const std::string id = "slot-" + std::to_string(round);
    std::vector<pid_t> pids;
    int go[2];
    ASSERT_EQ(::pipe(go), 0);
    for (int i = 0; i < kProcs; ++i) {
      pid_t pid = ::fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        ::close(go[1]);
        char c;
        (void)!::read(go[0], &c, 1);  // start together
        FakeClock clock(T0() + std::chrono::seconds(i));
        RunStore store(PosixFileSystem(), &clock, dir.Sub("dag-runs"));
        RunDir run;
        Status s = store.CreateRun("d", id, clock.Now(), &run);
        ::_exit(s.ok() ? 0 : s.IsAlreadyExists() ? 1 : 2);
      }
      pids.push_back(pid);
    }
    ::close(go[0]);
    ::close(go[1]);  // EOF releases every child at once
    int winners = 0, losers = 0, errors = 0;
    for (pid_t p : pids) {
      int st = 0;
      ::waitpid(p, &st, 0);
      ASSERT_TRUE(WIFEXITED(st));
      int code = WEXITSTATUS(st);
      (code == 0 ? winners : code == 1 ? losers : errors)++;
    }
    EXPECT_EQ(winners, 1) << "round " << round;
    EXPECT_EQ(losers, kProcs - 1);
    EXPECT_EQ(errors, 0);
    FakeClock clock(T0());
    RunStore store(PosixFileSystem(), &clock, dir.Sub("dag-runs"));
    EXPECT_EQ(CountRunDirs(store.DagRoot("d"), id), 1u);
  }
}

// An append after a torn line (another writer crashed mid-line after this
// store's own last append) starts a fresh line; appends that follow this
// store's own do not read the file again (they stay linear in a long run).
TEST_F(RunStoreTest, AnAppendAfterSomeoneElsesTornLineStartsAFreshLine) {
  RunDir run;
  ASSERT_TRUE(store_.CreateRun("d", "r1", T0(), &run).ok());
  AttemptDir a;
  ASSERT_TRUE(store_.CreateAttempt(run, nullptr, &a).ok());
  ASSERT_TRUE(store_.AppendStatus(a, Record("d", "r1", RunStatus::kQueued)).ok());
  std::ofstream(a.StatusPath(), std::ios::app) << "{\"name\":\"d\",\"sta";
  ASSERT_TRUE(store_.AppendStatus(a, Record("d", "r1", RunStatus::kRunning)).ok());
  ASSERT_TRUE(store_.AppendStatus(a, Record("d", "r1", RunStatus::kRunning)).ok());
  std::string contents;
  ASSERT_TRUE(PosixFileSystem()->ReadFile(a.StatusPath(), &contents).ok());
  EXPECT_EQ(std::count(contents.begin(), contents.end(), '\n'), 4) << contents;  // 3 records + the torn line's end
  RunRecord r;
  ASSERT_TRUE(store_.ReadStatus(a, &r).ok());
  EXPECT_EQ(r.status, RunStatus::kRunning);

  // Another store (another process): its first append reads the file, the
  // ones after its own do not (a read would fail here).
  testing::FaultyFileSystem faulty(PosixFileSystem());
  RunStore store(&faulty, &clock_, dir_.Sub("dag-runs"));
  ASSERT_TRUE(store.AppendStatus(a, Record("d", "r1", RunStatus::kRunning)).ok());
  faulty.FailWith("ReadFile", "status.jsonl", Status::IOError("EIO"));
  for (int i = 0; i < 5; ++i) {
    Status st = store.AppendStatus(a, Record("d", "r1", RunStatus::kRunning));
    ASSERT_TRUE(st.ok()) << "append " << i << " read the file again: " << st.ToString();
  }
}

TEST_F(RunStoreTest, StatusAppendCompactAndTornLines) {
  RunDir run;
  ASSERT_TRUE(store_.CreateRun("d", "r1", T0(), &run).ok());
  AttemptDir a;
  ASSERT_TRUE(store_.CreateAttempt(run, nullptr, &a).ok());
  ASSERT_TRUE(store_.AppendStatus(a, Record("d", "r1", RunStatus::kRunning)).ok());
  ASSERT_TRUE(store_.AppendStatus(a, Record("d", "r1", RunStatus::kRunning)).ok());
  // A crash mid-write leaves a torn last line.
  std::ofstream(a.StatusPath(), std::ios::app) << "{\"name\":\"d\",\"sta";
  RunRecord r;
  ASSERT_TRUE(store_.ReadStatus(a, &r).ok());
  EXPECT_EQ(r.status, RunStatus::kRunning);
  ASSERT_TRUE(store_.WriteFinalStatus(a, Record("d", "r1", RunStatus::kSucceeded)).ok());
  std::string contents;
  ASSERT_TRUE(PosixFileSystem()->ReadFile(a.StatusPath(), &contents).ok());
  EXPECT_EQ(std::count(contents.begin(), contents.end(), '\n'), 1);
  ASSERT_TRUE(store_.ReadStatus(a, &r).ok());
  EXPECT_EQ(r.status, RunStatus::kSucceeded);
  RunDir found;
  AttemptDir latest;
  ASSERT_TRUE(store_.ReadLatest("d", "r1", &found, &latest, &r).ok());
  EXPECT_EQ(latest.path, a.path);
}

TEST_F(RunStoreTest, LatestAttemptSkipsHiddenAndStatuslessAttempts) {
  RunDir run;
  ASSERT_TRUE(store_.CreateRun("d", "r1", T0(), &run).ok());
  AttemptDir a1, a2, a3;
  ASSERT_TRUE(store_.CreateAttempt(run, nullptr, &a1).ok());
  ASSERT_TRUE(store_.AppendStatus(a1, Record("d", "r1", RunStatus::kQueued)).ok());
  clock_.Advance(5ms);
  ASSERT_TRUE(store_.CreateAttempt(run, nullptr, &a2).ok());
  ASSERT_TRUE(store_.AppendStatus(a2, Record("d", "r1", RunStatus::kFailed)).ok());
  clock_.Advance(5ms);
  ASSERT_TRUE(store_.CreateAttempt(run, nullptr, &a3).ok());  // no status yet
  AttemptDir latest;
  ASSERT_TRUE(store_.LatestAttempt(run, &latest).ok());
  EXPECT_EQ(latest.attempt_id, a2.attempt_id);
  // A writer that has created its status.jsonl and not yet written the
  // first line: readers keep the attempt before it (not a parse error).
  ASSERT_TRUE(faulty_.WriteFile(a3.StatusPath(), "", 0600).ok());
  ASSERT_TRUE(store_.LatestAttempt(run, &latest).ok());
  EXPECT_EQ(latest.attempt_id, a2.attempt_id);
  RunRecord shown;
  ASSERT_TRUE(store_.ReadLatest("d", "r1", nullptr, nullptr, &shown).ok());
  EXPECT_EQ(shown.status, RunStatus::kFailed);
  ASSERT_TRUE(store_.AppendStatus(a3, Record("d", "r1", RunStatus::kRunning)).ok());
  ASSERT_TRUE(store_.LatestAttempt(run, &latest).ok());
  EXPECT_EQ(latest.attempt_id, a3.attempt_id);
  ASSERT_TRUE(::unlink(a3.StatusPath().c_str()) == 0);
  ASSERT_TRUE(store_.HideAttempt(&a2).ok());
  EXPECT_EQ(BaseName(a2.path)[0], '.');
  ASSERT_TRUE(store_.LatestAttempt(run, &latest).ok());
  EXPECT_EQ(latest.attempt_id, a1.attempt_id);
  std::vector<AttemptDir> all;
  ASSERT_TRUE(store_.ListAttempts(run, true, &all).ok());
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].attempt_id, a3.attempt_id);
  EXPECT_TRUE(all[1].hidden);
}

TEST_F(RunStoreTest, MissingStatusAndDagJsonAreClearErrors) {
  RunDir run;
  ASSERT_TRUE(store_.CreateRun("d", "r1", T0(), &run).ok());
  Status s = store_.ReadLatest("d", "r1", nullptr, nullptr, nullptr);
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_NE(s.message().find(run.path), std::string::npos);
  AttemptDir a;
  ASSERT_TRUE(store_.CreateAttempt(run, nullptr, &a).ok());
  Json j;
  s = store_.ReadDagJson(a, &j);
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_NE(s.message().find("dag.json"), std::string::npos);
  std::ofstream(a.DagJsonPath()) << "{not json";
  s = store_.ReadDagJson(a, &j);
  EXPECT_TRUE(s.IsCorruption());
}

TEST_F(RunStoreTest, ListingSurvivesBrokenRuns) {
  auto make = [&](const std::string& id, WallTime t, const std::string& status_text) {
    RunDir run;
    EXPECT_TRUE(store_.CreateRun("d", id, t, &run).ok());
    AttemptDir a;
    EXPECT_TRUE(store_.CreateAttempt(run, nullptr, &a).ok());
    if (!status_text.empty()) std::ofstream(a.StatusPath()) << status_text;
    return run;
  };
  make("good", T0(), SerializeRunRecord(Record("d", "good", RunStatus::kRunning)) + "\n");
  make("torn", T0() + 1s, "{\"name\":\"d\"");
  make("nostatus", T0() + 2s, "");
  RunDir unreadable = make("unreadable", T0() + 3s, SerializeRunRecord(Record("d", "unreadable", RunStatus::kRunning)));
  faulty_.FailWith("ListDir", "unreadable", Status::PermissionDenied("EACCES"));

  std::vector<RunEntry> entries;
  RunQuery q;
  q.dag_name = "d";
  ASSERT_TRUE(store_.ListRuns(q, &entries).ok());
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].run.run_id, "unreadable");
  EXPECT_EQ(entries[0].error.code(), Status::Code::kPermissionDenied);
  EXPECT_EQ(entries[1].run.run_id, "nostatus");
  EXPECT_TRUE(entries[1].error.IsNotFound());
  EXPECT_EQ(entries[2].run.run_id, "torn");
  EXPECT_TRUE(entries[2].error.IsCorruption());
  EXPECT_NE(entries[2].error.message().find("status.jsonl"), std::string::npos);
  EXPECT_TRUE(entries[3].error.ok());
  EXPECT_EQ(entries[3].record.status, RunStatus::kRunning);

  q.statuses = {RunStatus::kRunning};
  ASSERT_TRUE(store_.ListRuns(q, &entries).ok());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].run.run_id, "good");
}

TEST_F(RunStoreTest, ListRunsAcrossDagsWithDateRange) {
  auto make = [&](const std::string& dag, const std::string& id, WallTime t, RunStatus st) {
    RunDir run;
    ASSERT_TRUE(store_.CreateRun(dag, id, t, &run).ok());
    AttemptDir a;
    ASSERT_TRUE(store_.CreateAttempt(run, nullptr, &a).ok());
    ASSERT_TRUE(store_.AppendStatus(a, Record(dag, id, st)).ok());
  };
  make("a", "old", T0() - 48h, RunStatus::kRunning);
  make("a", "new", T0(), RunStatus::kRunning);
  make("my.dag", "mid", T0() - 1h, RunStatus::kSucceeded);
  make("b", "later", T0() + 1h, RunStatus::kFailed);
  std::vector<RunEntry> entries;
  RunQuery q;
  q.from = T0() - 2h;
  ASSERT_TRUE(store_.ListRuns(q, &entries).ok());
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].run.run_id, "later");
  EXPECT_EQ(entries[1].run.run_id, "new");
  EXPECT_EQ(entries[2].run.run_id, "mid");
  EXPECT_EQ(entries[2].run.dag_name, "my.dag");  // from the record, not the dir name
  q.statuses = {RunStatus::kRunning};
  q.from.reset();
  ASSERT_TRUE(store_.ListRuns(q, &entries).ok());
  ASSERT_EQ(entries.size(), 2u);
  q.statuses.clear();
  q.limit = 2;
  ASSERT_TRUE(store_.ListRuns(q, &entries).ok());
  EXPECT_EQ(entries.size(), 2u);
  q.limit = 0;
  q.to = T0() - 24h;
  ASSERT_TRUE(store_.ListRuns(q, &entries).ok());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].run.run_id, "old");
  // A short closed range names its day folders (three here, one of them
  // without runs of "b") instead of listing the year and month folders.
  q.from = T0() - 49h;
  q.to = T0() - 30min;
  ASSERT_TRUE(store_.ListRuns(q, &entries).ok());
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].run.run_id, "mid");
  EXPECT_EQ(entries[1].run.run_id, "old");
  q.from = T0();
  q.to = T0() - 1h;  // inverted: nothing
  ASSERT_TRUE(store_.ListRuns(q, &entries).ok());
  EXPECT_TRUE(entries.empty());
  RunDir latest;
  ASSERT_TRUE(store_.LatestRun("a", &latest).ok());
  EXPECT_EQ(latest.run_id, "new");
  EXPECT_TRUE(store_.LatestRun("nope", &latest).IsNotFound());
}

// One DAG's newest `limit` runs without a status filter: its older day
// folders are not listed (a DAG's runs page asks for 30 of its ~100), and the
// answer is the first `limit` of the whole list, with the index on or off.
TEST_F(RunStoreTest, OneDagsNewestRunsListOnlyTheDaysTheyNeed) {
  for (bool indexed : {false, true}) {
    TempDir dir;
    RunStore store(&faulty_, &clock_, dir.Sub("dag-runs"));
    if (indexed) store.EnableIndex(RunIndexLimits{});
    std::vector<std::string> all;  // newest first
    for (int day = 0; day < 6; ++day) {
      for (int i = 2; i >= 0; --i) {
        const std::string id = "d" + std::to_string(day) + "-" + std::to_string(i);
        RunDir run;
        ASSERT_TRUE(store.CreateRun("d", id, T0() - std::chrono::hours(24 * day) + std::chrono::seconds(i), &run).ok());
        AttemptDir a;
        ASSERT_TRUE(store.CreateAttempt(run, nullptr, &a).ok());
        ASSERT_TRUE(store.AppendStatus(a, Record("d", id, day == 1 ? RunStatus::kFailed : RunStatus::kSucceeded)).ok());
        all.push_back(id);
      }
    }
    auto ids = [&](const RunQuery& q, Status* status) {
      std::vector<RunEntry> entries;
      *status = store.ListRuns(q, &entries);
      std::vector<std::string> out;
      for (const auto& e : entries) out.push_back(e.run.run_id + (e.error.ok() ? "" : " " + e.error.ToString()));
      return out;
    };
    RunQuery q;
    q.dag_name = "d";
    q.limit = 0;
    Status s;
    ASSERT_EQ(ids(q, &s), all) << indexed;
    ASSERT_TRUE(s.ok());
    // The oldest day folders cannot be listed: a limit within the newer days
    // does not look at them.
    const std::string oldest = FormatDatePathUTC(T0() - std::chrono::hours(24 * 5));
    const std::string older = FormatDatePathUTC(T0() - std::chrono::hours(24 * 4));
    faulty_.FailWith("ListDir", oldest, Status::IOError("EIO"));
    faulty_.FailWith("ListDir", older, Status::IOError("EIO"));
    faulty_.FailWith("Stat", oldest, Status::IOError("EIO"));
    faulty_.FailWith("Stat", older, Status::IOError("EIO"));
    for (size_t limit : {1u, 3u, 4u, 12u}) {
      q.limit = limit;
      EXPECT_EQ(ids(q, &s), std::vector<std::string>(all.begin(), all.begin() + static_cast<long>(limit)))
          << indexed << " " << limit;
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
    // One run more needs the older folder; a status filter needs them all.
    q.limit = 13;
    ids(q, &s);
    EXPECT_FALSE(s.ok()) << indexed;
    q.limit = 3;
    q.statuses = {RunStatus::kFailed};
    ids(q, &s);
    EXPECT_FALSE(s.ok()) << indexed;
    faulty_.Clear();
    EXPECT_EQ(ids(q, &s), (std::vector<std::string>{"d1-2", "d1-1", "d1-0"}));
  }
}

TEST_F(RunStoreTest, RemoveRunFreesTheId) {
  RunDir run;
  ASSERT_TRUE(store_.CreateRun("d", "r1", T0(), &run).ok());
  ASSERT_TRUE(store_.RemoveRun(run).ok());
  EXPECT_FALSE(std::filesystem::exists(run.path));
  EXPECT_FALSE(std::filesystem::exists(store_.ClaimPath("d", "r1")));
  StatusOr<bool> exists = store_.RunExists("d", "r1");
  ASSERT_TRUE(exists.ok());
  EXPECT_FALSE(*exists);
  EXPECT_TRUE(store_.CreateRun("d", "r1", T0() + 5s, &run).ok());
}

TEST_F(RunStoreTest, ClaimWithoutDirectoryStillBlocks) {
  // Dagu's dequeue deleted the directory but not our claim.
  RunDir run;
  ASSERT_TRUE(store_.CreateRun("d", "r1", T0(), &run).ok());
  std::filesystem::remove_all(run.path);
  StatusOr<bool> exists = store_.RunExists("d", "r1");
  ASSERT_TRUE(exists.ok());
  EXPECT_TRUE(*exists);
  EXPECT_TRUE(store_.CreateRun("d", "r1", T0(), &run).IsAlreadyExists());
  EXPECT_TRUE(store_.FindRun("d", "r1", &run).IsNotFound());
}

// Issue 27 item 4: a creator that died between its claim and its directory
// (OOM kill, host crash, EIO) left a pending claim. Once it has been left
// alone for kClaimRepairAfter it no longer blocks the ID: the next creator
// makes the very directory it names.
TEST_F(RunStoreTest, AClaimLeftWithoutItsDirectoryIsAdoptedAfterTheBound) {
  // The crash: the claim is written, the mkdir never happens.
  faulty_.FailWith("MakeDir", "dag-run_", Status::IOError("EIO (crash before mkdir)"));
  RunDir run;
  EXPECT_EQ(store_.CreateRun("d", "r1", T0(), &run).code(), Status::Code::kIOError);
  faulty_.Clear();
  const std::string claim = store_.ClaimPath("d", "r1");
  ASSERT_TRUE(std::filesystem::exists(claim)) << "a creator never removes its claim";
  std::string text;
  ASSERT_TRUE(PosixFileSystem()->ReadFile(claim, &text).ok());
  EXPECT_EQ(text, dir_.Sub("dag-runs/d/dag-runs/2026/12/02/dag-run_20261202_162440Z_r1") + "\npending\n");
  EXPECT_EQ(CountRunDirs(store_.DagRoot("d"), "r1"), 0u);

  // While its creator may still be at work, the claim holds.
  clock_.SetWall(std::chrono::system_clock::now() + kClaimRepairAfter - 1s);
  StatusOr<bool> exists = store_.RunExists("d", "r1");
  ASSERT_TRUE(exists.ok());
  EXPECT_TRUE(*exists);
  EXPECT_TRUE(store_.CreateRun("d", "r1", clock_.Now(), &run).IsAlreadyExists());

  // Left alone for the bound: abandoned, and adopted by the next creator.
  clock_.SetWall(std::chrono::system_clock::now() + kClaimRepairAfter + 1s);
  exists = store_.RunExists("d", "r1");
  ASSERT_TRUE(exists.ok());
  EXPECT_FALSE(*exists);
  ASSERT_TRUE(store_.CreateRun("d", "r1", clock_.Now(), &run).ok());
  EXPECT_EQ(run.path, dir_.Sub("dag-runs/d/dag-runs/2026/12/02/dag-run_20261202_162440Z_r1"))
      << "the adopter makes the directory the claim names";
  EXPECT_EQ(run.created, T0());
  EXPECT_EQ(CountRunDirs(store_.DagRoot("d"), "r1"), 1u);
  // Made now: it blocks for as long as it is there, directory or not.
  exists = store_.RunExists("d", "r1");
  ASSERT_TRUE(exists.ok() && *exists);
  std::filesystem::remove_all(run.path);
  clock_.SetWall(clock_.Now() + 24h);
  EXPECT_TRUE(store_.CreateRun("d", "r1", clock_.Now(), &run).IsAlreadyExists());
}

// The claim is never removed by a failed create, and an adopter and a late
// creator (one paused between its claim and its mkdir for longer than the
// bound) make the same path: exactly one of them gets the run.
TEST_F(RunStoreTest, ALateCreatorLosesToItsAdopterWithoutASecondDirectory) {
  RunDir late, adopter;
  Status late_status;
  bool adopted = false;
  // The creator is paused right before its mkdir; meanwhile the bound passes
  // and another creator adopts the claim.
  faulty_.BeforeOnce("MakeDir", "dag-run_20261202_162440Z_r1", [&] {
    clock_.SetWall(std::chrono::system_clock::now() + kClaimRepairAfter + 1s);
    RunStore other(PosixFileSystem(), &clock_, dir_.Sub("dag-runs"));
    adopted = other.CreateRun("d", "r1", clock_.Now(), &adopter).ok();
  });
  late_status = store_.CreateRun("d", "r1", T0(), &late);
  EXPECT_TRUE(adopted);
  EXPECT_TRUE(late_status.IsAlreadyExists()) << late_status.ToString();
  EXPECT_EQ(adopter.path, dir_.Sub("dag-runs/d/dag-runs/2026/12/02/dag-run_20261202_162440Z_r1"));
  EXPECT_EQ(CountRunDirs(store_.DagRoot("d"), "r1"), 1u);
  EXPECT_TRUE(std::filesystem::exists(store_.ClaimPath("d", "r1")));
}

// A claim whose content gives no usable path (torn) is never adopted.
TEST_F(RunStoreTest, ATornPendingClaimIsNeverAdopted) {
  const std::string claim = store_.ClaimPath("d", "r1");
  std::filesystem::create_directories(DirName(claim));
  ASSERT_TRUE(PosixFileSystem()->CreateFileExclusive(claim, "\npending\n", 0600).ok());
  clock_.SetWall(std::chrono::system_clock::now() + 1h);
  RunDir run;
  EXPECT_TRUE(store_.CreateRun("d", "r1", clock_.Now(), &run).IsAlreadyExists());
  StatusOr<bool> exists = store_.RunExists("d", "r1");
  ASSERT_TRUE(exists.ok() && *exists);
}

// The history scan happens before the claim: an unreadable history leaves
// no claim at all (nothing slow, and nothing that can fail, sits between the
// claim and the directory).
TEST_F(RunStoreTest, TheHistoryScanComesBeforeTheClaim) {
  std::filesystem::create_directories(store_.DagRoot("d") + "/2026/12/01");
  bool claimed_before_scan = false;
  faulty_.BeforeOnce("ListDir", "/2026/12", [&] {
    claimed_before_scan = std::filesystem::exists(store_.ClaimPath("d", "r1"));
  });
  RunDir run;
  ASSERT_TRUE(store_.CreateRun("d", "r1", T0(), &run).ok());
  EXPECT_FALSE(claimed_before_scan);
  // And the claim is made (its path alone, as claims always were) once the
  // directory is there.
  std::string text;
  ASSERT_TRUE(PosixFileSystem()->ReadFile(store_.ClaimPath("d", "r1"), &text).ok());
  EXPECT_EQ(text, run.path + "\n");
}

TEST_F(RunStoreTest, DispatchClaimIsExclusive) {
  RunDir run;
  ASSERT_TRUE(store_.CreateRun("d", "r1", T0(), &run).ok());
  AttemptDir a;
  ASSERT_TRUE(store_.CreateAttempt(run, nullptr, &a).ok());
  EXPECT_TRUE(store_.ClaimDispatch(run, a).ok());
  EXPECT_TRUE(store_.ClaimDispatch(run, a).IsAlreadyExists());
  ASSERT_TRUE(store_.ReleaseDispatch(run, a).ok());
  EXPECT_TRUE(store_.ClaimDispatch(run, a).ok());
  // Invisible to attempt listing.
  std::vector<AttemptDir> attempts;
  ASSERT_TRUE(store_.ListAttempts(run, true, &attempts).ok());
  EXPECT_EQ(attempts.size(), 1u);
}

TEST_F(RunStoreTest, CancelFlagAndOutputs) {
  RunDir run;
  ASSERT_TRUE(store_.CreateRun("d", "r1", T0(), &run).ok());
  AttemptDir a;
  ASSERT_TRUE(store_.CreateAttempt(run, nullptr, &a).ok());
  EXPECT_FALSE(store_.CancelRequested(a));
  ASSERT_TRUE(store_.RequestCancel(a).ok());
  EXPECT_TRUE(store_.CancelRequested(a));
  EXPECT_EQ(std::filesystem::file_size(a.CancelPath()), 0u);
  ASSERT_TRUE(store_.WriteOutputs(a, Json{{"outputs", {{"answer", "42"}}}}).ok());
  std::string text;
  ASSERT_TRUE(PosixFileSystem()->ReadFile(a.OutputsPath(), &text).ok());
  EXPECT_EQ(Json::parse(text)["outputs"]["answer"], "42");
}

}  // namespace
}  // namespace dagu
