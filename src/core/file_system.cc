#include "core/file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <random>
#include <sys/time.h>

namespace dagu {
namespace {

Status WriteAll(int fd, const std::string& data, const std::string& path) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(errno, "write " + path);
    }
    off += static_cast<size_t>(n);
  }
  return Status::OK();
}

class PosixFs final : public FileSystem {
 public:
  Status Stat(const std::string& path, FileInfo* info) override {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return Status::FromErrno(errno, "stat " + path);
    info->is_dir = S_ISDIR(st.st_mode);
    info->size = static_cast<uint64_t>(st.st_size);
    info->mtime = WallTime(std::chrono::duration_cast<WallTime::duration>(
        std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
    info->device = static_cast<uint64_t>(st.st_dev);
    info->inode = static_cast<uint64_t>(st.st_ino);
    return Status::OK();
  }

  Status ReadFile(const std::string& path, std::string* contents) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::FromErrno(errno, "open " + path);
    contents->clear();
    char buf[65536];
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        ::close(fd);
        return Status::FromErrno(err, "read " + path);
      }
      if (n == 0) break;
      contents->append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return Status::OK();
  }

  Status WriteFile(const std::string& path, const std::string& contents, int mode) override {
    return WriteWithFlags(path, contents, O_WRONLY | O_CREAT | O_TRUNC, mode, false);
  }

  Status WriteFileAtomic(const std::string& path, const std::string& contents, int mode) override {
    static std::atomic<uint64_t> counter{0};
    std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    Status s = WriteWithFlags(tmp, contents, O_WRONLY | O_CREAT | O_EXCL, mode, true);
    if (!s.ok()) {
      ::unlink(tmp.c_str());
      return s;
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      int err = errno;
      ::unlink(tmp.c_str());
      return Status::FromErrno(err, "rename " + tmp + " -> " + path);
    }
    return Status::OK();
  }

  Status CreateFileExclusive(const std::string& path, const std::string& contents, int mode) override {
    return WriteWithFlags(path, contents, O_WRONLY | O_CREAT | O_EXCL, mode, true);
  }

  Status AppendFileSync(const std::string& path, const std::string& contents, int mode) override {
    return WriteWithFlags(path, contents, O_WRONLY | O_CREAT | O_APPEND, mode, true);
  }

  Status MakeDir(const std::string& path, int mode) override {
    if (::mkdir(path.c_str(), static_cast<mode_t>(mode)) != 0) return Status::FromErrno(errno, "mkdir " + path);
    return Status::OK();
  }

  Status MakeDirs(const std::string& path, int mode) override {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) return Status::FromErrno(ec.value(), "mkdir -p " + path);
    (void)mode;  // umask-controlled like Go's MkdirAll; permissions set below
    ::chmod(path.c_str(), static_cast<mode_t>(mode));
    return Status::OK();
  }

  Status RemoveFile(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return Status::FromErrno(errno, "remove " + path);
    return Status::OK();
  }

  Status RemoveDir(const std::string& path) override {
    if (::rmdir(path.c_str()) != 0) return Status::FromErrno(errno, "rmdir " + path);
    return Status::OK();
  }

  Status RemoveAll(const std::string& path) override {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
    if (ec) return Status::FromErrno(ec.value(), "remove " + path);
    return Status::OK();
  }

  Status Rename(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return Status::FromErrno(errno, "rename " + from + " -> " + to);
    return Status::OK();
  }

  Status ListDir(const std::string& path, std::vector<std::string>* names) override {
    names->clear();
    DIR* d = ::opendir(path.c_str());
    if (d == nullptr) return Status::FromErrno(errno, "list " + path);
    while (struct dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n == "." || n == "..") continue;
      names->push_back(std::move(n));
    }
    ::closedir(d);
    return Status::OK();
  }

  Status SetMtime(const std::string& path, WallTime when) override {
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(when.time_since_epoch()).count();
    struct timespec ts[2];
    ts[0].tv_sec = ns / 1000000000;
    ts[0].tv_nsec = ns % 1000000000;
    ts[1] = ts[0];
    if (::utimensat(AT_FDCWD, path.c_str(), ts, 0) != 0) return Status::FromErrno(errno, "touch " + path);
    return Status::OK();
  }

 private:
  static Status WriteWithFlags(const std::string& path, const std::string& contents, int flags, int mode,
                               bool sync) {
    int fd = ::open(path.c_str(), flags | O_CLOEXEC, static_cast<mode_t>(mode));
    if (fd < 0) return Status::FromErrno(errno, "open " + path);
    Status s = WriteAll(fd, contents, path);
    if (s.ok() && sync && ::fdatasync(fd) != 0) s = Status::FromErrno(errno, "fsync " + path);
    if (::close(fd) != 0 && s.ok()) s = Status::FromErrno(errno, "close " + path);
    return s;
  }
};

}  // namespace

FileSystem* PosixFileSystem() {
  static PosixFs fs;
  return &fs;
}

std::string JoinPath(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  if (a.back() == '/') return a + b;
  return a + "/" + b;
}

std::string DirName(const std::string& path) {
  auto pos = path.find_last_of('/');
  if (pos == std::string::npos) return ".";
  if (pos == 0) return "/";
  return path.substr(0, pos);
}

std::string BaseName(const std::string& path) {
  auto pos = path.find_last_of('/');
  return pos == std::string::npos ? path : path.substr(pos + 1);
}

}  // namespace dagu
