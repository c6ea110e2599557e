// Whether this test binary was built with a sanitizer (the `asan` and `tsan`
// presets, scripts/sanitize.sh), for the few tests whose bounds are a wall
// time or a memory figure of the real binary. The tests run the `dagu` of
// the same build, so a sanitized test binary means a sanitized `dagu`: 2-15x
// slower, and an allocator that keeps freed memory in quarantine and adds
// shadow memory. Such a test keeps its bound in the normal build and scales
// it only here, to a bound that still tells the behaviour it checks apart
// from the failure it guards against (each test says why).
#pragma once

#include <chrono>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DAGU_TESTING_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DAGU_TESTING_SANITIZED 1
#endif
#endif
#ifndef DAGU_TESTING_SANITIZED
#define DAGU_TESTING_SANITIZED 0
#endif

namespace dagu::testing {

inline constexpr bool kSanitizedBuild = DAGU_TESTING_SANITIZED != 0;

// How much longer a timing bound may be under a sanitizer.
inline constexpr int kSanitizerTimeScale = kSanitizedBuild ? 4 : 1;

// How much more memory a process may touch under a sanitizer: ASan keeps
// freed blocks in quarantine (up to 256 MiB) instead of reusing them, TSan
// maps 4 bytes of shadow for each byte the process touches.
inline constexpr int kSanitizerMemoryScale = kSanitizedBuild ? 4 : 1;

// `bound` in the normal build, kSanitizerTimeScale times it under a sanitizer.
template <class Rep, class Period>
constexpr std::chrono::duration<Rep, Period> SanitizerScaled(std::chrono::duration<Rep, Period> bound) {
  return bound * kSanitizerTimeScale;
}

}  // namespace dagu::testing
