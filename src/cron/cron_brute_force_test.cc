// Compares CronSchedule with a brute-force reference over three years of
// minutes in several zones. The reference is deliberately naive and shares
// nothing with the implementation but the parsed field bits: it walks every
// UTC minute, converts it to local wall time with the offset date/tz reports
// for that instant, and checks the five fields with the robfig day rule.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cron/cron_schedule.h"
#include "cron/cron_test_util.h"

namespace dagu {
namespace {

using ::dagu::testing::FormatUtc;
using ::dagu::testing::MustParse;
using ::dagu::testing::Utc;
using ::dagu::testing::Zone;
using std::chrono::minutes;

const WallTime kStart = Utc(2024, 1, 1);  // 2024 is a leap year
const WallTime kEnd = Utc(2027, 1, 1);

// The local wall-clock fields of one UTC minute.
struct LocalFields {
  uint8_t minute, hour, day, month, weekday;
};

// Local fields of every UTC minute in [kStart, kEnd), with plain integer
// seconds in the loop so that it stays quick in Debug builds.
std::vector<LocalFields> LocalFieldsOfEveryMinute(const date::time_zone* zone) {
  using std::chrono::seconds;
  const int64_t start = std::chrono::floor<seconds>(kStart).time_since_epoch().count();
  const int64_t end = std::chrono::floor<seconds>(kEnd).time_since_epoch().count();
  std::vector<LocalFields> out;
  out.reserve(static_cast<size_t>((end - start) / 60));
  date::sys_info info = zone->get_info(date::sys_seconds{seconds{start}});
  int64_t info_end = info.end.time_since_epoch().count();
  // Local seconds of the cached day's midnight; the maximum means none yet.
  int64_t day_start = std::numeric_limits<int64_t>::max();
  LocalFields day_fields{};
  for (int64_t utc = start; utc < end; utc += 60) {
    if (utc >= info_end) {
      info = zone->get_info(date::sys_seconds{seconds{utc}});
      info_end = info.end.time_since_epoch().count();
    }
    int64_t local = utc + info.offset.count();
    if (local < day_start || local >= day_start + 86400) {
      auto day = std::chrono::floor<date::days>(date::local_seconds{seconds{local}});
      date::year_month_day ymd{day};
      day_start = std::chrono::duration_cast<seconds>(day.time_since_epoch()).count();
      day_fields.day = static_cast<uint8_t>(static_cast<unsigned>(ymd.day()));
      day_fields.month = static_cast<uint8_t>(static_cast<unsigned>(ymd.month()));
      day_fields.weekday = static_cast<uint8_t>(date::weekday{day}.c_encoding());
    }
    LocalFields fields = day_fields;
    int64_t minute_of_day = (local - day_start) / 60;
    fields.minute = static_cast<uint8_t>(minute_of_day % 60);
    fields.hour = static_cast<uint8_t>(minute_of_day / 60);
    out.push_back(fields);
  }
  return out;
}

// The field bits as plain masks, so that the scan stays quick in Debug builds.
struct Masks {
  uint64_t minute, hour, dom, month, dow;
  bool dom_star, dow_star;
};

Masks MasksOf(const CronFields& f) {
  return Masks{f.minute_bits.to_ullong(), f.hour_bits.to_ullong(), f.dom_bits.to_ullong(), f.month_bits.to_ullong(),
               f.dow_bits.to_ullong(), f.dom_star, f.dow_star};
}

bool Has(uint64_t mask, uint8_t value) { return (mask >> value) & 1u; }

bool ReferenceMatch(const Masks& m, const LocalFields& local) {
  if (!Has(m.minute, local.minute) || !Has(m.hour, local.hour) || !Has(m.month, local.month)) return false;
  bool dom = Has(m.dom, local.day);
  bool dow = Has(m.dow, local.weekday);
  return (m.dom_star || m.dow_star) ? (dom && dow) : (dom || dow);
}

std::vector<WallTime> ReferenceFireTimes(const CronFields& fields, const std::vector<LocalFields>& locals) {
  Masks masks = MasksOf(fields);
  std::vector<WallTime> out;
  for (size_t i = 0; i < locals.size(); ++i) {
    if (ReferenceMatch(masks, locals[i])) out.push_back(kStart + minutes{static_cast<int64_t>(i)});
  }
  return out;
}

std::string Show(std::optional<WallTime> t) { return t ? FormatUtc(*t) : "none"; }

// Walks Next from before kStart through every expected fire time.
void CheckNextChain(const CronSchedule& schedule, const std::vector<WallTime>& expected) {
  WallTime t = kStart - std::chrono::seconds{1};
  for (WallTime want : expected) {
    std::optional<WallTime> got = schedule.Next(t);
    ASSERT_TRUE(got == want) << "Next(" << FormatUtc(t) << ") = " << Show(got) << ", want " << FormatUtc(want);
    t = want;
  }
  std::optional<WallTime> after = schedule.Next(t);
  EXPECT_TRUE(!after || *after >= kEnd) << "Next(" << FormatUtc(t) << ") = " << Show(after) << ", want >= end";
}

// Walks Prev from kEnd back through every expected fire time.
void CheckPrevChain(const CronSchedule& schedule, const std::vector<WallTime>& expected) {
  WallTime t = kEnd;
  for (auto it = expected.rbegin(); it != expected.rend(); ++it) {
    std::optional<WallTime> got = schedule.Prev(t);
    ASSERT_TRUE(got == *it) << "Prev(" << FormatUtc(t) << ") = " << Show(got) << ", want " << FormatUtc(*it);
    t = *it;
  }
  std::optional<WallTime> before = schedule.Prev(t);
  EXPECT_TRUE(!before || *before < kStart) << "Prev(" << FormatUtc(t) << ") = " << Show(before)
                                           << ", want < start";
}

// Next, Prev and FiresAt from arbitrary instants (with sub-minute parts).
void CheckProbes(const CronSchedule& schedule, const std::vector<WallTime>& expected, uint32_t seed) {
  std::mt19937_64 random(seed);
  const int64_t span = (kEnd - kStart).count();
  std::uniform_int_distribution<int64_t> pick(0, span - 1);
  for (int i = 0; i < 1500; ++i) {
    WallTime x = kStart + WallTime::duration{pick(random)};
    if (i % 3 == 0) x = std::chrono::floor<minutes>(x);  // often exactly on a minute
    auto above = std::upper_bound(expected.begin(), expected.end(), x);
    std::optional<WallTime> next = schedule.Next(x);
    if (above != expected.end()) {
      ASSERT_TRUE(next == *above) << "Next(" << FormatUtc(x) << ") = " << Show(next) << ", want " << FormatUtc(*above);
    } else {
      ASSERT_TRUE(!next || *next >= kEnd) << "Next(" << FormatUtc(x) << ") = " << Show(next);
    }
    auto not_below = std::lower_bound(expected.begin(), expected.end(), x);
    std::optional<WallTime> prev = schedule.Prev(x);
    if (not_below != expected.begin()) {
      ASSERT_TRUE(prev == *(not_below - 1))
          << "Prev(" << FormatUtc(x) << ") = " << Show(prev) << ", want " << FormatUtc(*(not_below - 1));
    } else {
      ASSERT_TRUE(!prev || *prev < kStart) << "Prev(" << FormatUtc(x) << ") = " << Show(prev);
    }
    bool fires = std::binary_search(expected.begin(), expected.end(), std::chrono::floor<minutes>(x));
    ASSERT_EQ(schedule.FiresAt(x), fires) << "FiresAt(" << FormatUtc(x) << ")";
  }
}

// FireTimesBetween over a few windows equals the reference slice.
void CheckWindows(const CronSchedule& schedule, const std::vector<WallTime>& expected) {
  const WallTime windows[][2] = {{kStart, kEnd - minutes{1}},
                                 {Utc(2025, 3, 1), Utc(2025, 4, 15)},
                                 {Utc(2025, 9, 25, 7, 30), Utc(2025, 11, 10)}};
  for (const auto& window : windows) {
    auto first = std::upper_bound(expected.begin(), expected.end(), window[0]);
    auto last = std::upper_bound(expected.begin(), expected.end(), window[1]);
    std::vector<WallTime> want(first, last);
    EXPECT_TRUE(schedule.FireTimesBetween(window[0], window[1], want.size() + 1) == want)
        << "FireTimesBetween(" << FormatUtc(window[0]) << ", " << FormatUtc(window[1]) << ")";
  }
}

constexpr const char* kExpressions[] = {
    "30 2 * * *",         // inside the New York / Berlin gap and overlap
    "*/15 1-3 * * *",     // around every change hour
    "0 * * * *",          // 23 / 25 runs on change days
    "* 2 * 3,4,9,10,11 *",  // every minute of the 02:xx hour in change months
    "45 1 * * *",         // Lord Howe's repeated half hour
    "15 2 * APR,OCT *",   // Lord Howe's skipped half hour
    "0 0 * * *",          // midnight (Santiago skips it)
    "59 23 * * *",
    "5 0 */2 * MON",      // DOM/DOW OR rule with a stepped star
    "0 12 1,15 * FRI",    // DOM/DOW OR rule
    "0 6 * * SAT,SUN",    // DOM unrestricted
    "45 23 31 * *",       // 31st only
    "0 0 29 2 *",         // leap day
    "7/20 */5 ? jan-mar,Jul *",
    "0,30 0-3 1-7 * 0",   // OR: the first week or Sundays
};

class CronBruteForceTest : public ::testing::TestWithParam<const char*> {};

TEST_P(CronBruteForceTest, NextPrevFiresAtAndRangesMatchAMinuteByMinuteScan) {
  const date::time_zone* zone = Zone(GetParam());
  std::vector<LocalFields> locals = LocalFieldsOfEveryMinute(zone);
  uint32_t seed = 1;
  for (const char* expr : kExpressions) {
    SCOPED_TRACE(std::string(expr) + " in " + GetParam());
    CronSchedule schedule = MustParse(expr, zone);
    std::vector<WallTime> expected = ReferenceFireTimes(schedule.fields(), locals);
    ASSERT_FALSE(expected.empty());
    CheckNextChain(schedule, expected);
    CheckPrevChain(schedule, expected);
    CheckProbes(schedule, expected, seed++);
    CheckWindows(schedule, expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Zones, CronBruteForceTest,
                         ::testing::Values("UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe",
                                           "Asia/Kolkata", "America/Santiago"),
                         [](const ::testing::TestParamInfo<const char*>& param) {
                           std::string name = param.param;
                           std::replace(name.begin(), name.end(), '/', '_');
                           return name;
                         });

}  // namespace
}  // namespace dagu
