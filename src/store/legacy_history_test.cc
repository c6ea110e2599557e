#include "store/legacy_history.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "store/run_store.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using testing::TempDir;
namespace fs = std::filesystem;

// One legacy .dat line as Dagu 1.16 wrote it.
std::string LegacyLine(const std::string& id, int status, const std::string& started) {
  return R"({"RequestId":")" + id + R"(","Name":"hello","Status":)" + std::to_string(status) +
         R"(,"StatusText":"x","Pid":123,"Nodes":[{"Step":{"Name":"first","Command":"echo","Args":["hi"],)"
         R"("CmdWithArgs":"echo hi"},"Log":"/logs/first.log","StartedAt":")" +
         started + R"(","FinishedAt":")" + started +
         R"(","Status":4,"StatusText":"finished","RetryCount":1,"DoneCount":1}],)"
         R"("OnExit":{"Step":{"Name":"onExit","CmdWithArgs":"echo bye"},"Log":"","StartedAt":"-","FinishedAt":"-",)"
         R"("Status":0,"StatusText":"not started"},"StartedAt":")" +
         started + R"(","FinishedAt":")" + started + R"(","Log":"/logs/hello.log","Params":"A=1","ParamsList":["A=1"]})";
}

class LegacyHistoryTest : public ::testing::Test {
 protected:
  std::string data() const { return dir_.Sub("data"); }
  void WriteDat(const std::string& dir, const std::string& file, const std::string& contents) {
    dir_.WriteFile("data/" + dir + "/" + file, contents);
  }
  LegacyMigration Migrate() {
    LegacyMigration m;
    EXPECT_TRUE(MigrateLegacyHistory(PosixFileSystem(), data(), data() + "/dag-runs",
                                     [](const std::string& name, const std::string&) {
                                       return Json{{"name", name}};
                                     },
                                     &m)
                    .ok());
    return m;
  }
  TempDir dir_;
};

TEST_F(LegacyHistoryTest, DetectsLegacyDirectories) {
  fs::create_directories(data() + "/dag-runs/hello");
  EXPECT_FALSE(HasLegacyHistory(PosixFileSystem(), data()));
  WriteDat("hello-4f1a", "hello.20241001.10:00:00.000Z.abcdef12.dat", LegacyLine("r1", 4, "2024-10-01T10:00:00Z"));
  EXPECT_TRUE(HasLegacyHistory(PosixFileSystem(), data()));
  EXPECT_EQ(LegacyDagName("hello-4f1a9c"), "hello");
  EXPECT_EQ(LegacyDagName("my-dag"), "my-dag");
}

TEST_F(LegacyHistoryTest, MigratesTheLastStatusOfEachRun) {
  WriteDat("hello-4f1a", "hello.20241001.10:00:00.000Z.r1.dat",
           LegacyLine("r1", 1, "2024-10-01 10:00:00") + "\n" + LegacyLine("r1", 4, "2024-10-01 10:00:00") + "\n{torn");
  WriteDat("hello-4f1a", "hello.20241002.10:00:00.000Z.r2.dat", LegacyLine("r2", 2, "2024-10-02T10:00:00Z") + "\n");
  WriteDat("hello-4f1a", "hello.20241003.10:00:00.000Z.r3.dat", LegacyLine("", 4, "2024-10-03T10:00:00Z"));
  WriteDat("hello-4f1a", "hello.20241004.10:00:00.000Z.r4.dat", LegacyLine("r4", 4, "-"));
  LegacyMigration m = Migrate();
  EXPECT_EQ(m.dags, 1);
  EXPECT_EQ(m.runs, 4);
  EXPECT_EQ(m.migrated, 2);
  EXPECT_EQ(m.skipped, 1);  // no request ID
  EXPECT_EQ(m.failed, 1);   // no start time
  RunStore runs(PosixFileSystem(), Clock::Real(), data() + "/dag-runs");
  RunDir run;
  RunRecord r;
  ASSERT_TRUE(runs.ReadLatest("hello", "r1", &run, nullptr, &r).ok());
  EXPECT_EQ(r.status, RunStatus::kSucceeded);
  EXPECT_EQ(r.params, "A=1");
  EXPECT_EQ(r.log, "/logs/hello.log");
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_EQ(r.nodes[0].StepName(), "first");
  EXPECT_EQ(r.nodes[0].step["cmdWithArgs"], "echo hi");
  EXPECT_EQ(r.nodes[0].stdout_path, "/logs/first.log");
  EXPECT_EQ(r.nodes[0].retry_count, 1);
  ASSERT_TRUE(r.on_exit.has_value());
  EXPECT_EQ(r.on_exit->StepName(), "onExit");
  EXPECT_EQ(run.path.find(runs.DagRoot("hello") + "/2024/10/01/dag-run_20241001_100000Z_r1"), 0u);
  ASSERT_TRUE(runs.ReadLatest("hello", "r2", nullptr, nullptr, &r).ok());
  EXPECT_EQ(r.status, RunStatus::kFailed);
  // A second pass skips what is already there.
  LegacyMigration again = Migrate();
  EXPECT_EQ(again.migrated, 0);
  EXPECT_EQ(again.skipped, 3);
}

TEST_F(LegacyHistoryTest, ArchiveMovesTheLegacyDirectories) {
  WriteDat("hello-4f1a", "hello.20241001.10:00:00.000Z.r1.dat", LegacyLine("r1", 4, "2024-10-01T10:00:00Z"));
  fs::create_directories(data() + "/dag-runs");
  std::string archive;
  ASSERT_TRUE(ArchiveLegacyHistory(PosixFileSystem(), data(), Clock::Real()->Now(), &archive).ok());
  EXPECT_TRUE(fs::exists(archive + "/hello-4f1a/hello.20241001.10:00:00.000Z.r1.dat"));
  EXPECT_FALSE(fs::exists(data() + "/hello-4f1a"));
  EXPECT_TRUE(fs::exists(data() + "/dag-runs"));
  EXPECT_FALSE(HasLegacyHistory(PosixFileSystem(), data()));
}

}  // namespace
}  // namespace dagu
