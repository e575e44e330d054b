"""Benchmarks and auto-tune: workloads (``workload.py``), statistics (``console/metrics/timings.py``), the console
path runner (``runner.py``), the baselines in fresh processes (``baselines.py``), the sweep
(``tune.py``) and the report with the environment (``report.py``)."""
