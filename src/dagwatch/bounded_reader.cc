#include "dagwatch/bounded_reader.h"

#include <condition_variable>
#include <thread>

namespace dagu {

struct BoundedReader::Pending {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Status status;
  std::string contents;
};

BoundedReader::BoundedReader(FileSystem* fs, std::chrono::milliseconds limit, uint64_t max_bytes)
    : fs_(fs), limit_(limit), max_bytes_(max_bytes) {}

Status BoundedReader::Read(const std::string& path, const std::string& confine_to, std::string* contents) {
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = stuck_.find(path);
    if (it != stuck_.end()) {
      std::lock_guard<std::mutex> pl(it->second->mu);
      if (!it->second->done) {
        return Status::TimedOut("reading " + path + " is still blocked (no answer within " +
                                std::to_string(limit_.count()) + " ms); skipped");
      }
      stuck_.erase(it);  // it finished meanwhile: read afresh
    }
  }
  auto pending = std::make_shared<Pending>();
  FileSystem* fs = fs_;
  uint64_t max_bytes = max_bytes_;
  std::thread([fs, pending, path, confine_to, max_bytes] {
    std::string out;
    Status s = fs->ReadRegularFile(path, confine_to, max_bytes, &out);
    std::lock_guard<std::mutex> l(pending->mu);
    pending->status = std::move(s);
    pending->contents = std::move(out);
    pending->done = true;
    pending->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> l(pending->mu);
  if (pending->cv.wait_for(l, limit_, [&] { return pending->done; })) {
    *contents = std::move(pending->contents);
    return pending->status;
  }
  l.unlock();
  std::lock_guard<std::mutex> sl(mu_);
  stuck_[path] = pending;
  return Status::TimedOut("reading " + path + " did not finish within " + std::to_string(limit_.count()) +
                          " ms (a hung filesystem?); skipped");
}

}  // namespace dagu
