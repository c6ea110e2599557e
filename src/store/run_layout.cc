#include "store/run_layout.h"

#include <cstdint>
#include <cstdio>
#include <random>

#include "core/file_system.h"
#include "core/time_format.h"
#include "dag/dag_names.h"

namespace dagu {
namespace {

constexpr std::string_view kRunPrefix = "dag-run_";
constexpr std::string_view kAttemptPrefix = "attempt_";

uint64_t RandomBits() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng();
}

std::string ShortId(std::string_view run_id) { return std::string(run_id.substr(0, 8)); }

}  // namespace

Status ValidateRunId(std::string_view id) {
  auto bad = [&](const char* why) {
    return Status::InvalidArgument("invalid run ID \"" + std::string(id) + "\": " + why);
  };
  if (id.empty()) return bad("it is empty");
  if (id.size() > kMaxRunIdLength) return bad("it is longer than 64 characters");
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (!ok) return bad("only letters, digits, '-' and '_' are allowed");
  }
  return Status::OK();
}

std::string NewUuidV7(WallTime now) {
  uint64_t ms = static_cast<uint64_t>(UnixMillis(now));
  uint64_t r1 = RandomBits();
  uint64_t r2 = RandomBits();
  uint8_t b[16];
  for (int i = 0; i < 6; ++i) b[i] = static_cast<uint8_t>(ms >> (8 * (5 - i)));
  for (int i = 6; i < 16; ++i) b[i] = static_cast<uint8_t>(i < 11 ? r1 >> (8 * (i - 6)) : r2 >> (8 * (i - 11)));
  b[6] = static_cast<uint8_t>(0x70 | (b[6] & 0x0f));  // version 7
  b[8] = static_cast<uint8_t>(0x80 | (b[8] & 0x3f));  // RFC 4122 variant
  char out[37];
  std::snprintf(out, sizeof out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return out;
}

std::string NewAttemptId() {
  char out[7];
  std::snprintf(out, sizeof out, "%06x", static_cast<unsigned>(RandomBits() & 0xffffff));
  return out;
}

std::string RunDirName(WallTime created, std::string_view run_id) {
  return std::string(kRunPrefix) + FormatCompactUTC(created) + "Z_" + std::string(run_id);
}

bool ParseRunDirName(std::string_view name, WallTime* created, std::string* run_id) {
  // dag-run_YYYYMMDD_HHMMSSZ_<id>
  if (name.substr(0, kRunPrefix.size()) != kRunPrefix) return false;
  std::string_view rest = name.substr(kRunPrefix.size());
  if (rest.size() < 18 || rest[15] != 'Z' || rest[16] != '_') return false;
  if (!ParseCompactUTC(rest.substr(0, 15), created).ok()) return false;
  *run_id = std::string(rest.substr(17));
  return !run_id->empty();
}

std::string AttemptDirName(WallTime created, std::string_view attempt_id) {
  return std::string(kAttemptPrefix) + FormatCompactMillisUTC(created) + "Z_" + std::string(attempt_id);
}

bool ParseAttemptDirName(std::string_view name, WallTime* created, std::string* attempt_id, bool* hidden) {
  *hidden = !name.empty() && name[0] == '.';
  if (*hidden) name.remove_prefix(1);
  if (name.substr(0, kAttemptPrefix.size()) != kAttemptPrefix) return false;
  std::string_view rest = name.substr(kAttemptPrefix.size());
  // YYYYMMDD_HHMMSS_mmmZ_<id>
  if (rest.size() < 22 || rest[19] != 'Z' || rest[20] != '_') return false;
  if (!ParseCompactFractionUTC(rest.substr(0, 19), created).ok()) return false;
  *attempt_id = std::string(rest.substr(21));
  return !attempt_id->empty();
}

std::string RunLogDir(const std::string& log_root, std::string_view dag_name, WallTime run_created,
                      std::string_view run_id) {
  return JoinPath(JoinPath(log_root, SafeName(dag_name)), RunDirName(run_created, run_id));
}

std::string MainLogPath(const std::string& run_log_dir, WallTime now, std::string_view run_id) {
  return JoinPath(run_log_dir, "dag-run_" + FormatLogStampLocal(now) + "." + ShortId(run_id) + ".log");
}

std::string AttemptLogDir(const std::string& run_log_dir, WallTime attempt_created, std::string_view attempt_id) {
  return JoinPath(run_log_dir, "run_" + FormatCompactUTC(attempt_created) + "Z_" + std::string(attempt_id));
}

std::string StepLogBase(const std::string& attempt_log_dir, std::string_view step_name, WallTime now,
                        std::string_view run_id) {
  return JoinPath(attempt_log_dir, SafeName(step_name) + "." + FormatLogStampLocal(now) + "." + ShortId(run_id));
}

}  // namespace dagu
