// LogView: the part of a log file the API returns, in Dagu's Log shape
// {content, lineCount, totalLines, hasMore, isEstimate}. Query parameters
// (all optional): tail=N (last N lines), head=N (first N lines), offset=K
// (1-based first line) with limit=N. Without any, the last 1000 lines.
//
// Memory per request is bounded whatever the file: the file is scanned in
// 64 KiB pieces (once to count lines, once to find the window's offsets)
// and only the window is read; the window is cut to kMaxLogContentBytes
// (hasMore is then true). Files larger than 16 MiB are scanned from their
// last 16 MiB (isEstimate is then true: the line numbers count from there).
//
// The file is opened with O_NONBLOCK|O_NOFOLLOW and must be a regular file:
// a FIFO, a device or a symbolic link in its place is refused at once, so no
// server thread ever blocks on it.
#pragma once

#include <cstddef>
#include <string>

#include "core/status.h"
#include "web/api_views.h"

namespace dagu::web {

struct LogWindow {
  long long tail = 0;    // > 0: the last `tail` lines
  long long head = 0;    // > 0: the first `head` lines
  long long offset = 0;  // > 0: from line `offset` (1-based) ...
  long long limit = 0;   // ... `limit` lines (0 = 1000)
};

inline constexpr size_t kMaxLogContentBytes = 2 << 20;  // content returned per request
inline constexpr size_t kMaxLogScanBytes = 16 << 20;    // of a file's end, scanned

// The window of the log file at `path`. NotFound when the file does not
// exist (a step that has not started yet has no log); PermissionDenied when
// it is not a regular file. Messages name the file by its base name only.
Status ReadLogFile(const std::string& path, const LogWindow& window, ApiJson* out);

}  // namespace dagu::web
