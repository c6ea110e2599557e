#!/usr/bin/env python3
"""The DAG list's server CPU per request, by kind of page (docs/benchmarks.md,
"The DAG list's CPU"): starts `dagu server` on a scale home, waits
WAIT seconds (a server's background warm-up), then asks 30 pages never asked
before, the same 30 again, and a few sorted and filtered pages, printing the
p50 and max of the server's own CPU time per request (all threads,
/proc/<pid>/task/*/schedstat) and its RSS at the end.

  bench/scale/dag_list_cpu.py BINARY PORT WAIT [HOME]    # HOME: /tmp/scale_home
"""
import os, sys, subprocess, time, urllib.request, statistics
binary, port, wait = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
home = sys.argv[4] if len(sys.argv) > 4 else "/tmp/scale_home"
env = {k: v for k, v in os.environ.items() if not k.startswith("DAGU_")}
env.update(DAGU_HOME=home, DAGU_TZ="UTC")
p = subprocess.Popen([binary, "server", "--host", "127.0.0.1", "--port", str(port)], env=env,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
def get(path):
    return urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=120).read()
def cpu():
    t = 0
    for d in os.listdir(f"/proc/{p.pid}/task"):
        try: t += int(open(f"/proc/{p.pid}/task/{d}/schedstat").read().split()[0])
        except OSError: pass
    return t
for _ in range(300):
    try: get("/api/v2/health"); break
    except Exception: time.sleep(0.2)
time.sleep(wait)
get("/api/v2/dags?page=1&perPage=50")
def run(label, paths):
    c = []
    for path in paths:
        c0 = cpu(); get(path); c.append((cpu() - c0) / 1e6)
    c.sort()
    print(f"{label}: n={len(c)} CPU ms p50 {statistics.median(c):.1f} max {c[-1]:.1f}")
pages = [f"/api/v2/dags?page={n}&perPage=50" for n in range(150, 180)]
run("new pages", pages)
run("same pages again", pages)
run("sort=name&order=desc, page 5 x10", ["/api/v2/dags?page=5&perPage=50&order=desc"] * 10)
run("sort=nextRun, page 3 x10", ["/api/v2/dags?page=3&perPage=50&sort=nextRun"] * 10)
run("name filter 'dag-00', x10", ["/api/v2/dags?page=1&perPage=50&name=dag-00"] * 10)
print("RSS", [l for l in open(f"/proc/{p.pid}/status") if l.startswith("VmRSS")][0].strip())
os.killpg(p.pid, 15); p.wait()
