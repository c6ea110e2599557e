// LogView: the part of a log file the API returns, in Dagu's Log shape
// {content, lineCount, totalLines, hasMore, isEstimate}. Query parameters
// (all optional): tail=N (last N lines), head=N (first N lines), offset=K
// (1-based first line) with limit=N. Without any, the last 1000 lines.
// Files larger than 16 MiB are read from their last 16 MiB (isEstimate is
// then true: the line numbers count from there).
#pragma once

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

// The window of `text`.
ApiJson LogJson(const std::string& text, const LogWindow& window, bool truncated);

// Reads the file at `path` and returns LogJson of it. NotFound when the file
// does not exist (a step that has not started yet has no log).
Status ReadLogFile(const std::string& path, const LogWindow& window, ApiJson* out);

}  // namespace dagu::web
