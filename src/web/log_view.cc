#include "web/log_view.h"

#include <cerrno>
#include <fstream>
#include <vector>

namespace dagu::web {
namespace {

constexpr long long kDefaultLines = 1000;
constexpr std::streamoff kMaxBytes = 16 << 20;

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

}  // namespace

ApiJson LogJson(const std::string& text, const LogWindow& w, bool truncated) {
  std::vector<std::string> lines = SplitLines(text);
  long long total = static_cast<long long>(lines.size());
  long long first = 0, count = 0;
  if (w.tail > 0) {
    count = std::min(w.tail, total);
    first = total - count;
  } else if (w.head > 0) {
    count = std::min(w.head, total);
  } else if (w.offset > 0) {
    first = std::min(w.offset - 1, total);
    count = std::min(w.limit > 0 ? w.limit : kDefaultLines, total - first);
  } else {
    count = std::min(kDefaultLines, total);
    first = total - count;
  }
  std::string content;
  for (long long i = first; i < first + count; ++i) {
    if (i > first) content += '\n';
    content += lines[static_cast<size_t>(i)];
  }
  return ApiJson{{"content", content},
                 {"lineCount", count},
                 {"totalLines", total},
                 {"hasMore", first + count < total || first > 0},
                 {"isEstimate", truncated}};
}

Status ReadLogFile(const std::string& path, const LogWindow& window, ApiJson* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    if (errno == ENOENT) return Status::NotFound("log file " + path + " does not exist");
    return Status::FromErrno(errno, "reading log file " + path);
  }
  f.seekg(0, std::ios::end);
  std::streamoff size = f.tellg();
  bool truncated = size > kMaxBytes;
  f.seekg(truncated ? size - kMaxBytes : 0);
  std::string text(static_cast<size_t>(truncated ? kMaxBytes : size), '\0');
  f.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(f.gcount()));
  if (truncated) {
    size_t nl = text.find('\n');  // drop the partial first line
    text.erase(0, nl == std::string::npos ? text.size() : nl + 1);
  }
  *out = LogJson(text, window, truncated);
  return Status::OK();
}

}  // namespace dagu::web
