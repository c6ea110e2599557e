// Parses the five whitespace-separated fields of a cron expression
// ("minute hour day-of-month month day-of-week") exactly as robfig/cron
// v3.0.1's standard parser does (Dagu's parser), including its quirks:
//   - items are comma-separated; empty items are ignored ("1,,2" = "1,2");
//   - an item is '*' or '?' (the whole range), "a", "a-b", each optionally
//     followed by "/step"; "a/step" means "a-max/step";
//   - after a leading '*' or '?' anything up to a '/' is ignored ("*-5" = "*");
//   - numbers are decimal, an optional leading '+' is allowed;
//   - names JAN..DEC and SUN..SAT (any case) only in the month and
//     day-of-week fields; day-of-week is 0..6 (7 is rejected);
//   - steps larger than the range are allowed ("*/90" = "0").
// No seconds field, no descriptors (@daily ...), no Quartz extensions (L, W, #).
#pragma once

#include <string_view>

#include "core/status.h"
#include "cron/cron_fields.h"

namespace dagu {

// Parses `text` (exactly five fields) into `out`. InvalidArgument names the
// field and the item at fault, e.g.
//   day-of-week field "1-7": end of range (7) above maximum (6)
// The caller adds the whole expression.
Status ParseCronFields(std::string_view text, CronFields* out);

}  // namespace dagu
