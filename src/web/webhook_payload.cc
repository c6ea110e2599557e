#include "web/webhook_payload.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace dagu::web {
namespace {

void AppendUnicodeEscape(unsigned code, std::string* out) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "\\u%04x", code);
  *out += buf;
}

void AppendString(const std::string& s, std::string* out) {
  *out += '"';
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '\n': *out += "\\n"; continue;
      case '\r': *out += "\\r"; continue;
      case '\t': *out += "\\t"; continue;
      case '"':
      case '\\':
      case '`':
      case '$':
      case '<':
      case '>':
      case '&': AppendUnicodeEscape(c, out); continue;
      default: break;
    }
    if (c < 0x20) {
      AppendUnicodeEscape(c, out);
    } else if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(s[i + 2]) == 0xA8 || static_cast<unsigned char>(s[i + 2]) == 0xA9)) {
      AppendUnicodeEscape(static_cast<unsigned char>(s[i + 2]) == 0xA8 ? 0x2028 : 0x2029, out);
      i += 2;
    } else {
      *out += static_cast<char>(c);
    }
  }
  *out += '"';
}

void Append(const nlohmann::ordered_json& v, std::string* out) {
  if (v.is_object()) {
    std::vector<const std::string*> keys;
    for (auto it = v.begin(); it != v.end(); ++it) keys.push_back(&it.key());
    std::sort(keys.begin(), keys.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
    *out += '{';
    for (size_t k = 0; k < keys.size(); ++k) {
      if (k > 0) *out += ',';
      AppendString(*keys[k], out);
      *out += ':';
      Append(v.at(*keys[k]), out);
    }
    *out += '}';
  } else if (v.is_array()) {
    *out += '[';
    for (size_t k = 0; k < v.size(); ++k) {
      if (k > 0) *out += ',';
      Append(v[k], out);
    }
    *out += ']';
  } else if (v.is_string()) {
    AppendString(v.get<std::string>(), out);
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    // Go prints a float64 with an integral value below 1e21 without a fraction.
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15) {
      *out += std::to_string(static_cast<long long>(d));
    } else {
      *out += v.dump();
    }
  } else {
    *out += v.dump();  // integers, booleans, null
  }
}

}  // namespace

std::string WebhookPayloadText(const nlohmann::ordered_json& payload) {
  std::string out;
  Append(payload, &out);
  return out;
}

std::string WebhookParams(const std::string& payload_text) {
  std::string out = "WEBHOOK_PAYLOAD=\"";
  for (char c : payload_text) {
    if (c == '"') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace dagu::web
