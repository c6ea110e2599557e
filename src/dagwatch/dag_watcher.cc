#include "dagwatch/dag_watcher.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <string>

#include <spdlog/spdlog.h>

#include "core/dir_watch.h"

namespace dagu {
namespace {

constexpr uint32_t kWatchMask = IN_CREATE | IN_DELETE | IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_MOVED_FROM |
                                IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF;

using Steady = std::chrono::steady_clock;

int MillisUntil(Steady::time_point t) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(t - Steady::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

}  // namespace

DagWatcher::DagWatcher(DagCatalog* catalog, std::chrono::milliseconds rescan_interval,
                       std::chrono::milliseconds debounce)
    : catalog_(catalog), rescan_interval_(rescan_interval), debounce_(debounce) {}

DagWatcher::~DagWatcher() { Stop(); }

void DagWatcher::Start() {
  if (thread_.joinable()) return;
  stop_ = false;
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  inotify_fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (inotify_fd_ < 0) {
    spdlog::warn("inotify unavailable ({}); DAG directory {} is rescanned every {} ms", std::strerror(errno),
                 catalog_->dir(), rescan_interval_.count());
  }
  AddWatch();
  scanned_ = false;
  thread_ = std::thread([this] {
    // The first scan, on this thread: with a big folder it takes a while,
    // and nobody waits for it but the first tick (ActiveParts).
    const auto t0 = Steady::now();
    Status s = catalog_->Rescan(&stop_);
    if (s.code() == Status::Code::kAborted) return;  // Stop()
    if (!s.ok()) {
      spdlog::error("{}", s.ToString());
    } else {
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - t0).count();
      spdlog::info("DAG directory {} scanned: {} DAGs loaded in {} ms", catalog_->dir(), catalog_->Snapshot().size(),
                   ms);
    }
    scanned_ = true;
    Run();
  });
}

void DagWatcher::Stop() {
  if (!thread_.joinable()) return;
  stop_ = true;
  uint64_t one = 1;
  if (::write(wake_fd_, &one, sizeof one) < 0) { /* the poll timeout still ends the loop */ }
  thread_.join();
  if (inotify_fd_ >= 0) ::close(inotify_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  inotify_fd_ = wake_fd_ = watch_ = -1;
  SetWatching(false);
}

void DagWatcher::SetWatching(bool on) {
  watching_ = on;
  // Only a local file system's watch sees every change; on NFS another host's
  // edits raise no event here, so the catalog keeps rescanning at each tick.
  catalog_->SetWatched(on && local_);
}

std::chrono::milliseconds DagWatcher::RescanInterval() const {
  if (watching_ && local_) return std::max<std::chrono::milliseconds>(rescan_interval_, kLocalRescanInterval);
  return rescan_interval_;
}

bool DagWatcher::AddWatch() {
  if (inotify_fd_ < 0) return false;
  if (watch_ >= 0) ::inotify_rm_watch(inotify_fd_, watch_);  // a directory moved away or deleted
  watch_ = ::inotify_add_watch(inotify_fd_, catalog_->dir().c_str(), kWatchMask);
  if (watch_ < 0) {
    if (!warned_) {
      spdlog::warn("cannot watch DAG directory {} ({}); rescanning it every {} ms", catalog_->dir(),
                   std::strerror(errno), rescan_interval_.count());
      warned_ = true;
    }
    return false;
  }
  if (warned_) spdlog::info("watching DAG directory {} again", catalog_->dir());
  warned_ = false;
  local_ = OnLocalFileSystem(catalog_->dir());
  SetWatching(true);
  return true;
}

void DagWatcher::Run() {
  auto next_rescan = Steady::now() + RescanInterval();
  bool dirty = false;
  bool full = false;                // the next rescan must read the whole directory
  std::set<std::string> changed;    // DAG files named by events since the last rescan
  std::set<std::string> writing;    // DAG files written to and not closed yet
  auto quiet_until = Steady::now();
  alignas(inotify_event) char buf[8192];
  while (!stop_) {
    Steady::time_point wake = dirty ? std::min(quiet_until, next_rescan) : next_rescan;
    pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {inotify_fd_, POLLIN, 0}};
    int n = ::poll(fds, inotify_fd_ >= 0 ? 2 : 1, MillisUntil(wake));
    if (stop_) break;
    if (n > 0 && inotify_fd_ >= 0 && (fds[1].revents & POLLIN)) {
      bool lost_dir = false;
      for (;;) {
        ssize_t len = ::read(inotify_fd_, buf, sizeof buf);
        if (len <= 0) break;
        for (ssize_t off = 0; off < len;) {
          auto* ev = reinterpret_cast<inotify_event*>(buf + off);
          off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
          if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) lost_dir = true;
          if (ev->mask & IN_Q_OVERFLOW) full = true;
          if (ev->len == 0 || (ev->mask & IN_ISDIR)) continue;
          const std::string name(ev->name);
          if (!IsDagFileName(name)) continue;
          changed.insert(name);
          if (ev->mask & (IN_CREATE | IN_MODIFY)) writing.insert(name);
          if (ev->mask & (IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM)) writing.erase(name);
        }
      }
      if (lost_dir) {
        SetWatching(false);
        full = true;
      }
      catalog_->MarkDirty();
      dirty = true;
      // A file still open for writing may be half written: wait for quiet.
      // Otherwise every change is complete (closed, moved, removed): a
      // moment coalesces a burst.
      quiet_until = Steady::now() + (writing.empty() ? kSettle : debounce_);
      continue;
    }
    auto now = Steady::now();
    const bool periodic = now >= next_rescan;
    if ((dirty && now >= quiet_until) || periodic) {
      if (!watching_) AddWatch();
      Status s = (full || periodic || !watching_) ? catalog_->Rescan(&stop_) : catalog_->RescanFiles(changed);
      if (!s.ok() && s.code() != Status::Code::kAborted) spdlog::error("{}", s.ToString());
      dirty = full = false;
      changed.clear();
      writing.clear();  // whatever is still being written raises its events again
      if (periodic) next_rescan = Steady::now() + RescanInterval();
    }
  }
}

}  // namespace dagu
