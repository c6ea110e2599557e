// RunLog: the run's own log file (the `log` path of the status record), in
// Dagu's logfmt shape:
//   time=2026-12-02T17:18:18.541Z level=INFO msg="DAG run started" name=hello run-id=demo-1
// Opened in append mode, so a retry adds to the log of the first attempt as
// Dagu does. Thread-safe; write errors are ignored (the log is best effort).
#pragma once

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "secrets/secrets.h"

namespace dagu {

class RunLog {
 public:
  using Fields = std::vector<std::pair<std::string, std::string>>;

  explicit RunLog(Clock* clock) : clock_(clock) {}
  ~RunLog();
  RunLog(const RunLog&) = delete;
  RunLog& operator=(const RunLog&) = delete;

  Status Open(const std::string& path);
  // Every line written from now on has the secret values of `masker` masked
  // (not owned; must outlive the log). Call before the run's threads start.
  void SetMasker(const Masker* masker) { masker_ = masker; }
  void Info(const std::string& msg, const Fields& fields = {}) { Write("INFO", msg, fields); }
  void Warn(const std::string& msg, const Fields& fields = {}) { Write("WARN", msg, fields); }
  void Error(const std::string& msg, const Fields& fields = {}) { Write("ERROR", msg, fields); }

  // One logfmt line without the trailing newline.
  static std::string FormatLine(WallTime t, const std::string& level, const std::string& msg, const Fields& fields);

 private:
  void Write(const char* level, const std::string& msg, const Fields& fields);

  Clock* clock_;
  const Masker* masker_ = nullptr;
  std::mutex mu_;
  int fd_ = -1;
};

}  // namespace dagu
