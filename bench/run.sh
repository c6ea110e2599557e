#!/usr/bin/env bash
# Side-by-side benchmarks of our `dagu` against the real Dagu 1.30.2: scheduler
# HA (failover, handover, start-up, slots) and cost (run overhead of `dagu
# start`, 1,000 and 10,000 DAG files, idle active and standby).
#
#   bench/run.sh            full set (about 45 min), report in bench/results/<date>.md
#   bench/run.sh --quick    short set (< 3 min, one failover each), report in
#                           bench/results/<date>-quick.md
#   bench/run.sh --quick --only run,scale,idle   the cost part of it (< 60 s; ctest
#                           bench_perf_quick)
# Other options are passed to bench/bench.py (--out FILE, --seed N, --nice N,
# --only crash,takeover,handover,startup,slots,run,scale,idle, --slot-kills N;
# `--only takeover` is kill -9 at T=30s R=5s: Dagu 1.30.2, ours, ours with
# scheduler.fast_takeover, about 6 min).
#
# Our binary: $DAGU_BINARY, else build/default/bin/dagu (scripts/build.sh), else
# build/bench/bin/dagu; with --build, build/bench is (re)built first
# (RelWithDebInfo). Dagu 1.30.2 comes from bench/fetch_peer.sh; when it cannot be
# had its cases are skipped with a message. Exit status: 0 when every check
# passed, 1 otherwise.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode=full
build=0
pass=()
for arg in "$@"; do
  case "$arg" in
    --quick) mode=quick; pass+=("$arg") ;;
    --build) build=1 ;;
    *) pass+=("$arg") ;;
  esac
done

if [[ "$build" == 1 ]]; then
  cmake -S "$root" -B "$root/build/bench" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$root/build/bench" --target dagu -j2
fi

ours="${DAGU_BINARY:-}"
if [[ -z "$ours" ]]; then
  for candidate in "$root/build/default/bin/dagu" "$root/build/bench/bin/dagu"; do
    if [[ -x "$candidate" ]]; then ours="$candidate"; break; fi
  done
fi
if [[ -z "$ours" ]]; then
  echo "bench: our dagu binary not found (run scripts/build.sh, or bench/run.sh --build, or set DAGU_BINARY)" >&2
  exit 1
fi

if ! peer="$("$root/bench/fetch_peer.sh")"; then
  echo "bench: Dagu 1.30.2 not available; its cases are skipped" >&2
  peer=none
fi

suffix=""
if [[ "$mode" == quick ]]; then suffix="-quick"; fi
out="$root/bench/results/$(date -u +%F)$suffix.md"
for arg in "${pass[@]}"; do
  if [[ "$arg" == --out* ]]; then out=""; fi
done
exec python3 "$root/bench/bench.py" --ours "$ours" --peer "$peer" ${out:+--out "$out"} "${pass[@]}"
