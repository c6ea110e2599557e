#include "ticker/slot_id.h"

#include <gtest/gtest.h>

#include <regex>

#include "core/sha256.h"
#include "core/time_format.h"

namespace dagu {
namespace {

WallTime T(const char* rfc3339) {
  WallTime t;
  bool set = false;
  EXPECT_TRUE(ParseRFC3339(rfc3339, &t, &set).ok());
  return t;
}

// The worked examples of docs/scheduling.md section 1.
TEST(SlotIdTest, UpstreamCatchupIdsMatchTheWorkedExample) {
  WallTime slot = T("2026-03-12T14:00:00Z");
  EXPECT_EQ(CatchupRunId("etl-pipeline", slot), "catchup-b763ab2e276d-20260312T140000");
  EXPECT_EQ(LegacyCatchupRunId("etl-pipeline", slot), "catchup-etl-pipeline-b763ab2e-20260312T140000");
}

TEST(SlotIdTest, SlotIsUtcWhateverTheOffsetOfTheInput) {
  EXPECT_EQ(CatchupRunId("etl-pipeline", T("2026-03-12T23:00:00+09:00")), "catchup-b763ab2e276d-20260312T140000");
}

TEST(SlotIdTest, LegacyIdReplacesDotsAndTruncatesTo31) {
  WallTime slot = T("2026-03-12T14:00:00Z");
  EXPECT_EQ(LegacyCatchupRunId("my.dag", slot),
            "catchup-my_dag-" + Sha256Hex("my.dag").substr(0, 8) + "-20260312T140000");
  std::string long_name = "a.very-long-dag-name-that-goes-past-31";  // 38 chars; the cut leaves a trailing '-'
  EXPECT_EQ(LegacyCatchupRunId(long_name, slot),
            "catchup-a_very-long-dag-name-that-goes--" + Sha256Hex(long_name).substr(0, 8) + "-20260312T140000");
}

TEST(SlotIdTest, ScheduledIdHashesDataDirNewlineAndName) {
  WallTime slot = T("2026-12-02T16:30:00Z");
  // sha256("/var/lib/dagu/data\netl-pipeline") = a4ccba5a907d...
  EXPECT_EQ(ScheduledRunId("/var/lib/dagu/data", "etl-pipeline", slot), "sched-a4ccba5a907d-20261202T163000");
}

TEST(SlotIdTest, DataDirIsNormalisedBeforeHashing) {
  WallTime slot = T("2026-12-02T16:30:00Z");
  std::string want = ScheduledRunId("/var/lib/dagu/data", "etl-pipeline", slot);
  EXPECT_EQ(ScheduledRunId("/var/lib/dagu/data/", "etl-pipeline", slot), want);
  EXPECT_EQ(ScheduledRunId("/var/lib//dagu/./x/../data", "etl-pipeline", slot), want);
  EXPECT_EQ(NormaliseDataDir("/var/lib//dagu/./x/../data/"), "/var/lib/dagu/data");
  EXPECT_EQ(NormaliseDataDir("/"), "/");
  std::string rel = NormaliseDataDir("some/rel/dir");
  EXPECT_EQ(rel.front(), '/');
  EXPECT_NE(rel.find("/some/rel/dir"), std::string::npos);
}

TEST(SlotIdTest, DifferentInstallationsAndDagsNeverShareAnId) {
  WallTime slot = T("2026-12-02T16:30:00Z");
  EXPECT_NE(ScheduledRunId("/srv/a/data", "etl", slot), ScheduledRunId("/srv/b/data", "etl", slot));
  EXPECT_NE(ScheduledRunId("/srv/a/data", "etl", slot), ScheduledRunId("/srv/a/data", "etl2", slot));
  EXPECT_NE(ScheduledRunId("/srv/a/data", "etl", slot),
            ScheduledRunId("/srv/a/data", "etl", T("2026-12-02T16:31:00Z")));
}

TEST(SlotIdTest, IdsAreValidDaguRunIds) {
  std::regex valid("^[-a-zA-Z0-9_]{1,64}$");
  WallTime slot = T("2026-12-02T16:30:00Z");
  std::string name = "a.b.c-0123456789012345678901234567890123";  // 40 chars, the longest name
  for (const std::string& id : SlotRunIds("/data", name, slot)) {
    EXPECT_TRUE(std::regex_match(id, valid)) << id;
  }
  std::vector<std::string> ids = SlotRunIds("/data", "etl-pipeline", T("2026-03-12T14:00:00Z"));
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids[0].rfind("sched-", 0), 0u);
  EXPECT_EQ(ids[1], "catchup-b763ab2e276d-20260312T140000");
  EXPECT_EQ(ids[2], "catchup-etl-pipeline-b763ab2e-20260312T140000");
}

}  // namespace
}  // namespace dagu
