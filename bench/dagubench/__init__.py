"""Side-by-side benchmarks of our `dagu scheduler` and the real Dagu 1.30.2.

Stdlib only. Modules:
  proc       - launching scheduler processes, HTTP probes, /proc readings, cleanup
  home       - temporary DAGU_HOME layouts
  impls      - how each implementation is configured and how its role is detected
  scenarios  - crash failover, clean handover, start-up, slot correctness
  stats      - min/median/max summaries
  report     - the markdown report
"""
