// LeaseBeacon: the active scheduler's current lease deadline, shared with
// the runs it spawns (docs/ha-protocol.md, "Fencing a spawned run").
//
// A spawned run gets its scheduler's lease deadline at spawn time
// (DAGU_DISPATCH_DEADLINE, core/dispatch_deadline.h) and refuses to create
// its run record at or after it. On a slow or loaded host a run's own start
// can take longer than what was left of the lease, although the scheduler
// renewed it meanwhile; the run would then be refused for nothing. The
// beacon lets the run see the renewals: it is one shared memory page (a
// memfd) holding the lease's term and deadline, written by the scheduler on
// every grant, renewal and loss, and handed to each spawned run as an
// inherited descriptor.
//
// A run accepts the beacon's deadline only for the term it was spawned in:
// a scheduler that lost its lease and won it again later starts a new term,
// and a run dispatched in the old one still refuses. The beacon never
// extends a lease: it holds exactly the deadline the scheduler itself fences
// on (0 once the lease is lost or given up), so a run trusts it no further
// than its scheduler would trust itself. CLOCK_MONOTONIC is shared by every
// process of the host, and a run runs on its scheduler's host.
//
// The writer is the lease (role/lease_state.h); all calls are lock-free and
// safe from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "core/clock.h"
#include "core/status_or.h"

namespace dagu {

class LeaseBeacon {
 public:
  // The writer's beacon: a new memfd (close-on-exec) mapped read-write; no
  // term yet (every read refuses).
  static StatusOr<std::unique_ptr<LeaseBeacon>> Create();
  // A reader's beacon: maps `fd` (an inherited writer's memfd) read-only and
  // closes `fd` (so that nothing this process starts inherits it).
  // InvalidArgument when `fd` is not such a descriptor.
  static StatusOr<std::unique_ptr<LeaseBeacon>> Attach(int fd);

  ~LeaseBeacon();
  LeaseBeacon(const LeaseBeacon&) = delete;
  LeaseBeacon& operator=(const LeaseBeacon&) = delete;

  // The writer's descriptor, to hand to a child; -1 for an attached beacon.
  int fd() const { return fd_; }

  // Writer. A new term whose lease runs until `deadline`; returns the term.
  uint64_t BeginTerm(MonoTime deadline);
  // The current term's lease now runs until `deadline` (later than before);
  // nothing once End() was called.
  void Extend(MonoTime deadline);
  // The current term's lease is over (lost or given up).
  void End();

  uint64_t term() const;
  // Reader. The lease deadline of `term` when it is still the current term
  // and has not ended; nullopt otherwise.
  std::optional<MonoTime> DeadlineOf(uint64_t term) const;

 private:
  struct Cell {
    std::atomic<uint64_t> term;
    std::atomic<int64_t> deadline_ns;  // 0: no lease
  };
  LeaseBeacon(int fd, Cell* cell) : fd_(fd), cell_(cell) {}

  int fd_;
  Cell* cell_;
};

}  // namespace dagu
