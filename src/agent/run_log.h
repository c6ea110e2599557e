// RunLog: the run's own log file (the `log` path of the status record), in
// Dagu's logfmt shape:
//   time=2026-12-02T17:18:18.541Z level=INFO msg="DAG run started" name=hello run-id=demo-1
// Opened in append mode, so a retry adds to the log of the first attempt as
// Dagu does. Every line can also go to an injected echo (the CLI's stderr,
// as `dagu start` shows them) and starts with the run's context fields
// (SetContext). Thread-safe; write errors are ignored (the log is best effort).
#pragma once

#include <functional>
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
  // Gets each line (with its newline) after the file; may block, so it is
  // called without the log's mutex.
  using Echo = std::function<void(const std::string& line)>;

  explicit RunLog(const Clock* clock) : clock_(clock) {}
  ~RunLog();
  RunLog(const RunLog&) = delete;
  RunLog& operator=(const RunLog&) = delete;

  Status Open(const std::string& path);
  // Every line written from now on has the secret values of `masker` masked
  // (not owned; must outlive the log). Call before the run's threads start.
  void SetMasker(const Masker* masker) { masker_ = masker; }
  // Both before the run's threads start.
  void SetEcho(Echo echo) { echo_ = std::move(echo); }
  void SetContext(Fields context) { context_ = std::move(context); }
  // A line: the context fields, then `fields`.
  void Info(const std::string& msg, const Fields& fields = {}) { Write("INFO", msg, fields, true); }
  void Warn(const std::string& msg, const Fields& fields = {}) { Write("WARN", msg, fields, true); }
  void Error(const std::string& msg, const Fields& fields = {}) { Write("ERROR", msg, fields, true); }
  // A line with `fields` only (what 1.30.2's command layer writes).
  void ErrorNoContext(const std::string& msg, const Fields& fields) { Write("ERROR", msg, fields, false); }

  // Whether 1.30.2 writes "Step started" for the step (or handler) named
  // `name`: not for the handlers (onInit, onSuccess, ...).
  static bool LogsStepStart(const std::string& name);

  // One logfmt line without the trailing newline.
  static std::string FormatLine(WallTime t, const std::string& level, const std::string& msg, const Fields& fields);

 private:
  void Write(const char* level, const std::string& msg, const Fields& fields, bool with_context);

  const Clock* clock_;
  const Masker* masker_ = nullptr;
  Echo echo_;
  Fields context_;
  std::mutex mu_;
  int fd_ = -1;
};

}  // namespace dagu
