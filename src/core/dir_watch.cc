#include "core/dir_watch.h"

#include <dirent.h>
#include <linux/magic.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <spdlog/spdlog.h>

namespace dagu {

namespace {

constexpr uint32_t kTopMask = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF |
                              IN_ONLYDIR;
constexpr uint32_t kSubdirMask = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ONLYDIR;

}  // namespace

bool OnLocalFileSystem(const std::string& path) {
  struct statfs fs{};
  if (::statfs(path.c_str(), &fs) != 0) return false;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case NFS_SUPER_MAGIC:
    case SMB_SUPER_MAGIC:
    case 0xFF534D42UL:  // CIFS
    case 0xFE534D42UL:  // SMB2
    case 0x65735546UL:  // FUSE
    case 0x00C36400UL:  // Ceph
    case 0x6B414653UL:  // AFS
    case 0x01161970UL:  // GFS2
    case 0x7461636FUL:  // OCFS2
      return false;
    default:
      return true;
  }
}

DirWatch::DirWatch(std::string dir, std::function<void()> on_change)
    : dir_(std::move(dir)), on_change_(std::move(on_change)) {}

DirWatch::~DirWatch() { Stop(); }

void DirWatch::DropLocked() {
  if (inotify_fd_ >= 0) {
    if (top_ >= 0) ::inotify_rm_watch(inotify_fd_, top_);
    for (const auto& [wd, name] : subdirs_) ::inotify_rm_watch(inotify_fd_, wd);
  }
  top_ = -1;
  subdirs_.clear();
  watching_ = false;
}

void DirWatch::AddSubdirLocked(const std::string& name) {
  int wd = ::inotify_add_watch(inotify_fd_, (dir_ + "/" + name).c_str(), kSubdirMask);
  if (wd >= 0) subdirs_[wd] = name;  // gone again already: nothing to watch
}

bool DirWatch::EnsureWatching() {
  std::lock_guard<std::mutex> l(mu_);
  if (watching_) return true;
  auto cannot = [&](const std::string& why) {
    if (!warned_) spdlog::info("not watching {} ({}); it is looked at periodically", dir_, why);
    warned_ = true;
    return false;
  };
  if (inotify_fd_ < 0) {
    inotify_fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (inotify_fd_ < 0) return cannot(std::string("inotify: ") + std::strerror(errno));
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) {
      ::close(inotify_fd_);
      inotify_fd_ = -1;
      return cannot(std::string("eventfd: ") + std::strerror(errno));
    }
  }
  DropLocked();
  top_ = ::inotify_add_watch(inotify_fd_, dir_.c_str(), kTopMask);
  if (top_ < 0) return cannot(std::strerror(errno));
  if (!OnLocalFileSystem(dir_)) {
    DropLocked();
    return cannot("not a local file system: other hosts' changes raise no event here");
  }
  if (DIR* d = ::opendir(dir_.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      bool is_dir = e->d_type == DT_DIR;
      struct stat st{};
      if (e->d_type == DT_UNKNOWN && ::stat((dir_ + "/" + name).c_str(), &st) == 0) is_dir = S_ISDIR(st.st_mode);
      if (is_dir) AddSubdirLocked(name);
    }
    ::closedir(d);
  }
  if (warned_) spdlog::info("watching {} again", dir_);
  warned_ = false;
  watching_ = true;
  if (ended_ && thread_.joinable()) {
    thread_.join();  // it returned by itself (see Run); it does not take mu_ any more
    ended_ = false;
  }
  if (!thread_.joinable()) {
    stop_ = false;
    thread_ = std::thread([this] { Run(); });
  }
  return true;
}

void DirWatch::Stop() {
  std::thread t;
  {
    std::lock_guard<std::mutex> l(mu_);
    t = std::move(thread_);
    stop_ = true;
    if (t.joinable() && wake_fd_ >= 0) {
      uint64_t one = 1;
      if (::write(wake_fd_, &one, sizeof one) < 0) { /* nothing else would wake it: see Run */ }
    }
  }
  if (t.joinable()) t.join();
  std::lock_guard<std::mutex> l(mu_);
  DropLocked();
  if (inotify_fd_ >= 0) ::close(inotify_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  inotify_fd_ = wake_fd_ = -1;
}

void DirWatch::Run() {
  int inotify_fd, wake_fd;
  {
    std::lock_guard<std::mutex> l(mu_);
    inotify_fd = inotify_fd_;
    wake_fd = wake_fd_;
  }
  alignas(inotify_event) char buf[4096];
  while (!stop_) {
    pollfd fds[2] = {{wake_fd, POLLIN, 0}, {inotify_fd, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      std::lock_guard<std::mutex> l(mu_);
      spdlog::warn("watching {}: poll: {}; it is looked at periodically", dir_, std::strerror(errno));
      DropLocked();
      ended_ = true;  // EnsureWatching starts another thread
      return;
    }
    if (stop_) break;
    bool changed = false;
    {
      std::lock_guard<std::mutex> l(mu_);
      for (;;) {
        ssize_t len = ::read(inotify_fd, buf, sizeof buf);
        if (len <= 0) break;
        for (ssize_t off = 0; off < len;) {
          auto* ev = reinterpret_cast<inotify_event*>(buf + off);
          off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
          if (ev->mask & IN_Q_OVERFLOW) {
            changed = true;
            continue;
          }
          if (ev->wd == top_) {
            if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
              DropLocked();  // the owner polls and calls EnsureWatching again
              changed = true;
              continue;
            }
            if ((ev->mask & (IN_CREATE | IN_MOVED_TO)) && (ev->mask & IN_ISDIR) && ev->len > 0) {
              AddSubdirLocked(ev->name);
            }
          } else if (ev->mask & IN_IGNORED) {
            subdirs_.erase(ev->wd);  // a subdirectory went away
            continue;
          }
          changed = true;
        }
      }
    }
    if (changed) on_change_();
  }
}

}  // namespace dagu
