// faultfs: a FUSE passthrough file system that injects storage faults, for
// the chaos tests (docs/reliability.md).
//
//   faultfs --backing=DIR --rules=FILE [--log=FILE] MOUNTPOINT [FUSE options]
//
// Every file operation under MOUNTPOINT is done on the same path under DIR,
// unless a rule of FILE matches it. FILE is read again whenever it changes
// (a test rewrites it to start or end a fault); a missing FILE means no rule.
// One rule per line, '#' starts a comment:
//
//   OP  PATH-PART  ACTION  [count=N]
//
//   OP         getattr readdir open create read write flush fsync mkdir rmdir
//              unlink rename utimens truncate mknod chmod symlink readlink
//              link statfs, or * for every one of them
//   PATH-PART  a substring of the path below the mount point ("/" starts it:
//              "/data/scheduler/locks/.dagu_lock/owner"); for rename either
//              the source or the target; * matches every path
//   ACTION     eio | enospc | eacces | erofs | estale | enotconn  (the call
//              fails with that errno, nothing is done)
//              delay=MS  (the call waits MS milliseconds, then is done)
//              block     (the call waits until the rule is gone from FILE,
//                         or until its caller is killed: then EINTR,
//                         then is done: a hung NFS server)
//   count=N    the rule applies to its first N matching calls only
//
// With --log, every applied rule appends "<CLOCK_MONOTONIC ms> OP PATH ACTION"
// to that file, so a test can wait until its fault was hit.
//
// Caching (NFS-like client caches) is set with FUSE's own options:
// -o attr_timeout=S,entry_timeout=S,negative_timeout=S (0 for none). The
// mount always has use_ino (st_ino is the backing file's) and hard_remove.
//
// Runs in the foreground, multi-threaded (up to 256 threads), so a blocked
// call does not stop the others.
#define FUSE_USE_VERSION 35
#include <fuse.h>
#include <fuse_lowlevel.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Rule {
  std::string line;  // identity of the rule across reloads (for block)
  std::string op;
  std::string path_part;
  std::string action;
  int error = 0;      // errno to fail with
  int delay_ms = 0;
  bool block = false;
  long remaining = -1;  // count=N, -1: unlimited
};

std::string g_backing;
std::string g_rules_path;
std::string g_log_path;

std::mutex g_mu;
std::vector<Rule> g_rules;
struct timespec g_rules_mtime {};
ino_t g_rules_ino = 0;
off_t g_rules_size = -1;

int ErrnoOf(const std::string& action) {
  if (action == "eio") return EIO;
  if (action == "enospc") return ENOSPC;
  if (action == "eacces") return EACCES;
  if (action == "erofs") return EROFS;
  if (action == "estale") return ESTALE;
  if (action == "enotconn") return ENOTCONN;
  return 0;
}

std::vector<Rule> ParseRules(const std::string& text) {
  std::vector<Rule> rules;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    Rule r;
    if (!(words >> r.op >> r.path_part >> r.action)) continue;
    r.line = line;
    for (std::string extra; words >> extra;) {
      if (extra.rfind("count=", 0) == 0) r.remaining = std::stol(extra.substr(6));
    }
    if (r.action == "block") r.block = true;
    else if (r.action.rfind("delay=", 0) == 0) r.delay_ms = std::stoi(r.action.substr(6));
    else if ((r.error = ErrnoOf(r.action)) == 0) {
      std::fprintf(stderr, "faultfs: unknown action in rule \"%s\"\n", line.c_str());
      continue;
    }
    rules.push_back(r);
  }
  return rules;
}

// Reloads the rules when the file changed. Caller holds g_mu.
void ReloadLocked() {
  struct stat st {};
  if (::stat(g_rules_path.c_str(), &st) != 0) {
    if (g_rules_size != -1) g_rules.clear();
    g_rules_size = -1;
    return;
  }
  if (st.st_ino == g_rules_ino && st.st_size == g_rules_size && st.st_mtim.tv_sec == g_rules_mtime.tv_sec &&
      st.st_mtim.tv_nsec == g_rules_mtime.tv_nsec) {
    return;
  }
  std::ifstream in(g_rules_path);
  std::stringstream ss;
  ss << in.rdbuf();
  g_rules = ParseRules(ss.str());
  g_rules_ino = st.st_ino;
  g_rules_size = st.st_size;
  g_rules_mtime = st.st_mtim;
}

bool RulePresent(const std::string& line) {
  std::lock_guard<std::mutex> lock(g_mu);
  ReloadLocked();
  for (const auto& r : g_rules) {
    if (r.line == line) return true;
  }
  return false;
}

void LogHit(const char* op, const std::string& path, const std::string& action) {
  if (g_log_path.empty()) return;
  struct timespec ts {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  char line[4352];
  int n = std::snprintf(line, sizeof line, "%lld %s %s %s\n",
                        static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000, op, path.c_str(),
                        action.c_str());
  int fd = ::open(g_log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  (void)!::write(fd, line, static_cast<size_t>(std::min<int>(n, sizeof line - 1)));
  ::close(fd);
}

// Applies the first matching rule: returns -errno to fail the call with, or
// Whether the thread that made the current call has a SIGKILL pending (it
// was killed, or its process is exiting). The kernel's interrupt of a FUSE
// call does not reach every call (lookups), so this is looked up directly.
bool CallerKilled() {
  std::ifstream in("/proc/" + std::to_string(fuse_get_context()->pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("SigPnd:", 0) == 0 || line.rfind("ShdPnd:", 0) == 0) {
      unsigned long long mask = std::strtoull(line.c_str() + 7, nullptr, 16);
      if (mask & (1ULL << (SIGKILL - 1))) return true;
    }
  }
  return false;
}

// 0 to go on (after a delay or a block, if the rule says so).
int Fault(const char* op, const char* path, const char* path2 = nullptr) {
  Rule hit;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    ReloadLocked();
    bool found = false;
    for (auto& r : g_rules) {
      if (r.op != "*" && r.op != op) continue;
      bool match = r.path_part == "*" || std::strstr(path, r.path_part.c_str()) != nullptr ||
                   (path2 != nullptr && std::strstr(path2, r.path_part.c_str()) != nullptr);
      if (!match || r.remaining == 0) continue;
      if (r.remaining > 0) --r.remaining;
      hit = r;
      found = true;
      break;
    }
    if (!found) return 0;
  }
  LogHit(op, path, hit.action);
  if (hit.error != 0) return -hit.error;
  if (hit.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(hit.delay_ms));
  if (hit.block) {
    // Like a hard NFS mount since Linux 2.6.25 (TASK_KILLABLE): the call
    // waits for the server, but a caller that is killed (or exits) gets
    // EINTR instead of staying in D state until the fault ends.
    while (RulePresent(hit.line)) {
      if (fuse_interrupted() || CallerKilled()) {
        LogHit(op, path, "interrupted");
        return -EINTR;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  return 0;
}

std::string Real(const char* path) { return g_backing + path; }

int Errno(int rc) { return rc == -1 ? -errno : rc; }

#define FAULT(op, ...)                                  \
  do {                                                  \
    if (int fault_rc = Fault(op, __VA_ARGS__)) return fault_rc; \
  } while (0)

void* FsInit(struct fuse_conn_info*, struct fuse_config* cfg) {
  cfg->use_ino = 1;
  cfg->hard_remove = 1;
  cfg->intr = 1;  // interrupts reach a blocked call (fuse_interrupted)
  cfg->intr_signal = SIGUSR1;
  return nullptr;
}

int FsGetattr(const char* path, struct stat* st, struct fuse_file_info* fi) {
  FAULT("getattr", path);
  if (fi != nullptr) return Errno(::fstat(static_cast<int>(fi->fh), st));
  return Errno(::lstat(Real(path).c_str(), st));
}

int FsAccess(const char* path, int mask) { return Errno(::access(Real(path).c_str(), mask)); }

int FsReadlink(const char* path, char* buf, size_t size) {
  FAULT("readlink", path);
  ssize_t n = ::readlink(Real(path).c_str(), buf, size - 1);
  if (n == -1) return -errno;
  buf[n] = '\0';
  return 0;
}

int FsReaddir(const char* path, void* buf, fuse_fill_dir_t filler, off_t, struct fuse_file_info*,
              enum fuse_readdir_flags) {
  FAULT("readdir", path);
  DIR* dir = ::opendir(Real(path).c_str());
  if (dir == nullptr) return -errno;
  while (struct dirent* e = ::readdir(dir)) {
    struct stat st {};
    st.st_ino = e->d_ino;
    st.st_mode = static_cast<mode_t>(DTTOIF(e->d_type));
    if (filler(buf, e->d_name, &st, 0, static_cast<enum fuse_fill_dir_flags>(0)) != 0) break;
  }
  ::closedir(dir);
  return 0;
}

int FsMknod(const char* path, mode_t mode, dev_t rdev) {
  FAULT("mknod", path);
  if (S_ISFIFO(mode)) return Errno(::mkfifo(Real(path).c_str(), mode));
  return Errno(::mknod(Real(path).c_str(), mode, rdev));
}

int FsMkdir(const char* path, mode_t mode) {
  FAULT("mkdir", path);
  return Errno(::mkdir(Real(path).c_str(), mode));
}

int FsUnlink(const char* path) {
  FAULT("unlink", path);
  return Errno(::unlink(Real(path).c_str()));
}

int FsRmdir(const char* path) {
  FAULT("rmdir", path);
  return Errno(::rmdir(Real(path).c_str()));
}

int FsSymlink(const char* from, const char* to) {
  FAULT("symlink", to);
  return Errno(::symlink(from, Real(to).c_str()));
}

int FsRename(const char* from, const char* to, unsigned int flags) {
  FAULT("rename", from, to);
  return Errno(static_cast<int>(
      ::syscall(SYS_renameat2, AT_FDCWD, Real(from).c_str(), AT_FDCWD, Real(to).c_str(), flags)));
}

int FsLink(const char* from, const char* to) {
  FAULT("link", from, to);
  return Errno(::link(Real(from).c_str(), Real(to).c_str()));
}

int FsChmod(const char* path, mode_t mode, struct fuse_file_info* fi) {
  FAULT("chmod", path);
  if (fi != nullptr) return Errno(::fchmod(static_cast<int>(fi->fh), mode));
  return Errno(::chmod(Real(path).c_str(), mode));
}

int FsChown(const char* path, uid_t uid, gid_t gid, struct fuse_file_info* fi) {
  if (fi != nullptr) return Errno(::fchown(static_cast<int>(fi->fh), uid, gid));
  return Errno(::lchown(Real(path).c_str(), uid, gid));
}

int FsTruncate(const char* path, off_t size, struct fuse_file_info* fi) {
  FAULT("truncate", path);
  if (fi != nullptr) return Errno(::ftruncate(static_cast<int>(fi->fh), size));
  return Errno(::truncate(Real(path).c_str(), size));
}

int FsUtimens(const char* path, const struct timespec tv[2], struct fuse_file_info* fi) {
  FAULT("utimens", path);
  if (fi != nullptr) return Errno(::futimens(static_cast<int>(fi->fh), tv));
  return Errno(::utimensat(AT_FDCWD, Real(path).c_str(), tv, AT_SYMLINK_NOFOLLOW));
}

int FsCreate(const char* path, mode_t mode, struct fuse_file_info* fi) {
  FAULT("create", path);
  int fd = ::open(Real(path).c_str(), fi->flags | O_CLOEXEC, mode);
  if (fd == -1) return -errno;
  fi->fh = static_cast<uint64_t>(fd);
  return 0;
}

int FsOpen(const char* path, struct fuse_file_info* fi) {
  FAULT("open", path);
  int fd = ::open(Real(path).c_str(), fi->flags | O_CLOEXEC);
  if (fd == -1) return -errno;
  fi->fh = static_cast<uint64_t>(fd);
  return 0;
}

int FsRead(const char* path, char* buf, size_t size, off_t offset, struct fuse_file_info* fi) {
  FAULT("read", path);
  ssize_t n = ::pread(static_cast<int>(fi->fh), buf, size, offset);
  return n == -1 ? -errno : static_cast<int>(n);
}

int FsWrite(const char* path, const char* buf, size_t size, off_t offset, struct fuse_file_info* fi) {
  FAULT("write", path);
  ssize_t n = ::pwrite(static_cast<int>(fi->fh), buf, size, offset);
  return n == -1 ? -errno : static_cast<int>(n);
}

int FsStatfs(const char* path, struct statvfs* st) {
  FAULT("statfs", path);
  return Errno(::statvfs(Real(path).c_str(), st));
}

int FsFlush(const char* path, struct fuse_file_info*) {
  FAULT("flush", path);
  return 0;
}

int FsRelease(const char*, struct fuse_file_info* fi) {
  ::close(static_cast<int>(fi->fh));
  return 0;
}

int FsFsync(const char* path, int datasync, struct fuse_file_info* fi) {
  FAULT("fsync", path);
  int fd = static_cast<int>(fi->fh);
  return Errno(datasync ? ::fdatasync(fd) : ::fsync(fd));
}

off_t FsLseek(const char*, off_t off, int whence, struct fuse_file_info* fi) {
  off_t r = ::lseek(static_cast<int>(fi->fh), off, whence);
  return r == -1 ? -errno : r;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> fuse_argv{argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--backing=", 0) == 0) g_backing = a.substr(10);
    else if (a.rfind("--rules=", 0) == 0) g_rules_path = a.substr(8);
    else if (a.rfind("--log=", 0) == 0) g_log_path = a.substr(6);
    else fuse_argv.push_back(argv[i]);
  }
  if (g_backing.empty() || g_rules_path.empty()) {
    std::fprintf(stderr, "usage: faultfs --backing=DIR --rules=FILE [--log=FILE] MOUNTPOINT [FUSE options]\n");
    return 2;
  }
  while (g_backing.size() > 1 && g_backing.back() == '/') g_backing.pop_back();
  // Interrupts reach a blocked call (FsInit sets cfg->intr): libfuse then
  // sends SIGUSR1 to the thread serving an interrupted call; a handler that
  // does nothing keeps that signal from ending faultfs.
  struct sigaction on_usr1 {};
  on_usr1.sa_handler = [](int) {};
  ::sigaction(SIGUSR1, &on_usr1, nullptr);

  struct fuse_operations ops {};
  ops.init = FsInit;
  ops.getattr = FsGetattr;
  ops.access = FsAccess;
  ops.readlink = FsReadlink;
  ops.readdir = FsReaddir;
  ops.mknod = FsMknod;
  ops.mkdir = FsMkdir;
  ops.symlink = FsSymlink;
  ops.unlink = FsUnlink;
  ops.rmdir = FsRmdir;
  ops.rename = FsRename;
  ops.link = FsLink;
  ops.chmod = FsChmod;
  ops.chown = FsChown;
  ops.truncate = FsTruncate;
  ops.utimens = FsUtimens;
  ops.open = FsOpen;
  ops.create = FsCreate;
  ops.read = FsRead;
  ops.write = FsWrite;
  ops.statfs = FsStatfs;
  ops.flush = FsFlush;
  ops.release = FsRelease;
  ops.fsync = FsFsync;
  ops.lseek = FsLseek;
  ::umask(0);

  // fuse_main, with more worker threads than its default 10: every blocked
  // call holds one.
  struct fuse_args args = FUSE_ARGS_INIT(static_cast<int>(fuse_argv.size()), fuse_argv.data());
  struct fuse_cmdline_opts opts {};
  if (fuse_parse_cmdline(&args, &opts) != 0 || opts.mountpoint == nullptr) {
    std::fprintf(stderr, "faultfs: no mount point\n");
    return 2;
  }
  struct fuse* fuse = fuse_new(&args, &ops, sizeof(ops), nullptr);
  if (fuse == nullptr) return 1;
  if (fuse_mount(fuse, opts.mountpoint) != 0) {
    fuse_destroy(fuse);
    return 1;
  }
  int rc = 1;
  if (fuse_set_signal_handlers(fuse_get_session(fuse)) == 0) {
    struct fuse_loop_config* loop = fuse_loop_cfg_create();
    fuse_loop_cfg_set_max_threads(loop, 256);
    fuse_loop_cfg_set_idle_threads(loop, 16);
    rc = fuse_loop_mt(fuse, loop) == 0 ? 0 : 1;
    fuse_loop_cfg_destroy(loop);
    fuse_remove_signal_handlers(fuse_get_session(fuse));
  }
  fuse_unmount(fuse);
  fuse_destroy(fuse);
  std::free(opts.mountpoint);
  fuse_opt_free_args(&args);
  return rc;
}
