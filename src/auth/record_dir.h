// RecordDir: a directory of "<id>.json" records, as 1.30.2's file stores keep
// users and API keys (internal/persistence/file{user,apikey}). Every call
// reads the directory afresh: no in-memory index, so records another
// process wrote (Dagu 1.30.2 or a second host on shared storage) are seen
// at once. Writes are atomic (temp file, fsync, rename) with mode 0600.
// Holds no lock; callers must not call it while holding a mutex.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/file_system.h"
#include "core/status_or.h"

namespace dagu::auth {

class RecordDir {
 public:
  RecordDir(FileSystem* fs, std::string dir) : fs_(fs), dir_(std::move(dir)) {}

  const std::string& dir() const { return dir_; }

  // Creates the directory (0750) when missing.
  Status Init();

  // The text of "<id>.json". NotFound when missing; InvalidArgument for an
  // unsafe id (IsSafeRecordId).
  StatusOr<std::string> Read(const std::string& id);
  // Writes "<id>.json" atomically (0600).
  Status Write(const std::string& id, const std::string& text);
  // NotFound when missing.
  Status Remove(const std::string& id);
  // The ids of every "*.json" file (temp files and other names skipped).
  StatusOr<std::vector<std::string>> ListIds();

 private:
  FileSystem* fs_;
  std::string dir_;
};

// A random (version 4) UUID, as 1.30.2 names users and keys.
StatusOr<std::string> NewRecordId();

}  // namespace dagu::auth
