#include "core/temp_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "core/file_system.h"

namespace dagu {

StatusOr<int> CreateGoTempFile(const std::string& dir, const std::string& pattern, mode_t mode, std::string* path) {
  const size_t star = pattern.rfind('*');
  const std::string prefix = star == std::string::npos ? pattern : pattern.substr(0, star);
  const std::string suffix = star == std::string::npos ? "" : pattern.substr(star + 1);
  int err = 0;
  for (int attempt = 0; attempt < 10000; ++attempt) {  // as Go: 10,000 tries
    uint32_t r = 0;
    if (::getrandom(&r, sizeof(r), 0) != static_cast<ssize_t>(sizeof(r))) r = static_cast<uint32_t>(::random());
    std::string candidate = JoinPath(dir.empty() ? "." : dir, prefix + std::to_string(r) + suffix);
    int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd >= 0) {
      *path = std::move(candidate);
      return fd;
    }
    err = errno;
    if (err != EEXIST) break;
  }
  return Status::IOError("cannot create a file " + pattern + " in " + (dir.empty() ? "." : dir) + ": " +
                         std::strerror(err));
}

}  // namespace dagu
