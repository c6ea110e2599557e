// The dispatch gate of an armed slot run (docs/ha-protocol.md, "Armed slot
// runs"; docs/scheduling.md).
//
// To start a slot's run at the minute boundary rather than one process
// start-up later, the active scheduler spawns the run's `dagu start` a
// moment before the slot ("arms" it). The run does what a cold start does
// before its first write (loads the binary, the config and the DAG), then
// waits at the gate: one end of a socket pair, inherited as a descriptor
// and named by DAGU_DISPATCH_GATE="<fd>:<limit in ms>". At the slot the
// scheduler, having checked everything a cold dispatch checks (fencing, the
// start guards, the tick ledger), sends "go <lease deadline>\n" and the run
// goes on under that deadline (core/dispatch_deadline.h), exactly as a run
// spawned at that moment would. Anything else releases it without a trace
// (no record, no log, exit 0): the scheduler closing its end (a guard said
// no, the role was lost, the scheduler exited or died: the kernel closes
// it), a malformed message, or `limit` passing without a word (a scheduler
// that hangs).
//
// The gate only postpones the run's first write; fencing is unchanged: the
// run still checks the deadline it was given (now the one in the "go")
// before it creates its record.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/status.h"

namespace dagu {

inline constexpr char kDispatchGateEnv[] = "DAGU_DISPATCH_GATE";
// The descriptor number a scheduler passes the gate at (after the lease
// beacon's, core/dispatch_deadline.h).
inline constexpr int kDispatchGateFd = 4;

// The scheduler's message that opens the gate, carrying the lease deadline
// the run is fenced by from then on.
std::string GateOpenMessage(MonoTime deadline);

class DispatchGate {
 public:
  DispatchGate() = default;  // no gate: Await() returns at once
  DispatchGate(int fd, std::chrono::milliseconds limit) : fd_(fd), limit_(limit) {}
  ~DispatchGate();
  DispatchGate(DispatchGate&& other) noexcept;
  DispatchGate& operator=(DispatchGate&& other) noexcept;
  DispatchGate(const DispatchGate&) = delete;
  DispatchGate& operator=(const DispatchGate&) = delete;

  bool empty() const { return fd_ < 0; }

  // Blocks until the scheduler opens or releases the gate (at most `limit`).
  // Opened: OK with the deadline it sent in *deadline. Released (closed,
  // garbage, or the limit passed): Aborted saying which. The descriptor is
  // closed either way.
  Status Await(MonoTime* deadline);

 private:
  int fd_ = -1;
  std::chrono::milliseconds limit_{0};
};

// Reads DAGU_DISPATCH_GATE and removes it from the environment (the steps
// and the runs they start never see it). No variable: an empty gate. A
// value that does not parse: a gate that is already closed (the run is
// released: the safe side), logged.
DispatchGate TakeDispatchGate();

// The value of DAGU_DISPATCH_GATE for a gate passed at `fd`.
std::string DispatchGateValue(int fd, std::chrono::milliseconds limit);

}  // namespace dagu
