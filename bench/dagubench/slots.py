"""Slot correctness around failovers: a `* * * * *` DAG, two schedulers, and a
kill -9 of the active near each minute boundary (just before it, so the slot
falls in the failover gap, or just after it, as the slot comes due). The
killed instance is replaced by a fresh standby so a pair is always up.
Afterwards every slot from the start minute to the last watched minute must
have exactly one run.

A run is attributed to a slot by its run ID when the ID carries the slot
(ours: sched-<h>-<YYYYMMDDTHHMMSS>, upstream catch-up IDs end the same way),
else by the minute its run directory was created (Dagu 1.30.2's UUIDv7 runs:
it records no scheduled time, and only ever runs the current minute's slot,
docs/benchmarks.md "Dagu 1.30.2 as observed" 5).
"""

import datetime
import glob
import json
import os
import re
import signal
import time

from . import home as homes
from . import scenarios

# Kill offsets from the minute boundary, s (negative: before the slot).
OFFSETS = [-1.0, 0.2, -5.0, 1.0, -0.5, 0.05]
SETTLE = 15.0  # s after the last watched boundary before counting

_RUN_DIR = re.compile(r"^dag-run_(\d{8})_(\d{4})\d{2}Z_(.+)$")
_SLOT_IN_ID = re.compile(r"-(\d{8})T(\d{4})\d{2}$")


def _minute(t):
    return int(t // 60) * 60


def _hhmm(minute):
    return datetime.datetime.fromtimestamp(minute, datetime.timezone.utc).strftime("%H:%M")


def _stamp_minute(day, hhmm):
    dt = datetime.datetime.strptime(day + hhmm, "%Y%m%d%H%M")
    return dt.replace(tzinfo=datetime.timezone.utc).timestamp()


def count_runs(home, dag):
    """{slot minute (epoch s): [(run id, final status code or None)]}"""
    per_slot = {}
    pattern = os.path.join(home.path, "data", "dag-runs", dag, "dag-runs", "*", "*", "*", "dag-run_*")
    for run_dir in glob.glob(pattern):
        m = _RUN_DIR.match(os.path.basename(run_dir))
        if not m:
            continue
        run_id = m.group(3)
        in_id = _SLOT_IN_ID.search(run_id)
        slot = _stamp_minute(*in_id.groups()) if in_id else _stamp_minute(m.group(1), m.group(2))
        per_slot.setdefault(int(slot), []).append((run_id, _final_status(run_dir)))
    return per_slot


def _final_status(run_dir):
    attempts = sorted(glob.glob(os.path.join(run_dir, "attempt_*", "status.jsonl")))
    if not attempts:
        return None
    try:
        with open(attempts[-1]) as f:
            lines = [ln for ln in f.read().splitlines() if ln.strip()]
        return json.loads(lines[-1]).get("status") if lines else None
    except (OSError, ValueError):
        return None


def slot_run(impl, stale, retry, root, kills):
    def body(home, started):
        names = iter(f"n{i}" for i in range(1, 100))

        def launch(want):
            inst = impl.start(home, next(names), stale, retry)
            started.append(inst)
            scenarios.wait_role(impl, inst, want, scenarios.START_TIMEOUT)
            return inst

        active = launch("active")
        first_slot = _minute(time.time())
        standby = launch("standby")
        boundary = _minute(time.time() + SETTLE) + 60
        kill_log = []
        for i in range(kills):
            offset = OFFSETS[i % len(OFFSETS)]
            time.sleep(max(0.0, boundary + offset - time.time()))
            t_kill = time.monotonic()
            active.signal(signal.SIGKILL)
            active.wait(5)
            scenarios.wait_role(impl, standby, "active", stale + 2 * retry + 10)
            kill_log.append((boundary, offset, time.monotonic() - t_kill))
            # Started only now: a fresh standby next to a stale lock could win
            # the takeover race itself (Dagu's standbys race with mkdir).
            active, standby = standby, launch("standby")
            boundary += 60
        last_slot = _minute(time.time()) + 60
        time.sleep(max(0.0, last_slot + SETTLE - time.time()))
        for inst in started:
            inst.kill_hard()
        return _tally(count_runs(home, "tick"), first_slot, last_slot, kill_log)

    return scenarios.run_guarded(impl, "slots", {"tick": homes.EVERY_MINUTE_DAG}, root, body)


def _tally(per_slot, first_slot, last_slot, kill_log):
    kills_at = {b: off for b, off, _ in kill_log}
    slots = list(range(first_slot, last_slot + 60, 60))
    cells, once, lost, dup = [], 0, 0, 0
    for s in slots:
        n = len(per_slot.get(s, []))
        once += n == 1
        lost += n == 0
        dup += n > 1
        mark = f" (kill {kills_at[s]:+g}s)" if s in kills_at else ""
        cells.append(f"{_hhmm(s)}×{n}{mark}")
    outside = sum(len(v) for k, v in per_slot.items() if k not in slots)
    statuses = sorted({str(st) for runs in per_slot.values() for _, st in runs})
    return {
        "kills": len(kill_log),
        "slots": len(slots),
        "ran_once": once,
        "lost": lost,
        "duplicated": dup,
        "runs_outside_window": outside,
        "final_statuses": ",".join(statuses),
        "takeovers": ", ".join(f"{t:.1f}" for _, _, t in kill_log),
        "detail": "; ".join(cells),
    }
