#include "replayer/replay_window.h"

#include <gtest/gtest.h>

#include "core/time_format.h"
#include "cron/time_zone.h"
#include "support/test_dags.h"

namespace dagu {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using Kind = Activation::Kind;
using testing::Fmt;
using testing::T;

Dag MakeDag(const char* name, const char* cron, std::chrono::nanoseconds catchup = {}) {
  Dag d;
  d.name = name;
  const date::time_zone* utc = nullptr;
  EXPECT_TRUE(LocateZone("UTC", &utc).ok());
  CronSchedule s;
  EXPECT_TRUE(CronSchedule::Parse(cron, utc, &s).ok());
  d.schedules.start.push_back(s);
  d.catchup_window = catchup;
  return d;
}

ReplayContext Ctx(Kind kind, const char* at, std::optional<const char*> last_tick,
                  std::chrono::nanoseconds failover = minutes(2)) {
  ReplayContext c;
  c.kind = kind;
  c.at = T(at);
  c.failover_recovery_window = failover;
  if (last_tick) {
    TickRecord r;
    r.last_tick = T(*last_tick);
    c.previous = r;
  }
  return c;
}

TEST(ReplayWindowTest, StaleTakeoverReplaysAfterTheLastTickWithinTheFailoverWindow) {
  Dag every_minute = MakeDag("m", "* * * * *");
  // Died after the 14:00 tick; taken over at 14:03:20: 14:01 and 14:02 were missed; 14:03 is the ticker's.
  EXPECT_EQ(Fmt(SlotsToReplay(
                Ctx(Kind::kStaleTakeover, "2026-03-12T14:03:20Z", "2026-03-12T14:00:00Z", minutes(5)), every_minute)),
            (std::vector<std::string>{"2026-03-12T14:01:00Z", "2026-03-12T14:02:00Z"}));
  // The window is measured from the takeover: 2m back from 14:03:20 leaves 14:02 only.
  EXPECT_EQ(Fmt(SlotsToReplay(Ctx(Kind::kStaleTakeover, "2026-03-12T14:03:20Z", "2026-03-12T14:00:00Z"), every_minute)),
            (std::vector<std::string>{"2026-03-12T14:02:00Z"}));
  // A long outage: no further back than the window (2m -> after 14:08:20).
  EXPECT_EQ(Fmt(SlotsToReplay(Ctx(Kind::kStaleTakeover, "2026-03-12T14:10:20Z", "2026-03-12T14:00:00Z"), every_minute)),
            (std::vector<std::string>{"2026-03-12T14:09:00Z"}));
}

TEST(ReplayWindowTest, ZeroFailoverWindowDisablesTheTakeoverReplay) {
  Dag every_minute = MakeDag("m", "* * * * *");
  ReplayContext c = Ctx(Kind::kStaleTakeover, "2026-03-12T14:03:20Z", "2026-03-12T14:00:00Z", minutes(0));
  TickRecord r = *c.previous;
  r.planned.push_back({"m", "start", T("2026-03-12T14:00:00Z"), "sched-x", false});
  c.previous = r;
  EXPECT_TRUE(SlotsToReplay(c, every_minute).empty());
}

TEST(ReplayWindowTest, ReleasedOrFreshLockReplaysOnlyTheCatchupWindow) {
  Dag plain = MakeDag("p", "*/10 * * * *");
  Dag windowed = MakeDag("w", "*/10 * * * *", minutes(26));  // after 13:39
  for (Kind k : {Kind::kReleasedLock, Kind::kFreshLock}) {
    EXPECT_TRUE(SlotsToReplay(Ctx(k, "2026-03-12T14:05:00Z", "2026-03-12T13:00:00Z"), plain).empty());
    EXPECT_EQ(Fmt(SlotsToReplay(Ctx(k, "2026-03-12T14:05:00Z", "2026-03-12T13:00:00Z"), windowed)),
              (std::vector<std::string>{"2026-03-12T13:40:00Z", "2026-03-12T13:50:00Z", "2026-03-12T14:00:00Z"}));
    // The last recorded tick bounds it too.
    EXPECT_EQ(Fmt(SlotsToReplay(Ctx(k, "2026-03-12T14:05:00Z", "2026-03-12T13:50:00Z"), windowed)),
              (std::vector<std::string>{"2026-03-12T14:00:00Z"}));
    // No ledger: the window alone.
    EXPECT_EQ(SlotsToReplay(Ctx(k, "2026-03-12T14:05:00Z", std::nullopt), windowed).size(), 3u);
  }
}

TEST(ReplayWindowTest, StaleTakeoverUsesTheWiderOfBothWindows) {
  Dag windowed = MakeDag("w", "0 * * * *", hours(3));
  EXPECT_EQ(Fmt(SlotsToReplay(Ctx(Kind::kStaleTakeover, "2026-03-12T14:30:00Z", "2026-03-12T11:00:00Z"), windowed)),
            (std::vector<std::string>{"2026-03-12T12:00:00Z", "2026-03-12T13:00:00Z", "2026-03-12T14:00:00Z"}));
}

TEST(ReplayWindowTest, CurrentMinuteIsNeverReplayed) {
  Dag every_minute = MakeDag("m", "* * * * *");
  ReplayContext c = Ctx(Kind::kStaleTakeover, "2026-03-12T14:00:40Z", "2026-03-12T13:59:00Z");
  TickRecord r = *c.previous;
  r.planned.push_back({"m", "start", T("2026-03-12T14:00:00Z"), "sched-x", false});  // planned this minute
  c.previous = r;
  EXPECT_TRUE(SlotsToReplay(c, every_minute).empty());
}

TEST(ReplayWindowTest, PlannedButNotStartedSlotsOfTheLastTickAreReplayed) {
  Dag hourly = MakeDag("h", "0 * * * *");
  ReplayContext c = Ctx(Kind::kStaleTakeover, "2026-03-12T14:01:10Z", "2026-03-12T14:00:00Z");
  TickRecord r = *c.previous;
  r.planned.push_back({"h", "start", T("2026-03-12T14:00:00Z"), "sched-h", false});
  r.planned.push_back({"other", "start", T("2026-03-12T14:00:00Z"), "sched-o", false});
  r.planned.push_back({"h", "stop", T("2026-03-12T14:00:00Z"), "", false});
  c.previous = r;
  EXPECT_EQ(Fmt(SlotsToReplay(c, hourly)), (std::vector<std::string>{"2026-03-12T14:00:00Z"}));

  r.planned[0].started = true;  // it was started: nothing to replay
  c.previous = r;
  EXPECT_TRUE(SlotsToReplay(c, hourly).empty());

  r.planned[0].started = false;  // planned, but too long ago for the window
  c.previous = r;
  c.at = T("2026-03-12T14:05:00Z");
  EXPECT_TRUE(SlotsToReplay(c, hourly).empty());

  c.kind = Kind::kReleasedLock;  // a clean handover replays no planned slots
  c.at = T("2026-03-12T14:01:10Z");
  EXPECT_TRUE(SlotsToReplay(c, hourly).empty());
}

// Issue 27 item 3: the previous holder's catch-up backlog is replayed although
// its last tick is past those slots, on any kind of activation, unless the
// fleet was without a scheduler for longer than the window.
TEST(ReplayWindowTest, ThePreviousHoldersBacklogIsReplayedWithinTheWindow) {
  Dag m = MakeDag("m", "* * * * *");
  ReplayContext c = Ctx(Kind::kStaleTakeover, "2026-03-12T14:03:40Z", "2026-03-12T14:03:00Z");
  TickRecord r = *c.previous;
  r.backlog = {{"m", T("2026-03-12T14:01:00Z")}, {"m", T("2026-03-12T14:02:00Z")}, {"x", T("2026-03-12T14:02:00Z")}};
  c.previous = r;
  const std::vector<std::string> both = {"2026-03-12T14:01:00Z", "2026-03-12T14:02:00Z"};
  EXPECT_TRUE(CarriesBacklog(c, m));
  EXPECT_EQ(Fmt(SlotsToReplay(c, m)), both);
  // Not measured against the window again (2m back from 14:04:40 is 14:02:40):
  // they passed it when they entered the backlog; the previous holder ticked recently.
  c.at = T("2026-03-12T14:04:40Z");
  c.previous->last_tick = T("2026-03-12T14:04:00Z");
  EXPECT_EQ(Fmt(SlotsToReplay(c, m)), both);
  // A clean handover during catch-up carries it too.
  c.kind = Kind::kReleasedLock;
  EXPECT_EQ(Fmt(SlotsToReplay(c, m)), both);
  // The fleet was without a scheduler for longer than the window: dropped.
  c.kind = Kind::kStaleTakeover;
  c.at = T("2026-03-12T14:06:01Z");
  EXPECT_FALSE(CarriesBacklog(c, m));
  EXPECT_EQ(Fmt(SlotsToReplay(c, m)), (std::vector<std::string>{"2026-03-12T14:05:00Z"}));
  // The DAG's own catchup_window counts as a window too.
  m.catchup_window = minutes(30);
  EXPECT_TRUE(CarriesBacklog(c, m));
  // No window at all: nothing is carried.
  m.catchup_window = {};
  c.failover_recovery_window = {};
  c.at = T("2026-03-12T14:04:40Z");
  EXPECT_TRUE(SlotsToReplay(c, m).empty());
}

// Issue 27 item 10: slots from before the DAG is known to have existed are not
// replayed from the window; the last tick's unstarted slots and a carried
// backlog are (a scheduler saw the DAG then).
TEST(ReplayWindowTest, SlotsBeforeTheDagExistedAreNotReplayedFromTheWindow) {
  Dag m = MakeDag("m", "* * * * *");
  ReplayContext c = Ctx(Kind::kStaleTakeover, "2026-03-12T14:03:20Z", std::nullopt, minutes(5));  // no ledger
  EXPECT_EQ(SlotsToReplay(c, m).size(), 4u);  // 13:59 .. 14:02
  EXPECT_EQ(Fmt(SlotsToReplay(c, m, T("2026-03-12T14:01:30Z"))), (std::vector<std::string>{"2026-03-12T14:02:00Z"}));
  EXPECT_EQ(Fmt(SlotsToReplay(c, m, T("2026-03-12T14:01:00Z"))),
            (std::vector<std::string>{"2026-03-12T14:01:00Z", "2026-03-12T14:02:00Z"}));
  EXPECT_TRUE(SlotsToReplay(c, m, T("2026-03-12T14:03:10Z")).empty());
  EXPECT_EQ(SlotsToReplay(c, m, T("2026-03-12T13:00:00Z")).size(), 4u);

  TickRecord r;
  r.last_tick = T("2026-03-12T14:00:00Z");
  r.planned.push_back({"m", "start", T("2026-03-12T14:00:00Z"), "sched-m", false});
  r.backlog = {{"m", T("2026-03-12T13:59:00Z")}};
  c.previous = r;
  EXPECT_EQ(Fmt(SlotsToReplay(c, m, T("2026-03-12T14:03:10Z"))),
            (std::vector<std::string>{"2026-03-12T13:59:00Z", "2026-03-12T14:00:00Z"}));
}

TEST(ReplayWindowTest, NoScheduleNoReplay) {
  Dag none;
  none.name = "none";
  none.catchup_window = hours(1);
  EXPECT_TRUE(SlotsToReplay(Ctx(Kind::kStaleTakeover, "2026-03-12T14:00:00Z", "2026-03-12T13:00:00Z"), none).empty());
}

}  // namespace
}  // namespace dagu
