"""Metrics in one place: what the engine and the device did, kept, shown, saved and served.

- ``store``: :class:`MetricsStore`, the one thread-safe bounded store (time bins, latency
  samples, finished requests, device samples) every other piece writes to or reads from.
- ``vllm_logger``: vLLM's stat-logger interface -> store steps (the in-process engine).
- ``scrape``: a vLLM server's Prometheus ``/metrics`` text -> store steps (remote engines).
- ``device`` and ``nvml``: the device sampler (NVML on NVIDIA GPUs, process RAM/CPU elsewhere)
  and the one owner of NVML in the process.
- ``recording``: a store saved to a JSON file and loaded back.
- ``prometheus``: the store served as ``/metrics`` under vLLM's metric names.
- ``timings``: statistics over per-request timings (the bench's rates, percentiles, Pareto front).
"""
