#include "core/duration.h"

#include <cmath>
#include <cstdint>

namespace dagu {
namespace {

bool UnitNanos(std::string_view unit, double* nanos) {
  if (unit == "ns") *nanos = 1;
  else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") *nanos = 1e3;
  else if (unit == "ms") *nanos = 1e6;
  else if (unit == "s") *nanos = 1e9;
  else if (unit == "m") *nanos = 60e9;
  else if (unit == "h") *nanos = 3600e9;
  else if (unit == "d") *nanos = 86400e9;
  else return false;
  return true;
}

}  // namespace

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
  long double total = 0;
  while (!s.empty()) {
    size_t i = 0;
    bool digits = false;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) {
      digits = digits || s[i] != '.';
      ++i;
    }
    if (!digits) return bad("expected a number");
    std::string number(s.substr(0, i));
    if (number.find('.') != number.rfind('.')) return bad("malformed number");
    s.remove_prefix(i);
    size_t j = 0;
    while (j < s.size() && !std::isdigit(static_cast<unsigned char>(s[j])) && s[j] != '.') ++j;
    if (j == 0) return bad("missing unit (use ns, us, ms, s, m, h or d)");
    double unit_nanos = 0;
    if (!UnitNanos(s.substr(0, j), &unit_nanos)) return bad("unknown unit");
    s.remove_prefix(j);
    total += std::stold(number) * unit_nanos;
  }
  if (total > static_cast<long double>(INT64_MAX)) return bad("out of range");
  int64_t ns = static_cast<int64_t>(std::llround(static_cast<double>(total)));
  *out = std::chrono::nanoseconds(negative ? -ns : ns);
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
