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

Dag Hourly(bool skip_if_successful = false, const char* cron = "0 * * * *") {
  Dag d;
  d.name = "hourly";
  CronSchedule s;
  const date::time_zone* utc = nullptr;
  EXPECT_TRUE(LocateZone("UTC", &utc).ok());
  EXPECT_TRUE(CronSchedule::Parse(cron, utc, &s).ok());
  d.schedules.start.push_back(s);
  d.skip_if_successful = skip_if_successful;
  return d;
}

// When the rules below are applied: late enough that no run in these tests is
// stamped ahead of the scheduler's clock (the back-to-back ticks after a
// pause decide 14:00 at 15:00); the skew rule has its own test.
const WallTime kDecidedAt = T("2026-03-12T15:00:05Z");

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
  EXPECT_EQ(CheckStartRules(Hourly(), T("2026-03-12T14:00:00Z"), std::nullopt, kDecidedAt), StartRule::kStart);
}

TEST(StartRulesTest, TheSlotsOwnRunMeansAlreadyRan) {
  Dag d = Hourly();
  WallTime slot = T("2026-03-12T14:00:00Z");
  EXPECT_EQ(CheckStartRules(d, slot, MakeRun(RunStatus::kFailed, slot, std::nullopt), kDecidedAt), StartRule::kAlreadyRan);
  // A later slot's run also counts (the slot is older than what already ran).
  EXPECT_EQ(CheckStartRules(d, slot, MakeRun(RunStatus::kSucceeded, T("2026-03-12T15:00:00Z"), std::nullopt), kDecidedAt),
            StartRule::kAlreadyRan);
  // Dagu 1.30.2 runs have no scheduleTime: startedAt in the slot's minute counts.
  EXPECT_EQ(CheckStartRules(d, slot, MakeRun(RunStatus::kSucceeded, std::nullopt, T("2026-03-12T14:00:01Z")), kDecidedAt),
            StartRule::kAlreadyRan);
  // The previous slot's run does not.
  EXPECT_EQ(CheckStartRules(d, slot, MakeRun(RunStatus::kSucceeded, T("2026-03-12T13:00:00Z"), std::nullopt), kDecidedAt),
            StartRule::kStart);
}

TEST(StartRulesTest, SkipIfSuccessfulSkipsAfterAManualSuccessSinceThePreviousSlot) {
  WallTime slot = T("2026-03-12T14:00:00Z");
  RunSummary manual = MakeRun(RunStatus::kSucceeded, std::nullopt, T("2026-03-12T13:30:00Z"));
  EXPECT_EQ(CheckStartRules(Hourly(true), slot, manual, kDecidedAt), StartRule::kRecentSuccess);
  EXPECT_EQ(CheckStartRules(Hourly(false), slot, manual, kDecidedAt), StartRule::kStart);
  // Failed, partially succeeded, or before the previous slot: run.
  EXPECT_EQ(CheckStartRules(Hourly(true), slot, MakeRun(RunStatus::kFailed, std::nullopt, T("2026-03-12T13:30:00Z")), kDecidedAt),
            StartRule::kStart);
  EXPECT_EQ(CheckStartRules(Hourly(true), slot,
                            MakeRun(RunStatus::kPartiallySucceeded, std::nullopt, T("2026-03-12T13:30:00Z")), kDecidedAt),
            StartRule::kStart);
  EXPECT_EQ(
      CheckStartRules(Hourly(true), slot, MakeRun(RunStatus::kSucceeded, std::nullopt, T("2026-03-12T12:59:00Z")), kDecidedAt),
      StartRule::kStart);
  // The previous slot's own successful run does not suppress this slot.
  EXPECT_EQ(CheckStartRules(Hourly(true), slot,
                            MakeRun(RunStatus::kSucceeded, T("2026-03-12T13:00:00Z"), T("2026-03-12T13:00:02Z")), kDecidedAt),
            StartRule::kStart);
}

// Issue 27 item 6: a run stamped more than kFutureRunTolerance ahead of the
// deciding clock is not the slot's run (it was written by a clock ahead).
TEST(StartRulesTest, ARunStampedAheadOfTheClockIsNotTheSlotsRun) {
  Dag d = Hourly(true);
  WallTime slot = T("2026-03-12T14:00:00Z");
  WallTime now = T("2026-03-12T14:00:00.2Z");
  // A manual run on a host 10 minutes fast, and a fast predecessor's slot run.
  RunSummary manual = MakeRun(RunStatus::kSucceeded, std::nullopt, T("2026-03-12T14:09:58Z"));
  RunSummary fast_slot = MakeRun(RunStatus::kSucceeded, T("2026-03-12T15:00:00Z"), T("2026-03-12T15:00:00.4Z"));
  Dag every_minute = Hourly(false, "* * * * *");
  EXPECT_TRUE(StampedAhead(manual, now));
  EXPECT_EQ(CheckStartRules(every_minute, slot, manual, now), StartRule::kStart);
  EXPECT_EQ(CheckStartRules(every_minute, slot, manual, T("2026-03-12T14:09:00Z")), StartRule::kAlreadyRan);
  EXPECT_EQ(CheckStartRules(d, slot, fast_slot, now), StartRule::kStart);
  // Without the rule (decided when real time caught up) both count, as in Dagu.
  EXPECT_EQ(CheckStartRules(Hourly(), slot, fast_slot, T("2026-03-12T15:00:01Z")), StartRule::kAlreadyRan);
  // Within the tolerance a peer's run of this minute still counts: a Dagu 1.30.2
  // host 40 s ahead started the 14:00 slot and stamped 14:00:00.5 by its clock.
  RunSummary peer = MakeRun(RunStatus::kSucceeded, std::nullopt, T("2026-03-12T14:00:40.5Z"));
  EXPECT_FALSE(StampedAhead(peer, now));
  EXPECT_EQ(CheckStartRules(Hourly(), slot, peer, now), StartRule::kAlreadyRan);
  // The bound is exclusive of its edge: exactly now + tolerance still counts.
  EXPECT_FALSE(StampedAhead(MakeRun(RunStatus::kSucceeded, std::nullopt, now + kFutureRunTolerance), now));
  EXPECT_TRUE(StampedAhead(
      MakeRun(RunStatus::kSucceeded, std::nullopt, now + kFutureRunTolerance + std::chrono::milliseconds(1)), now));
  // A run without times is never ahead.
  EXPECT_FALSE(StampedAhead(MakeRun(RunStatus::kSucceeded, std::nullopt, std::nullopt), now));
}

}  // namespace
}  // namespace dagu
