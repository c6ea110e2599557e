#include <gtest/gtest.h>

#include "core/time_format.h"
#include "cron/time_zone.h"
#include "ticker/start_rules.h"

namespace dagu {
namespace {

WallTime T(const char* rfc3339) {
  WallTime t;
  bool set = false;
  EXPECT_TRUE(ParseRFC3339(rfc3339, &t, &set).ok()) << rfc3339;
  return t;
}

Dag Hourly(bool skip_if_successful = false) {
  Dag d;
  d.name = "hourly";
  CronSchedule s;
  const date::time_zone* utc = nullptr;
  EXPECT_TRUE(LocateZone("UTC", &utc).ok());
  EXPECT_TRUE(CronSchedule::Parse("0 * * * *", utc, &s).ok());
  d.schedules.start.push_back(s);
  d.skip_if_successful = skip_if_successful;
  return d;
}

RunSummary MakeRun(RunStatus status, std::optional<WallTime> schedule_time, std::optional<WallTime> started_at,
                   std::optional<WallTime> queued_at = std::nullopt) {
  RunSummary r;
  r.run_id = "r1";
  r.status = status;
  r.schedule_time = schedule_time;
  r.started_at = started_at;
  r.queued_at = queued_at;
  return r;
}

TEST(StartRulesTest, ReferenceTimePrefersScheduleTimeElseEarliestOfStartAndQueue) {
  EXPECT_EQ(ReferenceTime(MakeRun(RunStatus::kSucceeded, T("2026-03-12T14:00:00Z"), T("2026-03-12T14:00:30Z"))),
            T("2026-03-12T14:00:00Z"));
  EXPECT_EQ(
      ReferenceTime(MakeRun(RunStatus::kSucceeded, std::nullopt, T("2026-03-12T14:07:30Z"), T("2026-03-12T14:05:59Z"))),
      T("2026-03-12T14:05:00Z"));
  EXPECT_EQ(ReferenceTime(MakeRun(RunStatus::kSucceeded, std::nullopt, std::nullopt)), std::nullopt);
}

TEST(StartRulesTest, NoLatestRunStarts) {
  EXPECT_EQ(CheckStartRules(Hourly(), T("2026-03-12T14:00:00Z"), std::nullopt), StartRule::kStart);
}

TEST(StartRulesTest, TheSlotsOwnRunMeansAlreadyRan) {
  Dag d = Hourly();
  WallTime slot = T("2026-03-12T14:00:00Z");
  EXPECT_EQ(CheckStartRules(d, slot, MakeRun(RunStatus::kFailed, slot, std::nullopt)), StartRule::kAlreadyRan);
  // A later slot's run also counts (the slot is older than what already ran).
  EXPECT_EQ(CheckStartRules(d, slot, MakeRun(RunStatus::kSucceeded, T("2026-03-12T15:00:00Z"), std::nullopt)),
            StartRule::kAlreadyRan);
  // Dagu 1.30.2 runs have no scheduleTime: startedAt in the slot's minute counts.
  EXPECT_EQ(CheckStartRules(d, slot, MakeRun(RunStatus::kSucceeded, std::nullopt, T("2026-03-12T14:00:01Z"))),
            StartRule::kAlreadyRan);
  // The previous slot's run does not.
  EXPECT_EQ(CheckStartRules(d, slot, MakeRun(RunStatus::kSucceeded, T("2026-03-12T13:00:00Z"), std::nullopt)),
            StartRule::kStart);
}

TEST(StartRulesTest, SkipIfSuccessfulSkipsAfterAManualSuccessSinceThePreviousSlot) {
  WallTime slot = T("2026-03-12T14:00:00Z");
  RunSummary manual = MakeRun(RunStatus::kSucceeded, std::nullopt, T("2026-03-12T13:30:00Z"));
  EXPECT_EQ(CheckStartRules(Hourly(true), slot, manual), StartRule::kRecentSuccess);
  EXPECT_EQ(CheckStartRules(Hourly(false), slot, manual), StartRule::kStart);
  // Failed, partially succeeded, or before the previous slot: run.
  EXPECT_EQ(CheckStartRules(Hourly(true), slot, MakeRun(RunStatus::kFailed, std::nullopt, T("2026-03-12T13:30:00Z"))),
            StartRule::kStart);
  EXPECT_EQ(CheckStartRules(Hourly(true), slot,
                            MakeRun(RunStatus::kPartiallySucceeded, std::nullopt, T("2026-03-12T13:30:00Z"))),
            StartRule::kStart);
  EXPECT_EQ(
      CheckStartRules(Hourly(true), slot, MakeRun(RunStatus::kSucceeded, std::nullopt, T("2026-03-12T12:59:00Z"))),
      StartRule::kStart);
  // The previous slot's own successful run does not suppress this slot.
  EXPECT_EQ(CheckStartRules(Hourly(true), slot,
                            MakeRun(RunStatus::kSucceeded, T("2026-03-12T13:00:00Z"), T("2026-03-12T13:00:02Z"))),
            StartRule::kStart);
}

}  // namespace
}  // namespace dagu
