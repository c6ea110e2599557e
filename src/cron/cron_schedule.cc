#include "cron/cron_schedule.h"

#include <algorithm>
#include <string>

#include <date/tz.h>

#include "cron/cron_field_parser.h"
#include "cron/time_zone.h"
#include "core/strings.h"

namespace dagu {
namespace {

using std::chrono::ceil;
using std::chrono::floor;
using std::chrono::minutes;
using std::chrono::seconds;
using LocalTime = date::local_time<WallTime::duration>;
using SysSeconds = date::sys_seconds;

constexpr int kSearchYears = 5;  // robfig's yearLimit

LocalTime ToLocal(WallTime t, seconds offset) { return LocalTime{t.time_since_epoch() + offset}; }

WallTime FromLocal(LocalMinute local, seconds offset) {
  return WallTime{std::chrono::duration_cast<WallTime::duration>(local.time_since_epoch() - offset)};
}

WallTime ToWall(SysSeconds t) { return WallTime{std::chrono::duration_cast<WallTime::duration>(t.time_since_epoch())}; }

// The offset-constant stretch of absolute time that contains `t`.
date::sys_info SegmentAt(const date::time_zone* zone, SysSeconds t) { return zone->get_info(t); }

// The first instant of local year `year` (approximated with `offset`),
// clamped to what WallTime can hold.
WallTime StartOfLocalYear(int year, seconds offset) {
  year = std::clamp(year, 1700, 2260);
  LocalMinute start{date::local_days{date::year{year} / 1 / 1}.time_since_epoch()};
  return FromLocal(start, offset);
}

}  // namespace

Status CronSchedule::Parse(std::string_view expr, const date::time_zone* default_zone, CronSchedule* out) {
  auto fail = [expr](const std::string& why) {
    return Status::InvalidArgument("cron expression \"" + std::string(expr) + "\": " + why);
  };
  if (TrimSpace(expr).empty()) return Status::InvalidArgument("cron expression is empty");

  std::string_view spec = expr;
  const date::time_zone* zone = default_zone != nullptr ? default_zone : LocalZone();
  if (spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=")) {
    size_t equals = spec.find('=');
    size_t space = spec.find(' ');
    if (space == std::string_view::npos || TrimSpace(spec.substr(space)).empty()) {
      return fail("time zone prefix with no schedule after it (expected e.g. \"" +
                  std::string(spec.substr(0, std::min(space, spec.size()))) + " 0 9 * * *\")");
    }
    DAGU_RETURN_IF_ERROR(LocateZone(spec.substr(equals + 1, space - equals - 1), &zone).WithContext(
        "cron expression \"" + std::string(expr) + "\""));
    spec = TrimSpace(spec.substr(space));
  }
  if (zone == nullptr) return fail("no time zone database (install tzdata)");
  if (spec.starts_with("@")) {
    return fail("descriptors such as @hourly, @daily or @every are not accepted (Dagu's cron parser does not "
                "accept descriptors); write five fields instead, e.g. \"0 * * * *\" for @hourly");
  }

  CronFields fields;
  Status status = ParseCronFields(spec, &fields);
  if (!status.ok()) return fail(status.message());
  out->expression_ = std::string(expr);
  out->zone_ = zone;
  out->fields_ = fields;
  return Status::OK();
}

std::optional<WallTime> CronSchedule::FirstFire(WallTime after, WallTime until) const {
  if (zone_ == nullptr || after >= until) return std::nullopt;
  const SysSeconds until_seconds = floor<seconds>(until);
  WallTime lower = after;   // fire times are > lower ...
  bool inclusive = false;   // ... or >= lower once we moved to a later segment
  while (true) {
    date::sys_info segment = SegmentAt(zone_, floor<seconds>(lower));
    const bool last_segment = segment.end > until_seconds;  // the segment reaches past `until`
    LocalMinute from = inclusive ? ceil<minutes>(ToLocal(lower, segment.offset))
                                 : floor<minutes>(ToLocal(lower, segment.offset)) + minutes{1};
    // L - offset < segment.end, and L - offset <= until.
    LocalMinute before = last_segment ? floor<minutes>(ToLocal(until, segment.offset)) + minutes{1}
                                      : ceil<minutes>(ToLocal(ToWall(segment.end), segment.offset));
    if (std::optional<LocalMinute> found = fields_.FirstBetween(from, before)) {
      return FromLocal(*found, segment.offset);
    }
    if (last_segment) return std::nullopt;
    lower = ToWall(segment.end);
    inclusive = true;
  }
}

std::optional<WallTime> CronSchedule::LastFire(WallTime since, WallTime before) const {
  if (zone_ == nullptr || since >= before) return std::nullopt;
  const SysSeconds since_seconds = floor<seconds>(since);
  WallTime upper = before;  // fire times are < upper
  while (true) {
    // Segment boundaries are whole seconds, so the second before ceil(upper)
    // lies in the segment holding the instants just before `upper`.
    date::sys_info segment = SegmentAt(zone_, ceil<seconds>(upper) - seconds{1});
    const bool first_segment = segment.begin <= since_seconds;  // the segment reaches back to `since`
    // L - offset < upper, and L - offset >= max(segment.begin, since).
    LocalMinute to = ceil<minutes>(ToLocal(upper, segment.offset)) - minutes{1};
    WallTime floor_time = first_segment ? since : ToWall(segment.begin);
    LocalMinute not_before = ceil<minutes>(ToLocal(floor_time, segment.offset));
    if (std::optional<LocalMinute> found = fields_.LastBetween(not_before, to)) {
      return FromLocal(*found, segment.offset);
    }
    if (first_segment) return std::nullopt;
    upper = ToWall(segment.begin);
  }
}

std::optional<WallTime> CronSchedule::Next(WallTime t) const {
  if (zone_ == nullptr) return std::nullopt;
  seconds offset = SegmentAt(zone_, floor<seconds>(t)).offset;
  int year = static_cast<int>(date::year_month_day{floor<date::days>(ToLocal(t, offset))}.year());
  return FirstFire(t, StartOfLocalYear(year + kSearchYears + 1, offset) - seconds{1});
}

std::optional<WallTime> CronSchedule::Prev(WallTime t) const {
  if (zone_ == nullptr) return std::nullopt;
  seconds offset = SegmentAt(zone_, floor<seconds>(t)).offset;
  int year = static_cast<int>(date::year_month_day{floor<date::days>(ToLocal(t, offset))}.year());
  return LastFire(StartOfLocalYear(year - kSearchYears, offset), t);
}

bool CronSchedule::FiresAt(WallTime t) const {
  if (zone_ == nullptr) return false;
  seconds offset = SegmentAt(zone_, floor<seconds>(t)).offset;
  return fields_.Matches(floor<minutes>(ToLocal(t, offset)));
}

std::vector<WallTime> CronSchedule::FireTimesBetween(WallTime from_exclusive, WallTime to_inclusive,
                                                     size_t limit) const {
  std::vector<WallTime> result;
  const WallTime since = from_exclusive + WallTime::duration{1};
  WallTime before = to_inclusive + WallTime::duration{1};
  while (result.size() < limit) {
    std::optional<WallTime> fire = LastFire(since, before);
    if (!fire) break;
    result.push_back(*fire);
    before = *fire;
  }
  std::reverse(result.begin(), result.end());
  return result;
}

}  // namespace dagu
