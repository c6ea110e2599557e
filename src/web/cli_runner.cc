#include "web/cli_runner.h"

#include <algorithm>

#include <spdlog/spdlog.h>

namespace dagu::web {

CliRunner::CliRunner(ProcessSpawner* spawner, LaunchContext context, std::chrono::milliseconds reap_interval)
    : spawner_(spawner), context_(std::move(context)), reap_interval_(reap_interval) {
  reaper_ = std::thread([this] { ReapLoop(); });
}

CliRunner::~CliRunner() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  reaper_.join();
}

namespace {

// `start` and `enqueue` read what follows `--` as params (in 1.30.2 too), so
// their DAG file (an absolute path) comes without it; every other command
// gets `--` before its positional arguments.
bool ParamsFollowDashDash(const std::string& subcommand) { return subcommand == "start" || subcommand == "enqueue"; }

}  // namespace

std::vector<std::string> CliRunner::CommandLine(const std::string& subcommand, const std::vector<std::string>& flags,
                                                const std::vector<std::string>& positional) const {
  std::vector<std::string> argv{context_.executable, subcommand};
  argv.insert(argv.end(), flags.begin(), flags.end());
  if (!context_.config_file.empty()) argv.push_back("--config=" + context_.config_file);
  if (!ParamsFollowDashDash(subcommand)) argv.push_back("--");
  argv.insert(argv.end(), positional.begin(), positional.end());
  return argv;
}

Status CliRunner::Spawn(const std::string& subcommand, const std::vector<std::string>& flags,
                        const std::vector<std::string>& positional, pid_t* pid) {
  for (const std::string& arg : positional) {
    // Without `--` before it, would be taken for a flag (the DAG files of
    // start and enqueue are absolute paths, which never start so).
    if (arg.empty() || (arg[0] == '-' && ParamsFollowDashDash(subcommand))) {
      return Status::InvalidArgument("invalid argument \"" + arg + "\"");
    }
  }
  std::vector<std::string> argv = CommandLine(subcommand, flags, positional);
  std::lock_guard<std::mutex> l(mu_);
  Status s = spawner_->Spawn(argv, ChildEnvironment(context_, {}), {}, pid);
  if (!s.ok()) return s.WithContext("dagu " + subcommand);
  spdlog::info("web: started dagu {} (pid {})", subcommand, *pid);
  running_.push_back(*pid);
  return Status::OK();
}

std::optional<int> CliRunner::ExitStatus(pid_t pid) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = exited_.find(pid);
  if (it == exited_.end()) return std::nullopt;
  int status = it->second;
  exited_.erase(it);
  return status;
}

std::optional<int> CliRunner::Wait(pid_t pid, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    auto it = exited_.find(pid);
    if (it != exited_.end()) {
      int status = it->second;
      exited_.erase(it);
      return status;
    }
    if (std::find(running_.begin(), running_.end(), pid) == running_.end()) return std::nullopt;  // unknown pid
    if (cancelled_) return std::nullopt;
    if (cv_.wait_until(l, std::min(deadline, std::chrono::steady_clock::now() + reap_interval_)) ==
            std::cv_status::timeout &&
        std::chrono::steady_clock::now() >= deadline) {
      return std::nullopt;
    }
  }
}

void CliRunner::CancelWaits() {
  {
    std::lock_guard<std::mutex> l(mu_);
    cancelled_ = true;
  }
  cv_.notify_all();
}

bool CliRunner::waits_cancelled() const {
  std::lock_guard<std::mutex> l(mu_);
  return cancelled_;
}

void CliRunner::ReapOnce() {
  std::lock_guard<std::mutex> l(mu_);
  for (auto it = running_.begin(); it != running_.end();) {
    int status = 0;
    if (spawner_->TryReap(*it, &status)) {
      exited_[*it] = status;
      it = running_.erase(it);
    } else {
      ++it;
    }
  }
  // Keep a bounded number of unclaimed exit statuses (detached runs nobody waits for).
  while (exited_.size() > 256) exited_.erase(exited_.begin());
}

void CliRunner::ReapLoop() {
  std::unique_lock<std::mutex> l(mu_);
  while (!stopping_) {
    l.unlock();
    ReapOnce();
    cv_.notify_all();
    l.lock();
    cv_.wait_for(l, reap_interval_, [this] { return stopping_; });
  }
}

}  // namespace dagu::web
