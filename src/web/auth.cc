#include "web/auth.h"

#include <cctype>

#include "core/base64.h"

namespace dagu::web {
namespace {

// Compares without an early exit so timing does not reveal the matching prefix.
bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  unsigned diff = a.size() == b.size() ? 0U : 1U;
  for (size_t i = 0; i < b.size(); ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    diff |= x ^ static_cast<unsigned char>(b[i]);
  }
  return diff == 0;
}

// The credentials after "<scheme> " when the header uses that scheme
// (case-insensitive), else nullopt.
std::optional<std::string_view> Credentials(std::string_view header, std::string_view scheme) {
  if (header.size() <= scheme.size() || header[scheme.size()] != ' ') return std::nullopt;
  for (size_t i = 0; i < scheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(header[i])) != std::tolower(static_cast<unsigned char>(scheme[i]))) {
      return std::nullopt;
    }
  }
  std::string_view rest = header.substr(scheme.size() + 1);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
  return rest;
}

}  // namespace

Authenticator::Authenticator(AuthConfig config) : config_(std::move(config)) {}

bool Authenticator::enabled() const {
  return config_.basic_enabled || (config_.token_enabled && !config_.token.empty());
}

bool Authenticator::Allows(std::string_view header) const {
  if (!enabled()) return true;
  if (config_.basic_enabled) {
    if (auto encoded = Credentials(header, "Basic")) {
      std::string decoded;
      if (Base64Decode(*encoded, &decoded)) {
        std::string expected = config_.basic_username + ":" + config_.basic_password;
        if (ConstantTimeEquals(decoded, expected)) return true;
      }
    }
  }
  if (config_.token_enabled && !config_.token.empty()) {
    if (auto token = Credentials(header, "Bearer")) {
      if (ConstantTimeEquals(*token, config_.token)) return true;
    }
  }
  return false;
}

std::string Authenticator::Challenge() const {
  if (config_.basic_enabled) return "Basic realm=\"dagu\"";
  if (enabled()) return "Bearer realm=\"dagu\"";
  return "";
}

}  // namespace dagu::web
