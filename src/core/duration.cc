#include "core/duration.h"

#include <cstdint>

namespace dagu {
namespace {

constexpr uint64_t kMaxMagnitude = uint64_t{1} << 63;  // |INT64_MIN|

bool UnitNanos(std::string_view unit, uint64_t* nanos) {
  if (unit == "ns") *nanos = 1;
  else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") *nanos = 1000;
  else if (unit == "ms") *nanos = 1000000;
  else if (unit == "s") *nanos = 1000000000;
  else if (unit == "m") *nanos = 60000000000;
  else if (unit == "h") *nanos = 3600000000000;
  else if (unit == "d") *nanos = 86400000000000;
  else return false;
  return true;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Go's leadingInt: the leading digits of *s as an integer; false on overflow.
bool LeadingInt(std::string_view* s, uint64_t* x) {
  size_t i = 0;
  *x = 0;
  for (; i < s->size() && IsDigit((*s)[i]); ++i) {
    if (*x > kMaxMagnitude / 10) return false;
    *x = *x * 10 + static_cast<uint64_t>((*s)[i] - '0');
    if (*x > kMaxMagnitude) return false;
  }
  s->remove_prefix(i);
  return true;
}

// Go's leadingFraction: digits after the point as x / scale; digits past
// what fits are ignored.
void LeadingFraction(std::string_view* s, uint64_t* x, double* scale) {
  size_t i = 0;
  bool overflow = false;
  *x = 0;
  *scale = 1;
  for (; i < s->size() && IsDigit((*s)[i]); ++i) {
    if (overflow) continue;
    if (*x > (kMaxMagnitude - 1) / 10) {
      overflow = true;
      continue;
    }
    uint64_t y = *x * 10 + static_cast<uint64_t>((*s)[i] - '0');
    if (y > kMaxMagnitude) {
      overflow = true;
      continue;
    }
    *x = y;
    *scale *= 10;
  }
  s->remove_prefix(i);
}

}  // namespace

// Go's time.ParseDuration, step for step (integers, the fraction through a
// double as Go does), plus the "d" unit.
Status ParseDuration(std::string_view text, std::chrono::nanoseconds* out) {
  auto bad = [&](const char* why) {
    return Status::InvalidArgument("invalid duration \"" + std::string(text) + "\": " + why);
  };
  std::string_view s = text;
  if (s.empty()) return bad("empty");
  bool negative = false;
  if (s.front() == '-' || s.front() == '+') {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s == "0") {
    *out = std::chrono::nanoseconds(0);
    return Status::OK();
  }
  if (s.empty()) return bad("no number");
  uint64_t total = 0;
  while (!s.empty()) {
    if (!IsDigit(s.front()) && s.front() != '.') return bad("expected a number");
    const size_t before = s.size();
    uint64_t v = 0;
    if (!LeadingInt(&s, &v)) return bad("out of range");
    const bool pre = before != s.size();
    uint64_t f = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s.front() == '.') {
      s.remove_prefix(1);
      const size_t at = s.size();
      LeadingFraction(&s, &f, &scale);
      post = at != s.size();
    }
    if (!pre && !post) return bad("expected a number");
    size_t j = 0;
    while (j < s.size() && !IsDigit(s[j]) && s[j] != '.') ++j;
    if (j == 0) return bad("missing unit (use ns, us, ms, s, m, h or d)");
    uint64_t unit = 0;
    if (!UnitNanos(s.substr(0, j), &unit)) return bad("unknown unit");
    s.remove_prefix(j);
    if (v > kMaxMagnitude / unit) return bad("out of range");
    v *= unit;
    if (f > 0) {
      v += static_cast<uint64_t>(static_cast<double>(f) * (static_cast<double>(unit) / scale));
      if (v > kMaxMagnitude) return bad("out of range");
    }
    total += v;
    if (total > kMaxMagnitude) return bad("out of range");
  }
  if (negative) {
    *out = std::chrono::nanoseconds(total == kMaxMagnitude ? INT64_MIN : -static_cast<int64_t>(total));
    return Status::OK();
  }
  if (total > kMaxMagnitude - 1) return bad("out of range");
  *out = std::chrono::nanoseconds(static_cast<int64_t>(total));
  return Status::OK();
}

std::string FormatDuration(std::chrono::nanoseconds d) {
  int64_t ns = d.count();
  if (ns == 0) return "0s";
  std::string sign = ns < 0 ? "-" : "";
  uint64_t u = ns < 0 ? static_cast<uint64_t>(-(ns + 1)) + 1 : static_cast<uint64_t>(ns);
  auto frac = [](uint64_t v, uint64_t unit, const char* suffix) {
    std::string out = std::to_string(v / unit);
    uint64_t rem = v % unit;
    if (rem != 0) {
      std::string digits = std::to_string(rem + unit).substr(1);
      while (!digits.empty() && digits.back() == '0') digits.pop_back();
      out += "." + digits;
    }
    return out + suffix;
  };
  if (u < 1000) return sign + std::to_string(u) + "ns";
  if (u < 1000000) return sign + frac(u, 1000, "µs");
  if (u < 1000000000) return sign + frac(u, 1000000, "ms");
  uint64_t h = u / 3600000000000ULL;
  uint64_t rest = u % 3600000000000ULL;
  uint64_t m = rest / 60000000000ULL;
  uint64_t sns = rest % 60000000000ULL;
  std::string out = sign;
  if (h > 0) out += std::to_string(h) + "h";
  if (h > 0 || m > 0) out += std::to_string(m) + "m";
  out += frac(sns, 1000000000ULL, "s");
  return out;
}

}  // namespace dagu
