// ParallelFor: calls fn(i) for every i in [0, n) on up to `threads` threads
// (the caller's among them), and returns when every call has returned.
//
// For I/O-bound loops over thousands of small folders or files: a cold read
// of 10,000 day folders waits on the disk one request at a time when done in
// a loop, and a disk (or a VM's virtual one) serves several at once
// (docs/benchmarks.md, "Cold requests"). Not for CPU-bound work: the host
// has few cores.
//
// `fn` must be thread-safe and must not throw. Calls are handed out in
// order of i, one at a time, so a caller that checks a cancel flag in fn
// stops within one call per thread. With `threads` <= 1 or n <= 1 every
// call runs on the caller's thread; no more threads than n are started.
#pragma once

#include <cstddef>
#include <functional>

namespace dagu {

void ParallelFor(size_t n, size_t threads, const std::function<void(size_t)>& fn);

}  // namespace dagu
