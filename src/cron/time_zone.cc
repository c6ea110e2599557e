#include "cron/time_zone.h"

#include <cstdlib>
#include <exception>
#include <string>

#include <date/tz.h>

namespace dagu {
namespace {

const date::time_zone* TryLocate(std::string_view name) {
  try {
    return date::locate_zone(name);
  } catch (const std::exception&) {
    return nullptr;
  }
}

const date::time_zone* UtcZone() {
  const date::time_zone* zone = TryLocate("UTC");
  return zone != nullptr ? zone : TryLocate("Etc/UTC");
}

const date::time_zone* SystemLocalZone() {
  try {
    return date::current_zone();
  } catch (const std::exception&) {
    return nullptr;
  }
}

// The zone a TZ environment value names, or null (Go then uses UTC).
const date::time_zone* ZoneFromTzVariable(std::string_view tz) {
  if (!tz.empty() && tz.front() == ':') tz.remove_prefix(1);
  if (tz.empty() || tz == "UTC") return nullptr;
  if (tz.front() != '/') return TryLocate(tz);
  if (tz == "/etc/localtime") return SystemLocalZone();
  constexpr std::string_view kZoneInfo = "zoneinfo/";
  size_t at = tz.rfind(kZoneInfo);
  if (at == std::string_view::npos) return nullptr;
  return TryLocate(tz.substr(at + kZoneInfo.size()));
}

}  // namespace

Status LocateZone(std::string_view name, const date::time_zone** out) {
  const date::time_zone* zone = nullptr;
  if (name.empty() || name == "UTC") {
    zone = UtcZone();
  } else if (name == "Local") {
    zone = LocalZone();
  } else {
    zone = TryLocate(name);
  }
  if (zone == nullptr) {
    return Status::InvalidArgument("unknown time zone \"" + std::string(name) +
                                   "\" (expected an IANA name such as \"Europe/Berlin\" from the system tzdata)");
  }
  *out = zone;
  return Status::OK();
}

const date::time_zone* LocalZone() {
  const char* tz = std::getenv("TZ");
  const date::time_zone* zone = tz != nullptr ? ZoneFromTzVariable(tz) : SystemLocalZone();
  return zone != nullptr ? zone : UtcZone();
}

}  // namespace dagu
