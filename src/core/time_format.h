// Time formatting and parsing in the exact shapes Dagu writes on disk and in
// run IDs (see docs/storage.md):
//
//   RFC3339 (whole seconds)    2026-12-02T16:24:40Z / 2026-12-02T17:24:40+01:00
//   RFC3339Nano (Go style)     2026-12-02T16:24:40.472371856Z (trailing zeros trimmed)
//   compact                    20261202_162440            (run dirs, proc files, log dirs)
//   compact millis             20261202_162440_414        (attempt dirs)
//   compact nanos              20261202_162440_472371856  (queue item names)
//   log stamp                  20261202.162440.413        (log file names)
//   slot                       20261202T162440            (scheduled run IDs)
//   date path                  2026/12/02                 (date partitions)
//
// "Local" means the process's zone as set by the TZ environment variable
// (the CLI exports the config's `tz` as TZ, as Dagu does for its children).
// All functions are thread-safe and never throw.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/status.h"

namespace dagu {

// RFC3339 with whole seconds, in UTC ("...Z").
std::string FormatRFC3339UTC(WallTime t);
// RFC3339 with whole seconds, in the local zone ("Z" when the offset is 0,
// else "+hh:mm"), as Go's time.Format(time.RFC3339) writes a local time.
std::string FormatRFC3339Local(WallTime t);
// Go's RFC3339Nano in UTC: fraction up to 9 digits, trailing zeros trimmed,
// no fraction when it is zero.
std::string FormatRFC3339NanoUTC(WallTime t);

// Parses RFC3339 / RFC3339Nano with any offset ("Z", "+hh:mm", "-hh:mm").
// "" and "-" (Dagu's "unset") give *is_set = false and OK. Anything else that
// does not parse is InvalidArgument naming the text.
Status ParseRFC3339(std::string_view text, WallTime* out, bool* is_set);

std::string FormatCompactUTC(WallTime t);        // YYYYMMDD_HHMMSS
std::string FormatCompactMillisUTC(WallTime t);  // YYYYMMDD_HHMMSS_mmm
std::string FormatCompactNanosUTC(WallTime t);   // YYYYMMDD_HHMMSS_nnnnnnnnn
std::string FormatLogStampLocal(WallTime t);     // YYYYMMDD.HHMMSS.mmm (local zone)
std::string FormatSlotUTC(WallTime t);           // YYYYMMDDTHHMMSS
std::string FormatDatePathUTC(WallTime t);       // YYYY/MM/DD

// Parses "YYYYMMDD_HHMMSS" (UTC). InvalidArgument on anything else.
Status ParseCompactUTC(std::string_view text, WallTime* out);
// Parses "YYYYMMDD_HHMMSS_<1-9 digits>" (UTC); the fraction is scaled to its
// digit count (3 digits = millis, 9 = nanos).
Status ParseCompactFractionUTC(std::string_view text, WallTime* out);

// Unix milliseconds / seconds of a wall time, and back.
int64_t UnixMillis(WallTime t);
int64_t UnixSeconds(WallTime t);
WallTime FromUnixMillis(int64_t ms);
WallTime FromUnixSeconds(int64_t s);

}  // namespace dagu
