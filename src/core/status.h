// Status: the result of an operation that can fail, in the LevelDB style.
// An OK status carries nothing; an error carries a code and a message that
// names what failed (a path, a key, a value), ready to show to an operator.
//
// A Status must not be dropped silently: handle it, return it, or say that
// dropping it is deliberate with LogIfError("what was being done") or
// IgnoreError(). With DAGU_STATUS_NODISCARD defined (the CMake option of the
// same name) the compiler refuses a dropped Status.
#pragma once

#include <string>
#include <string_view>

#ifdef DAGU_STATUS_NODISCARD
#define DAGU_MUST_USE_RESULT [[nodiscard]]
#else
#define DAGU_MUST_USE_RESULT
#endif

namespace dagu {

class DAGU_MUST_USE_RESULT Status {
 public:
  enum class Code {
    kOk = 0,
    kNotFound,
    kAlreadyExists,
    kInvalidArgument,
    kIOError,
    kNoSpace,
    kPermissionDenied,
    kCorruption,
    kTimedOut,
    kBusy,
    kNotSupported,
    kAborted,
  };

  Status() = default;

  static Status OK() { return Status(); }
  static Status NotFound(std::string_view msg) { return Status(Code::kNotFound, msg); }
  static Status AlreadyExists(std::string_view msg) { return Status(Code::kAlreadyExists, msg); }
  static Status InvalidArgument(std::string_view msg) { return Status(Code::kInvalidArgument, msg); }
  static Status IOError(std::string_view msg) { return Status(Code::kIOError, msg); }
  static Status NoSpace(std::string_view msg) { return Status(Code::kNoSpace, msg); }
  static Status PermissionDenied(std::string_view msg) { return Status(Code::kPermissionDenied, msg); }
  static Status Corruption(std::string_view msg) { return Status(Code::kCorruption, msg); }
  static Status TimedOut(std::string_view msg) { return Status(Code::kTimedOut, msg); }
  static Status Busy(std::string_view msg) { return Status(Code::kBusy, msg); }
  static Status NotSupported(std::string_view msg) { return Status(Code::kNotSupported, msg); }
  static Status Aborted(std::string_view msg) { return Status(Code::kAborted, msg); }

  // Maps an errno value to a code; the message is "<context>: <strerror>".
  static Status FromErrno(int err, std::string_view context);

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsAlreadyExists() const { return code_ == Code::kAlreadyExists; }
  bool IsTimedOut() const { return code_ == Code::kTimedOut; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }

  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // "OK" or "<code name>: <message>".
  std::string ToString() const;

  // Returns a copy whose message is "<prefix>: <message>".
  Status WithContext(std::string_view prefix) const;

  // A deliberate drop: logs a warning "<what>: <ToString()>" unless OK.
  void LogIfError(std::string_view what) const;
  // A deliberate drop of a status that does not matter where it is dropped
  // (say why in a comment).
  void IgnoreError() const {}

 private:
  Status(Code code, std::string_view msg) : code_(code), message_(msg) {}

  Code code_ = Code::kOk;
  std::string message_;
};

const char* CodeName(Status::Code code);

}  // namespace dagu

// Returns early from the enclosing function when `expr` is not OK.
#define DAGU_RETURN_IF_ERROR(expr)          \
  do {                                      \
    ::dagu::Status _dagu_status = (expr);   \
    if (!_dagu_status.ok()) return _dagu_status; \
  } while (0)
