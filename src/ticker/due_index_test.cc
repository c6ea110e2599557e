#include "ticker/due_index.h"

#include <gtest/gtest.h>

#include <random>

#include "support/faulty_file_system.h"
#include "support/test_dags.h"
#include "support/temp_dir.h"
#include "ticker/slots.h"

namespace dagu {
namespace {

using std::chrono::minutes;
using testing::FaultyFileSystem;
using testing::T;
using testing::TempDir;
using testing::TestDags;

bool AnyScheduleDue(const DagHeader& d, WallTime t) {
  return AnyDueAt(d.schedules.start, t) || AnyDueAt(d.schedules.stop, t) || AnyDueAt(d.schedules.restart, t);
}

// What the ticker did before the index: every DAG of the catalog evaluated.
std::vector<std::string> DueByFullScan(const DagCatalog& catalog, WallTime t) {
  std::vector<std::string> out;
  for (const DagPtr& d : catalog.Snapshot()) {
    if (AnyScheduleDue(*d, t)) out.push_back(d->name);
  }
  return out;
}

std::vector<std::string> DueByIndex(DueIndex* index, WallTime t) {
  std::vector<std::string> out;
  for (const DagPtr& d : index->Candidates(t)) {
    if (AnyScheduleDue(*d, t)) out.push_back(d->name);
  }
  return out;
}

class DueIndexTest : public ::testing::Test {
 protected:
  DueIndexTest() : fs_(PosixFileSystem()), dags_(dir_, &fs_) {}

  TempDir dir_;
  FaultyFileSystem fs_;
  TestDags dags_;
};

TEST_F(DueIndexTest, AgreesWithEvaluatingEveryDagThroughStepsJumpsClockStepsBackAndEdits) {
  const std::vector<const char*> pool = {
      "* * * * *",    "*/7 * * * *",  "0 * * * *",     "15,45 * * * *", "30 2 * * *",  "0 0 1 1 *",
      "0 0 30 2 *",   "59 23 * * 0",  "5 4 * * 1-5",   "*/13 3-5 * * *", "0 12 29 2 *",
      "CRON_TZ=Asia/Kolkata 30 5 * * *", "CRON_TZ=America/New_York 30 2 * * *"};
  std::mt19937 rng(85);
  auto pick = [&] { return pool[rng() % pool.size()]; };
  auto add = [&](int i) {
    std::string name = "d" + std::to_string(i);
    if (rng() % 4 == 0) {
      dags_.Add(name, {pick()}, {pick()}, {});
    } else if (rng() % 5 == 0) {
      dags_.Add(name, {}, {}, {pick()});
    } else {
      dags_.Add(name, {pick(), pick()});
    }
    // A different size, so the catalog sees a changed file at once.
    dir_.WriteFile("dags/" + name + ".yaml", name + std::string(rng() % 50 + 1, '#') + "\n");
  };
  for (int i = 0; i < 60; ++i) add(i);
  ASSERT_TRUE(dags_.catalog().Rescan().ok());

  DueIndex index(&dags_.catalog());
  WallTime t = T("2026-03-07T22:00:00Z");  // across the US DST change of 2026-03-08
  size_t due_total = 0, candidates_total = 0;
  for (int step = 0; step < 5000; ++step) {
    unsigned r = rng() % 100;
    if (r < 85) {
      t += minutes(1);
    } else if (r < 92) {
      t += minutes(rng() % 500);  // a skipped stretch (or the same minute again)
    } else if (r < 95) {
      t -= minutes(rng() % 120 + 1);  // the wall clock went back
    } else {
      add(static_cast<int>(rng() % 70));  // an edit, or a new DAG
      ASSERT_TRUE(dags_.catalog().Rescan().ok());
    }
    std::vector<std::string> want = DueByFullScan(dags_.catalog(), t);
    ASSERT_EQ(DueByIndex(&index, t), want) << "at step " << step << ", minute " << t.time_since_epoch().count();
    due_total += want.size();
    candidates_total += index.Candidates(t).size();
  }
  EXPECT_GT(due_total, 1000u);
  // Candidates are the due DAGs (and, for non-minute fire times, a few more).
  EXPECT_EQ(candidates_total, due_total);
}

TEST_F(DueIndexTest, ADagThatIsNotDueIsNotACandidateAndARemovedOneIsForgotten) {
  dags_.Add("yearly", {"0 0 1 1 *"});
  dags_.Add("hourly", {"0 * * * *"});
  ASSERT_TRUE(dags_.catalog().Rescan().ok());
  DueIndex index(&dags_.catalog());
  EXPECT_TRUE(index.Candidates(T("2026-03-12T14:01:00Z")).empty());
  auto at_hour = index.Candidates(T("2026-03-12T15:00:00Z"));
  ASSERT_EQ(at_hour.size(), 1u);
  EXPECT_EQ(at_hour[0]->name, "hourly");
  EXPECT_EQ(index.Candidates(T("2026-03-12T15:00:00Z")).size(), 1u);  // the same minute again

  dags_.Remove("hourly");
  ASSERT_TRUE(dags_.catalog().Rescan().ok());
  EXPECT_TRUE(index.Candidates(T("2026-03-12T16:00:00Z")).empty());
  EXPECT_EQ(index.size(), 1u);
  auto new_year = index.Candidates(T("2027-01-01T00:00:00Z"));
  ASSERT_EQ(new_year.size(), 1u);
  EXPECT_EQ(new_year[0]->name, "yearly");
}

}  // namespace
}  // namespace dagu
