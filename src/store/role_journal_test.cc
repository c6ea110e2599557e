#include "store/role_journal.h"

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace dagu {
namespace {

using testing::TempDir;

RoleChange Takeover(int n) {
  RoleChange c;
  c.time = WallTime(std::chrono::seconds(1796228818 + n));
  c.instance = "host-a-1-1796228800";
  c.host = "host-a";
  c.pid = 1;
  c.from = "standby";
  c.to = "active";
  c.reason = "took over a stale lock";
  c.activation = "stale";
  c.previous_holder = "host-b-2-1796228700";
  c.takeover_seconds = 30.25;
  return c;
}

TEST(RoleJournalTest, AppendsAndReadsBack) {
  TempDir dir;
  RoleJournal journal(PosixFileSystem(), dir.Sub("data/scheduler/role-journal.jsonl"));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(journal.Append(Takeover(i)).ok());
  std::vector<RoleChange> recent;
  ASSERT_TRUE(journal.ReadRecent(3, &recent).ok());
  ASSERT_EQ(recent.size(), 3u);
  EXPECT_EQ(recent[0].time, Takeover(2).time);
  EXPECT_EQ(recent[2].previous_holder, "host-b-2-1796228700");
  ASSERT_TRUE(recent[2].takeover_seconds.has_value());
  EXPECT_DOUBLE_EQ(*recent[2].takeover_seconds, 30.25);
}

TEST(RoleJournalTest, SkipsCorruptLinesAndAMissingFile) {
  TempDir dir;
  RoleJournal journal(PosixFileSystem(), dir.Sub("j.jsonl"));
  std::vector<RoleChange> recent;
  ASSERT_TRUE(journal.ReadRecent(10, &recent).ok());
  EXPECT_TRUE(recent.empty());
  dir.WriteFile("j.jsonl", "garbage\n" + EncodeRoleChange(Takeover(1)) + "{\"time\":\"x\"}\n{\"tru");
  ASSERT_TRUE(journal.ReadRecent(10, &recent).ok());
  ASSERT_EQ(recent.size(), 1u);
  EXPECT_EQ(recent[0].to, "active");
}

TEST(RoleJournalTest, RotatesPastTheLimit) {
  TempDir dir;
  RoleJournal journal(PosixFileSystem(), dir.Sub("j.jsonl"), /*rotate_bytes=*/400);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(journal.Append(Takeover(i)).ok());
  FileInfo info;
  ASSERT_TRUE(PosixFileSystem()->Stat(dir.Sub("j.jsonl.1"), &info).ok());
  ASSERT_TRUE(PosixFileSystem()->Stat(dir.Sub("j.jsonl"), &info).ok());
  EXPECT_LT(info.size, 400u + 300u);
}

}  // namespace
}  // namespace dagu
