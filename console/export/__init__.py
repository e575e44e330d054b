"""Export a tuned :class:`~console.config.EngineConfig` to the formats servers use.

Every format is built from the same ``vllm serve`` argument list (:mod:`console.engine.serve_args`), so
the YAML, the one-line command, the compose file, the Kubernetes manifests and the Ray layouts can
never disagree about an engine setting. :mod:`console.export.importer` reads a ``vllm serve`` YAML
or command line back into a preset. Nothing here imports Qt or vLLM at module level.
"""

from console.engine.serve_options import ExportError, ServeOptions

__all__ = ["ExportError", "ServeOptions"]
