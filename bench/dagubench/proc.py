"""Scheduler processes under test: launch, probe, measure, clean up.

Every process the harness starts is recorded in _STARTED and SIGKILLed by pid
at exit (and on SIGINT/SIGTERM of the harness), so a failed or interrupted run
leaves nothing behind. Only loopback is ever contacted.
"""

import atexit
import http.client
import json
import os
import signal
import socket
import subprocess
import time

_STARTED = []


def _kill_all_started():
    for inst in _STARTED:
        inst.kill_hard()


atexit.register(_kill_all_started)


def install_signal_cleanup():
    def handler(signum, _frame):
        _kill_all_started()
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)


def free_port():
    """A TCP port that was free on 127.0.0.1 a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(port, path, timeout=0.5):
    """(status, body) of GET http://127.0.0.1:<port><path>, or None if no answer."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read().decode("utf-8", "replace")
    except (OSError, http.client.HTTPException):
        return None
    finally:
        conn.close()


def health_json(port, timeout=0.5):
    """The parsed /health body and its status, or (None, None) without an answer."""
    got = http_get(port, "/health", timeout)
    if got is None:
        return None, None
    status, body = got
    try:
        return status, json.loads(body)
    except ValueError:
        return status, None


class Instance:
    """One `dagu scheduler` process with its output captured to a log file."""

    def __init__(self, name, argv, env, log_path, port):
        self.name = name
        self.port = port
        self.log_path = log_path
        self._log_offset = 0
        self._log_text = ""
        log = open(log_path, "wb")
        self.exec_mono = time.monotonic()
        self.exec_wall = time.time()
        self.proc = subprocess.Popen(
            argv, env=env, stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self.pid = self.proc.pid
        _STARTED.append(self)

    def alive(self):
        return self.proc.poll() is None

    def signal(self, sig):
        if self.alive():
            os.kill(self.pid, sig)

    def wait(self, timeout):
        """Exit status, or None if still running after `timeout` seconds."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill_hard(self):
        if self.proc.poll() is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()

    def log(self):
        """Everything the process has written so far."""
        self._read_new()
        return self._log_text

    def log_has(self, needle):
        """True once `needle` appears in the output."""
        return needle in self.log()

    def _read_new(self):
        with open(self.log_path, "rb") as f:
            f.seek(self._log_offset)
            data = f.read()
        self._log_offset += len(data)
        self._log_text += data.decode("utf-8", "replace")

    def proc_status(self):
        """VmRSS in MiB and thread count from /proc/<pid>/status."""
        rss_kb, threads = None, None
        try:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss_kb = int(line.split()[1])
                    elif line.startswith("Threads:"):
                        threads = int(line.split()[1])
        except OSError:
            pass
        return (rss_kb / 1024.0 if rss_kb is not None else None), threads

    def tail(self, lines=25):
        return "\n".join(self.log().splitlines()[-lines:])


def processes_with_home(home_path):
    """Pids of live processes whose environment has DAGU_HOME=<home_path>:
    the schedulers started for that home and every run they spawned (runs
    inherit the environment even when they start a session of their own)."""
    needle = f"DAGU_HOME={home_path}".encode()
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    pids.append(int(entry))
        except OSError:
            continue
    return pids


def kill_home_processes(home_path):
    """SIGKILLs, by pid, what processes_with_home() finds; returns how many."""
    pids = processes_with_home(home_path)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(pids)


def poll_until(pred, timeout, interval):
    """Call pred() every `interval` s until it returns a truthy value or
    `timeout` s pass. Returns (value, monotonic time when that call returned:
    an upper bound of the event, late by at most one interval plus the probe)
    or (None, None) on timeout."""
    deadline = time.monotonic() + timeout
    while True:
        t = time.monotonic()
        value = pred()
        done = time.monotonic()
        if value:
            return value, done
        if done >= deadline:
            return None, None
        time.sleep(max(0.0, interval - (done - t)))
