"""The two implementations under test and how to tell their roles apart.

Both are configured only through the environment variables that both read
(DAGU_HOME, DAGU_SCHEDULER_PORT, DAGU_SCHEDULER_LOCK_STALE_THRESHOLD,
DAGU_SCHEDULER_LOCK_RETRY_INTERVAL), so the settings are identical.

Role detection:
  ours        GET /health on scheduler.port, JSON field `role` (spec 085).
  Dagu 1.30.2 /health is {"status":"healthy"} on every instance, so "active"
              is its log line `Acquired scheduler lock` (only the lock holder
              writes it; docs/benchmarks.md "Dagu 1.30.2 as observed" 6) and "standby" is
              /health 200 without that line.
"""

import datetime
import os
import re
import subprocess

from . import proc

DAGU_ACQUIRED = 'msg="Acquired scheduler lock"'
_DAGU_TIME = re.compile(r'time=(\S+) level=\w+ msg="Acquired scheduler lock"')


def go_duration(seconds):
    return f"{int(round(seconds * 1000))}ms"


def _base_env(home, port, stale, retry):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DAGU_") and k in ("PATH", "HOME", "LANG", "USER")}
    env.update({
        "TZ": "UTC",
        "DAGU_HOME": home.path,
        "DAGU_SCHEDULER_PORT": str(port),
        "DAGU_SCHEDULER_LOCK_STALE_THRESHOLD": go_duration(stale),
        "DAGU_SCHEDULER_LOCK_RETRY_INTERVAL": go_duration(retry),
    })
    return env


class Impl:
    """Common part: a `dagu` binary started as `dagu scheduler`."""

    key = ""
    label = ""

    def __init__(self, binary):
        self.binary = binary
        self.version = self._version()

    def _version(self):
        try:
            out = subprocess.run([self.binary, "version"], capture_output=True,
                                 text=True, timeout=10)
            return (out.stdout + out.stderr).strip().splitlines()[-1]
        except (OSError, subprocess.TimeoutExpired, IndexError):
            return "unknown"

    extra_env = {}

    def start(self, home, name, stale, retry):
        port = proc.free_port()
        env = _base_env(home, port, stale, retry)
        env.update(self.extra_env)
        return proc.Instance(name, [self.binary, "scheduler"], env,
                             home.log_path(name), port)

    def renew_interval(self, stale):
        raise NotImplementedError

    def role(self, inst):
        """'active', 'standby', or None while the instance does not answer."""
        raise NotImplementedError


class Ours(Impl):
    key = "ours"
    label = "ours (C++)"

    def renew_interval(self, stale):
        return min(7.0, stale / 4.0)

    def role(self, inst):
        status, body = proc.health_json(inst.port)
        if status is None or not isinstance(body, dict):
            return None
        role = body.get("role")
        return role if role in ("active", "standby") else None

    def health_field(self, inst, field):
        _, body = proc.health_json(inst.port)
        return body.get(field) if isinstance(body, dict) else None


class OursFast(Ours):
    """Ours with the opt-in fast takeover (docs/ha-protocol.md, "Fast takeover")."""

    key = "ours-fast"
    label = "ours (C++), scheduler.fast_takeover"
    extra_env = {"DAGU_SCHEDULER_FAST_TAKEOVER": "true"}


class Dagu1302(Impl):
    key = "dagu"
    label = "Dagu 1.30.2"

    def renew_interval(self, stale):
        return 7.0  # fixed in 1.30.2, whatever the threshold

    def role(self, inst):
        if inst.log_has(DAGU_ACQUIRED):
            return "active"
        got = proc.http_get(inst.port, "/health")
        return "standby" if got is not None and got[0] == 200 else None

    def acquired_wall(self, inst):
        """Wall time (epoch s) that Dagu logged for `Acquired scheduler lock`."""
        m = _DAGU_TIME.search(inst.log())
        if not m:
            return None
        stamp = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%fZ")
        return stamp.replace(tzinfo=datetime.timezone.utc).timestamp()
