#include "agent/run_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "core/time_format.h"

namespace dagu {
namespace {

// A logfmt value: bare when it has no space, quote, '=' or control char.
std::string Quote(const std::string& v) {
  bool bare = !v.empty();
  for (char c : v) {
    if (c == ' ' || c == '"' || c == '=' || static_cast<unsigned char>(c) < 0x20) bare = false;
  }
  if (bare) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

RunLog::~RunLog() {
  if (fd_ >= 0) ::close(fd_);
}

Status RunLog::Open(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return Status::FromErrno(errno, "open run log " + path);
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
  return Status::OK();
}

bool RunLog::LogsStepStart(const std::string& name) {
  for (const char* handler : {"onInit", "onSuccess", "onFailure", "onCancel", "onExit", "onWait"}) {
    if (name == handler) return false;
  }
  return true;
}

std::string RunLog::FormatLine(WallTime t, const std::string& level, const std::string& msg, const Fields& fields) {
  std::string ms = FormatCompactMillisUTC(t);  // YYYYMMDD_HHMMSS_mmm
  std::string time = FormatRFC3339UTC(t);      // ...:SSZ
  time.insert(time.size() - 1, "." + ms.substr(16));
  std::string line = "time=" + time + " level=" + level + " msg=" + Quote(msg);
  for (const auto& [k, v] : fields) line += " " + k + "=" + Quote(v);
  return line;
}

void RunLog::Write(const char* level, const std::string& msg, const Fields& fields, bool with_context) {
  std::string line;
  if (with_context && !context_.empty()) {
    Fields all = context_;
    all.insert(all.end(), fields.begin(), fields.end());
    line = FormatLine(clock_->Now(), level, msg, all) + "\n";
  } else {
    line = FormatLine(clock_->Now(), level, msg, fields) + "\n";
  }
  if (masker_ != nullptr) line = masker_->Mask(line);
  {
    std::lock_guard<std::mutex> l(mu_);
    if (fd_ >= 0) (void)!::write(fd_, line.data(), line.size());
  }
  if (echo_) echo_(line);
}

}  // namespace dagu
