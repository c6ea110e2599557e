#include "web/log_view.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace dagu::web {
namespace {

constexpr long long kDefaultLines = 1000;
constexpr size_t kPiece = 64 * 1024;

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// An open file descriptor, closed on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Calls fn(offset, piece) for the bytes of [begin, end) in kPiece pieces;
// stops early when fn returns false or the file ends sooner.
template <class Fn>
Status Scan(int fd, off_t begin, off_t end, std::vector<char>& buf, Fn fn) {
  for (off_t at = begin; at < end;) {
    size_t want = static_cast<size_t>(std::min<off_t>(end - at, static_cast<off_t>(buf.size())));
    ssize_t n = ::pread(fd, buf.data(), want, at);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(errno, "reading the log");
    }
    if (n == 0) break;
    if (!fn(at, std::string_view(buf.data(), static_cast<size_t>(n)))) break;
    at += n;
  }
  return Status::OK();
}

}  // namespace

Status ReadLogFile(const std::string& path, const LogWindow& w, ApiJson* out) {
  const std::string name = BaseName(path);
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    if (errno == ENOENT) return Status::NotFound("log file " + name + " does not exist");
    if (errno == ELOOP) return Status::PermissionDenied("log file " + name + " is a symbolic link; not served");
    return Status::FromErrno(errno, "opening log file " + name);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Status::FromErrno(errno, "reading log file " + name);
  if (!S_ISREG(st.st_mode)) return Status::PermissionDenied("log file " + name + " is not a regular file; not served");

  std::vector<char> buf(kPiece);
  off_t end = st.st_size;
  off_t begin = 0;
  bool truncated = end > static_cast<off_t>(kMaxLogScanBytes);
  if (truncated) {
    // Start after the first newline of the last 16 MiB (drop a partial line).
    begin = end - static_cast<off_t>(kMaxLogScanBytes);
    off_t first_nl = -1;
    DAGU_RETURN_IF_ERROR(Scan(fd.get(), begin, end, buf, [&](off_t at, std::string_view piece) {
      size_t nl = piece.find('\n');
      if (nl == std::string_view::npos) return true;
      first_nl = at + static_cast<off_t>(nl);
      return false;
    }));
    begin = first_nl < 0 ? end : first_nl + 1;
  }

  // Pass 1: lines in [begin, end). A last line without a newline counts.
  long long newlines = 0;
  char last = '\n';
  off_t seen_end = begin;
  DAGU_RETURN_IF_ERROR(Scan(fd.get(), begin, end, buf, [&](off_t at, std::string_view piece) {
    newlines += std::count(piece.begin(), piece.end(), '\n');
    last = piece.back();
    seen_end = at + static_cast<off_t>(piece.size());
    return true;
  }));
  end = seen_end;  // a file that shrank meanwhile
  long long total = newlines + (end > begin && last != '\n' ? 1 : 0);

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

  // Pass 2: the byte range of lines [first, first + count).
  off_t from = begin, to = begin;
  if (count > 0) {
    long long line = 0;
    bool from_found = first == 0;
    to = end;
    DAGU_RETURN_IF_ERROR(Scan(fd.get(), begin, end, buf, [&](off_t at, std::string_view piece) {
      for (size_t i = 0; i < piece.size(); ++i) {
        if (piece[i] != '\n') continue;
        ++line;  // line numbers (0-based) below are of the line after this newline
        if (!from_found && line == first) {
          from = at + static_cast<off_t>(i) + 1;
          from_found = true;
        }
        if (line == first + count) {
          to = at + static_cast<off_t>(i);  // without the last line's newline
          return false;
        }
      }
      return true;
    }));
  }

  // Cut the window to kMaxLogContentBytes at a line boundary: keep its end
  // when the window shows the end of the log (tail, default), else its start.
  bool shows_end = w.head <= 0 && w.offset <= 0;
  bool cut = false;
  if (to - from > static_cast<off_t>(kMaxLogContentBytes)) {
    cut = true;
    if (shows_end) {
      from = to - static_cast<off_t>(kMaxLogContentBytes);
    } else {
      to = from + static_cast<off_t>(kMaxLogContentBytes);
    }
  }
  std::string content(static_cast<size_t>(to - from), '\0');
  size_t got = 0;
  while (got < content.size()) {
    ssize_t n = ::pread(fd.get(), content.data() + got, content.size() - got, from + static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, "reading log file " + name);
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  content.resize(got);
  if (cut) {
    if (shows_end) {
      size_t nl = content.find('\n');  // drop the partial first line
      content.erase(0, nl == std::string::npos ? content.size() : nl + 1);
    } else {
      size_t nl = content.rfind('\n');  // drop the partial last line
      content.resize(nl == std::string::npos ? 0 : nl);
    }
    long long kept = content.empty() ? 0 : std::count(content.begin(), content.end(), '\n') + 1;
    if (shows_end) first += count - kept;
    count = kept;
  }
  *out = ApiJson{{"content", content},
                 {"lineCount", count},
                 {"totalLines", total},
                 {"hasMore", first + count < total || first > 0},
                 {"isEstimate", truncated}};
  return Status::OK();
}

}  // namespace dagu::web
