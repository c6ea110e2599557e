#include "executors/masking_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <thread>

namespace dagu {

std::string StreamMasker::Feed(std::string_view data) {
  pending_.append(data);
  size_t hold = masker_->longest() > 0 ? masker_->longest() - 1 : 0;
  if (pending_.size() <= hold) return "";
  // Every position before `safe` has at least `longest` bytes after it, so a
  // value starting there is decided now, exactly as Mask() decides it.
  size_t safe = pending_.size() - hold;
  std::string out;
  size_t i = 0;
  while (i < safe) {
    size_t n = masker_->MatchAt(pending_, i);
    if (n > 0) {
      out += Masker::kMask;
      i += n;
    } else {
      out.push_back(pending_[i++]);
    }
  }
  pending_.erase(0, i);
  return out;
}

std::string StreamMasker::Finish() {
  std::string out = masker_->Mask(pending_);
  pending_.clear();
  return out;
}

namespace {

void WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t w = ::write(fd, data.data(), data.size());
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    data.remove_prefix(static_cast<size_t>(w));
  }
}

struct Stream {
  std::string fifo;
  int read_fd = -1;
  int keeper_fd = -1;  // our write end: no EOF before the step opened its own
  int dest_fd = -1;
  StreamMasker masker;
  explicit Stream(const Masker* m) : masker(m) {}
};

class MaskingStep final : public RunningStep {
 public:
  MaskingStep(StepRunner* inner, const Masker* masker, StepInvocation inv) : masker_(masker) {
    char tmpl[] = "/tmp/dagu-mask-XXXXXX";
    if (::mkdtemp(tmpl) != nullptr) dir_ = tmpl;
    std::string* paths[] = {&inv.stdout_path, &inv.stderr_path, &inv.extra_stdout_path, &inv.extra_stderr_path};
    int n = 0;
    for (std::string* path : paths) {
      if (path->empty() || dir_.empty()) continue;
      auto s = std::make_unique<Stream>(masker);
      s->fifo = dir_ + "/" + std::to_string(n++);
      int dest = ::open(path->c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
      if (dest < 0 || ::mkfifo(s->fifo.c_str(), 0600) != 0) {
        if (dest >= 0) ::close(dest);
        continue;  // the step writes that file itself (unmasked only if we cannot make a FIFO)
      }
      s->dest_fd = dest;
      s->read_fd = ::open(s->fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
      s->keeper_fd = ::open(s->fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      *path = s->fifo;
      streams_.push_back(std::move(s));
    }
    pump_ = std::thread([this] { Pump(); });
    step_ = inner->Start(inv);
  }

  ~MaskingStep() override {
    CloseKeepers();
    if (pump_.joinable()) pump_.join();
    Cleanup();
  }

  StepResult Wait() override {
    StepResult r = step_->Wait();
    CloseKeepers();
    if (pump_.joinable()) pump_.join();
    Cleanup();
    r.stderr_tail = masker_->Mask(r.stderr_tail);
    r.error = masker_->Mask(r.error);
    r.start_error = masker_->Mask(r.start_error);
    return r;
  }

  void Signal(int sig) override { step_->Signal(sig); }

 private:
  void CloseKeepers() {
    for (auto& s : streams_) {
      if (s->keeper_fd >= 0) {
        ::close(s->keeper_fd);
        s->keeper_fd = -1;
      }
    }
  }

  void Pump() {
    char buf[65536];
    for (;;) {
      std::vector<pollfd> fds;
      std::vector<Stream*> which;
      for (auto& s : streams_) {
        if (s->read_fd < 0) continue;
        fds.push_back({s->read_fd, POLLIN, 0});
        which.push_back(s.get());
      }
      if (fds.empty()) return;
      if (::poll(fds.data(), fds.size(), 200) < 0 && errno != EINTR) return;
      for (size_t i = 0; i < fds.size(); ++i) {
        if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        Stream* s = which[i];
        ssize_t n = ::read(s->read_fd, buf, sizeof buf);
        if (n > 0) {
          WriteAll(s->dest_fd, s->masker.Feed(std::string_view(buf, static_cast<size_t>(n))));
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
          WriteAll(s->dest_fd, s->masker.Finish());
          ::close(s->read_fd);
          s->read_fd = -1;
        }
      }
    }
  }

  void Cleanup() {
    for (auto& s : streams_) {
      if (s->read_fd >= 0) ::close(s->read_fd);
      if (s->dest_fd >= 0) ::close(s->dest_fd);
      s->read_fd = s->dest_fd = -1;
      if (!s->fifo.empty()) ::unlink(s->fifo.c_str());
    }
    if (!dir_.empty()) ::rmdir(dir_.c_str());
  }

  const Masker* masker_;
  std::string dir_;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::thread pump_;
  std::unique_ptr<RunningStep> step_;
};

}  // namespace

std::unique_ptr<RunningStep> MaskingRunner::Start(const StepInvocation& invocation) {
  if (masker_ == nullptr || masker_->empty()) return inner_->Start(invocation);
  return std::make_unique<MaskingStep>(inner_, masker_, invocation);
}

}  // namespace dagu
