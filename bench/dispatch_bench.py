#!/usr/bin/env python3
"""Dispatch latency and throughput through a coordinator to K workers, side by
side: a fleet of our binary and a fleet of Dagu 1.30.2's (docs/benchmarks.md,
"Dispatch through the coordinator").

For each implementation, in a fresh temporary DAGU_HOME: one `dagu coordinator`,
K `dagu worker`s (labels pool=bench, --worker.max-active-runs M) and one
`dagu scheduler` (its queue processor is the dispatcher). A DAG with
`workerSelector: {pool: bench}` whose one step appends "<run ID> <unix time>"
to a file. N runs are enqueued one after another with `dagu enqueue --run-id`
(each enqueue's start time noted); the run's line in the file is the moment its
step started on a worker.

Reported per implementation: latency enqueue -> step started (p50, p99, max),
and throughput: N / (last step started - first enqueue started), in runs per
second. Every run must start exactly once within --timeout, else exit 1.

  bench/dispatch_bench.py --runs 40 --workers 4 --out bench/results/x.md
  bench/dispatch_bench.py --runs 8 --workers 2 --only ours        # quick, a few seconds
"""
import argparse
import json
import os
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


def percentile(values, p):
    v = sorted(values)
    if not v:
        return float("nan")
    k = max(0, min(len(v) - 1, int(round(p / 100.0 * len(v) + 0.5)) - 1))
    return v[k]


def peer_binary():
    if os.environ.get("DAGU_PEER_BINARY"):
        return os.environ["DAGU_PEER_BINARY"]
    out = subprocess.run([os.path.join(ROOT, "bench", "fetch_peer.sh")], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return out.stdout.strip()


class Fleet:
    def __init__(self, label, binary, workers, max_active):
        self.label = label
        self.binary = binary
        self.home = tempfile.mkdtemp(prefix=f"dispatch-bench-{label}-")
        self.procs = []
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("DAGU_")}
        self.env.update({"DAGU_HOME": self.home, "DAGU_TZ": "UTC", "TMPDIR": self.home})
        self.port = free_port()
        self.env["DAGU_COORDINATOR_PORT"] = str(self.port)
        self.env["DAGU_SCHEDULER_PORT"] = str(free_port())
        self.out = os.path.join(self.home, "started.txt")
        os.makedirs(os.path.join(self.home, "dags"))
        with open(os.path.join(self.home, "dags", "remote.yaml"), "w") as f:
            f.write("workerSelector:\n  pool: bench\nmaxActiveRuns: 1000\nsteps:\n"
                    "  - name: s1\n    command: sh -c 'echo \"$DAG_RUN_ID $(date +%s.%N)\" >> "
                    + self.out + "'\n")
        self.workers = workers
        self.max_active = max_active

    def spawn(self, name, args):
        log = open(os.path.join(self.home, name + ".log"), "wb")
        p = subprocess.Popen([self.binary] + args, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
        self.procs.append(p)
        return p

    def start(self):
        self.spawn("coordinator", ["coordinator", "--coordinator.port", str(self.port)])
        registry = os.path.join(self.home, "data", "service-registry", "coordinator")
        deadline = time.monotonic() + 30
        while not (os.path.isdir(registry) and os.listdir(registry)):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.label}: the coordinator did not register")
            time.sleep(0.05)
        for i in range(self.workers):
            self.spawn(f"worker{i}", ["worker", "--worker.id", f"w{i}", "--worker.labels", "pool=bench",
                                      "--worker.max-active-runs", str(self.max_active)])
        self.spawn("scheduler", ["scheduler"])
        time.sleep(3)  # workers polling, scheduler active

    def enqueue(self, run_id):
        t = time.time()
        r = subprocess.run([self.binary, "enqueue", "--run-id", run_id, os.path.join(self.home, "dags", "remote.yaml")],
                           env=self.env, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{self.label}: enqueue {run_id} failed: {r.stdout}{r.stderr}")
        return t

    def started(self):
        try:
            with open(self.out) as f:
                lines = [l.split() for l in f if l.strip()]
        except FileNotFoundError:
            return {}
        seen = {}
        for parts in lines:
            if len(parts) == 2:
                seen.setdefault(parts[0], []).append(float(parts[1]))
        return seen

    def stop(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        shutil.rmtree(self.home, ignore_errors=True)


def measure(label, binary, runs, workers, max_active, timeout):
    fleet = Fleet(label, binary, workers, max_active)
    try:
        fleet.start()
        enqueued = {}
        for i in range(runs):
            run_id = f"bench-{i:05d}"
            enqueued[run_id] = fleet.enqueue(run_id)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            seen = fleet.started()
            if len(seen) >= runs:
                break
            time.sleep(0.1)
        seen = fleet.started()
        missing = sorted(set(enqueued) - set(seen))
        twice = sorted(r for r, ts in seen.items() if len(ts) > 1)
        lat = [seen[r][0] - enqueued[r] for r in enqueued if r in seen]
        first = min(enqueued.values())
        last = max(ts[0] for ts in seen.values()) if seen else first
        return {
            "impl": label, "runs": runs, "workers": workers, "max_active_runs": max_active,
            "started": len(seen), "missing": missing[:10], "ran_twice": twice[:10],
            "latency_p50_s": percentile(lat, 50), "latency_p99_s": percentile(lat, 99),
            "latency_max_s": max(lat) if lat else float("nan"),
            "runs_per_s": len(seen) / (last - first) if last > first else float("nan"),
            "enqueue_span_s": max(enqueued.values()) - first,
        }
    finally:
        fleet.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--max-active-runs", type=int, default=4, help="per worker")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--only", choices=["ours", "1.30.2"])
    ap.add_argument("--ours", default=os.path.join(ROOT, "build", "default", "bin", "dagu"))
    ap.add_argument("--out", help="write a Markdown table here (and the JSON beside it)")
    a = ap.parse_args()
    results = []
    if a.only != "1.30.2":
        results.append(measure("ours", a.ours, a.runs, a.workers, a.max_active_runs, a.timeout))
    if a.only != "ours":
        results.append(measure("1.30.2", peer_binary(), a.runs, a.workers, a.max_active_runs, a.timeout))
    lines = ["| impl | runs | workers x pollers | started | ran twice | latency p50 | p99 | max | runs/s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        lines.append(f"| {r['impl']} | {r['runs']} | {r['workers']} x {r['max_active_runs']} | {r['started']} | "
                     f"{len(r['ran_twice'])} | {r['latency_p50_s']:.2f} s | {r['latency_p99_s']:.2f} s | "
                     f"{r['latency_max_s']:.2f} s | {r['runs_per_s']:.2f} |")
    table = "\n".join(lines)
    print(table)
    print(json.dumps(results, indent=1))
    if a.out:
        with open(a.out, "w") as f:
            f.write(table + "\n")
        with open(os.path.splitext(a.out)[0] + ".json", "w") as f:
            json.dump(results, f, indent=1)
    bad = [r for r in results if r["started"] != r["runs"] or r["ran_twice"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
