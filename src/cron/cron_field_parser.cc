#include "cron/cron_field_parser.h"

#include <array>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace dagu {
namespace {

struct Name {
  std::string_view text;
  unsigned value;
};

constexpr std::array<Name, 12> kMonthNames = {{{"jan", 1}, {"feb", 2}, {"mar", 3}, {"apr", 4},
                                                {"may", 5}, {"jun", 6}, {"jul", 7}, {"aug", 8},
                                                {"sep", 9}, {"oct", 10}, {"nov", 11}, {"dec", 12}}};
constexpr std::array<Name, 7> kWeekdayNames = {
    {{"sun", 0}, {"mon", 1}, {"tue", 2}, {"wed", 3}, {"thu", 4}, {"fri", 5}, {"sat", 6}}};

struct FieldSpec {
  std::string_view name;
  unsigned min;
  unsigned max;
  const Name* names;  // null: numbers only
  size_t name_count;
};

constexpr FieldSpec kMinuteSpec{"minute", 0, 59, nullptr, 0};
constexpr FieldSpec kHourSpec{"hour", 0, 23, nullptr, 0};
constexpr FieldSpec kDomSpec{"day-of-month", 1, 31, nullptr, 0};
constexpr FieldSpec kMonthSpec{"month", 1, 12, kMonthNames.data(), kMonthNames.size()};
constexpr FieldSpec kDowSpec{"day-of-week", 0, 6, kWeekdayNames.data(), kWeekdayNames.size()};

// One field's result: the value bits and whether an item was a bare star.
struct FieldBits {
  uint64_t bits = 0;
  bool star = false;
};

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t at = text.find(separator, start);
    if (at == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
}

std::vector<std::string_view> SplitWhitespace(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

bool IsAlpha(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!std::isalpha(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string Quote(std::string_view text) { return "\"" + std::string(text) + "\""; }

// A decimal number as Go's strconv.Atoi reads it (optional '+'), no sign '-'
// (a '-' is a range separator by the time we get here).
Status ParseNumber(std::string_view text, unsigned* out) {
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  bool all_digits = !digits.empty();
  for (char c : digits) all_digits = all_digits && c >= '0' && c <= '9';
  if (!all_digits) return Status::InvalidArgument(Quote(text) + " is not a number");
  uint64_t value = 0;
  for (char c : digits) {
    value = value * 10 + static_cast<uint64_t>(c - '0');
    if (value > 1000000) return Status::InvalidArgument("number " + Quote(text) + " is out of range");
  }
  *out = static_cast<unsigned>(value);
  return Status::OK();
}

// A number, or a name in the month and day-of-week fields.
Status ParseValue(std::string_view text, const FieldSpec& spec, unsigned* out) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (size_t i = 0; i < spec.name_count; ++i) {
    if (spec.names[i].text == lower) {
      *out = spec.names[i].value;
      return Status::OK();
    }
  }
  Status status = ParseNumber(text, out);
  if (status.ok() || !IsAlpha(text)) return status;
  if (spec.names == nullptr) {
    return Status::InvalidArgument(status.message() + " (names are allowed only in the month and day-of-week fields)");
  }
  return Status::InvalidArgument(Quote(text) + (spec.name_count == 12 ? " is not a number or a month name (JAN..DEC)"
                                                                         : " is not a number or a weekday name (SUN..SAT)"));
}

// One comma-separated item: '*', '?', "a", "a-b", each with an optional "/step".
Status ParseItem(std::string_view item, const FieldSpec& spec, FieldBits* field) {
  std::vector<std::string_view> range_and_step = Split(item, '/');
  if (range_and_step.size() > 2) return Status::InvalidArgument("too many slashes");
  std::vector<std::string_view> low_and_high = Split(range_and_step[0], '-');
  bool single_value = low_and_high.size() == 1;

  unsigned start = 0;
  unsigned end = 0;
  bool star = false;
  if (low_and_high[0] == "*" || low_and_high[0] == "?") {
    start = spec.min;
    end = spec.max;
    star = true;
  } else {
    if (low_and_high.size() > 2) return Status::InvalidArgument("too many hyphens");
    DAGU_RETURN_IF_ERROR(ParseValue(low_and_high[0], spec, &start));
    end = start;
    if (low_and_high.size() == 2) DAGU_RETURN_IF_ERROR(ParseValue(low_and_high[1], spec, &end));
  }

  unsigned step = 1;
  if (range_and_step.size() == 2) {
    Status status = ParseNumber(range_and_step[1], &step);
    if (!status.ok()) return Status::InvalidArgument("step " + status.message());
    if (single_value) end = spec.max;  // "a/step" means "a-max/step"
    if (step > 1) star = false;
  }

  if (start < spec.min) {
    return Status::InvalidArgument("beginning of range (" + std::to_string(start) + ") below minimum (" +
                                   std::to_string(spec.min) + ")");
  }
  if (end > spec.max) {
    std::string hint = spec.name == "day-of-week" && end == 7 ? " (use 0 or SUN for Sunday)" : "";
    return Status::InvalidArgument("end of range (" + std::to_string(end) + ") above maximum (" +
                                   std::to_string(spec.max) + ")" + hint);
  }
  if (start > end) {
    return Status::InvalidArgument("beginning of range (" + std::to_string(start) + ") beyond end of range (" +
                                   std::to_string(end) + ")");
  }
  if (step == 0) return Status::InvalidArgument("step of range should be a positive number");

  for (unsigned value = start; value <= end; value += step) field->bits |= uint64_t{1} << value;
  field->star = field->star || star;
  return Status::OK();
}

Status ParseField(std::string_view text, const FieldSpec& spec, FieldBits* field) {
  for (std::string_view item : Split(text, ',')) {
    if (item.empty()) continue;  // robfig splits with FieldsFunc: empty items vanish
    Status status = ParseItem(item, spec, field);
    if (!status.ok()) {
      std::string where = std::string(spec.name) + " field " + Quote(text) + ": ";
      if (item != text) where += "item " + Quote(item) + ": ";
      return Status::InvalidArgument(where + status.message());
    }
  }
  return Status::OK();
}

}  // namespace

Status ParseCronFields(std::string_view text, CronFields* out) {
  std::vector<std::string_view> fields = SplitWhitespace(text);
  if (fields.size() != 5) {
    return Status::InvalidArgument("expected exactly 5 fields (minute hour day-of-month month day-of-week), found " +
                                   std::to_string(fields.size()));
  }
  FieldBits minute, hour, dom, month, dow;
  DAGU_RETURN_IF_ERROR(ParseField(fields[0], kMinuteSpec, &minute));
  DAGU_RETURN_IF_ERROR(ParseField(fields[1], kHourSpec, &hour));
  DAGU_RETURN_IF_ERROR(ParseField(fields[2], kDomSpec, &dom));
  DAGU_RETURN_IF_ERROR(ParseField(fields[3], kMonthSpec, &month));
  DAGU_RETURN_IF_ERROR(ParseField(fields[4], kDowSpec, &dow));

  CronFields result;
  result.minute_bits = std::bitset<60>(minute.bits);
  result.hour_bits = std::bitset<24>(hour.bits);
  result.dom_bits = std::bitset<32>(dom.bits);
  result.month_bits = std::bitset<13>(month.bits);
  result.dow_bits = std::bitset<7>(dow.bits);
  result.dom_star = dom.star;
  result.dow_star = dow.star;
  *out = result;
  return Status::OK();
}

}  // namespace dagu
