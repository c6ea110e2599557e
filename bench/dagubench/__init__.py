"""Side-by-side benchmarks of our `dagu scheduler` and the real Dagu 1.30.2.

Stdlib only. Modules:
  proc       - launching scheduler processes, HTTP probes, /proc readings, cleanup
  home       - temporary DAGU_HOME layouts
  impls      - how each implementation is configured and how its role is detected
  scenarios  - crash failover, clean handover, start-up
  slots      - slot correctness around failovers
  perf       - run overhead, many DAG files, idle cost
  stats      - min/median/max summaries
  report     - the markdown report
"""
