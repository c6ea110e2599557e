"""Cost of running, as opposed to failing over: run overhead of `dagu start`,
a scheduler with many DAG files, and idle schedulers. Every function starts
its processes itself on a fresh temporary DAGU_HOME and returns a dict of
figures (or {"error": ...}), like scenarios.py.

* run_overhead: `dagu start <file>` of a DAG of `steps` steps each running
  `true`, one after another (`depends` on the previous step). Wall time from
  exec to exit, CPU (user + system of the process and everything it waited
  for, from wait4) and peak RSS (ru_maxrss of the same). One unmeasured run
  first, so both start from a warm page cache.
* scale: `dags` DAG files, `due` of them `* * * * *`, the rest yearly. Time
  from exec until the DAGs are loaded (from the process's own log line: ours
  `DAG directory ... scanned`, Dagu `DAGs loaded`), RSS after loading, the
  scheduler's own CPU (utime + stime of its pid, not of the runs it starts)
  per minute over `minutes` whole minutes while the due DAGs run, slot latency
  (minute boundary -> the step process running: each due step appends
  `date +%s.%N` to a file), and the time until an edited DAG file takes
  effect (the write -> the process's log line that it reloaded that file).
* idle: `dags` yearly DAGs, an active and a standby side by side for
  `seconds`: RSS at the end and CPU over the window, for each. Nothing
  probes them during the window.
"""

import datetime
import glob
import os
import re
import subprocess
import time

from . import home as homes
from . import proc
from . import scenarios

SETTLE = 3.0  # s after loading before a CPU window opens

# The line each implementation logs once its first scan of the DAG directory
# is done, and when it reloaded an edited file, with millisecond stamps (both
# log in logfmt when not on a terminal): ours
#   time=2026-12-03T16:01:02.345Z level=info msg="DAG directory /x/dags scanned: 10020 DAGs loaded in 812 ms"
#   time=... level=info msg="DAG y00000 reloaded from /x/dags/y00000.yaml"
# and Dagu 1.30.2
#   time=2026-12-03T16:01:02.345Z level=INFO msg="DAGs loaded" dags=...
#   time=... level=INFO msg="DAG added/updated" name=y00000.yaml
_STAMP = r"^time=(\S+) level=\w+ msg="
_LOADED = {
    "ours": re.compile(_STAMP + r"\"DAG directory \S+ scanned", re.M),
    "dagu": re.compile(_STAMP + r"\"DAGs loaded\"", re.M),
}
_RELOADED = {
    "ours": lambda name: re.compile(_STAMP + r"\"DAG \S+ reloaded from \S*/" + re.escape(name) + r"\.yaml", re.M),
    "dagu": lambda name: re.compile(_STAMP + r"\"DAG added/updated\" name=" + re.escape(name) + r"\.yaml", re.M),
}


def _dag(schedule, command, depends=None, name="s1"):
    text = (f'schedule: "{schedule}"\n' if schedule else "") + "steps:\n"
    text += f"  - name: {name}\n    command: {command}\n"
    if depends:
        text += f"    depends: [{depends}]\n"
    return text


def chain_dag(steps):
    """`steps` steps running `true`, each after the previous one."""
    text = "steps:\n"
    for i in range(1, steps + 1):
        text += f'  - name: s{i}\n    command: "true"\n'
        if i > 1:
            text += f"    depends: [s{i - 1}]\n"
    return text


def _stamp(text):
    """Epoch seconds of a log stamp (UTC: the harness sets TZ=UTC)."""
    text = text.rstrip("Z")
    dt = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f")
    return dt.replace(tzinfo=datetime.timezone.utc).timestamp()


def _cpu_seconds(pid):
    """utime + stime of `pid` itself, in seconds, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def _env(impl, home):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DAGU_") and k in ("PATH", "HOME", "LANG", "USER")}
    env.update({"TZ": "UTC", "DAGU_HOME": home.path})
    return env


def run_overhead(impl, root, steps, reps):
    """[dict] one per repetition: wall, cpu (s) and peak RSS (MiB) of `dagu start`."""
    home = homes.Home(root, f"{impl.key}-run{steps}", {"bench": chain_dag(steps)})
    dag_file = os.path.join(home.dags, "bench.yaml")
    env = _env(impl, home)
    out = []
    try:
        for i in range(reps + 1):
            t0 = time.monotonic()
            p = subprocess.Popen([impl.binary, "start", dag_file], env=env, cwd=home.path,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(p.pid, 0)
            wall = time.monotonic() - t0
            p.returncode = os.waitstatus_to_exitcode(status)
            if i == 0:
                continue  # warm-up
            r = {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
                 "maxrss": usage.ru_maxrss / 1024.0, "exit_status": p.returncode}
            if p.returncode != 0:
                r = {"error": f"`dagu start` exited {p.returncode}"}
            out.append(r)
    finally:
        proc.kill_home_processes(home.path)
        home.remove()
    return out


def _wait_loaded(impl, inst, timeout):
    m, _ = proc.poll_until(lambda: _LOADED[impl.key].search(inst.log()), timeout, 0.05)
    if not m:
        raise scenarios.Failed(f"no `DAGs loaded` line within {timeout:.0f} s")
    return _stamp(m.group(1)) - inst.exec_wall


def _latencies(stamp_dir, first_minute, last_minute):
    """Slot latencies (s) of the stamps whose minute is in [first, last]."""
    lat, per_minute = [], {}
    for path in glob.glob(os.path.join(stamp_dir, "*")):
        with open(path) as f:
            for line in f:
                try:
                    t = float(line.strip())
                except ValueError:
                    continue
                minute = int(t // 60) * 60
                if first_minute <= minute <= last_minute:
                    lat.append(t - minute)
                    per_minute[minute] = per_minute.get(minute, 0) + 1
    return lat, per_minute


def _pct(values, p):
    if not values:
        return None
    v = sorted(values)
    k = min(len(v) - 1, max(0, int(round(p / 100.0 * len(v) + 0.5)) - 1))
    return v[k]


def scale(impl, root, dags, due, minutes, edits):
    """See the module doc. `minutes` may be 0 (no slot latency or CPU window)."""
    stamp_dir = os.path.join(root, f"{impl.key}-stamps-{dags}")
    os.makedirs(stamp_dir, exist_ok=True)
    files = {}
    for i in range(due):
        files[f"due{i:02d}"] = _dag("* * * * *", f"date +%s.%N >> {stamp_dir}/due{i:02d}")
    for i in range(dags - due):
        files[f"y{i:05d}"] = _dag(f"{i % 60} {i % 24} 1 1 *", "echo hi")

    def body(home, started):
        inst = impl.start(home, "s", 30.0, 5.0)
        started.append(inst)
        out = {"dags": dags, "load": _wait_loaded(impl, inst, 120.0)}
        time.sleep(SETTLE)
        out["rss_loaded"], out["threads"] = inst.proc_status()
        if minutes > 0:
            # Whole minutes: from just after a boundary to just after the
            # boundary `minutes` later (the first slot watched is the one
            # after the window opens).
            now = time.time()
            start = (int(now // 60) + 1) * 60 + 1.0
            time.sleep(max(0.0, start - time.time()))
            cpu0, t0 = _cpu_seconds(inst.pid), time.monotonic()
            time.sleep(max(0.0, start + 60.0 * minutes - time.time()))
            cpu1, t1 = _cpu_seconds(inst.pid), time.monotonic()
            if cpu0 is None or cpu1 is None:
                raise scenarios.Failed("the scheduler ended during the CPU window")
            out["cpu_per_min"] = (cpu1 - cpu0) / ((t1 - t0) / 60.0)
            time.sleep(2.0)  # the last minute's steps append their stamps
            first = int(start // 60) * 60 + 60
            last = first + 60 * (minutes - 1)
            lat, per_minute = _latencies(stamp_dir, first, last)
            out["slots_expected"] = due * minutes
            out["slots_seen"] = len(lat)
            out["lat_p50"] = _pct(lat, 50)
            out["lat_p99"] = _pct(lat, 99)
            out["lat_max"] = max(lat) if lat else None
        out["rss_end"], _ = inst.proc_status()
        # Edits: a yearly DAG gets another schedule, away from minute boundaries.
        took = []
        for k in range(edits):
            sec = time.time() % 60
            if sec < 3 or sec > 57:  # not while the due DAGs start
                time.sleep((63 - sec) % 60)
            name = f"y{k:05d}"
            path = os.path.join(home.dags, name + ".yaml")
            t_write = time.time()
            with open(path, "w") as f:
                f.write(_dag(f"{(k + 7) % 60} 3 2 2 *", "echo edited"))
            pattern = _RELOADED[impl.key](name)
            m, _ = proc.poll_until(lambda: pattern.search(inst.log()), 60.0, 0.05)
            if not m:
                raise scenarios.Failed(f"edit of {name}.yaml not picked up within 60 s")
            took.append(_stamp(m.group(1)) - t_write)
            time.sleep(1.0)
        if took:
            out["edit_max"] = max(took)
            out["edit_median"] = sorted(took)[len(took) // 2]
        return out

    try:
        return scenarios.run_guarded(impl, f"scale{dags}", files, root, body)
    finally:
        for path in glob.glob(os.path.join(stamp_dir, "*")):
            os.remove(path)
        os.rmdir(stamp_dir)


def idle(impl, root, dags, seconds):
    """RSS and CPU of an idle active and an idle standby over `seconds`."""
    files = {f"y{i:03d}": _dag(f"{i % 60} {i % 24} 1 1 *", "echo hi") for i in range(dags)}

    def body(home, started):
        a = impl.start(home, "a", 30.0, 5.0)
        started.append(a)
        scenarios.wait_role(impl, a, "active", scenarios.START_TIMEOUT)
        b = impl.start(home, "b", 30.0, 5.0)
        started.append(b)
        scenarios.wait_role(impl, b, "standby", scenarios.START_TIMEOUT)
        time.sleep(SETTLE)
        cpu0 = (_cpu_seconds(a.pid), _cpu_seconds(b.pid))
        time.sleep(seconds)
        cpu1 = (_cpu_seconds(a.pid), _cpu_seconds(b.pid))
        if None in cpu0 or None in cpu1:
            raise scenarios.Failed("a scheduler ended during the idle window")
        per_min = 60.0 / seconds
        out = {"window": float(seconds)}
        out["active_rss"], out["active_threads"] = a.proc_status()
        out["standby_rss"], out["standby_threads"] = b.proc_status()
        out["active_cpu_per_min"] = (cpu1[0] - cpu0[0]) * per_min
        out["standby_cpu_per_min"] = (cpu1[1] - cpu0[1]) * per_min
        if impl.role(a) != "active" or impl.role(b) != "standby":
            raise scenarios.Failed("roles changed during the idle window")
        return out

    return scenarios.run_guarded(impl, f"idle{dags}", files, root, body)
