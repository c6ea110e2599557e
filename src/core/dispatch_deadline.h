// The dispatch deadline handed from the active scheduler to a run it spawns
// (design/decisions.md section 3, "Fencing"; docs/ha-protocol.md): the
// scheduler's lease deadline, on CLOCK_MONOTONIC (the real Clock's
// Monotonic(), shared by every process of the host), in the environment
// variable DAGU_DISPATCH_DEADLINE as decimal nanoseconds. The run refuses to
// create its run record (or take a queued run's dispatch) at or after it, so
// a scheduler that was deposed between its check and the spawn cannot start
// anything through a slow child.
//
// The child takes the variable out of its environment (TakeDispatchDeadline)
// so that its steps, and the runs they start, never inherit it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/status.h"

namespace dagu {

inline constexpr char kDispatchDeadlineEnv[] = "DAGU_DISPATCH_DEADLINE";

std::string EncodeDispatchDeadline(MonoTime deadline);
// nullopt when `text` is not a non-negative decimal integer.
std::optional<MonoTime> DecodeDispatchDeadline(std::string_view text);

// Reads DAGU_DISPATCH_DEADLINE and removes it from this process's
// environment. nullopt when it is unset; a value that does not parse is
// logged and treated as already passed (the safe side).
std::optional<MonoTime> TakeDispatchDeadline();

// OK while `now` is before `deadline` (or there is none); Aborted naming
// what was refused otherwise.
Status CheckDispatchDeadline(const std::optional<MonoTime>& deadline, MonoTime now, std::string_view what);

}  // namespace dagu
