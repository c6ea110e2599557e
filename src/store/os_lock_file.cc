#include "store/os_lock_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "store/data_layout.h"

namespace dagu {
namespace {

// statfs f_type values (linux/magic.h and the file systems' own headers).
constexpr int64_t kExt4Magic = 0xEF53;  // ext2, ext3, ext4
constexpr int64_t kXfsMagic = 0x58465342;
constexpr int64_t kBtrfsMagic = 0x9123683E;
constexpr int64_t kTmpfsMagic = 0x01021994;
constexpr int64_t kRamfsMagic = 0x858458F6;
constexpr int64_t kZfsMagic = 0x2FC12FC1;
constexpr int64_t kF2fsMagic = 0xF2F52010;
constexpr int64_t kOverlayMagic = 0x794C7630;
constexpr int64_t kNfsMagic = 0x6969;
constexpr int64_t kFuseMagic = 0x65735546;
constexpr int64_t kCifsMagic = 0xFF534D42;
constexpr int64_t kSmb2Magic = 0xFE534D42;
constexpr int64_t kSmbMagic = 0x517B;
constexpr int64_t kCephMagic = 0x00C36400;
constexpr int64_t kV9fsMagic = 0x01021997;

struct flock WholeFile(short type) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = 0;
  fl.l_len = 0;  // to the end, however long
  fl.l_pid = 0;  // must be 0 for OFD locks
  return fl;
}

std::string Hex(int64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

bool IsOctal(char c) { return c >= '0' && c <= '7'; }

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && IsOctal(s[i + 1]) && IsOctal(s[i + 2]) && IsOctal(s[i + 3])) {
      out.push_back(static_cast<char>(((s[i + 1] - '0') << 6) | ((s[i + 2] - '0') << 3) | (s[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool IsUnder(const std::string& path, const std::string& mount_point) {
  if (mount_point == "/") return true;
  return path.size() >= mount_point.size() && path.compare(0, mount_point.size(), mount_point) == 0 &&
         (path.size() == mount_point.size() || path[mount_point.size()] == '/');
}

// The value of `key=` in comma-separated `options`, or "" (and false).
bool OptionValue(std::string_view options, std::string_view key, std::string* value) {
  size_t i = 0;
  while (i <= options.size()) {
    size_t j = options.find(',', i);
    if (j == std::string_view::npos) j = options.size();
    std::string_view opt = options.substr(i, j - i);
    if (opt.size() > key.size() && opt.substr(0, key.size()) == key && opt[key.size()] == '=') {
      *value = std::string(opt.substr(key.size() + 1));
      return true;
    }
    i = j + 1;
  }
  return false;
}

Status Refuse(const std::string& dir, const std::string& what, const std::string& why) {
  return Status::NotSupported("scheduler.fast_takeover cannot be used with the scheduler lock directory " + dir +
                              " on " + what + ": " + why +
                              ". Turn scheduler.fast_takeover off (a standby then takes over after "
                              "scheduler.lock_stale_threshold), or put the data directory on a local file system "
                              "or NFS version 4 (docs/ha-protocol.md, \"Fast takeover\")");
}

}  // namespace

std::unique_ptr<OsLockFile> OsLockFileIn(const std::string& locks_dir) {
  return std::make_unique<OsLockFile>(JoinPath(locks_dir, kSchedulerOsLockName));
}

OsLockFile::OsLockFile(std::string path) : path_(std::move(path)) {}

OsLockFile::~OsLockFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status OsLockFile::Open() {
  if (fd_ >= 0) return Status::OK();
  return Reopen();
}

Status OsLockFile::Reopen() {
  int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Status::FromErrno(errno, "open " + path_);
  if (fd_ >= 0) ::close(fd_);  // never while held (callers reopen only then)
  fd_ = fd;
  held_ = false;
  return Status::OK();
}

bool OsLockFile::PathIsOpenFile() const {
  struct stat open_st {}, path_st {};
  if (fd_ < 0 || ::fstat(fd_, &open_st) != 0) return false;
  if (::stat(path_.c_str(), &path_st) != 0) return false;
  return open_st.st_dev == path_st.st_dev && open_st.st_ino == path_st.st_ino;
}

Status OsLockFile::TryLock(bool* locked) {
  *locked = false;
  if (held_) {
    *locked = true;
    return Status::OK();
  }
  if (!PathIsOpenFile()) DAGU_RETURN_IF_ERROR(Reopen());
  struct flock fl = WholeFile(F_WRLCK);
  if (::fcntl(fd_, F_OFD_SETLK, &fl) != 0) {
    if (errno == EAGAIN || errno == EACCES) return Status::OK();  // someone else holds it
    return Status::FromErrno(errno, "fcntl(F_OFD_SETLK) " + path_);
  }
  held_ = true;
  *locked = true;
  return Status::OK();
}

Status OsLockFile::Probe(OsLockProbe* out) {
  *out = OsLockProbe{};
  if (!PathIsOpenFile()) return Reopen();  // same_file = false: learn about the new file next time
  struct flock fl = WholeFile(F_WRLCK);
  if (::fcntl(fd_, F_OFD_GETLK, &fl) != 0) return Status::FromErrno(errno, "fcntl(F_OFD_GETLK) " + path_);
  out->held = fl.l_type != F_UNLCK;
  out->same_file = true;
  return Status::OK();
}

void OsLockFile::Unlock() {
  if (!held_ || fd_ < 0) return;
  struct flock fl = WholeFile(F_UNLCK);
  (void)::fcntl(fd_, F_OFD_SETLK, &fl);
  held_ = false;
}

bool FindMount(std::string_view mountinfo, const std::string& path, MountEntry* out) {
  bool found = false;
  size_t best = 0;
  std::istringstream in{std::string(mountinfo)};
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string_view> f = Fields(line);
    // id parent major:minor root mount-point options [optional...] - fstype source super-options
    size_t dash = 0;
    for (size_t i = 6; i < f.size(); ++i) {
      if (f[i] == "-") {
        dash = i;
        break;
      }
    }
    if (f.size() < 5 || dash == 0 || dash + 1 >= f.size()) continue;
    std::string mount_point = Unescape(f[4]);
    if (!IsUnder(path, mount_point)) continue;
    if (found && mount_point.size() < best) continue;
    best = mount_point.size();
    found = true;
    out->mount_point = mount_point;
    out->fstype = std::string(f[dash + 1]);
    out->super_options = dash + 3 < f.size() ? std::string(f[dash + 3]) : std::string();
  }
  return found;
}

Status ClassifyOsLockSupport(int64_t fs_magic, std::string_view fstype, std::string_view super_options,
                             const std::string& dir) {
  std::string type = fstype.empty() ? Hex(fs_magic) : std::string(fstype) + " (" + Hex(fs_magic) + ")";
  switch (fs_magic) {
    case kExt4Magic:
    case kXfsMagic:
    case kBtrfsMagic:
    case kTmpfsMagic:
    case kRamfsMagic:
    case kZfsMagic:
    case kF2fsMagic:
    case kOverlayMagic:
      return Status::OK();  // a local file system: the kernel keeps the locks
    case kNfsMagic: {
      // NFSv4 mounts show as "nfs4"; an "nfs" mount is version 2 or 3 unless
      // its vers= says 4 (older kernels).
      std::string vers;
      bool v4 = fstype == "nfs4" ||
                ((OptionValue(super_options, "vers", &vers) || OptionValue(super_options, "nfsvers", &vers)) &&
                 (vers == "4" || vers.rfind("4.", 0) == 0));
      if (v4) return Status::OK();
      if (fstype.empty()) {
        return Refuse(dir, "NFS (" + Hex(fs_magic) + ")",
                      "its version cannot be told (no entry for it in /proc/self/mountinfo), and NFS versions 2 and "
                      "3 keep locks through NLM, which has no lease bound");
      }
      return Refuse(dir, type + (vers.empty() ? "" : ", vers=" + vers),
                    "NFS versions 2 and 3 keep locks through NLM (lockd/statd), which has no lease that bounds how "
                    "long a lock outlives its holder or how it is lost; only NFS version 4 is allowed");
    }
    case kFuseMagic:
      return Refuse(dir, "FUSE " + type,
                    "whether a FUSE file system implements POSIX locks, and across which hosts, cannot be told "
                    "from here (many, such as object-store mounts, keep them on one host only or not at all)");
    case kCifsMagic:
    case kSmb2Magic:
    case kSmbMagic:
      return Refuse(dir, "SMB/CIFS " + type, "its byte-range locks are not POSIX open-file-description locks");
    case kCephMagic:
    case kV9fsMagic:
      return Refuse(dir, type, "this network file system's locks are not tested with fast takeover");
    default:
      return Refuse(dir, "an unrecognised file system " + type,
                    "only file systems known to keep POSIX locks reliably are allowed");
  }
}

Status CheckOsLockSupport(const std::string& dir) {
  struct statfs st {};
  if (::statfs(dir.c_str(), &st) != 0) return Status::FromErrno(errno, "statfs " + dir);
  std::string fstype, options;
  char resolved[PATH_MAX];
  if (::realpath(dir.c_str(), resolved) != nullptr) {
    std::ifstream in("/proc/self/mountinfo");
    std::stringstream ss;
    ss << in.rdbuf();
    MountEntry entry;
    if (FindMount(ss.str(), resolved, &entry)) {
      fstype = entry.fstype;
      options = entry.super_options;
    }
  }
  return ClassifyOsLockSupport(static_cast<int64_t>(st.f_type), fstype, options, dir);
}

}  // namespace dagu
