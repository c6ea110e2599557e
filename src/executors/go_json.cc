#include "executors/go_json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace dagu {
namespace {

// Go's quoteChar: the offending byte as it appears in scanner errors.
std::string QuoteChar(unsigned char c) {
  if (c == '\'') return "'\\''";
  if (c == '"') return "'\"'";
  switch (c) {
    case '\n': return "'\\n'";
    case '\r': return "'\\r'";
    case '\t': return "'\\t'";
    case '\a': return "'\\a'";
    case '\b': return "'\\b'";
    case '\f': return "'\\f'";
    case '\v': return "'\\v'";
    case '\\': return "'\\\\'";
    default: break;
  }
  char buf[16];
  if (c < 0x20 || c == 0x7f) {
    std::snprintf(buf, sizeof buf, "'\\x%02x'", c);
  } else if (c >= 0x80) {
    std::snprintf(buf, sizeof buf, "'\\x%02x'", c);  // a lone byte of a UTF-8 sequence
  } else {
    std::snprintf(buf, sizeof buf, "'%c'", c);
  }
  return buf;
}

// A recursive scanner that reports the first error as Go's scanner does.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : s_(text) {}

  std::string Check() {
    SkipSpace();
    if (!Value()) return err_;
    SkipSpace();
    if (pos_ < s_.size()) return Invalid("after top-level value");
    return "";
  }

 private:
  static bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
  void SkipSpace() {
    while (pos_ < s_.size() && IsSpace(s_[pos_])) ++pos_;
  }
  bool AtEnd() const { return pos_ >= s_.size(); }
  bool Eof() {
    err_ = "unexpected end of JSON input";
    return false;
  }
  std::string Invalid(const std::string& context) const {
    return "invalid character " + QuoteChar(static_cast<unsigned char>(s_[pos_])) + " " + context;
  }
  bool Fail(const std::string& context) {
    err_ = Invalid(context);
    return false;
  }

  bool Value() {
    if (AtEnd()) return Eof();
    char c = s_[pos_];
    switch (c) {
      case '{': return Object();
      case '[': return Array();
      case '"': return String();
      case 't': return Literal("true");
      case 'f': return Literal("false");
      case 'n': return Literal("null");
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return Number();
        return Fail("looking for beginning of value");
    }
  }

  bool Literal(const char* word) {
    ++pos_;
    for (const char* p = word + 1; *p != '\0'; ++p) {
      if (AtEnd()) return Eof();
      if (s_[pos_] != *p) return Fail(std::string("in literal ") + word + " (expecting '" + *p + "')");
      ++pos_;
    }
    return true;
  }

  static bool Digit(char c) { return c >= '0' && c <= '9'; }

  bool Number() {
    if (s_[pos_] == '-') {
      ++pos_;
      if (AtEnd()) return Eof();
      if (!Digit(s_[pos_])) return Fail("in numeric literal");
    }
    if (s_[pos_] == '0') {
      ++pos_;
    } else {
      while (!AtEnd() && Digit(s_[pos_])) ++pos_;
    }
    if (!AtEnd() && s_[pos_] == '.') {
      ++pos_;
      if (AtEnd()) return Eof();
      if (!Digit(s_[pos_])) return Fail("after decimal point in numeric literal");
      while (!AtEnd() && Digit(s_[pos_])) ++pos_;
    }
    if (!AtEnd() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (!AtEnd() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (AtEnd()) return Eof();
      if (!Digit(s_[pos_])) return Fail("in exponent of numeric literal");
      while (!AtEnd() && Digit(s_[pos_])) ++pos_;
    }
    return true;
  }

  static bool Hex(char c) { return Digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

  bool String() {
    ++pos_;
    for (;;) {
      if (AtEnd()) return Eof();
      unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return Fail("in string literal");
      if (c == '\\') {
        ++pos_;
        if (AtEnd()) return Eof();
        char e = s_[pos_];
        if (e == 'u') {
          ++pos_;
          for (int i = 0; i < 4; ++i) {
            if (AtEnd()) return Eof();
            if (!Hex(s_[pos_])) return Fail("in \\u hexadecimal character escape");
            ++pos_;
          }
          continue;
        }
        if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) return Fail("in string escape code");
      }
      ++pos_;
    }
  }

  bool Object() {
    ++pos_;
    SkipSpace();
    if (AtEnd()) return Eof();
    if (s_[pos_] == '}') {
      ++pos_;
      return true;
    }
    for (;;) {
      if (AtEnd()) return Eof();
      if (s_[pos_] != '"') return Fail("looking for beginning of object key string");
      if (!String()) return false;
      SkipSpace();
      if (AtEnd()) return Eof();
      if (s_[pos_] != ':') return Fail("after object key");
      ++pos_;
      SkipSpace();
      if (!Value()) return false;
      SkipSpace();
      if (AtEnd()) return Eof();
      if (s_[pos_] == '}') {
        ++pos_;
        return true;
      }
      if (s_[pos_] != ',') return Fail("after object key:value pair");
      ++pos_;
      SkipSpace();
    }
  }

  bool Array() {
    ++pos_;
    SkipSpace();
    if (AtEnd()) return Eof();
    if (s_[pos_] == ']') {
      ++pos_;
      return true;
    }
    for (;;) {
      if (!Value()) return false;
      SkipSpace();
      if (AtEnd()) return Eof();
      if (s_[pos_] == ']') {
        ++pos_;
        return true;
      }
      if (s_[pos_] != ',') return Fail("after array element");
      ++pos_;
      SkipSpace();
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::string err_;
};

// Length of the valid UTF-8 sequence at s[i], or 0 when it is invalid.
size_t Utf8Length(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n;
  uint32_t cp;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
  return n;
}

// Invalid UTF-8 bytes replaced by U+FFFD (as Go's decoder and encoder do).
std::string ValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = Utf8Length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

void QuoteString(const std::string& raw, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  std::string s = ValidUtf8(raw);
  out->push_back('"');
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': *out += "\\\""; continue;
      case '\\': *out += "\\\\"; continue;
      case '\n': *out += "\\n"; continue;
      case '\r': *out += "\\r"; continue;
      case '\t': *out += "\\t"; continue;
      case '\b': *out += "\\b"; continue;
      case '\f': *out += "\\f"; continue;
      default: break;
    }
    if (c < 0x20 || c == '<' || c == '>' || c == '&') {
      *out += "\\u00";
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 0xF]);
      continue;
    }
    // U+2028 and U+2029 (E2 80 A8 / E2 80 A9).
    if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
        (static_cast<unsigned char>(s[i + 2]) == 0xA8 || static_cast<unsigned char>(s[i + 2]) == 0xA9)) {
      *out += static_cast<unsigned char>(s[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
      i += 2;
      continue;
    }
    out->push_back(static_cast<char>(c));
  }
  out->push_back('"');
}

std::string ShortestFloat(double v, std::chars_format format) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, format);
  return std::string(buf, r.ptr);
}

// strconv.FormatFloat(v, 'f', -1, 64): the shortest digits that round-trip,
// padded with zeros (12345678901234567000, not the exact ...168).
std::string ShortestFixed(double v) {
  std::string sci = ShortestFloat(v, std::chars_format::scientific);
  size_t e = sci.find('e');
  int exp = std::stoi(sci.substr(e + 1));
  std::string mantissa = sci.substr(0, e);
  bool negative = !mantissa.empty() && mantissa[0] == '-';
  std::string digits;
  for (char c : mantissa) {
    if (c >= '0' && c <= '9') digits.push_back(c);
  }
  std::string out = negative ? "-" : "";
  if (exp >= 0) {
    size_t int_len = static_cast<size_t>(exp) + 1;
    if (digits.size() <= int_len) {
      out += digits + std::string(int_len - digits.size(), '0');
    } else {
      out += digits.substr(0, int_len) + "." + digits.substr(int_len);
    }
  } else {
    out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  }
  return out;
}

// encoding/json's float64 form.
std::string JsonFloat(double v) {
  if (std::isnan(v) || std::isinf(v)) return "null";  // Go refuses these; jq emits null for nan
  double a = std::fabs(v);
  if (a != 0 && (a < 1e-6 || a >= 1e21)) {
    std::string s = ShortestFloat(v, std::chars_format::scientific);
    size_t n = s.size();
    if (n >= 4 && s[n - 4] == 'e' && s[n - 3] == '-' && s[n - 2] == '0') {
      s[n - 2] = s[n - 1];
      s.pop_back();
    }
    return s;
  }
  return ShortestFixed(v);
}

double NumberOf(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return static_cast<double>(v.get<uint64_t>());
  if (v.is_number_integer()) return static_cast<double>(v.get<int64_t>());
  return v.get<double>();
}

void Marshal(const nlohmann::json& v, const std::string& indent, int depth, std::string* out) {
  auto newline = [&](int d) {
    if (indent.empty()) return;
    out->push_back('\n');
    for (int i = 0; i < d; ++i) *out += indent;
  };
  switch (v.type()) {
    case nlohmann::json::value_t::null: *out += "null"; return;
    case nlohmann::json::value_t::boolean: *out += v.get<bool>() ? "true" : "false"; return;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float: *out += JsonFloat(NumberOf(v)); return;
    case nlohmann::json::value_t::string: QuoteString(v.get_ref<const std::string&>(), out); return;
    case nlohmann::json::value_t::array: {
      if (v.empty()) {
        *out += "[]";
        return;
      }
      out->push_back('[');
      bool first = true;
      for (const auto& item : v) {
        if (!first) out->push_back(',');
        first = false;
        newline(depth + 1);
        Marshal(item, indent, depth + 1, out);
      }
      newline(depth);
      out->push_back(']');
      return;
    }
    case nlohmann::json::value_t::object: {
      if (v.empty()) {
        *out += "{}";
        return;
      }
      out->push_back('{');
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {  // nlohmann::json keeps keys sorted
        if (!first) out->push_back(',');
        first = false;
        newline(depth + 1);
        QuoteString(it.key(), out);
        *out += indent.empty() ? ":" : ": ";
        Marshal(it.value(), indent, depth + 1, out);
      }
      newline(depth);
      out->push_back('}');
      return;
    }
    default: *out += "null"; return;
  }
}

}  // namespace

std::string GoJsonSyntaxError(std::string_view text) { return Scanner(text).Check(); }

bool GoJsonParse(std::string_view text, nlohmann::json* out, std::string* error) {
  std::string err = GoJsonSyntaxError(text);
  if (!err.empty()) {
    *error = err;
    return false;
  }
  try {
    *out = nlohmann::json::parse(ValidUtf8(text));
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
  return true;
}

std::string GoJsonMarshal(const nlohmann::json& value, const std::string& indent) {
  std::string out;
  Marshal(value, indent, 0, &out);
  return out;
}

std::string GoFormatFloatV(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  std::string sci = ShortestFloat(v, std::chars_format::scientific);
  size_t e = sci.find('e');
  int exp = std::stoi(sci.substr(e + 1));
  // strconv.FormatFloat(v, 'g', -1, 64): the shortest digits, in %e form
  // when the exponent is < -4 or >= 6 (Go decides with precision 6).
  if (exp < -4 || exp >= 6) return sci;
  return ShortestFixed(v);
}

}  // namespace dagu
