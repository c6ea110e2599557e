#include "config/value_parse.h"

#include <charconv>

namespace dagu::config_internal {

bool ParseBool(const std::string& text, bool* out) {
  for (const char* yes : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (text == yes) {
      *out = true;
      return true;
    }
  }
  for (const char* no : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (text == no) {
      *out = false;
      return true;
    }
  }
  return false;
}

bool ParseInt(const std::string& text, int* out) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (begin != end && *begin == '+') ++begin;
  int value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || begin == end) return false;
  *out = value;
  return true;
}

}  // namespace dagu::config_internal
