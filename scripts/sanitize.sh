#!/usr/bin/env bash
# The test suites under sanitizers (docs/reliability.md). Builds the CMake
# preset `asan` (ASan + UBSan, build/asan) and/or `tsan` (TSan, build/tsan)
# and runs ctest there on the labels given (default: unit, process and
# conformance). The tests drive the sanitized `dagu` of the same build, so a
# report from the binary fails the test that ran it. Any sanitizer report
# ends the process that made it with a non-zero status (halt_on_error), so a
# finding is a failed test, never a line nobody reads.
#
#   scripts/sanitize.sh                      asan then tsan, unit+process+conformance
#   scripts/sanitize.sh asan                 ASan + UBSan only
#   scripts/sanitize.sh tsan unit            TSan, unit tests only
#   DAGU_BUILD_JOBS=1 scripts/sanitize.sh    fewer compile jobs
#
# It is separate from the default suite (.ci/run): two more full builds and a
# slower suite do not fit in its time budget. Exits non-zero when a build or
# a test failed.
set -euo pipefail
cd "$(dirname "$0")/.."

kinds=asan,tsan
labels="unit|process|conformance"
case "${1:-}" in
  asan|tsan) kinds="$1"; shift ;;
  all) shift ;;
esac
if [ $# -gt 0 ]; then labels="$(IFS='|'; echo "$*")"; fi

# Reports go to stderr (ctest shows it for failed tests) and end the process.
export ASAN_OPTIONS="verify_asan_link_order=0:halt_on_error=1:abort_on_error=0:detect_leaks=1:exitcode=86:strict_string_checks=1:detect_stack_use_after_return=1"
# Leaks that are there by design (each explained in the file).
export LSAN_OPTIONS="suppressions=$(pwd)/scripts/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=87"
export TSAN_OPTIONS="halt_on_error=1:exitcode=88:second_deadlock_stack=1"

status=0
for kind in ${kinds//,/ }; do
  echo "sanitize: $kind: configure and build (build/$kind)"
  cmake --preset "$kind" -DDAGU_WERROR=ON >/dev/null
  # Only what the labels run: the unit tests of each part, the binary, and
  # the process and conformance suites (the compat, chaos, fuzz and bench
  # targets are a third of the build and not run here).
  targets=(all)
  if [[ "|$labels|" =~ ^(\|(unit|process|conformance))+\|$ ]]; then
    targets=(dagu process_test spec085_scheduler_ha)
    for t in src/*/*_test.cc; do targets+=("$(basename "$(dirname "$t")")_test"); done
  fi
  if ! cmake --build --preset "$kind" --parallel "${DAGU_BUILD_JOBS:-$(nproc)}" \
      --target $(printf '%s\n' "${targets[@]}" | sort -u); then
    echo "sanitize: $kind: build FAILED"
    status=1
    continue
  fi
  echo "sanitize: $kind: ctest -L '$labels'"
  # Sanitized binaries are 2-15x slower: a longer per-test timeout.
  if ctest --test-dir "build/$kind" -L "$labels" --no-tests=error --output-on-failure -j 2 --timeout 1800 \
      --output-junit "$(pwd)/build/$kind/sanitize-junit.xml"; then
    echo "sanitize: $kind: clean"
  else
    echo "sanitize: $kind: FAILED (build/$kind/Testing/Temporary/LastTest.log)"
    status=1
  fi
done
exit $status
