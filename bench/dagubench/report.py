"""Markdown report of one benchmark run: summary tables, checks, raw values."""

from .stats import fmt_summary


def _col(reps, key):
    return [r.get(key) for r in reps if "error" not in r]


def _crash_rows(results, scenario="crash"):
    rows = ["| implementation | settings | n | after kill -9 (min / median / max) "
            "| after last renewal (min / median / max) "
            "| self-reported (Dagu: its log stamp − kill; ours: /health `takeover_seconds`) |",
            "|---|---|---|---|---|---|"]
    for case, reps in results:
        if case.scenario != scenario:
            continue
        good = [r for r in reps if "error" not in r]
        self_key = "logged_after_signal" if case.impl == "dagu" else "self_reported_takeover"
        self_rep = fmt_summary(_col(reps, self_key))
        rows.append(f"| {case.impl} | T={case.stale:g}s R={case.retry:g}s "
                    f"| {len(good)}/{len(reps)} | {fmt_summary(_col(reps, 'after_kill'))} "
                    f"| {fmt_summary(_col(reps, 'after_renewal'))} | {self_rep} |")
    return rows


def _handover_rows(results):
    rows = ["| implementation | settings | n | standby active after SIGTERM "
            "(min / median / max) | stopped instance |",
            "|---|---|---|---|---|"]
    for case, reps in results:
        if case.scenario != "handover":
            continue
        good = [r for r in reps if "error" not in r]
        times = _col(reps, "handover")
        missing = sum(1 for t in times if t is None)
        if missing == len(times) and times:
            cell = f"**no handover within {case.cap:g} s** ({missing}/{len(times)})"
        else:
            cell = fmt_summary(times)
            if missing:
                cell += f"; no handover within {case.cap:g} s in {missing}"
        rows.append(f"| {case.impl} | T={case.stale:g}s R={case.retry:g}s "
                    f"| {len(good)}/{len(reps)} | {cell} | {_stopped(good)} |")
    return rows


def _stopped(good):
    if not good:
        return "–"
    exited = [r for r in good if r["exit_after"] is not None]
    if len(exited) == len(good):
        codes = sorted({r["exit_status"] for r in good})
        return (f"exit {', '.join(str(c) for c in codes)} after "
                f"{fmt_summary([r['exit_after'] for r in good])}")
    renewed = sum(1 for r in good if r["lock_renewed_after_term"])
    watched = min(r["watched"] for r in good if r["exit_after"] is None)
    return (f"still running {watched:.0f} s after SIGTERM in {len(good) - len(exited)}/{len(good)}, "
            f"kept renewing the lock in {renewed}/{len(good)} (then ended with SIGKILL)")


def _startup_rows(results):
    rows = ["| implementation | n | exec → /health 200 | exec → active "
            "| RSS at /health 200 | RSS 2 s after exec | threads 2 s after exec |",
            "|---|---|---|---|---|---|---|"]
    for case, reps in results:
        if case.scenario != "startup":
            continue
        good = [r for r in reps if "error" not in r]
        ms = [[v * 1000 for v in _col(reps, k) if v is not None] for k in ("health", "active")]
        rows.append(f"| {case.impl} | {len(good)}/{len(reps)} "
                    f"| {fmt_summary(ms[0], 'ms', 1)} | {fmt_summary(ms[1], 'ms', 1)} "
                    f"| {fmt_summary(_col(reps, 'rss_at_health'), 'MiB', 1)} "
                    f"| {fmt_summary(_col(reps, 'rss_2s'), 'MiB', 1)} "
                    f"| {fmt_summary(_col(reps, 'threads_2s'), '', 0)} |")
    return rows


def _slot_rows(results):
    rows = []
    for case, reps in results:
        if case.scenario != "slots":
            continue
        for r in reps:
            if "error" in r:
                continue
            rows.append(f"| {case.impl} | {r['kills']} ({r['takeovers']} s) | {r['slots']} "
                        f"| {r['ran_once']} | {r['lost']} | {r['duplicated']} | {r['detail']} |")
    if not rows:
        return []
    return ["| implementation | kills (takeover after each) | slots watched | ran once | lost | duplicated | per slot |",
            "|---|---|---|---|---|---|---|"] + rows


def _run_rows(results):
    rows = ["| implementation | steps | n | wall | CPU (user + sys) | peak RSS |",
            "|---|---|---|---|---|---|"]
    for case, reps in results:
        if case.scenario != "run":
            continue
        good = [r for r in reps if "error" not in r]
        rows.append(f"| {case.impl} | {case.size} | {len(good)}/{len(reps)} "
                    f"| {fmt_summary([v * 1000 for v in _col(reps, 'wall')], 'ms', 1)} "
                    f"| {fmt_summary([v * 1000 for v in _col(reps, 'cpu')], 'ms', 1)} "
                    f"| {fmt_summary(_col(reps, 'maxrss'), 'MiB', 1)} |")
    return rows


def _rep_rows(results, scenario, header, row):
    """The table of a scenario measured once per case: `row(case, rep)` for
    each repetition, or an ERROR row."""
    rows = [header, "|" + "---|" * header.count(" | ") + "---|"]
    for case, reps in results:
        if case.scenario != scenario:
            continue
        for r in reps:
            if "error" in r:
                rows.append(f"| {case.impl} | {case.size} | ERROR {r['error']} |")
            else:
                rows.append(row(case, r))
    return rows


def _scale_row(case, r):
    lat = "–"
    if r.get("lat_p50") is not None:
        lat = (f"{r['lat_p50'] * 1000:.0f} / {r['lat_p99'] * 1000:.0f} / {r['lat_max'] * 1000:.0f} ms"
               f" ({r['slots_seen']}/{r['slots_expected']} in {case.minutes} min)")
    cpu = f"{r['cpu_per_min']:.3f} s" if r.get("cpu_per_min") is not None else "–"
    edit = "–"
    if r.get("edit_median") is not None:
        edit = f"{r['edit_median'] * 1000:.0f} / {r['edit_max'] * 1000:.0f} ms ({case.edits})"
    return (f"| {case.impl} | {case.size} | {r['load'] * 1000:.0f} ms "
            f"| {r['rss_loaded']:.1f} / {r['rss_end']:.1f} MiB | {r['threads']} | {cpu} | {lat} | {edit} |")


def _scale_rows(results):
    return _rep_rows(results, "scale",
                     "| implementation | DAG files | exec → loaded | RSS loaded / at the end | threads "
                     "| scheduler CPU per minute | slot latency p50 / p99 / max (slots seen) "
                     "| edit takes effect (median / max) |", _scale_row)


def _idle_rows(results):
    return _rep_rows(results, "idle",
                     "| implementation | DAGs | window | active RSS | active CPU per minute "
                     "| standby RSS | standby CPU per minute | threads (active / standby) |",
                     lambda case, r: (f"| {case.impl} | {case.size} | {r['window']:.0f} s | {r['active_rss']:.1f} MiB "
                                      f"| {r['active_cpu_per_min']:.3f} s | {r['standby_rss']:.1f} MiB "
                                      f"| {r['standby_cpu_per_min']:.3f} s "
                                      f"| {r['active_threads']} / {r['standby_threads']} |"))


def _raw(results):
    lines = []
    for case, reps in results:
        lines.append(f"* {case.scenario} {case.title}:")
        for i, r in enumerate(reps, 1):
            if "error" in r:
                lines.append(f"  {i}. ERROR {r['error']}")
                for name, tail in r.get("logs", {}).items():
                    lines.append(f"     log of {name} (last lines):")
                    lines += [f"         {ln}" for ln in tail.splitlines()]
                continue
            vals = ", ".join(f"{k}={_raw_value(v)}" for k, v in r.items())
            lines.append(f"  {i}. {vals}")
    return lines


def _raw_value(v):
    return f"{v:.3f}" if isinstance(v, float) else str(v)


SECTIONS = [
    ("Run overhead: `dagu start` of a chain of `true` steps", _run_rows),
    ("Scale: DAG files in one directory, 20 of them `* * * * *`", _scale_rows),
    ("Idle cost: an active and a standby side by side, yearly DAGs only", _idle_rows),
    ("Crash failover (kill -9 of the active)", _crash_rows),
    ("Takeover after kill -9 at the defaults (T=30s R=5s): Dagu 1.30.2, ours, ours with"
     " scheduler.fast_takeover", lambda results: _crash_rows(results, "takeover")),
    ("Clean stop (SIGTERM of the active)", _handover_rows),
    ("Start-up of `dagu scheduler` (fresh home, one DAG, T=30s R=5s)", _startup_rows),
    ("Slot correctness around failovers (`* * * * *` DAG, T=12s R=1s)", _slot_rows),
]


def render(meta, results, check_lines):
    out = [f"# dagu benchmark, {meta['date']} ({meta['mode']} mode)", ""]
    out += [f"* {k}: {v}" for k, v in meta["facts"]]
    for title, rows_of in SECTIONS:
        rows = rows_of(results)
        if len(rows) > 2:
            out += ["", f"## {title}", ""] + rows
    out += ["", "## Checks", ""]
    out += [f"* {'PASS' if ok else 'FAIL'} {text}" for text, ok in check_lines]
    out += ["", "## Raw values (seconds; RSS in MiB)", ""] + _raw(results)
    return "\n".join(out) + "\n"

