#include "store/tick_ledger.h"

#include <gtest/gtest.h>

#include "core/time_format.h"
#include "support/faulty_file_system.h"
#include "support/temp_dir.h"

namespace dagu {
namespace {

using testing::FaultyFileSystem;
using testing::TempDir;

WallTime T(const char* rfc3339) {
  WallTime t;
  bool set = false;
  EXPECT_TRUE(ParseRFC3339(rfc3339, &t, &set).ok());
  return t;
}

TickRecord Sample() {
  TickRecord r;
  r.instance = "host-a-42-1796220000";
  r.last_tick = T("2026-03-12T14:00:00Z");
  r.planned.push_back({"etl", "start", T("2026-03-12T14:00:00Z"), "sched-0123456789ab-20260312T140000", false});
  r.planned.push_back({"report", "restart", T("2026-03-12T14:00:00Z"), "sched-ba9876543210-20260312T140000", true});
  return r;
}

TEST(TickLedgerTest, MissingFileIsNotFoundButOk) {
  TempDir dir;
  TickLedger ledger(PosixFileSystem(), dir.Sub("scheduler"));
  TickRecord r;
  bool found = true;
  ASSERT_TRUE(ledger.Read(&r, &found).ok());
  EXPECT_FALSE(found);
}

TEST(TickLedgerTest, WriteCreatesDirectoryAndRoundTrips) {
  TempDir dir;
  TickLedger ledger(PosixFileSystem(), dir.Sub("data/scheduler"));
  ASSERT_TRUE(ledger.Write(Sample()).ok());
  EXPECT_EQ(ledger.path(), dir.Sub("data/scheduler/tick_ledger.json"));

  TickRecord back;
  bool found = false;
  ASSERT_TRUE(ledger.Read(&back, &found).ok());
  ASSERT_TRUE(found);
  TickRecord want = Sample();
  EXPECT_EQ(back.instance, want.instance);
  EXPECT_EQ(back.last_tick, want.last_tick);
  EXPECT_EQ(back.planned, want.planned);
}

TEST(TickLedgerTest, RewriteReplacesAndLeavesNoTempFiles) {
  TempDir dir;
  TickLedger ledger(PosixFileSystem(), dir.Sub("scheduler"));
  ASSERT_TRUE(ledger.Write(Sample()).ok());
  TickRecord next;
  next.instance = "host-b-7-1796220100";
  next.last_tick = T("2026-03-12T14:01:00Z");
  ASSERT_TRUE(ledger.Write(next).ok());

  TickRecord back;
  bool found = false;
  ASSERT_TRUE(ledger.Read(&back, &found).ok());
  EXPECT_EQ(back.last_tick, T("2026-03-12T14:01:00Z"));
  EXPECT_TRUE(back.planned.empty());
  std::vector<std::string> names;
  ASSERT_TRUE(PosixFileSystem()->ListDir(dir.Sub("scheduler"), &names).ok());
  EXPECT_EQ(names, std::vector<std::string>{"tick_ledger.json"});
}

TEST(TickLedgerTest, EncodedFormIsStable) {
  std::string text = TickLedger::Encode(Sample());
  EXPECT_NE(text.find("\"lastTick\": \"2026-03-12T14:00:00Z\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"runId\": \"sched-0123456789ab-20260312T140000\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"version\": 1"), std::string::npos) << text;
}

TEST(TickLedgerTest, TheCatchupBacklogRoundTripsAndIsLeftOutWhenEmpty) {
  TempDir dir;
  TickLedger ledger(PosixFileSystem(), dir.Sub("scheduler"));
  TickRecord r = Sample();
  EXPECT_EQ(TickLedger::Encode(r).find("backlog"), std::string::npos);  // the common case reads as before
  r.backlog = {{"etl", T("2026-03-12T13:58:00Z")}, {"etl", T("2026-03-12T13:59:00Z")}, {"b", T("2026-03-12T13:30:00Z")}};
  ASSERT_TRUE(ledger.Write(r).ok());
  TickRecord back;
  bool found = false;
  ASSERT_TRUE(ledger.Read(&back, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(back.backlog, r.backlog);
  EXPECT_EQ(back.planned, r.planned);
}

TEST(TickLedgerTest, CorruptFilesAreCorruptionNamingThePath) {
  TempDir dir;
  TickLedger ledger(PosixFileSystem(), dir.path());
  const char* bad[] = {
      "not json",
      "[1,2]",
      R"({"version":2,"lastTick":"2026-03-12T14:00:00Z"})",
      R"({"version":1})",
      R"({"version":1,"lastTick":"yesterday"})",
      R"({"version":1,"lastTick":"2026-03-12T14:00:00Z","planned":{}})",
      R"({"version":1,"lastTick":"2026-03-12T14:00:00Z","planned":[{"kind":"start","slot":"2026-03-12T14:00:00Z"}]})",
      R"({"version":1,"lastTick":"2026-03-12T14:00:00Z","planned":[{"dag":"a","kind":"start"}]})",
      R"({"version":1,"lastTick":"2026-03-12T14:00:00Z","backlog":{}})",
      R"({"version":1,"lastTick":"2026-03-12T14:00:00Z","backlog":[{"slot":"2026-03-12T13:00:00Z"}]})",
      R"({"version":1,"lastTick":"2026-03-12T14:00:00Z","backlog":[{"dag":"a","slot":"soon"}]})",
  };
  for (const char* text : bad) {
    dir.WriteFile("tick_ledger.json", text);
    TickRecord r;
    bool found = false;
    Status s = ledger.Read(&r, &found);
    EXPECT_TRUE(s.IsCorruption()) << text << " -> " << s.ToString();
    EXPECT_NE(s.message().find(ledger.path()), std::string::npos) << s.ToString();
    EXPECT_FALSE(found);
  }
}

TEST(TickLedgerTest, StorageErrorsArePassedOnWithThePath) {
  TempDir dir;
  FaultyFileSystem fs(PosixFileSystem());
  TickLedger ledger(&fs, dir.path());
  fs.FailWith("WriteFileAtomic", "tick_ledger", Status::NoSpace("ENOSPC"));
  Status w = ledger.Write(Sample());
  EXPECT_EQ(w.code(), Status::Code::kNoSpace);
  EXPECT_NE(w.message().find("tick_ledger.json"), std::string::npos);

  fs.Clear();
  ASSERT_TRUE(ledger.Write(Sample()).ok());
  fs.FailWith("ReadFile", "tick_ledger", Status::IOError("EIO"));
  TickRecord r;
  bool found = true;
  Status s = ledger.Read(&r, &found);
  EXPECT_EQ(s.code(), Status::Code::kIOError);
  EXPECT_FALSE(found);
}

}  // namespace
}  // namespace dagu
