#include "dagwatch/bounded_reader.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <thread>

namespace dagu {

struct BoundedReader::Pending {
  std::shared_future<std::pair<Status, std::string>> result;
};

// A helper thread and its queue of reads. The thread owns a reference, so a
// worker left to a hung read lives until that read returns.
struct BoundedReader::Worker {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;  // guarded by mu
  bool retired = false;                     // guarded by mu: end once the queue is empty

  static std::shared_ptr<Worker> Start() {
    auto w = std::make_shared<Worker>();
    std::thread([w] {
      for (;;) {
        std::unique_lock<std::mutex> l(w->mu);
        w->cv.wait(l, [&] { return w->retired || !w->queue.empty(); });
        if (w->queue.empty()) return;
        std::function<void()> task = std::move(w->queue.front());
        w->queue.pop_front();
        l.unlock();
        task();
      }
    }).detach();
    return w;
  }

  void Retire() {
    {
      std::lock_guard<std::mutex> l(mu);
      retired = true;
    }
    cv.notify_all();
  }
};

BoundedReader::BoundedReader(FileSystem* fs, std::chrono::milliseconds limit, uint64_t max_bytes)
    : fs_(fs), limit_(limit), max_bytes_(max_bytes) {}

BoundedReader::~BoundedReader() {
  std::lock_guard<std::mutex> l(mu_);
  if (worker_) worker_->Retire();
}

std::shared_ptr<BoundedReader::Worker> BoundedReader::CurrentWorker() {
  std::lock_guard<std::mutex> l(mu_);
  if (!worker_) worker_ = Worker::Start();
  return worker_;
}

Status BoundedReader::Read(const std::string& path, const std::string& confine_to, std::string* contents) {
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = stuck_.find(path);
    if (it != stuck_.end()) {
      if (it->second->result.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        return Status::TimedOut("reading " + path + " is still blocked (no answer within " +
                                std::to_string(limit_.count()) + " ms); skipped");
      }
      stuck_.erase(it);  // it finished meanwhile: read afresh
    }
  }
  FileSystem* fs = fs_;
  uint64_t max_bytes = max_bytes_;
  auto task = std::make_shared<std::packaged_task<std::pair<Status, std::string>()>>([fs, path, confine_to,
                                                                                        max_bytes] {
    std::string out;
    Status s = fs->ReadRegularFile(path, confine_to, max_bytes, &out);
    return std::make_pair(std::move(s), std::move(out));
  });
  auto pending = std::make_shared<Pending>();
  pending->result = task->get_future().share();
  std::shared_ptr<Worker> worker = CurrentWorker();
  {
    std::lock_guard<std::mutex> l(worker->mu);
    worker->queue.push_back([task] { (*task)(); });
  }
  worker->cv.notify_one();
  if (pending->result.wait_for(limit_) == std::future_status::ready) {
    const auto& [status, text] = pending->result.get();
    *contents = text;
    return status;
  }
  std::lock_guard<std::mutex> l(mu_);
  stuck_[path] = pending;
  if (worker_ == worker) {
    // That thread may be held by a hung read (this one, or one before it):
    // what is queued behind it goes to a fresh thread, and it ends once free.
    auto fresh = Worker::Start();
    {
      std::scoped_lock both(worker->mu, fresh->mu);
      fresh->queue = std::move(worker->queue);
      worker->queue.clear();
    }
    fresh->cv.notify_one();
    worker->Retire();
    worker_ = fresh;
  }
  return Status::TimedOut("reading " + path + " did not finish within " + std::to_string(limit_.count()) +
                          " ms (a hung filesystem?); skipped");
}

}  // namespace dagu
