// Process exit statuses, as fixed in docs/decisions.md §4.
#pragma once

namespace dagu {

inline constexpr int kExitOk = 0;          // stopped cleanly (SIGINT/SIGTERM) or command succeeded
inline constexpr int kExitFailure = 1;     // a command failed (a run failed, a bad argument)
inline constexpr int kExitSoftware = 70;   // EX_SOFTWARE: internal error
inline constexpr int kExitTempFail = 75;   // EX_TEMPFAIL: lost the scheduler lock; restart me
inline constexpr int kExitConfig = 78;     // EX_CONFIG: bad configuration or unusable data directory

}  // namespace dagu
