"""Inference Console: a tuned vLLM inference box on a desktop GPU, a cloud desktop or a laptop CPU.

The package is split in two on purpose. Everything except ``console.ui`` is the *core*: it imports
no Qt, is typed, and is what the headless ``inference-console`` CLI, the benchmarks and the tests
drive. ``console.ui`` renders the core's state and forwards the user's intents to it.
"""

__version__ = "0.1.0"
