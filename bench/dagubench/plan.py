"""What to measure in full and quick mode, and the checks each result must pass.

A case is one (scenario, implementation, settings) cell of the report,
repeated `reps` times. Checks turn measured figures into pass/fail lines:
for ours they are spec 085's bounds; for Dagu 1.30.2 they are its behaviour
as observed (docs/benchmarks.md "Dagu 1.30.2 as observed"), so a failing one means the harness or
the host misbehaved, not that Dagu changed.
"""

import dataclasses

# Allowance for process start-up and a loaded 2-core host in the bounds below.
SLACK = 1.0


@dataclasses.dataclass
class Case:
    scenario: str          # "crash" | "takeover" | "handover" | "startup" | "slots" | "run" | "scale" | "idle"
    impl: str              # "ours" | "ours-fast" (scheduler.fast_takeover) | "dagu"
    stale: float = 30.0
    retry: float = 5.0
    reps: int = 1
    cap: float = 60.0      # longest wait for a takeover, s
    size: int = 0          # run: steps; scale, idle: DAG files
    minutes: int = 0       # scale: whole minutes watched (slot latency, CPU); idle: window, s
    edits: int = 0         # scale: DAG files edited one after another

    @property
    def title(self):
        if self.scenario == "run":
            return f"{self.impl} {self.size}-step"
        if self.scenario == "scale":
            return f"{self.impl} {self.size} DAGs"
        if self.scenario == "idle":
            return f"{self.impl} {self.size} DAGs {self.minutes}s"
        if self.scenario in ("startup", "slots"):
            return self.impl
        return f"{self.impl} T={self.stale:g}s R={self.retry:g}s"


def perf_cases(quick):
    """Run overhead, scale and idle cost (bench/dagubench/perf.py), both
    implementations side by side."""
    both = ("dagu", "ours")
    if quick:
        return ([Case("run", k, size=1, reps=3) for k in both]
                + [Case("run", k, size=20, reps=2) for k in both]
                + [Case("scale", k, size=1000, edits=1) for k in both]
                + [Case("idle", k, size=50, minutes=5) for k in both])
    return ([Case("run", k, size=1, reps=15) for k in both]
            + [Case("run", k, size=20, reps=10) for k in both]
            + [Case("scale", k, size=1000, minutes=2, edits=3) for k in both]
            + [Case("scale", k, size=10000, minutes=3, edits=3) for k in both]
            + [Case("idle", k, size=50, minutes=120) for k in both]
            + [Case("idle", k, size=10000, minutes=120) for k in both])


# Fast takeover (kill -9 at the defaults, T=30s R=5s): the standby with
# scheduler.fast_takeover must be active within this long of the kill.
FAST_TAKEOVER_BOUND = 1.0


def takeover_cases(quick):
    """kill -9 of the active at the defaults, side by side: Dagu 1.30.2, ours,
    ours with scheduler.fast_takeover."""
    n = 1 if quick else 3
    return [Case("takeover", "dagu", 30, 5, reps=n, cap=60),
            Case("takeover", "ours", 30, 5, reps=n, cap=60),
            Case("takeover", "ours-fast", 30, 5, reps=n + 2, cap=60)]


def build(quick):
    """The cases of one run, in the order they are measured."""
    if quick:
        return perf_cases(quick) + [
            Case("startup", "dagu", reps=3), Case("startup", "ours", reps=3),
            Case("crash", "dagu", 12, 1, reps=1, cap=30),
            Case("crash", "ours", 12, 1, reps=1, cap=30),
            Case("crash", "ours", 3, 0.5, reps=1, cap=15),
            Case("handover", "dagu", 12, 1, reps=1, cap=14),
            Case("handover", "ours", 3, 0.5, reps=1, cap=14),
        ]
    return perf_cases(quick) + [
        Case("startup", "dagu", reps=7), Case("startup", "ours", reps=7),
        Case("crash", "dagu", 12, 1, reps=5, cap=40),
        Case("crash", "ours", 12, 1, reps=5, cap=40),
        Case("crash", "ours", 3, 0.5, reps=5, cap=20),
        Case("handover", "dagu", 12, 1, reps=3, cap=60),
        Case("handover", "ours", 12, 1, reps=3, cap=60),
        Case("handover", "ours", 3, 0.5, reps=3, cap=60),
    ] + takeover_cases(quick)


def checks(case, reps):
    """[(description, ok)] for the measured repetitions of one case."""
    out = []
    errors = [r for r in reps if "error" in r]
    out.append((f"{case.title} {case.scenario}: all {len(reps)} repetitions measured",
                not errors))
    good = [r for r in reps if "error" not in r]
    if not good:
        return out
    T, R = case.stale, case.retry
    if case.scenario in ("crash", "takeover") and case.impl == "ours-fast":
        out.append((f"{case.title} {case.scenario}: standby active within {FAST_TAKEOVER_BOUND:g}s"
                    " of the kill (fast takeover)",
                    all(r["after_kill"] <= FAST_TAKEOVER_BOUND for r in good)))
    elif case.scenario in ("crash", "takeover"):
        out.append((f"{case.title} {case.scenario}: no takeover before T={T:g}s after the last renewal",
                    all(r["after_renewal"] >= T - 0.05 for r in good)))
        bound = T + 2 * R + SLACK if case.impl == "ours" else T + R + SLACK
        what = "spec bound T+2R" if case.impl == "ours" else "Dagu: T+R (poll)"
        out.append((f"{case.title} {case.scenario}: takeover within {what} + {SLACK:g}s start-up"
                    f" = {bound:g}s of the last renewal",
                    all(r["after_renewal"] <= bound for r in good)))
    elif case.scenario == "handover":
        if case.impl == "ours":
            out.append((f"{case.title} SIGTERM: handover within R + {SLACK:g}s",
                        all(r["handover"] is not None and r["handover"] <= R + SLACK
                            for r in good)))
            out.append((f"{case.title} SIGTERM: stopped instance exits 0",
                        all(r["exit_status"] == 0 for r in good)))
        else:
            out.append((f"{case.title} SIGTERM: no handover within {case.cap:g}s"
                        " and the lock is still renewed (docs/benchmarks.md, Dagu 1.30.2 as observed, 3)",
                        all(r["handover"] is None and r["lock_renewed_after_term"]
                            for r in good)))
    elif case.scenario == "slots" and case.impl == "ours":
        out.append((f"{case.title} slots: every slot ran exactly once around the failovers",
                    all(r["lost"] == 0 and r["duplicated"] == 0 for r in good)))
    elif case.scenario == "run":
        out.append((f"{case.title} run: `dagu start` exited 0 every time",
                    all(r["exit_status"] == 0 for r in good)))
    elif case.scenario == "scale" and case.minutes > 0:
        out.append((f"{case.title} scale: every due step ran once per watched minute"
                    f" ({case.minutes} min x 20 DAGs)",
                    all(r["slots_seen"] == r["slots_expected"] for r in good)))
    elif case.scenario == "startup":
        out.append((f"{case.title} start-up: /health 200 within 2 s",
                    all(r["health"] <= 2.0 for r in good)))
    return out
