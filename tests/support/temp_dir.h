// TempDir: a fresh directory under $TMPDIR for one test, removed afterwards.
#pragma once

#include <filesystem>
#include <string>

namespace dagu::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path()/relative
  std::string Sub(const std::string& relative) const { return path_ + "/" + relative; }
  // Writes `contents` to path()/relative, creating parent directories.
  std::string WriteFile(const std::string& relative, const std::string& contents) const;

 private:
  std::string path_;
};

}  // namespace dagu::testing
