#include "web/dag_list_order.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/time_format.h"

namespace dagu::web {
namespace {

using ::testing::ElementsAre;

// A listing entry: file `file`, DAG named `dag_name`, started by `crons`.
std::shared_ptr<const DagFile> File(const std::string& file, const std::string& dag_name,
                                    const std::vector<std::string>& crons = {}) {
  auto f = std::make_shared<DagFile>();
  f->file_name = file;
  Dag d;
  d.name = dag_name;
  for (const std::string& expr : crons) {
    CronSchedule c;
    EXPECT_TRUE(CronSchedule::Parse(expr, nullptr, &c).ok()) << expr;
    d.schedules.start.push_back(c);
  }
  f->dag = std::move(d);
  return f;
}

std::shared_ptr<const DagListing> Listing(std::vector<std::shared_ptr<const DagFile>> files) {
  auto l = std::make_shared<DagListing>();
  l->files = std::move(files);
  return l;
}

// The file names in the order.
std::vector<std::string> Names(const DagListing& l, const DagListOrders::Order& order) {
  std::vector<std::string> out;
  for (uint32_t i : order) out.push_back(l.files[i]->file_name);
  return out;
}

const WallTime kTen = FromUnixSeconds(1796169600 + 10 * 3600);  // a day's 10:00:00 UTC

TEST(DagListOrdersTest, ByLowerCasedNameEqualNamesKeepingTheFileOrderBothWays) {
  auto l = Listing({File("a", "beta"), File("b", "Alpha"), File("c", "alpha"), File("d", "Gamma")});
  DagListOrders orders;
  EXPECT_THAT(Names(*l, *orders.Get(l, DagListSort::kName, false, kTen)), ElementsAre("b", "c", "a", "d"));
  EXPECT_THAT(Names(*l, *orders.Get(l, DagListSort::kName, true, kTen)), ElementsAre("d", "a", "b", "c"));
}

TEST(DagListOrdersTest, AnOrderIsKeptForTheSameListingOnly) {
  auto l = Listing({File("a", "b"), File("b", "a")});
  DagListOrders orders;
  auto first = orders.Get(l, DagListSort::kName, false, kTen);
  EXPECT_EQ(orders.Get(l, DagListSort::kName, false, kTen), first);
  EXPECT_EQ(orders.counters().computed, 1u);
  EXPECT_EQ(orders.counters().hits, 1u);
  // Another listing (the folder changed) is sorted again, even if equal.
  auto changed = Listing({File("a", "b"), File("b", "a"), File("c", "0")});
  EXPECT_THAT(Names(*changed, *orders.Get(changed, DagListSort::kName, false, kTen)), ElementsAre("c", "b", "a"));
  EXPECT_EQ(orders.counters().computed, 2u);
}

TEST(DagListOrdersTest, ByNextRunEarliestFirstThenTheUnscheduledByName) {
  auto l = Listing({File("hourly", "hourly", {"CRON_TZ=UTC 0 * * * *"}), File("none-b", "b"),
                    File("half", "half", {"CRON_TZ=UTC 30 * * * *", "CRON_TZ=UTC 45 * * * *"}), File("none-a", "a")});
  DagListOrders orders;
  EXPECT_THAT(Names(*l, *orders.Get(l, DagListSort::kNextRun, false, kTen)),
              ElementsAre("half", "hourly", "none-a", "none-b"));
  // Descending: the latest first; the unscheduled still last, by name descending.
  EXPECT_THAT(Names(*l, *orders.Get(l, DagListSort::kNextRun, true, kTen)),
              ElementsAre("hourly", "half", "none-b", "none-a"));
}

TEST(DagListOrdersTest, ANextRunOrderHoldsUntilTheEarliestNextRunOnly) {
  auto l = Listing({File("hourly", "hourly", {"CRON_TZ=UTC 0 * * * *"}), File("half", "half", {"CRON_TZ=UTC 30 * * * *"})});
  DagListOrders orders;
  EXPECT_THAT(Names(*l, *orders.Get(l, DagListSort::kNextRun, false, kTen)), ElementsAre("half", "hourly"));
  // Up to 10:29:59 no DAG's next run can change: kept.
  EXPECT_THAT(Names(*l, *orders.Get(l, DagListSort::kNextRun, false, kTen + std::chrono::seconds(1799))),
              ElementsAre("half", "hourly"));
  EXPECT_EQ(orders.counters().hits, 1u);
  // At 10:30 half's next run is 11:30, after hourly's 11:00.
  EXPECT_THAT(Names(*l, *orders.Get(l, DagListSort::kNextRun, false, kTen + std::chrono::minutes(30))),
              ElementsAre("hourly", "half"));
  EXPECT_EQ(orders.counters().computed, 2u);
  // A clock set back is not inside the window either.
  EXPECT_THAT(Names(*l, *orders.Get(l, DagListSort::kNextRun, false, kTen)), ElementsAre("half", "hourly"));
  EXPECT_EQ(orders.counters().computed, 3u);
}

TEST(DagListOrdersTest, DagNextRunIsTheEarliestOfItsSchedules) {
  EXPECT_FALSE(DagNextRun(nullptr, kTen).has_value());
  auto f = File("x", "x", {"CRON_TZ=UTC 45 * * * *", "CRON_TZ=UTC 15 * * * *"});
  EXPECT_EQ(DagNextRun(f->AnyDag(), kTen), kTen + std::chrono::minutes(15));
}

}  // namespace
}  // namespace dagu::web
