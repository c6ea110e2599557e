// BoundedReader: reads a file so that neither what it is nor a hung
// filesystem can hold up the caller (issue: a FIFO or a hung file in the DAG
// folder must never hold up scheduling).
//
//  - What it is: FileSystem::ReadRegularFile opens with O_NONBLOCK|O_NOFOLLOW
//    and accepts only a regular file of at most `max_bytes` (a FIFO, device,
//    socket, directory, or a symlink leading out of `confine_to`, is refused
//    with InvalidArgument naming it).
//  - How long: the read runs on a helper thread and the caller waits at most
//    `limit`; then it gets TimedOut and the read is left to finish in the
//    background. While that read is still stuck, a new read of the same path
//    returns TimedOut at once (no second thread piles up behind it).
//  - One helper thread serves the reads one after another (a thread per read
//    cost more than the read: 10,000 DAG files took seconds); when a read
//    overruns, that thread is left to it and the reads queued behind it move
//    to a fresh one.
//
// The FileSystem must outlive every read started (the process's
// PosixFileSystem does). Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/file_system.h"
#include "core/status.h"

namespace dagu {

// The bounds the scheduler reads DAG files (and their base config) with.
inline constexpr std::chrono::milliseconds kDagReadLimit{2000};
inline constexpr uint64_t kDagFileMaxBytes = 8u << 20;  // 8 MiB

class BoundedReader {
 public:
  BoundedReader(FileSystem* fs, std::chrono::milliseconds limit = kDagReadLimit,
                uint64_t max_bytes = kDagFileMaxBytes);
  ~BoundedReader();
  BoundedReader(const BoundedReader&) = delete;
  BoundedReader& operator=(const BoundedReader&) = delete;

  Status Read(const std::string& path, const std::string& confine_to, std::string* contents);

  FileSystem* fs() const { return fs_; }

 private:
  struct Pending;
  struct Worker;
  // The helper thread that takes the next read (started on first use).
  std::shared_ptr<Worker> CurrentWorker();

  FileSystem* fs_;
  std::chrono::milliseconds limit_;
  uint64_t max_bytes_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Pending>> stuck_;  // reads that overran the limit, by path
  std::shared_ptr<Worker> worker_;                          // guarded by mu_
};

}  // namespace dagu
