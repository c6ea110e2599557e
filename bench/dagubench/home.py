"""Temporary DAGU_HOME directories shared by the schedulers of one measurement.

Both implementations use the unified layout under DAGU_HOME. The marker
dags/.examples-created stops Dagu 1.30.2 from writing its example DAGs (some
of them are scheduled, which would add work the other side does not do).
DAG files use the legacy `command:` step key, which both implementations
load (in 1.30.2 `run:` means a sub-DAG call, docs/benchmarks.md "Dagu 1.30.2 as observed" 8).
"""

import os
import shutil
import tempfile

NEVER_DAG = """schedule: "0 0 1 1 *"
steps:
  - name: s1
    command: echo hi
"""

EVERY_MINUTE_DAG = """schedule: "* * * * *"
steps:
  - name: s1
    command: echo hi
"""


class Home:
    def __init__(self, root, label, dags):
        self.path = tempfile.mkdtemp(prefix=f"{label}-", dir=root)
        self.dags = os.path.join(self.path, "dags")
        os.makedirs(self.dags)
        open(os.path.join(self.dags, ".examples-created"), "w").close()
        for name, text in dags.items():
            with open(os.path.join(self.dags, name + ".yaml"), "w") as f:
                f.write(text)

    @property
    def lock_dir(self):
        return os.path.join(self.path, "data", "scheduler", "locks", ".dagu_lock")

    def lock_mtime(self):
        """Seconds since the epoch of the lock directory's mtime, or None."""
        try:
            return os.stat(self.lock_dir).st_mtime_ns / 1e9
        except OSError:
            return None

    def log_path(self, name):
        return os.path.join(self.path, f"{name}.out")

    def remove(self):
        shutil.rmtree(self.path, ignore_errors=True)
