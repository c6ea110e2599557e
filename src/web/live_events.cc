#include "web/live_events.h"

#include <dirent.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <spdlog/spdlog.h>

#include "core/dir_watch.h"
#include "store/sub_runs.h"

namespace dagu::web {
namespace {

constexpr uint32_t kDirEvents = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY |
                                IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// mkdir -p, errors ignored.
void MakeDirs(const std::string& path) {
  for (size_t slash = path.find('/', 1); ; slash = path.find('/', slash + 1)) {
    ::mkdir(path.substr(0, slash).c_str(), 0755);
    if (slash == std::string::npos) break;
  }
}

// Subdirectory names of `dir` (none when it cannot be read).
std::vector<std::string> Subdirs(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st{};
    if (::stat((dir + "/" + name).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) out.push_back(name);
  }
  ::closedir(d);
  return out;
}

std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  ::closedir(d);
  return out;
}

std::string DagOfFile(const std::string& name) {
  if (StartsWith(name, ".")) return "";
  if (EndsWith(name, ".yaml")) return name.substr(0, name.size() - 5);
  if (EndsWith(name, ".yml")) return name.substr(0, name.size() - 4);
  return "";
}

}  // namespace

std::string RunIdOfProcFile(const std::string& name) {
  if (!StartsWith(name, "proc_") || !EndsWith(name, ".proc")) return "";
  size_t z = name.find("Z_");
  if (z == std::string::npos) return "";
  return name.substr(z + 2, name.size() - 5 - (z + 2));
}

std::string RunIdOfQueueItem(const std::string& name) {
  if (!StartsWith(name, "item_") || !EndsWith(name, ".json")) return "";
  size_t z = name.find("Z_");  // the time stamp holds no Z before it; a run ID may
  if (z == std::string::npos) return "";
  return name.substr(z + 2, name.size() - 5 - (z + 2));
}

LiveEventSource::LiveEventSource(LivePaths paths, EventHub* hub, RunStore* runs)
    : paths_(std::move(paths)), hub_(hub), runs_(runs) {}

LiveEventSource::~LiveEventSource() {
  Stop();
  if (fd_ >= 0) ::close(fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

int LiveEventSource::AddWatch(const Watch& w) {
  if (auto it = by_path_.find(w.path); it != by_path_.end()) return it->second;
  int wd = ::inotify_add_watch(fd_, w.path.c_str(), kDirEvents);
  if (wd < 0) return -1;
  if (auto old = by_wd_.find(wd); old != by_wd_.end()) by_path_.erase(old->second.path);  // same inode, new path
  by_wd_[wd] = w;
  by_path_[w.path] = wd;
  return wd;
}

void LiveEventSource::RemoveWatch(int wd) {
  auto it = by_wd_.find(wd);
  if (it == by_wd_.end()) return;
  Kind k = it->second.kind;
  if (k == Kind::kDags || k == Kind::kProcRoot || k == Kind::kQueueRoot) local_ = false;  // watched again later
  by_path_.erase(it->second.path);
  by_wd_.erase(it);
  ::inotify_rm_watch(fd_, wd);  // EINVAL when the kernel dropped it already
}

Status LiveEventSource::Open() {
  if (fd_ >= 0) return Status::OK();
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) return Status::IOError(std::string("inotify unavailable: ") + std::strerror(errno));
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return Status::IOError(std::string("eventfd: ") + std::strerror(errno));
  // The run folders appear under these as runs start: they must exist to
  // be watched (Dagu creates them as well; an error shows as a missing watch).
  MakeDirs(paths_.proc_dir);
  MakeDirs(paths_.queue_dir);
  std::set<LiveEvent> ignored;  // what exists now is no news
  EnsureRoots(&ignored);
  return Status::OK();
}

void LiveEventSource::EnsureRoots(std::set<LiveEvent>* out) {
  if (!by_path_.count(paths_.dags_dir)) AddWatch({Kind::kDags, paths_.dags_dir, "", "", "", ""});
  if (!by_path_.count(paths_.proc_dir) && AddWatch({Kind::kProcRoot, paths_.proc_dir, "", "", "", ""}) >= 0) {
    for (const std::string& g : Subdirs(paths_.proc_dir)) {
      std::string dir = paths_.proc_dir + "/" + g;
      if (AddWatch({Kind::kProcGroup, dir, "", "", "", ""}) < 0) continue;
      for (const std::string& dag : Subdirs(dir)) WatchProcDag(dir + "/" + dag, dag, out);
    }
  }
  if (!by_path_.count(paths_.queue_dir) && AddWatch({Kind::kQueueRoot, paths_.queue_dir, "", "", "", ""}) >= 0) {
    for (const std::string& q : Subdirs(paths_.queue_dir)) WatchQueue(paths_.queue_dir + "/" + q, q);
  }
  local_ = by_path_.count(paths_.dags_dir) && by_path_.count(paths_.proc_dir) && by_path_.count(paths_.queue_dir) &&
           OnLocalFileSystem(paths_.dags_dir) && OnLocalFileSystem(paths_.proc_dir) &&
           OnLocalFileSystem(paths_.queue_dir);
}

void LiveEventSource::WatchProcGroup(const std::string& dir, std::set<LiveEvent>* out) {
  if (AddWatch({Kind::kProcGroup, dir, "", "", "", ""}) < 0) return;
  for (const std::string& dag : Subdirs(dir)) WatchProcDag(dir + "/" + dag, dag, out);
}

void LiveEventSource::WatchProcDag(const std::string& dir, const std::string& dag, std::set<LiveEvent>* out) {
  if (AddWatch({Kind::kProcDag, dir, dag, "", "", ""}) < 0) return;
  for (const std::string& f : Files(dir)) {
    std::string run_id = RunIdOfProcFile(f);
    if (run_id.empty()) continue;
    WatchRun(dag, run_id);
    out->insert({"run", dag, run_id, ""});
  }
}

void LiveEventSource::WatchQueue(const std::string& dir, const std::string& queue) {
  AddWatch({Kind::kQueue, dir, "", "", queue, ""});
}

bool LiveEventSource::WatchRun(const std::string& dag, const std::string& run_id) {
  if (runs_ == nullptr) return true;
  RunDir run;
  if (!runs_->FindRun(dag, run_id, &run).ok()) {
    // 1.30.2: the proc file comes first. A retry keeps its entry (emplace).
    const auto now = std::chrono::steady_clock::now();
    pending_runs_.emplace(std::make_pair(dag, run_id), Pending{now, now + kPendingRetry, kPendingRetry});
    return false;
  }
  pending_runs_.erase(std::make_pair(dag, run_id));
  AddWatch({Kind::kRun, run.path, dag, run_id, "", ""});
  // The newest attempt, even before its first status line.
  std::vector<AttemptDir> attempts;
  if (runs_->ListAttempts(run, /*include_hidden=*/false, &attempts).ok() && !attempts.empty()) {
    AddWatch({Kind::kAttempt, attempts.front().path, dag, run_id, "", ""});
  }
  WatchChildren(SubRunStore::ChildrenDir(run), dag, run_id);
  return true;
}

void LiveEventSource::WatchChildren(const std::string& dir, const std::string& dag, const std::string& run_id) {
  if (AddWatch({Kind::kChildren, dir, dag, run_id, "", ""}) < 0) return;  // not there (yet)
  for (const std::string& child : Subdirs(dir)) {
    if (StartsWith(child, SubRunStore::kChildPrefix) && !WatchSubRun(dir + "/" + child, dag, run_id)) break;
  }
}

bool LiveEventSource::WatchSubRun(const std::string& dir, const std::string& dag, const std::string& run_id) {
  size_t watched = 0;
  for (const auto& [wd, w] : by_wd_) {
    if (w.kind == Kind::kSubRun && w.dag == dag && w.run_id == run_id) ++watched;
  }
  if (watched >= kMaxSubRunWatches) return false;
  if (AddWatch({Kind::kSubRun, dir, dag, run_id, "", dir}) < 0) return true;
  std::string newest;  // attempt_<UTC stamp>Z_<id>: the greatest name is the newest
  for (const std::string& a : Subdirs(dir)) {
    if (StartsWith(a, "attempt_") && a > newest) newest = a;
  }
  if (!newest.empty()) WatchSubAttempt(dir, dir + "/" + newest, dag, run_id);
  return true;
}

void LiveEventSource::WatchSubAttempt(const std::string& sub, const std::string& attempt, const std::string& dag,
                                      const std::string& run_id) {
  std::vector<int> old;
  for (const auto& [wd, w] : by_wd_) {
    if (w.kind == Kind::kSubAttempt && w.sub == sub) old.push_back(wd);
  }
  for (int wd : old) RemoveWatch(wd);
  AddWatch({Kind::kSubAttempt, attempt, dag, run_id, "", sub});
}

void LiveEventSource::RetryPendingRuns(std::set<LiveEvent>* out) {
  const auto now = std::chrono::steady_clock::now();
  std::vector<std::pair<std::string, std::string>> due;
  for (const auto& [key, p] : pending_runs_) {
    if (p.next <= now) due.push_back(key);
  }
  for (const auto& key : due) {  // WatchRun changes the map
    if (WatchRun(key.first, key.second)) {
      out->insert({"run", key.first, key.second, ""});
      continue;
    }
    Pending& p = pending_runs_.at(key);
    if (now - p.since > kPendingGiveUp) {
      pending_runs_.erase(key);
      continue;
    }
    p.wait = std::min(p.wait * 2, std::chrono::milliseconds(3200));
    p.next = now + p.wait;
  }
}

void LiveEventSource::UnwatchRun(const std::string& dag, const std::string& run_id) {
  pending_runs_.erase(std::make_pair(dag, run_id));
  std::vector<int> ended;
  for (const auto& [wd, w] : by_wd_) {
    const bool of_run = w.kind == Kind::kRun || w.kind == Kind::kAttempt || w.kind == Kind::kChildren ||
                        w.kind == Kind::kSubRun || w.kind == Kind::kSubAttempt;
    if (of_run && w.dag == dag && w.run_id == run_id) ended.push_back(wd);
  }
  for (int wd : ended) RemoveWatch(wd);
}

void LiveEventSource::OnEvent(int wd, uint32_t mask, const std::string& name, std::set<LiveEvent>* out) {
  auto it = by_wd_.find(wd);
  if (it == by_wd_.end()) return;
  if (mask & IN_IGNORED) {  // the kernel dropped the watch (its directory went away)
    Kind k = it->second.kind;
    if (k == Kind::kDags || k == Kind::kProcRoot || k == Kind::kQueueRoot) local_ = false;  // watched again later
    by_path_.erase(it->second.path);
    by_wd_.erase(it);
    return;
  }
  if (mask & (IN_DELETE_SELF | IN_MOVE_SELF)) return RemoveWatch(wd);
  const Watch w = it->second;  // a copy: the tables change below
  const bool created = mask & (IN_CREATE | IN_MOVED_TO);
  const bool removed = mask & (IN_DELETE | IN_MOVED_FROM);
  const bool is_dir = mask & IN_ISDIR;
  const std::string path = w.path + "/" + name;
  switch (w.kind) {
    case Kind::kDags: {
      std::string dag = DagOfFile(name);
      if (!dag.empty() && !is_dir && (created || removed || (mask & IN_CLOSE_WRITE))) out->insert({"dag", dag, "", ""});
      break;
    }
    case Kind::kProcRoot:
      if (created && is_dir) WatchProcGroup(path, out);
      break;
    case Kind::kProcGroup:
      if (created && is_dir) WatchProcDag(path, name, out);
      break;
    case Kind::kProcDag: {
      std::string run_id = RunIdOfProcFile(name);
      if (run_id.empty() || is_dir) break;
      if (created) {
        WatchRun(w.dag, run_id);
        out->insert({"run", w.dag, run_id, ""});
      } else if (removed) {
        UnwatchRun(w.dag, run_id);
        out->insert({"run", w.dag, run_id, ""});
      }
      break;
    }
    case Kind::kQueueRoot:
      if (created && is_dir) {
        WatchQueue(path, name);
        for (const std::string& f : Files(path)) {
          if (!RunIdOfQueueItem(f).empty()) out->insert({"queue", "", RunIdOfQueueItem(f), name});
        }
      }
      break;
    case Kind::kQueue: {
      std::string run_id = RunIdOfQueueItem(name);
      if (!run_id.empty() && !is_dir && (created || removed)) out->insert({"queue", "", run_id, w.queue});
      break;
    }
    case Kind::kRun:
      // A new attempt (a retry): watch it instead of the old one.
      if (created && is_dir && StartsWith(name, "attempt_")) {
        std::vector<int> old;
        for (const auto& [owd, ow] : by_wd_) {
          if (ow.kind == Kind::kAttempt && ow.dag == w.dag && ow.run_id == w.run_id) old.push_back(owd);
        }
        for (int o : old) RemoveWatch(o);
        AddWatch({Kind::kAttempt, path, w.dag, w.run_id, "", ""});
        out->insert({"run", w.dag, w.run_id, ""});
      } else if (created && is_dir && name == SubRunStore::kChildrenDirName) {
        WatchChildren(path, w.dag, w.run_id);
        out->insert({"run", w.dag, w.run_id, ""});
      }
      break;
    case Kind::kChildren:
      if (created && is_dir && StartsWith(name, SubRunStore::kChildPrefix)) {
        WatchSubRun(path, w.dag, w.run_id);
        out->insert({"run", w.dag, w.run_id, ""});
      }
      break;
    case Kind::kSubRun:
      if (created && is_dir && StartsWith(name, "attempt_")) {
        WatchSubAttempt(w.sub, path, w.dag, w.run_id);
        out->insert({"run", w.dag, w.run_id, ""});
      }
      break;
    case Kind::kAttempt:
    case Kind::kSubAttempt:
      if (!is_dir && StartsWith(name, "status.jsonl") && (mask & (IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE))) {
        out->insert({"run", w.dag, w.run_id, ""});
      }
      break;
  }
}

bool LiveEventSource::Drain(std::set<LiveEvent>* out) {
  alignas(inotify_event) char buf[64 * 1024];
  bool any = false;
  for (;;) {
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n <= 0) return any;  // EAGAIN: nothing more
    any = true;
    for (ssize_t off = 0; off < n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(buf + off);
      off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      if (ev->mask & IN_Q_OVERFLOW) {
        local_ = false;  // watches may be missing: EnsureRoots looks again
        out->insert({"dag", "", "", ""});  // events were lost: everything may have changed
        out->insert({"run", "", "", ""});
        continue;
      }
      std::string name = ev->len > 0 ? std::string(ev->name) : std::string();
      OnEvent(ev->wd, ev->mask, name, out);
    }
  }
}

size_t LiveEventSource::Poll(std::chrono::milliseconds timeout) {
  if (fd_ < 0) return 0;
  std::set<LiveEvent> events;
  if (!local_) {
    // A root that could not be watched (removed, not there yet): try again,
    // at most every 2 s, and publish what it holds.
    timeout = std::min(timeout, std::chrono::milliseconds(2000));
    EnsureRoots(&events);
  }
  for (const auto& [key, p] : pending_runs_) {  // wake up for the next retry
    const auto until = std::chrono::duration_cast<std::chrono::milliseconds>(p.next - std::chrono::steady_clock::now());
    timeout = std::max(std::chrono::milliseconds(0), std::min(timeout, until + std::chrono::milliseconds(1)));
  }
  pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  int rc = ::poll(fds, 2, events.empty() ? static_cast<int>(timeout.count()) : 0);
  if (stop_) return 0;
  if (rc > 0 && Drain(&events)) {
    // A change rarely comes alone (a file created, then written; a step
    // ending, the next starting): what follows within 50 ms is coalesced.
    pollfd more{fd_, POLLIN, 0};
    if (::poll(&more, 1, 50) > 0) Drain(&events);
  }
  if (!pending_runs_.empty()) RetryPendingRuns(&events);
  size_t published = 0;
  for (const LiveEvent& e : events) {
    hub_->Publish(e);
    ++published;
  }
  return published;
}

void LiveEventSource::Start(std::chrono::milliseconds heartbeat) {
  if (thread_.joinable()) return;
  Status s = Open();
  if (!s.ok()) {
    spdlog::warn("web: live updates off ({}); the UI polls instead", s.ToString());
    return;
  }
  stop_ = false;
  thread_ = std::thread([this, heartbeat] {
    auto next_beat = std::chrono::steady_clock::now() + heartbeat;
    while (!stop_) {
      auto now = std::chrono::steady_clock::now();
      if (now >= next_beat) {
        hub_->Heartbeat();
        next_beat = now + heartbeat;
      }
      Poll(std::chrono::duration_cast<std::chrono::milliseconds>(next_beat - now) + std::chrono::milliseconds(1));
    }
  });
}

void LiveEventSource::Stop() {
  stop_ = true;
  if (wake_fd_ >= 0) {
    uint64_t one = 1;
    ssize_t n = ::write(wake_fd_, &one, sizeof one);
    (void)n;
  }
  if (thread_.joinable()) thread_.join();
}

}  // namespace dagu::web
