// Corrupt files (docs/reliability.md): garbage where the scheduler expects its
// records, and things that are not files where files should be. Each gets a
// clear error naming the file, nothing else is affected, and a run history
// that cannot be read never leads to a second run of a slot.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>

#include "chaos_support.h"

namespace dagu::chaos {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

void Write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

bool LogShows(dt::DaguProcess& p, const std::string& needle, Ms timeout) {
  return dt::PollUntil([&] { return p.Output().find(needle) != std::string::npos; }, timeout, 50ms);
}

// Polls until the slot of `dag` at `minute` was executed at least once.
bool SlotExecuted(Cluster& c, const std::string& dag, SysTime minute, Ms timeout) {
  std::string id = dt::SlotRunId(c.data_seen(), dag, minute);
  return dt::PollUntil([&] { return c.Executions().count(id) > 0; }, timeout, 100ms);
}

// At least `lead` left in the current minute (waits for the next one if not).
SysTime MinuteWithLead(Ms lead) {
  SysTime now = std::chrono::system_clock::now();
  if (now + lead >= Minute(now) + std::chrono::minutes(1)) SleepUntil(Minute(now) + std::chrono::minutes(1) + 200ms);
  return Minute(std::chrono::system_clock::now());
}

class CorruptFiles : public ChaosTest {};

TEST_F(CorruptFiles, AGarbageOwnerRecordIsTakenOverAfterTAndNamed) {
  Cluster& c = UseLocalHome();
  c.WriteDag("good", "* * * * *");
  Write(c.data_backing() + "/scheduler/locks/.dagu_lock/owner", "garbage, not JSON\n");
  SysTime minute = MinuteWithLead(20s);
  auto& a = c.Start("a", nullptr);
  auto standby = Cluster::WaitForRole(a, "standby", 5s);
  ASSERT_TRUE(standby) << "a garbage owner record must be waited on like any holder";
  EXPECT_THAT(a.Health().body.value("lock_holder", ""), HasSubstr("unreadable owner record"));
  auto active = Cluster::WaitForRole(a, "active", 3000ms + 3000ms);
  ASSERT_TRUE(active) << "never took over the lock with the garbage owner record";
  Measure("garbage_owner_takeover_s", std::to_string(std::chrono::duration<double>(*active - *standby).count()));
  EXPECT_TRUE(SlotExecuted(c, "good", minute, 10s));
}

// A FIFO or a directory where the owner record should be, or a file where
// the lock directory should be: Dagu 1.30.2 removes such a lock once its
// mtime is stale; ours waits T (it cannot read a holder) and takes it over.
// No instance may hang on it or refuse to start.
TEST_F(CorruptFiles, ALockThatIsNotWhatItShouldBeIsTakenOverAfterT) {
  struct Case {
    const char* what;
    std::function<void(const std::string& locks)> make;
  };
  std::vector<Case> cases{
      {"a FIFO as the owner record",
       [](const std::string& locks) {
         fs::create_directories(locks + "/.dagu_lock");
         ASSERT_EQ(::mkfifo((locks + "/.dagu_lock/owner").c_str(), 0600), 0);
       }},
      {"a directory as the owner record",
       [](const std::string& locks) { fs::create_directories(locks + "/.dagu_lock/owner/x"); }},
      {"a file as the lock", [](const std::string& locks) { Write(locks + "/.dagu_lock", "not a directory"); }},
  };
  int n = 0;
  for (const auto& k : cases) {
    SCOPED_TRACE(k.what);
    dt::TempDir dir;
    Cluster c(dir.Sub("home"), dir.Sub("home"), dir.Sub("scratch"));
    k.make(c.data_backing() + "/scheduler/locks");
    auto& a = c.Start("a" + std::to_string(++n), nullptr);
    auto active = Cluster::WaitForRole(a, "active", 3000ms + 4000ms);
    if (!active) ADD_FAILURE() << k.what << ": never active\n" << c.Evidence();
    a.Signal(SIGTERM);
    EXPECT_EQ(a.Wait(10s), 0) << k.what << "\n" << a.Describe();
  }
}

TEST_F(CorruptFiles, ATruncatedStatusOfASlotNeverLeadsToASecondRunAndIsNamed) {
  Cluster& c = UseLocalHome();
  c.WriteDag("good", "* * * * *");
  SysTime minute = MinuteWithLead(30s);
  auto& a = c.Start("a", nullptr);
  ASSERT_TRUE(Cluster::WaitForRole(a, "active", 5s));
  ASSERT_TRUE(SlotExecuted(c, "good", minute, 10s));
  ASSERT_TRUE(c.WaitForAllFinished("good", 10s));
  a.Signal(SIGTERM);
  ASSERT_EQ(a.Wait(10s), 0);

  auto runs = dt::ReadRunRecords(c.data_backing(), "good");
  ASSERT_EQ(runs.size(), 1u);
  std::string status = runs[0].attempt_dirs.at(0) + "/status.jsonl";
  std::string text;
  {
    std::ifstream in(status);
    std::getline(in, text, '\0');
  }
  Write(status, text.substr(0, 40));  // a torn first line: no record parses
  c.WriteDag("other", "* * * * *");

  auto& b = c.Start("b", nullptr);
  ASSERT_TRUE(Cluster::WaitForRole(b, "active", 5s));
  ASSERT_TRUE(SlotExecuted(c, "other", minute, 10s)) << "the other DAG must be unaffected";
  ASSERT_LT(std::chrono::system_clock::now(), minute + std::chrono::minutes(1)) << "harness: too slow";
  std::this_thread::sleep_for(2s);
  SlotCounts counts = c.CountSlots("good", minute, minute);
  EXPECT_EQ(counts.duplicated, 0) << counts.details;
  EXPECT_EQ(c.Executions()[dt::SlotRunId(c.data_seen(), "good", minute)], 1);

  CommandResult st = c.Dagu({"status", "--run-id=" + dt::SlotRunId(c.data_seen(), "good", minute), "good"});
  EXPECT_EQ(st.status, 1) << st.output;
  EXPECT_THAT(st.output, HasSubstr(status));
}

TEST_F(CorruptFiles, BrokenQueueItemsAreKeptAndNamedOnceAndTheOthersRun) {
  Cluster& c = UseLocalHome();
  c.WriteDag("plain", "");
  std::string q = c.data_backing() + "/queue/plain/";
  Write(q + "item_low_20240101_000000_000000001Z_garbage.json", "{garbage");
  fs::create_directories(q + "item_low_20240101_000000_000000002Z_dir.json");
  ASSERT_EQ(c.Dagu({"enqueue", "--run-id=good-1", "plain"}).status, 0);
  auto& a = c.Start("a", nullptr);
  ASSERT_TRUE(Cluster::WaitForRole(a, "active", 5s));
  ASSERT_TRUE(dt::PollUntil([&] { return c.Executions().count("good-1") > 0; }, 15s, 100ms))
      << "a broken item must not hold up the queue";
  std::this_thread::sleep_for(3s);  // several rounds of the consumer
  EXPECT_TRUE(fs::exists(q + "item_low_20240101_000000_000000001Z_garbage.json"))
      << "an item that cannot be read was deleted: its run would be lost";
  EXPECT_TRUE(fs::exists(q + "item_low_20240101_000000_000000002Z_dir.json"));
  std::string out = a.Output();
  for (const char* name : {"item_low_20240101_000000_000000001Z_garbage.json",
                           "item_low_20240101_000000_000000002Z_dir.json"}) {
    size_t first = out.find(name);
    EXPECT_NE(first, std::string::npos) << name << " is not named in the log";
    EXPECT_EQ(out.find(name, first + 1), std::string::npos) << name << " is logged more than once:\n" << out;
  }
}

TEST_F(CorruptFiles, InvalidDagFilesAreNamedAndTheOthersAreScheduled) {
  Cluster& c = UseLocalHome();
  c.WriteDag("good", "* * * * *");
  std::string dags = c.home_seen() + "/dags/";
  Write(dags + "syntax.yaml", "steps: [\n");
  Write(dags + "cron.yaml", "schedule: \"61 * * * *\"\nsteps:\n  - command: echo\n");
  Write(dags + "bytes.yaml", "schedule: \"* * * * *\"\nsteps:\n  - command: GET http://127.0.0.1:1/\n"
                             "    executor:\n      type: http\n      config:\n        timeout\x8e: 5\n");
  ASSERT_EQ(::mkfifo((dags + "fifo.yaml").c_str(), 0600), 0);
  fs::create_directories(dags + "dir.yaml");
  SysTime minute = MinuteWithLead(20s);
  auto& a = c.Start("a", nullptr);
  ASSERT_TRUE(Cluster::WaitForRole(a, "active", 5s)) << "a bad DAG file must not keep the scheduler from starting";
  EXPECT_TRUE(SlotExecuted(c, "good", minute, 10s));
  for (const char* name : {"syntax.yaml", "cron.yaml", "fifo.yaml"}) {
    EXPECT_TRUE(LogShows(a, dags + name, 5s)) << name << " is not named";
  }
  std::this_thread::sleep_for(1s);
  EXPECT_TRUE(a.running()) << a.Describe();
  EXPECT_EQ(a.Health().http_status, 200);
}

TEST_F(CorruptFiles, AnInvalidConfigEndsStartupWith78NamingTheFileAndTouchesNothing) {
  struct Case {
    const char* what;
    std::function<void(const std::string& file)> make;
    const char* named;  // besides the file
  };
  std::vector<Case> cases{
      {"a bad value", [](const std::string& f) { Write(f, "scheduler:\n  lock_stale_threshold: banana\n"); },
       "lock_stale_threshold"},
      {"R not below T",
       [](const std::string& f) {
         Write(f, "scheduler:\n  lock_stale_threshold: 2s\n  lock_retry_interval: 5s\n");
       },
       "lock_retry_interval"},
      {"bad YAML", [](const std::string& f) { Write(f, "port: [\n"); }, "YAML"},
      {"a FIFO", [](const std::string& f) { ASSERT_EQ(::mkfifo(f.c_str(), 0600), 0); }, "not a regular file"},
      {"a directory", [](const std::string& f) { fs::create_directories(f); }, "directory"},
  };
  for (const auto& k : cases) {
    SCOPED_TRACE(k.what);
    dt::TempDir dir;
    Cluster c(dir.Sub("home"), dir.Sub("home"), dir.Sub("scratch"));
    std::string file = dir.Sub("home/config.yaml");
    k.make(file);
    auto started = Steady::now();
    CommandResult r = c.Dagu({"scheduler"}, nullptr, 10s);
    EXPECT_EQ(r.status, 78) << k.what << ": " << r.output;
    EXPECT_LT(Steady::now() - started, 5s);
    EXPECT_THAT(r.output, HasSubstr(file));
    EXPECT_THAT(r.output, HasSubstr(k.named));
    EXPECT_FALSE(fs::exists(c.data_backing() + "/scheduler/locks/.dagu_lock")) << k.what;
  }
}

TEST_F(CorruptFiles, GarbageInTheRegistryAndTheLedgerIsSurvived) {
  Cluster& c = UseLocalHome();
  c.WriteDag("good", "* * * * *");
  std::string registry = c.data_backing() + "/service-registry/scheduler/";
  Write(registry + "garbage.json", "{not json");
  fs::create_directories(registry + "dir.json");
  Write(c.data_backing() + "/scheduler/tick_ledger.json", "[1, 2");
  SysTime minute = MinuteWithLead(20s);
  auto& a = c.Start("a", nullptr);
  ASSERT_TRUE(Cluster::WaitForRole(a, "active", 5s));
  EXPECT_TRUE(SlotExecuted(c, "good", minute, 10s));
  CommandResult st = c.Dagu({"scheduler", "status"});
  EXPECT_EQ(st.status, 0) << st.output;
  EXPECT_THAT(st.output, HasSubstr(a.Health().body.value("instance_id", "?")));
}

}  // namespace
}  // namespace dagu::chaos
