#!/usr/bin/env python3
"""Runs the benchmarks (bench/dagubench/plan.py: scheduler HA, run overhead,
scale, idle cost) against our `dagu` and Dagu 1.30.2 and writes a markdown
report.

Usage: bench.py --ours BIN --peer BIN [--quick] [--out FILE] [--seed N]
                [--only crash,handover,startup,slots,run,scale,idle] [--nice N]
Either binary may be omitted (--ours none / --peer none); its cases are then
listed as not measured. Exit status: 0 when every check passed, 1 otherwise,
2 on bad usage.
"""

import argparse
import datetime
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dagubench import impls, perf, plan, proc, report, scenarios, slots  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ours", help="our dagu binary, or 'none'")
    p.add_argument("--peer", help="Dagu 1.30.2 binary, or 'none'")
    p.add_argument("--from-json", help="re-render the report of an earlier run from its .json"
                                       " (with --out), measuring nothing")
    p.add_argument("--quick", action="store_true", help="short mode (< 2 min)")
    p.add_argument("--out", help="report file (markdown); a .json of the raw values is written next to it")
    p.add_argument("--seed", type=int, default=None, help="seed of the kill phases")
    p.add_argument("--only", default="", help="comma-separated scenarios to run (crash, takeover, handover,"
                                              " startup, slots, run, scale, idle)")
    p.add_argument("--nice", type=int, default=None,
                   help="run the harness and every process it starts at this niceness (e.g. -10 on a"
                        " shared host; both implementations get the same)")
    p.add_argument("--slot-kills", type=int, default=4,
                   help="kills (one per minute) per implementation in the slot scenario")
    return p.parse_args()


def make_impls(args):
    out = {}
    for key, path, cls in (("ours", args.ours, impls.Ours), ("dagu", args.peer, impls.Dagu1302)):
        if path and path != "none":
            if not os.access(path, os.X_OK):
                sys.exit(f"bench: {key} binary {path} is not executable")
            out[key] = cls(os.path.abspath(path))
    if "ours" in out:
        out["ours-fast"] = impls.OursFast(out["ours"].binary)
    return out


DUE_PER_MINUTE = 20  # scale: `* * * * *` DAGs among the files


def run_case(case, impl, rng, root, args):
    if case.scenario == "run":
        reps = perf.run_overhead(impl, root, case.size, case.reps)
        for i, r in enumerate(reps):
            _print_rep(case, i, r)
        return reps
    reps = []
    for i in range(case.reps):
        if case.scenario == "scale":
            r = perf.scale(impl, root, case.size, DUE_PER_MINUTE, case.minutes, case.edits)
        elif case.scenario == "idle":
            r = perf.idle(impl, root, case.size, case.minutes)
        elif case.scenario in ("crash", "takeover"):
            r = scenarios.crash_failover(impl, case.stale, case.retry, rng, root, case.cap)
        elif case.scenario == "handover":
            r = scenarios.clean_handover(impl, case.stale, case.retry, rng, root, case.cap)
        elif case.scenario == "startup":
            r = scenarios.startup(impl, root)
        else:
            r = slots.slot_run(impl, case.stale, case.retry, root, args.slot_kills)
        _print_rep(case, i, r)
        reps.append(r)
    return reps


def _print_rep(case, i, r):
    print(f"  {case.scenario} {case.title} #{i + 1}: "
          + ("ERROR " + r["error"] if "error" in r else
             ", ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                       for k, v in r.items() if k != "detail")),
          flush=True)


def rerender(args):
    with open(args.from_json) as f:
        saved = json.load(f)
    results = [(plan.Case(**r["case"]), r["reps"]) for r in saved["results"]]
    check_lines = [line for case, reps in results for line in plan.checks(case, reps)]
    return finish(args, saved["meta"], results, check_lines)


def main():
    args = parse_args()
    if args.from_json:
        return rerender(args)
    if args.ours is None or args.peer is None:
        sys.exit("bench: --ours and --peer are required (a path or 'none')")
    proc.install_signal_cleanup()
    niceness = _set_nice(args.nice)
    available = make_impls(args)
    seed = args.seed if args.seed is not None else int(time.time())
    rng = random.Random(seed)
    only = {s for s in args.only.split(",") if s}
    cases = [c for c in plan.build(args.quick) if not only or c.scenario in only]
    if "slots" in only or (not args.quick and not only):
        cases += [plan.Case("slots", k, 12, 1, reps=1) for k in ("dagu", "ours")]
    if args.quick and "takeover" in only:  # not in the quick set by default (30 s takeovers)
        cases += plan.takeover_cases(True)

    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = scenarios.load_average()
    repo_before = _repo_state()
    results, check_lines, skipped = [], [], []
    root = tempfile.mkdtemp(prefix="dagu-bench-")
    for case in cases:
        impl = available.get(case.impl)
        if impl is None:
            skipped.append(case)
            continue
        print(f"{case.scenario} {case.title} x{case.reps}", flush=True)
        reps = run_case(case, impl, rng, root, args)
        results.append((case, reps))
        check_lines += plan.checks(case, reps)
    os.rmdir(root)
    finished = datetime.datetime.now(datetime.timezone.utc)

    meta = {
        "date": started.strftime("%Y-%m-%d"),
        "mode": "quick" if args.quick else "full",
        "facts": [
            ("started / finished (UTC)", f"{started:%H:%M:%S} / {finished:%H:%M:%S}"),
            ("host", f"{platform.node()}, {platform.system()} {platform.release()}, "
                     f"{os.cpu_count()} CPUs"),
            ("load average before / after", f"{_load(load_before)} / "
                                            f"{_load(scenarios.load_average())}"),
            ("ours", _describe(available.get("ours"), args.ours)),
            ("repository HEAD at the start of the run", repo_before),
            ("Dagu", _describe(available.get("dagu"), args.peer)),
            ("detection", f"poll every {scenarios.POLL * 1000:.0f} ms: ours GET /health role;"
                          " Dagu its `Acquired scheduler lock` log line"),
            ("niceness of the harness and all schedulers", niceness),
            ("seed of the kill phases", seed),
        ] + [("not measured", f"{c.scenario} {c.title} (binary not given)") for c in skipped],
    }
    return finish(args, meta, results, check_lines)


def finish(args, meta, results, check_lines):
    """Prints and writes the report; the exit status of the run."""
    text = report.render(meta, results, check_lines)
    print()
    print(text)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            f.write(text)
        raw = [{"case": vars(c), "reps": reps} for c, reps in results]
        with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
            json.dump({"meta": meta, "results": raw}, f, indent=1, default=str)
        print(f"report written to {args.out}")
    failed = [t for t, ok in check_lines if not ok]
    for t in failed:
        print(f"FAIL {t}", file=sys.stderr)
    return 1 if failed else 0


def _set_nice(wanted):
    """Applies `wanted` niceness to this process (inherited by every scheduler
    it starts); returns a description of what is in effect."""
    if wanted is not None:
        try:
            os.setpriority(os.PRIO_PROCESS, 0, wanted)
        except OSError as e:
            return f"{os.getpriority(os.PRIO_PROCESS, 0)} (asked for {wanted}: {e.strerror})"
    return str(os.getpriority(os.PRIO_PROCESS, 0))


def _repo_state():
    """HEAD of the repository and whether src/ has uncommitted changes."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain", "--", "../src"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return f"{head or 'unknown'}{' (src/ has uncommitted changes)' if dirty else ''}"


def _load(la):
    return "–" if la is None else " ".join(f"{x:.2f}" for x in la)


def _describe(impl, path):
    if impl is None:
        return f"not measured ({path})"
    return f"`{impl.binary}` (version {impl.version})"


if __name__ == "__main__":
    sys.exit(main())
