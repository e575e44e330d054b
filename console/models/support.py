"""Can the installed vLLM run this architecture? Asked at import, so a model that cannot load is
refused before it is copied, converted or registered, with the reason and the vLLM version.

vLLM runs an architecture when its model registry has it, or through its Transformers backend
when transformers has a class of that name that the backend can drive. A checkpoint with its own
code (``auto_map``, trust-remote-code) cannot be judged without running that code: the load
decides. Without a local vLLM (a remote engine only) there is nothing to check against.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from console import vllm_compat
from console.models.inspect import CheckpointInfo, ModelFormatError

log = logging.getLogger(__name__)


@functools.lru_cache(maxsize=1)
def vllm_architectures() -> frozenset[str]:
    """The architectures in the installed vLLM's model registry (imports vLLM: seconds)."""
    registry = vllm_compat.model_registry()
    return frozenset(registry.get_supported_archs())


def _transformers_backend_can_run(architecture: str) -> bool:
    try:
        import transformers

        cls: Any = getattr(transformers, architecture, None)
    except Exception:  # a broken transformers install: leave the verdict to the load
        return True
    if cls is None:
        return False
    for probe in ("is_backend_compatible", "_can_set_attn_implementation"):
        check = getattr(cls, probe, None)
        try:
            if check is not None and check():
                return True
        except Exception:
            continue
    return False


def unsupported_reason(architecture: str, config: dict[str, Any]) -> str | None:
    """``None`` when the installed vLLM can run ``architecture``; otherwise why not."""
    dist = vllm_compat.vllm_distribution()
    if dist is None or config.get("auto_map"):
        return None
    try:
        known = vllm_architectures()
    except Exception as exc:  # vLLM broken here: the load will say so, with its own error
        log.warning("could not read vLLM's model registry: %s", exc)
        return None
    if architecture in known or _transformers_backend_can_run(architecture):
        return None
    name, version = dist
    similar = sorted(a for a in known if a.lower().startswith(architecture[:4].lower()))[:5]
    hint = f" (it knows e.g. {', '.join(similar)})" if similar else ""
    return (
        f"The installed vLLM ({name} {version}) cannot run the architecture {architecture}: it is not "
        f"among the {len(known)} architectures of its model registry{hint}, and transformers has no "
        f"class of that name its Transformers backend could run. Use a model of a supported "
        f"architecture, or a vLLM release that supports {architecture}."
    )


def check_supported(info: CheckpointInfo) -> None:
    """Raise :class:`ModelFormatError` when the installed vLLM cannot run ``info``'s architecture."""
    reason = unsupported_reason(info.architecture, info.config)
    if reason:
        raise ModelFormatError(reason)
