"""One repetition of each measurement. Every function starts its own
schedulers on a fresh temporary DAGU_HOME, kills them by pid when done, and
returns a dict of figures (or {"error": ...} with the instances' log tails).

Times: intervals come from time.monotonic(); "after last renewal" compares a
wall time with the lock directory's mtime, both from this host's clock.
Detection polls every POLL s, so each figure is late by at most POLL plus
one probe (a loopback HTTP GET or a read of the log file).
"""

import os
import signal
import time

from . import home as homes
from . import proc

POLL = 0.020
START_TIMEOUT = 15.0


class Failed(Exception):
    pass


def wait_role(impl, inst, want, timeout):
    got, t = proc.poll_until(lambda: impl.role(inst) == want, timeout, POLL)
    if not got:
        raise Failed(f"{inst.name} did not report {want} within {timeout:.0f} s"
                     f" (alive={inst.alive()})")
    return t


def _pair(impl, home, stale, retry, started, rng):
    """Starts A, waits until it is active, then B as standby. B starts after a
    random part of R: a standby checks the lock every R (Dagu) or every
    min(R, 250 ms) (ours) counted from its own start, and A renews at fixed
    times from its acquisition, so without this the lag between a last renewal
    and the standby's next check would be the same in every repetition."""
    a = impl.start(home, "a", stale, retry)
    started.append(a)
    wait_role(impl, a, "active", START_TIMEOUT)
    time.sleep(rng.uniform(0.0, retry))
    b = impl.start(home, "b", stale, retry)
    started.append(b)
    wait_role(impl, b, "standby", START_TIMEOUT)
    return a, b


def _settle(impl, a, b, stale, rng):
    """Lets B see at least one renewal, then waits a random phase of the
    renewal cycle so the kill does not always land at the same point of it."""
    period = impl.renew_interval(stale)
    time.sleep(period + 1.0 + rng.uniform(0.0, period))
    roles = (impl.role(a), impl.role(b))
    if roles != ("active", "standby"):
        raise Failed(f"before the signal: a={roles[0]} b={roles[1]}")


def run_guarded(impl, label, dags, root, body):
    home = homes.Home(root, f"{impl.key}-{label}", dags)
    started = []
    try:
        return body(home, started)
    except Failed as e:
        tails = {i.name: i.tail() for i in started}
        return {"error": str(e), "logs": tails}
    finally:
        for inst in started:
            inst.kill_hard()
        proc.kill_home_processes(home.path)
        home.remove()


def crash_failover(impl, stale, retry, rng, root, cap):
    """kill -9 of the active; time until the standby reports active."""

    def body(home, started):
        a, b = _pair(impl, home, stale, retry, started, rng)
        _settle(impl, a, b, stale, rng)
        t_kill_wall = time.time()
        t_kill = time.monotonic()
        a.signal(signal.SIGKILL)
        a.wait(5)
        last_renewal = home.lock_mtime()
        got, t_active = proc.poll_until(lambda: impl.role(b) == "active", cap, POLL)
        if not got:
            raise Failed(f"no takeover within {cap:.0f} s of the kill")
        after_kill = t_active - t_kill
        out = {
            "after_kill": after_kill,
            "after_renewal": t_kill_wall + after_kill - last_renewal,
            "renewal_before_kill": t_kill_wall - last_renewal,
        }
        _add_self_report(impl, b, t_kill_wall, out)
        return out

    return run_guarded(impl, "crash", {"hi": homes.NEVER_DAG}, root, body)


def _add_self_report(impl, inst, t_signal_wall, out):
    """What the new active says itself: Dagu's log time, our /health field."""
    if impl.key == "dagu":
        logged = impl.acquired_wall(inst)
        if logged is not None:
            out["logged_after_signal"] = logged - t_signal_wall
    else:
        took = impl.health_field(inst, "takeover_seconds")
        if isinstance(took, (int, float)):
            out["self_reported_takeover"] = float(took)


def clean_handover(impl, stale, retry, rng, root, cap):
    """SIGTERM of the active; time until the standby reports active, and
    what the stopped process did (exit status and time, or still running)."""

    def body(home, started):
        a, b = _pair(impl, home, stale, retry, started, rng)
        _settle(impl, a, b, stale, rng)
        t_term_wall = time.time()
        t_term = time.monotonic()
        a.signal(signal.SIGTERM)
        exit_at = [None]

        def b_active():
            if exit_at[0] is None and not a.alive():
                exit_at[0] = time.monotonic()
            return impl.role(b) == "active"

        got, t_active = proc.poll_until(b_active, cap, POLL)
        out = {"handover": t_active - t_term if got else None, "cap": cap}
        if got:
            _add_self_report(impl, b, t_term_wall, out)
        if exit_at[0] is None:
            # The spec's stop deadline is 10 s; give the process 12 s.
            status = a.wait(max(0.0, t_term + 12.0 - time.monotonic()))
            exit_at[0] = time.monotonic() if status is not None else None
        out["exit_after"] = exit_at[0] - t_term if exit_at[0] is not None else None
        out["exit_status"] = a.proc.returncode
        mtime = home.lock_mtime()
        # Only telling when nobody took over (then only A can have touched it).
        out["lock_renewed_after_term"] = (None if got else
                                          mtime is not None and mtime > t_term_wall + 0.05)
        out["watched"] = time.monotonic() - t_term
        out["a_alive_at_end"] = a.alive()
        return out

    return run_guarded(impl, "handover", {"hi": homes.NEVER_DAG}, root, body)


def startup(impl, root, stale=30.0, retry=5.0):
    """exec to /health 200, exec to active, RSS and threads just after /health
    answered and 2 s after exec. Default lock settings, one DAG."""

    def body(home, started):
        inst = impl.start(home, "s", stale, retry)
        started.append(inst)
        got, t_health = proc.poll_until(
            lambda: (proc.http_get(inst.port, "/health") or (0,))[0] == 200,
            10.0, 0.005)
        if not got:
            raise Failed("/health did not answer 200 within 10 s")
        rss_first, _ = inst.proc_status()
        out = {"health": t_health - inst.exec_mono, "rss_at_health": rss_first}
        if impl.key == "dagu":
            logged = None
            _, t = proc.poll_until(lambda: impl.acquired_wall(inst), 5.0, 0.005)
            if t is not None:
                logged = impl.acquired_wall(inst) - inst.exec_wall
            out["active"] = logged
        else:
            _, t_active = proc.poll_until(lambda: impl.role(inst) == "active", 5.0, 0.005)
            out["active"] = t_active - inst.exec_mono if t_active else None
        time.sleep(max(0.0, inst.exec_mono + 2.0 - time.monotonic()))
        out["rss_2s"], out["threads_2s"] = inst.proc_status()
        return out

    return run_guarded(impl, "startup", {"hi": homes.NEVER_DAG}, root, body)


def load_average():
    try:
        return os.getloadavg()
    except OSError:
        return None
