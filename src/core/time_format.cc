#include "core/time_format.h"

#include <cstdio>
#include <ctime>

namespace dagu {
namespace {

using std::chrono::duration_cast;
using std::chrono::nanoseconds;
using std::chrono::seconds;

// Splits t into whole seconds (floor) and the nanosecond remainder.
void Split(WallTime t, time_t* secs, int64_t* nanos) {
  int64_t ns = duration_cast<nanoseconds>(t.time_since_epoch()).count();
  int64_t s = ns / 1000000000;
  int64_t rem = ns % 1000000000;
  if (rem < 0) {
    rem += 1000000000;
    s -= 1;
  }
  *secs = static_cast<time_t>(s);
  *nanos = rem;
}

struct tm UtcTm(WallTime t, int64_t* nanos) {
  time_t s;
  Split(t, &s, nanos);
  struct tm tm {};
  gmtime_r(&s, &tm);
  return tm;
}

struct tm LocalTm(WallTime t, int64_t* nanos) {
  time_t s;
  Split(t, &s, nanos);
  struct tm tm {};
  localtime_r(&s, &tm);
  return tm;
}

std::string Fmt(const char* fmt, const struct tm& tm) {
  char buf[64];
  size_t n = std::strftime(buf, sizeof buf, fmt, &tm);
  return std::string(buf, n);
}

std::string Pad(int64_t value, int width) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*lld", width, static_cast<long long>(value));
  return buf;
}

bool Digits(std::string_view s, size_t pos, size_t count, int* out) {
  if (pos + count > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + count; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

// Builds a UTC time from calendar fields; false when a field is out of range.
// False for a date that does not exist (Go's time.Parse rejects "day out of
// range" and second 60 too) or lies outside what WallTime's nanoseconds hold
// (years 1678 to 2261 in full): timegm's seconds would overflow them.
bool MakeUtc(int year, int mon, int day, int hour, int min, int sec, WallTime* out) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (year < 1678 || year > 2261 || mon < 1 || mon > 12 || day < 1 || hour > 23 || min > 59 || sec > 59) {
    return false;
  }
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (day > kDays[mon - 1] + (mon == 2 && leap ? 1 : 0)) return false;
  struct tm tm {};
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = min;
  tm.tm_sec = sec;
  time_t s = timegm(&tm);
  *out = WallTime(duration_cast<WallTime::duration>(seconds(s)));
  return true;
}

// Parses "YYYYMMDD_HHMMSS" at the start of text.
bool ParseCompactPrefix(std::string_view text, WallTime* out) {
  int y, mo, d, h, mi, s;
  if (text.size() < 15 || text[8] != '_') return false;
  if (!Digits(text, 0, 4, &y) || !Digits(text, 4, 2, &mo) || !Digits(text, 6, 2, &d) ||
      !Digits(text, 9, 2, &h) || !Digits(text, 11, 2, &mi) || !Digits(text, 13, 2, &s)) {
    return false;
  }
  return MakeUtc(y, mo, d, h, mi, s, out);
}

}  // namespace

std::string FormatRFC3339UTC(WallTime t) {
  int64_t ns;
  return Fmt("%Y-%m-%dT%H:%M:%SZ", UtcTm(t, &ns));
}

std::string FormatRFC3339Local(WallTime t) {
  int64_t ns;
  struct tm tm = LocalTm(t, &ns);
  std::string out = Fmt("%Y-%m-%dT%H:%M:%S", tm);
  long off = tm.tm_gmtoff;
  if (off == 0) return out + "Z";
  char sign = off < 0 ? '-' : '+';
  if (off < 0) off = -off;
  out += sign;
  out += Pad(off / 3600, 2) + ":" + Pad((off / 60) % 60, 2);
  return out;
}

std::string FormatRFC3339NanoUTC(WallTime t) {
  int64_t ns;
  std::string out = Fmt("%Y-%m-%dT%H:%M:%S", UtcTm(t, &ns));
  if (ns != 0) {
    std::string frac = Pad(ns, 9);
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    out += "." + frac;
  }
  return out + "Z";
}

Status ParseRFC3339(std::string_view text, WallTime* out, bool* is_set) {
  *is_set = false;
  if (text.empty() || text == "-") return Status::OK();
  auto bad = [&] { return Status::InvalidArgument("invalid RFC3339 time \"" + std::string(text) + "\""); };
  int y, mo, d, h, mi, s;
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || (text[10] != 'T' && text[10] != 't') ||
      text[13] != ':' || text[16] != ':') {
    return bad();
  }
  if (!Digits(text, 0, 4, &y) || !Digits(text, 5, 2, &mo) || !Digits(text, 8, 2, &d) ||
      !Digits(text, 11, 2, &h) || !Digits(text, 14, 2, &mi) || !Digits(text, 17, 2, &s)) {
    return bad();
  }
  size_t pos = 19;
  int64_t frac_ns = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    int64_t scale = 100000000;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 9) frac_ns += (text[pos] - '0') * scale;
      scale /= 10;
      ++digits;
      ++pos;
    }
    if (digits == 0) return bad();
  }
  if (pos >= text.size()) return bad();
  int64_t offset_s = 0;
  if (text[pos] == 'Z' || text[pos] == 'z') {
    ++pos;
  } else if (text[pos] == '+' || text[pos] == '-') {
    int oh, om;
    if (pos + 6 != text.size() || text[pos + 3] != ':' || !Digits(text, pos + 1, 2, &oh) ||
        !Digits(text, pos + 4, 2, &om)) {
      return bad();
    }
    offset_s = (oh * 3600 + om * 60) * (text[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return bad();
  }
  if (pos != text.size()) return bad();
  WallTime base;
  if (!MakeUtc(y, mo, d, h, mi, s, &base)) return bad();
  *out = base - duration_cast<WallTime::duration>(seconds(offset_s)) +
         duration_cast<WallTime::duration>(nanoseconds(frac_ns));
  *is_set = true;
  return Status::OK();
}

std::string FormatCompactUTC(WallTime t) {
  int64_t ns;
  return Fmt("%Y%m%d_%H%M%S", UtcTm(t, &ns));
}

std::string FormatCompactMillisUTC(WallTime t) {
  int64_t ns;
  std::string s = Fmt("%Y%m%d_%H%M%S", UtcTm(t, &ns));
  return s + "_" + Pad(ns / 1000000, 3);
}

std::string FormatCompactNanosUTC(WallTime t) {
  int64_t ns;
  std::string s = Fmt("%Y%m%d_%H%M%S", UtcTm(t, &ns));
  return s + "_" + Pad(ns, 9);
}

std::string FormatLogStampLocal(WallTime t) {
  int64_t ns;
  std::string s = Fmt("%Y%m%d.%H%M%S", LocalTm(t, &ns));
  return s + "." + Pad(ns / 1000000, 3);
}

std::string FormatSlotUTC(WallTime t) {
  int64_t ns;
  return Fmt("%Y%m%dT%H%M%S", UtcTm(t, &ns));
}

std::string FormatDatePathUTC(WallTime t) {
  int64_t ns;
  return Fmt("%Y/%m/%d", UtcTm(t, &ns));
}

Status ParseCompactUTC(std::string_view text, WallTime* out) {
  if (text.size() != 15 || !ParseCompactPrefix(text, out)) {
    return Status::InvalidArgument("invalid timestamp \"" + std::string(text) + "\" (want YYYYMMDD_HHMMSS)");
  }
  return Status::OK();
}

Status ParseCompactFractionUTC(std::string_view text, WallTime* out) {
  auto bad = [&] {
    return Status::InvalidArgument("invalid timestamp \"" + std::string(text) +
                                   "\" (want YYYYMMDD_HHMMSS_<fraction>)");
  };
  if (text.size() < 17 || text.size() > 25 || text[15] != '_' || !ParseCompactPrefix(text, out)) return bad();
  int64_t frac = 0;
  int64_t scale = 100000000;
  for (size_t i = 16; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return bad();
    frac += (text[i] - '0') * scale;
    scale /= 10;
  }
  *out += duration_cast<WallTime::duration>(nanoseconds(frac));
  return Status::OK();
}

int64_t UnixMillis(WallTime t) {
  return std::chrono::floor<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

int64_t UnixSeconds(WallTime t) {
  return std::chrono::floor<seconds>(t.time_since_epoch()).count();
}

WallTime FromUnixMillis(int64_t ms) {
  return WallTime(duration_cast<WallTime::duration>(std::chrono::milliseconds(ms)));
}

WallTime FromUnixSeconds(int64_t s) {
  return WallTime(duration_cast<WallTime::duration>(seconds(s)));
}

}  // namespace dagu
