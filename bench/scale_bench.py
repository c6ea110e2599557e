#!/usr/bin/env python3
"""The REST API at scale, side by side: our `dagu server` and Dagu 1.30.2's
`dagu server` serving the same DAGU_HOME (docs/benchmarks.md, "API at scale").

The home comes from bench/scale/scale_gen.cc (`dagu_scale_gen`): --home uses
one already made (10,000 DAGs and 1,000,000 runs take ~15 min to write), else
a home of --dags/--runs is generated into a temporary folder and removed.

Both servers run at once on the home; each request goes to both, first to
ours, then to 1.30.2 for even-numbered requests and the other way round for
odd ones (the first to read a cold folder pays the disk), so load on the
machine and the kernel's caches favour neither.
Request kinds:

  dags_page    GET /api/v2/dags?page=P&perPage=50           (P random)
  dag_runs     GET /api/v2/dags/<dag>/dag-runs              (gridData; random DAG)
  runs_day     GET /api/v2/dag-runs?fromDate=D&toDate=D+1d  (a past day)
  runs_today   GET /api/v2/dag-runs?fromDate=T&toDate=T+1d  (today: the runs page and dashboard at first)
  runs_status  GET /api/v2/dag-runs?status=2&fromDate=..    (failed runs of that day)
  runs_open    GET /api/v2/dag-runs?fromDate=D              (no toDate: D to today, as 1.30.2's UI asks)
  run_detail   GET /api/v2/dag-runs/<dag>/<run id>          (random known run)
  log_tail     GET /api/v2/dag-runs/<dag>/big-log-run/steps/work/log?tail=1000

Unless --no-warm-up-wait, the requests begin once our server's background
warm-up at start is done (its time is reported): the first request of a kind
is then cold for what the warm-up does not read (a past day, a DAG's runs).

Per kind and server: the first (cold) request, then p50/p99/max of the rest
(each kind gets --requests requests or --budget seconds per server, whichever
ends first), and the server's RSS (VmRSS after the last request, VmHWM).
Every answer must be 200 and both servers must agree on the counts (DAG
total, runs listed, log lines); a disagreement is reported and exits 1.

  bench/scale_bench.py --home /tmp/scale_home --out bench/results/x.md
  bench/scale_bench.py --dags 200 --runs 20000 --log-mb 5 --requests 20   # quick, < 30 s
"""
import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, label, binary, home):
        self.label = label
        self.port = free_port()
        env = dict(os.environ)
        for k in list(env):
            if k.startswith("DAGU_"):
                del env[k]
        env["DAGU_HOME"] = home
        env["DAGU_TZ"] = "UTC"
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([binary, "server", "--host", "127.0.0.1", "--port", str(self.port)],
                                     env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.conn = None
        self.started = time.monotonic()
        self.warm_up = None  # seconds from start to the end of our warm-up

    def wait_warm_up(self, timeout=900):
        """Ours reads what the first pages ask for in the background at start
        (web/warm_up.h) and logs "web: warmed up" (or "warm-up cancelled")
        when done; 1.30.2 has no such step (None). The log, not /metrics: a
        scrape lists every run of today, which would load the server."""
        if self.label != "ours":
            return None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.log.seek(0)
            if b"web: warmed up" in self.log.read():
                self.warm_up = time.monotonic() - self.started
                return self.warm_up
            time.sleep(0.1)
        raise RuntimeError(f"{self.label}: warm-up not done in {timeout} s")

    def wait_ready(self, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.log.seek(0)
                raise RuntimeError(f"{self.label} exited: {self.log.read()[-2000:].decode(errors='replace')}")
            try:
                status, _ = self.get("/api/v2/health", timeout=2)
                if status == 200:
                    self.close()  # the measured requests get their own timeout
                    return
            except OSError:
                self.close()
            time.sleep(0.1)
        raise RuntimeError(f"{self.label}: not ready in {timeout} s")

    def close(self):
        if self.conn is not None:
            self.conn.close()
        self.conn = None

    def get(self, path, timeout=300):
        # A kept-alive connection the server closed while idle is opened
        # again once; a time-out is not retried.
        for attempt in range(2):
            reused = self.conn is not None
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
            try:
                self.conn.request("GET", path)
                r = self.conn.getresponse()
                return r.status, r.read()
            except (ConnectionError, http.client.RemoteDisconnected, http.client.BadStatusLine):
                self.close()
                if not reused or attempt == 1:
                    raise
            except (OSError, http.client.HTTPException):
                self.close()
                raise

    def timed(self, path):
        t = time.perf_counter()
        status, body = self.get(path)
        return time.perf_counter() - t, status, body

    def cpu_ns(self):
        """CPU time of all the server's threads so far (schedstat, ns): what a
        request cost the server, whatever the host's load made it wait."""
        total = 0
        try:
            for t in os.listdir(f"/proc/{self.proc.pid}/task"):
                try:
                    with open(f"/proc/{self.proc.pid}/task/{t}/schedstat") as f:
                        total += int(f.read().split()[0])
                except OSError:
                    pass
        except OSError:
            pass
        return total

    def rss_kb(self):
        out = {}
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith(("VmRSS:", "VmHWM:")):
                        out[line.split(":")[0]] = int(line.split()[1])
        except OSError:
            pass
        return out

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def pct(values, p):
    v = sorted(values)
    if not v:
        return None
    k = min(len(v) - 1, max(0, int(round(p / 100.0 * len(v) + 0.5)) - 1))
    return v[k]


def count_of(kind, body):
    """What both servers must agree on, per kind."""
    j = json.loads(body)
    if kind == "dags_page":
        return (j["pagination"]["totalRecords"], len(j["dags"]))
    if kind == "dag_runs":
        return (len(j["dagRuns"] or []), len(j.get("gridData") or []))
    if kind in ("runs_today", "runs_day", "runs_status", "runs_open"):
        return len(j["dagRuns"] or [])
    if kind == "run_detail":
        return (j["dagRunDetails"]["dagRunId"], j["dagRunDetails"]["status"])
    if kind == "log_tail":
        # totalLines is an estimate in 1.30.2 for a big file (isEstimate); the lines must agree.
        return (j.get("lineCount"), (j.get("content") or "")[-200:])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", help="a home made by dagu_scale_gen (else one is generated)")
    ap.add_argument("--dags", type=int, default=200)
    ap.add_argument("--runs", type=int, default=20000)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--log-mb", type=int, default=5)
    ap.add_argument("--ours", default=os.environ.get("DAGU_BINARY", os.path.join(ROOT, "build/default/bin/dagu")))
    ap.add_argument("--gen", default=os.path.join(ROOT, "build/default/bin/dagu_scale_gen"))
    ap.add_argument("--peer", default=os.environ.get("DAGU_PEER_BINARY", ""))
    ap.add_argument("--requests", type=int, default=40, help="per kind and server")
    ap.add_argument("--budget", type=float, default=90.0, help="seconds per kind and server")
    ap.add_argument("--kinds", default="dags_page,dag_runs,runs_today,runs_day,runs_status,runs_open,run_detail,log_tail")
    ap.add_argument("--no-warm-up-wait", action="store_true", help="send the first requests while ours warms up")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="write the Markdown report here too")
    a = ap.parse_args()
    rng = random.Random(a.seed)

    tmp = None
    home = a.home
    if home:
        meta_path = os.path.join(home, "scale_gen.json")
        meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
    else:
        tmp = tempfile.mkdtemp(prefix="dagu-scale-")
        home = os.path.join(tmp, "home")
        out = subprocess.run([a.gen, "--home", home, "--dags", str(a.dags), "--runs", str(a.runs), "--days",
                              str(a.days), "--log-mb", str(a.log_mb), "--seed", str(a.seed)],
                             check=True, capture_output=True, text=True).stdout
        meta = json.loads(out.strip().splitlines()[-1])
    dags = meta.get("dags", a.dags)
    days = meta.get("days", a.days)

    servers = [Server("ours", a.ours, home)]
    if a.peer:
        servers.append(Server("dagu-1.30.2", a.peer, home))
    results = {s.label: {} for s in servers}
    mismatches = []
    try:
        for s in servers:
            s.wait_ready()
        if not a.no_warm_up_wait:
            for s in servers:
                s.wait_warm_up()
        # Run IDs to ask for: from the runs of random DAGs (asked of ours).
        ids = []
        for _ in range(10):
            d = f"dag-{rng.randrange(dags):05d}"
            st, body = servers[0].get(f"/api/v2/dags/{d}/dag-runs")
            for r in (json.loads(body).get("dagRuns") or [])[:5]:
                ids.append((d, r["dagRunId"]))
        day = int(time.time()) // 86400 * 86400 - 86400 * min(3, days - 1)
        today = int(time.time()) // 86400 * 86400
        pages = max(1, dags // 50)

        def path_of(kind):
            if kind == "dags_page":
                return f"/api/v2/dags?page={rng.randrange(pages) + 1}&perPage=50"
            if kind == "dag_runs":
                return f"/api/v2/dags/dag-{rng.randrange(dags):05d}/dag-runs"
            if kind == "runs_day":
                return f"/api/v2/dag-runs?fromDate={day}&toDate={day + 86399}"
            if kind == "runs_today":
                return f"/api/v2/dag-runs?fromDate={today}&toDate={today + 86399}"
            if kind == "runs_status":
                return f"/api/v2/dag-runs?status=2&fromDate={day}&toDate={day + 86399}"
            if kind == "runs_open":
                return f"/api/v2/dag-runs?fromDate={day}"
            if kind == "run_detail":
                d, i = rng.choice(ids)
                return f"/api/v2/dag-runs/{d}/{i}"
            if kind == "log_tail":
                return "/api/v2/dag-runs/dag-00000/big-log-run/steps/work/log?tail=1000&stream=stdout"
            raise ValueError(kind)

        for kind in a.kinds.split(","):
            spent = {s.label: 0.0 for s in servers}
            times = {s.label: [] for s in servers}
            cpu = {s.label: [] for s in servers}
            cold = {}
            n = 0
            while n <= a.requests:
                path = path_of(kind)
                answers = {}
                # The first server asked pays for what the kernel does not
                # cache yet (a random DAG's run folders out of 1,000,000), the
                # second finds it cached: who goes first alternates.
                for s in (servers if n % 2 == 0 else servers[::-1]):
                    if spent[s.label] > a.budget:
                        continue
                    try:
                        c0 = s.cpu_ns()
                        dt, status, body = s.timed(path)
                        cpu[s.label].append((s.cpu_ns() - c0) / 1e9)
                    except OSError as e:
                        spent[s.label] = a.budget + 1  # this server is done with this kind
                        mismatches.append(f"{kind}: {s.label}: {path}: {e!r}")
                        continue
                    spent[s.label] += dt
                    if status != 200:
                        mismatches.append(f"{kind}: {s.label} answered {status} to {path}: {body[:200]!r}")
                        continue
                    answers[s.label] = count_of(kind, body)
                    if n == 0:
                        cold[s.label] = dt
                    else:
                        times[s.label].append(dt)
                if len(set(map(json.dumps, answers.values()))) > 1:
                    mismatches.append(f"{kind}: {path}: {answers}")
                if all(spent[s.label] > a.budget for s in servers):
                    break
                n += 1
            for s in servers:
                t = times[s.label]
                results[s.label][kind] = {
                    "cold": cold.get(s.label), "n": len(t), "p50": pct(t, 50), "p99": pct(t, 99),
                    "cpu_p50": pct(cpu[s.label][1:], 50), "cpu_max": max(cpu[s.label][1:], default=None),
                    "max": max(t) if t else None, "example": answers.get(s.label)}
            print(f"{kind}: " + "; ".join(
                f"{s.label} p50 {results[s.label][kind]['p50']} p99 {results[s.label][kind]['p99']} n {len(times[s.label])}"
                for s in servers), file=sys.stderr, flush=True)
        rss = {s.label: s.rss_kb() for s in servers}
    finally:
        for s in servers:
            s.stop()
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)

    def ms(v):
        return "–" if v is None else (f"{v * 1000:.1f}" if v < 10 else f"{v * 1000:.0f}")

    load = os.getloadavg()
    lines = [f"# API at scale: {meta.get('dags', dags)} DAGs, {meta.get('runs', a.runs)} runs",
             "", f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average at the end "
             f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} CPUs; "
             f"requests alternate between the servers; times in ms; CPU: the server's own CPU time per "
             f"request (all threads, warm requests).", "",
             "| request | server | cold | n | p50 | p99 | max | CPU p50 | CPU max |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for kind in a.kinds.split(","):
        for s in servers:
            r = results[s.label][kind]
            lines.append(f"| {kind} | {s.label} | {ms(r['cold'])} | {r['n']} | {ms(r['p50'])} | {ms(r['p99'])} | "
                         f"{ms(r['max'])} | {ms(r['cpu_p50'])} | {ms(r['cpu_max'])} |")
    lines += ["", "| server | RSS at the end (MB) | peak RSS (MB) |", "| --- | --- | --- |"]
    for s in servers:
        lines.append(f"| {s.label} | {rss[s.label].get('VmRSS', 0) / 1024:.1f} | "
                     f"{rss[s.label].get('VmHWM', 0) / 1024:.1f} |")
    warm = [f"{s.label} {s.warm_up:.1f} s" for s in servers if s.warm_up is not None]
    if warm:
        lines += ["", "Background warm-up at start, from the server's start to its end (requests waited for it): "
                  + ", ".join(warm) + "."]
    elif a.no_warm_up_wait:
        lines += ["", "The requests began while our server was still warming up (--no-warm-up-wait)."]
    if mismatches:
        lines += ["", "Disagreements and errors:", ""] + [f"- {m}" for m in mismatches[:20]]
    report = "\n".join(lines) + "\n"
    print(report)
    if a.out:
        with open(a.out, "w") as f:
            f.write(report)
        with open(os.path.splitext(a.out)[0] + ".json", "w") as f:
            json.dump({"meta": meta, "results": results, "rss": rss, "mismatches": mismatches}, f, indent=1)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
