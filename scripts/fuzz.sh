#!/usr/bin/env bash
# Long fuzzing runs with libFuzzer (clang, ASan + UBSan): builds the `fuzz`
# preset (build/fuzz) and runs each target for SECONDS (default 600) with
# its seed corpus (tests/fuzz/corpus/<target>), regression inputs
# (tests/fuzz/regressions/<target>) and dictionary (tests/fuzz/dict/). New
# corpus entries go to build/fuzz/corpus/<target>, crashes to
# build/fuzz/artifacts/<target>/. Exits non-zero when a target crashed;
# copy the crashing input into tests/fuzz/regressions/<target>/ with the fix.
#
#   scripts/fuzz.sh                 every target, 600 s each
#   scripts/fuzz.sh 60 cron owner   the named targets, 60 s each
#   FUZZ_JOBS=2 scripts/fuzz.sh     two targets at a time
# The short run in the test suite is ctest -L fuzz (GCC build, no libFuzzer).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
shift || true
declare -A dicts=([cron]=cron [duration]=duration [config]=yaml [dag_yaml]=yaml [status_line]=json
                  [queue_item]=json [owner]=json [http_request]=http)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(cron duration config dag_yaml status_line queue_item owner http_request); fi

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --parallel "${DAGU_BUILD_JOBS:-$(nproc)}"

run_one() {
  local t="$1" corpus="build/fuzz/corpus/$1" artifacts="build/fuzz/artifacts/$1"
  mkdir -p "$corpus" "$artifacts"
  local log="build/fuzz/$t.log"
  if build/fuzz/fuzz/fuzz_"$t" "$corpus" "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t" \
      -dict="tests/fuzz/dict/${dicts[$t]}.dict" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1; then
    echo "fuzz: $t: clean for ${seconds}s: $(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}') runs," \
         "$(ls "$corpus" | wc -l) corpus entries"
  else
    echo "fuzz: $t: FAILED, see $log and $artifacts/"
    return 1
  fi
}

failed=0
running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "${FUZZ_JOBS:-1}" ]; then wait -n || failed=1; running=$((running - 1)); fi
done
while [ "$running" -gt 0 ]; do wait -n || failed=1; running=$((running - 1)); done
exit "$failed"
