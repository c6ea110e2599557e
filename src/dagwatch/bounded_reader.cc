#include "dagwatch/bounded_reader.h"

#include <future>
#include <thread>

namespace dagu {

struct BoundedReader::Pending {
  std::shared_future<std::pair<Status, std::string>> result;
};

BoundedReader::BoundedReader(FileSystem* fs, std::chrono::milliseconds limit, uint64_t max_bytes)
    : fs_(fs), limit_(limit), max_bytes_(max_bytes) {}

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
  std::packaged_task<std::pair<Status, std::string>()> task([fs, path, confine_to, max_bytes] {
    std::string out;
    Status s = fs->ReadRegularFile(path, confine_to, max_bytes, &out);
    return std::make_pair(std::move(s), std::move(out));
  });
  auto pending = std::make_shared<Pending>();
  pending->result = task.get_future().share();
  std::thread(std::move(task)).detach();  // a read that never returns is left behind, owning its state
  if (pending->result.wait_for(limit_) == std::future_status::ready) {
    const auto& [status, text] = pending->result.get();
    *contents = text;
    return status;
  }
  std::lock_guard<std::mutex> l(mu_);
  stuck_[path] = pending;
  return Status::TimedOut("reading " + path + " did not finish within " + std::to_string(limit_.count()) +
                          " ms (a hung filesystem?); skipped");
}

}  // namespace dagu
