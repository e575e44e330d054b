"""The engine side of the core: the in-process engine (owner thread of vLLM's AsyncLLM), its request
and event types, and the metrics store fed by vLLM's stat logger."""
