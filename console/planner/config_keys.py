"""What a Hugging Face ``config.json`` says about how vLLM lays a model out beyond its widths:
sliding-window layers, the quantization method and variant, the rotary embeddings' caches
(``ModelShape.from_hf_config``)."""

from __future__ import annotations

from typing import Any


def sliding_layers(cfg: dict[str, Any], layers: int) -> tuple[int, int]:
    """(window, layers that use it) from a config: ``layer_types`` (gpt-oss, Gemma-3 in newer
    transformers), else Gemma-3's ``sliding_window_pattern`` (every Nth layer is global), else a
    window that every layer uses (Mistral v0.1's ``sliding_window`` with ``use_sliding_window``)."""
    window = int(cfg.get("sliding_window") or 0)
    if not window:
        return 0, 0
    types = cfg.get("layer_types")
    if isinstance(types, list) and types:
        return window, sum(1 for t in types if "sliding" in str(t))
    pattern = cfg.get("sliding_window_pattern")
    if isinstance(pattern, int) and pattern > 1:
        return window, layers - layers // pattern
    if cfg.get("use_sliding_window") is False or str(cfg.get("model_type", "")).startswith("qwen"):
        return 0, 0  # Qwen configs name a window they do not use
    return window, layers


def quant_method(qcfg: dict[str, Any]) -> str | None:
    """The config's quant_method, with llm-compressor's compressed-tensors named by what it holds:
    8-bit float weights are "fp8", 4-bit integer weights (W4A16) plan as "gptq"."""
    method = qcfg.get("quant_method")
    if method != "compressed-tensors":
        return str(method) if method else None
    for group in (qcfg.get("config_groups") or {}).values():
        weights = (group or {}).get("weights") or {}
        bits, kind = weights.get("num_bits"), weights.get("type")
        if bits == 8 and kind == "float":
            return "fp8"
        if bits == 4 and kind == "int":
            return "gptq"
    return str(method)


def quant_variant(qcfg: dict[str, Any]) -> str:
    if qcfg.get("weight_block_size"):
        return "block"
    groups = qcfg.get("config_groups")
    if isinstance(groups, dict):
        for group in groups.values():
            strategy = ((group or {}).get("weights") or {}).get("strategy")
            if strategy:
                return str(strategy)
    return ""


def tied_embeddings(config: dict[str, Any], text: dict[str, Any]) -> bool:
    """Whether the output layer shares the embeddings: the top-level key where a config has one,
    else the text config's; a Mistral-3 config without the top-level key is tied (transformers'
    Mistral3Config defaults to it and vLLM 0.26 then loads no lm_head: measured, 1.25 GiB less for
    Mistral-Small-3.1)."""
    top = config.get("tie_word_embeddings")
    if top is None and config.get("model_type") == "mistral3":
        return True
    return bool(top if top is not None else text.get("tie_word_embeddings", False))


def _ropes(cfg: dict[str, Any], layers: int) -> list[dict[str, Any]]:
    """The rope parameters of each kind of layer: transformers 5's ``rope_parameters`` (per layer
    type where a model has several), else ``rope_scaling`` and ``rope_theta``, with Gemma-3's
    sliding layers' own ``rope_local_base_freq`` (a plain rope; vLLM's ``gemma3.py``)."""
    params = cfg.get("rope_parameters")
    if isinstance(params, dict) and params:
        kinds = [v for v in params.values() if isinstance(v, dict)]
        return kinds or [params]
    ropes = [{**(cfg.get("rope_scaling") or {}), "rope_theta": cfg.get("rope_theta")}]
    if cfg.get("rope_local_base_freq") and sliding_layers(cfg, layers)[1]:
        ropes.append({"rope_type": "default", "rope_theta": cfg["rope_local_base_freq"]})
    return ropes


def _rope_rows(rope: dict[str, Any], max_pos: int) -> int:
    """The rows of vLLM 0.26's cos/sin cache for one rope (``layers/rotary_embedding``): linear
    scaling holds ``max_position x factor`` positions, YaRN ``original_max_position x factor``,
    LongRoPE a short and a long cache, multimodal RoPE ``4 x max_position``; the rest ``max_position``."""
    kind = str(rope.get("rope_type") or rope.get("type") or "default")
    factor = float(rope.get("factor") or 1.0)
    original = int(rope.get("original_max_position_embeddings") or max_pos)
    if "mrope_section" in rope or kind == "mrope":
        return 4 * max_pos
    if kind == "linear":
        return int(max_pos * factor)
    if kind == "yarn":
        return int(original * factor)
    if kind == "longrope":
        return original + max_pos
    return max_pos


def rope_cache_elements(cfg: dict[str, Any], head_dim: int, max_pos: int, layers: int = 1) -> int:
    """The elements of the cos/sin caches vLLM builds for a text config's rotary embeddings: one per
    distinct rope (layers share it), its rows x the rotary width (``head_dim x partial_rotary_factor``)."""
    seen: dict[str, int] = {}
    for rope in _ropes(cfg, layers):
        factor = float(rope.get("partial_rotary_factor") or cfg.get("partial_rotary_factor") or 1.0)
        key = repr(sorted((str(k), repr(v)) for k, v in rope.items()))
        seen[key] = _rope_rows(rope, max_pos) * int(head_dim * factor)
    return sum(seen.values())


__all__ = ["quant_method", "quant_variant", "rope_cache_elements", "sliding_layers", "tied_embeddings"]
