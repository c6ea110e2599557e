#include "cron/cron_fields.h"

namespace dagu {
namespace {

constexpr int kMinutesPerDay = 24 * 60;
constexpr int kLastMinuteOfDay = kMinutesPerDay - 1;

template <size_t N>
int NextSetBit(const std::bitset<N>& bits, int from) {
  for (int i = from; i < static_cast<int>(N); ++i) {
    if (bits[static_cast<size_t>(i)]) return i;
  }
  return -1;
}

template <size_t N>
int PrevSetBit(const std::bitset<N>& bits, int from) {
  for (int i = from; i >= 0; --i) {
    if (bits[static_cast<size_t>(i)]) return i;
  }
  return -1;
}

date::local_days FirstDayOfMonth(date::year_month_day ymd) {
  return date::local_days{ymd.year() / ymd.month() / 1};
}

date::local_days FirstDayOfNextMonth(date::year_month_day ymd) {
  return date::local_days{(ymd.year() / ymd.month() + date::months{1}) / 1};
}

}  // namespace

bool CronFields::DayMatches(date::year_month_day ymd) const {
  bool dom = dom_bits[static_cast<unsigned>(ymd.day())];
  bool dow = dow_bits[date::weekday{date::local_days{ymd}}.c_encoding()];
  if (dom_star || dow_star) return dom && dow;
  return dom || dow;
}

bool CronFields::CanMatch() const {
  bool some_day = (dom_star || dow_star) ? (dom_bits.any() && dow_bits.any()) : (dom_bits.any() || dow_bits.any());
  return minute_bits.any() && hour_bits.any() && month_bits.any() && some_day;
}

bool CronFields::Matches(LocalMinute t) const {
  date::local_days day = std::chrono::floor<date::days>(t);
  date::year_month_day ymd{day};
  int minute_of_day = static_cast<int>((t - day).count());
  return month_bits[static_cast<unsigned>(ymd.month())] && DayMatches(ymd) &&
         hour_bits[static_cast<size_t>(minute_of_day / 60)] && minute_bits[static_cast<size_t>(minute_of_day % 60)];
}

int CronFields::FirstTimeOfDay(int minute_of_day) const {
  int from_hour = minute_of_day / 60;
  for (int hour = NextSetBit(hour_bits, from_hour); hour >= 0; hour = NextSetBit(hour_bits, hour + 1)) {
    int minute = NextSetBit(minute_bits, hour == from_hour ? minute_of_day % 60 : 0);
    if (minute >= 0) return hour * 60 + minute;
  }
  return -1;
}

int CronFields::LastTimeOfDay(int minute_of_day) const {
  int from_hour = minute_of_day / 60;
  for (int hour = PrevSetBit(hour_bits, from_hour); hour >= 0; hour = PrevSetBit(hour_bits, hour - 1)) {
    int minute = PrevSetBit(minute_bits, hour == from_hour ? minute_of_day % 60 : 59);
    if (minute >= 0) return hour * 60 + minute;
  }
  return -1;
}

std::optional<LocalMinute> CronFields::FirstBetween(LocalMinute from, LocalMinute before) const {
  if (!CanMatch()) return std::nullopt;
  date::local_days day = std::chrono::floor<date::days>(from);
  int minute_of_day = static_cast<int>((from - day).count());
  while (day + std::chrono::minutes{minute_of_day} < before) {
    date::year_month_day ymd{day};
    if (!month_bits[static_cast<unsigned>(ymd.month())]) {
      day = FirstDayOfNextMonth(ymd);
      minute_of_day = 0;
      continue;
    }
    int found = DayMatches(ymd) ? FirstTimeOfDay(minute_of_day) : -1;
    if (found < 0) {
      day += date::days{1};
      minute_of_day = 0;
      continue;
    }
    LocalMinute result = day + std::chrono::minutes{found};
    if (result >= before) return std::nullopt;
    return result;
  }
  return std::nullopt;
}

std::optional<LocalMinute> CronFields::LastBetween(LocalMinute not_before, LocalMinute to) const {
  if (!CanMatch()) return std::nullopt;
  date::local_days day = std::chrono::floor<date::days>(to);
  int minute_of_day = static_cast<int>((to - day).count());
  while (day + std::chrono::minutes{minute_of_day} >= not_before) {
    date::year_month_day ymd{day};
    if (!month_bits[static_cast<unsigned>(ymd.month())]) {
      day = FirstDayOfMonth(ymd) - date::days{1};
      minute_of_day = kLastMinuteOfDay;
      continue;
    }
    int found = DayMatches(ymd) ? LastTimeOfDay(minute_of_day) : -1;
    if (found < 0) {
      day -= date::days{1};
      minute_of_day = kLastMinuteOfDay;
      continue;
    }
    LocalMinute result = day + std::chrono::minutes{found};
    if (result < not_before) return std::nullopt;
    return result;
  }
  return std::nullopt;
}

}  // namespace dagu
