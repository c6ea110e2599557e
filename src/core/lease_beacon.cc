#include "core/lease_beacon.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace dagu {
namespace {

int64_t Ns(MonoTime t) { return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count(); }

// Descriptors below this are left to the process (stdio and whatever a
// library expects at a low number).
constexpr int kFirstFd = 10;

}  // namespace

static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<int64_t>::is_always_lock_free,
              "the beacon is shared between processes: its atomics must be lock-free");

StatusOr<std::unique_ptr<LeaseBeacon>> LeaseBeacon::Create() {
  int raw = ::memfd_create("dagu-lease", MFD_CLOEXEC);
  if (raw < 0) return Status::FromErrno(errno, "memfd_create (lease beacon)");
  int fd = ::fcntl(raw, F_DUPFD_CLOEXEC, kFirstFd);
  int err = errno;
  ::close(raw);
  if (fd < 0) return Status::FromErrno(err, "fcntl F_DUPFD_CLOEXEC (lease beacon)");
  if (::ftruncate(fd, static_cast<off_t>(sizeof(Cell))) != 0) {
    err = errno;
    ::close(fd);
    return Status::FromErrno(err, "ftruncate (lease beacon)");
  }
  void* p = ::mmap(nullptr, sizeof(Cell), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    err = errno;
    ::close(fd);
    return Status::FromErrno(err, "mmap (lease beacon)");
  }
  // The file is zero-filled: term 0, no deadline.
  return std::unique_ptr<LeaseBeacon>(new LeaseBeacon(fd, static_cast<Cell*>(p)));
}

StatusOr<std::unique_ptr<LeaseBeacon>> LeaseBeacon::Attach(int fd) {
  struct stat st {};
  Status bad = Status::OK();
  if (::fstat(fd, &st) != 0) {
    bad = Status::FromErrno(errno, "lease beacon descriptor " + std::to_string(fd));
  } else if (!S_ISREG(st.st_mode) || st.st_size < static_cast<off_t>(sizeof(Cell))) {
    bad = Status::InvalidArgument("lease beacon descriptor " + std::to_string(fd) + " is not a lease beacon");
  }
  if (!bad.ok()) {
    ::close(fd);
    return bad;
  }
  void* p = ::mmap(nullptr, sizeof(Cell), PROT_READ, MAP_SHARED, fd, 0);
  int err = errno;
  ::close(fd);
  if (p == MAP_FAILED) return Status::FromErrno(err, "mmap (lease beacon)");
  return std::unique_ptr<LeaseBeacon>(new LeaseBeacon(-1, static_cast<Cell*>(p)));
}

LeaseBeacon::~LeaseBeacon() {
  ::munmap(cell_, sizeof(Cell));
  if (fd_ >= 0) ::close(fd_);
}

uint64_t LeaseBeacon::BeginTerm(MonoTime deadline) {
  // A reader that sees the new term reads the new deadline or 0, never the
  // old term's deadline under the new term (DeadlineOf reads the term on
  // both sides of the deadline).
  cell_->deadline_ns.store(0);
  const uint64_t term = cell_->term.load() + 1;
  cell_->term.store(term);
  cell_->deadline_ns.store(Ns(deadline));
  return term;
}

void LeaseBeacon::Extend(MonoTime deadline) {
  // Never revives an ended lease (an End() racing a renewal wins) and never
  // moves the deadline back.
  const int64_t want = Ns(deadline);
  int64_t current = cell_->deadline_ns.load();
  while (current > 0 && current < want && !cell_->deadline_ns.compare_exchange_weak(current, want)) {
  }
}

void LeaseBeacon::End() { cell_->deadline_ns.store(0); }

uint64_t LeaseBeacon::term() const { return cell_->term.load(); }

std::optional<MonoTime> LeaseBeacon::DeadlineOf(uint64_t term) const {
  if (cell_->term.load() != term) return std::nullopt;
  const int64_t ns = cell_->deadline_ns.load();
  if (cell_->term.load() != term || ns <= 0) return std::nullopt;
  return MonoTime(std::chrono::nanoseconds(ns));
}

}  // namespace dagu
