#include "core/status.h"

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

namespace dagu {

const char* CodeName(Status::Code code) {
  switch (code) {
    case Status::Code::kOk: return "OK";
    case Status::Code::kNotFound: return "not found";
    case Status::Code::kAlreadyExists: return "already exists";
    case Status::Code::kInvalidArgument: return "invalid argument";
    case Status::Code::kIOError: return "I/O error";
    case Status::Code::kNoSpace: return "no space";
    case Status::Code::kPermissionDenied: return "permission denied";
    case Status::Code::kCorruption: return "corruption";
    case Status::Code::kTimedOut: return "timed out";
    case Status::Code::kBusy: return "busy";
    case Status::Code::kNotSupported: return "not supported";
    case Status::Code::kAborted: return "aborted";
  }
  return "unknown";
}

Status Status::FromErrno(int err, std::string_view context) {
  std::string msg(context);
  msg += ": ";
  msg += std::strerror(err);
  switch (err) {
    case ENOENT: case ENOTDIR: return NotFound(msg);
    case EEXIST: case ENOTEMPTY: return AlreadyExists(msg);
    case ENOSPC: case EDQUOT: return NoSpace(msg);
    case EACCES: case EPERM: case EROFS: return PermissionDenied(msg);
    case ETIMEDOUT: return TimedOut(msg);
    case EBUSY: case EAGAIN: return Busy(msg);
    case EINVAL: return InvalidArgument(msg);
    default: return IOError(msg);
  }
}

void Status::LogIfError(std::string_view what) const {
  if (!ok()) spdlog::warn("{}: {}", what, ToString());
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(CodeName(code_)) + ": " + message_;
}

Status Status::WithContext(std::string_view prefix) const {
  if (ok()) return *this;
  std::string msg(prefix);
  msg += ": ";
  msg += message_;
  return Status(code_, msg);
}

}  // namespace dagu
