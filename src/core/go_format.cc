#include "core/go_format.h"

#include <signal.h>

#include <charconv>
#include <cmath>
#include <cstdio>

namespace dagu {

void AppendUtf8(std::string* out, uint32_t r) {
  if (r < 0x80) {
    *out += static_cast<char>(r);
  } else if (r < 0x800) {
    *out += static_cast<char>(0xC0 | (r >> 6));
    *out += static_cast<char>(0x80 | (r & 0x3F));
  } else if (r < 0x10000) {
    *out += static_cast<char>(0xE0 | (r >> 12));
    *out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (r & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (r >> 18));
    *out += static_cast<char>(0x80 | ((r >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (r & 0x3F));
  }
}

bool DecodeUtf8Rune(std::string_view s, size_t* i, uint32_t* r) {
  const auto b = static_cast<unsigned char>(s[*i]);
  int len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || *i + len > s.size()) {
    ++*i;
    return false;
  }
  uint32_t v = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
  for (int k = 1; k < len; ++k) {
    auto c = static_cast<unsigned char>(s[*i + k]);
    if ((c & 0xC0) != 0x80) {
      ++*i;
      return false;
    }
    v = (v << 6) | (c & 0x3F);
  }
  *i += len;
  *r = v;
  return true;
}

std::string GoFormatFloat(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);  // d.ddde[+-]x
  size_t e = sci.find('e');
  std::string mant = sci.substr(0, e);
  int exp = std::stoi(sci.substr(e + 1));
  bool neg = !mant.empty() && mant[0] == '-';
  if (neg) mant.erase(0, 1);
  std::string digits;
  for (char c : mant) {
    if (c != '.') digits += c;
  }
  std::string out;
  if (exp < -4 || exp >= 6) {  // strconv's %g with the shortest precision
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += eb;
  } else if (exp < 0) {
    out = "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  } else if (static_cast<size_t>(exp) + 1 >= digits.size()) {
    out = digits + std::string(static_cast<size_t>(exp) + 1 - digits.size(), '0');
  } else {
    out = digits.substr(0, static_cast<size_t>(exp) + 1) + "." + digits.substr(static_cast<size_t>(exp) + 1);
  }
  return neg ? "-" + out : out;
}

std::string GoFormatJson(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "<nil>";
    case nlohmann::json::value_t::boolean: return v.get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::string: return v.get<std::string>();
    case nlohmann::json::value_t::number_integer: return std::to_string(v.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return std::to_string(v.get<uint64_t>());
    case nlohmann::json::value_t::number_float: {
      double d = v.get<double>();
      if (std::trunc(d) == d && std::fabs(d) < 9.2e18) return std::to_string(static_cast<int64_t>(d));
      return GoFormatFloat(d);
    }
    case nlohmann::json::value_t::array: {
      std::string out = "[";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? " " : "") + GoFormatJson(v[i]);
      return out + "]";
    }
    case nlohmann::json::value_t::object: {
      std::string out = "map[";
      bool first = true;
      for (const auto& [k, x] : v.items()) {  // nlohmann keeps keys sorted
        out += (first ? "" : " ") + k + ":" + GoFormatJson(x);
        first = false;
      }
      return out + "]";
    }
    default: return v.dump();
  }
}

std::string GoQuote(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    uint32_t r = 0;
    if (!DecodeUtf8Rune(s, &i, &r)) {
      auto b = static_cast<unsigned char>(s[start]);
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 0xF];
      continue;
    }
    switch (r) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\a': out += "\\a"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\v': out += "\\v"; continue;
      default: break;
    }
    if ((r >= 0x20 && r < 0x7F) || (r >= 0xA0 && r != 0xAD && r < 0x110000)) {
      AppendUtf8(&out, r);
    } else if (r < 0x20 || r == 0x7F) {
      out += "\\x";
      out += kHex[r >> 4];
      out += kHex[r & 0xF];
    } else {
      char buf[16];
      std::snprintf(buf, sizeof buf, r < 0x10000 ? "\\u%04x" : "\\U%08x", r);
      out += buf;
    }
  }
  return out + "\"";
}

std::string SignalText(int sig) {
  switch (sig) {
    case SIGTERM: return "signal: terminated";
    case SIGKILL: return "signal: killed";
    case SIGINT: return "signal: interrupt";
    case SIGHUP: return "signal: hangup";
    case SIGQUIT: return "signal: quit";
    case SIGUSR1: return "signal: user defined signal 1";
    case SIGUSR2: return "signal: user defined signal 2";
    case SIGABRT: return "signal: aborted";
    case SIGALRM: return "signal: alarm clock";
    case SIGPIPE: return "signal: broken pipe";
    default: return "signal: " + std::to_string(sig);
  }
}

std::string GoExitErrorText(int exit_code, int term_signal) {
  return term_signal != 0 ? SignalText(term_signal) : "exit status " + std::to_string(exit_code);
}

}  // namespace dagu
