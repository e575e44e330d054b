"""Device monitoring: NVML on NVIDIA GPUs, process RAM/CPU elsewhere."""
