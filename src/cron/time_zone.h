// Time zone lookup with the conventions of Go's time package, which Dagu
// uses for CRON_TZ=/TZ= prefixes, the config `tz` key (DAGU_TZ) and the
// process local zone. Zones come from the system tzdata through Howard
// Hinnant's date/tz (date::locate_zone); the returned pointers live for the
// whole process.
//
// Known limitation of date/tz 3.0.1 reading the system tzdata: the rule
// footer of a TZif file is ignored, so after the last explicit transition
// (2037 in Debian's "fat" files) a zone keeps its last offset and has no DST.
//
// Thread-safe.
#pragma once

#include <string_view>

#include "core/status.h"

namespace date {
class time_zone;
}

namespace dagu {

// Resolves `name` as Go's time.LoadLocation does: "" and "UTC" are UTC,
// "Local" is LocalZone(), anything else is an IANA name ("Asia/Tokyo",
// "US/Eastern"). InvalidArgument names the zone when it is unknown.
Status LocateZone(std::string_view name, const date::time_zone** out);

// The process local zone as Go computes time.Local: $TZ when set ("" and
// "UTC" are UTC, a leading ':' is dropped, a path under a zoneinfo directory
// names the zone after it, an unknown zone falls back to UTC), otherwise
// /etc/localtime, otherwise UTC. Null only when no tzdata is installed.
const date::time_zone* LocalZone();

}  // namespace dagu
