"""The engine side of the core: the engine host (owner thread of vLLM's AsyncLLM), its request
and event types, and the metrics store fed by vLLM's stat logger."""
