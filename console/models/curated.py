"""The model picker's curated list: checkpoints vLLM serves well on a 24 GB card, each with its
fit badges for a device, computed by the planner (no Qt, no network).

The list is data (``resources/models/curated-v<N>.json``, the highest version wins) checked by
:func:`validate_curated`; an entry's ``family`` is a key of the family table
(``console.models.family_table.FAMILY_TABLE``), whose label is the one shown. The badges come from
:func:`fit_badges`, which the search results (``console.models.search``) and the GGUF advice
(``console.models.gguf_info``) share, so every list in the picker speaks the same verdicts as the
Models panel's "fits?" column.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from console.messages import Message
from console.models.family_table import FAMILY_TABLE, Family, family_by_name
from console.planner.core import QUANTIZATIONS, Plan, PlanRequest
from console.planner.published import published_config
from console.planner.gpus import GpuProfile, get_gpu
from console.planner.shapes import KNOWN_SHAPES, ModelShape
from console.planner.verdict import plan
from console.planner.vision import REFERENCE_SIDE
from console.paths import resources_dir
from console.presets import load_presets

SCHEMA = "inference-console.curated-models"
#: The context every badge is computed at first: a useful chat with room for a document.
BADGE_CONTEXT = 8192
#: The card badges are computed for when this machine has no NVIDIA GPU.
DEFAULT_CARD = "rtx-4090"
_REQUIRED: dict[str, type | tuple[type, ...]] = {
    "repo": str,
    "source": str,
    "family": str,
    "shape": str,
    "quantization": str,
    "disk_gb": (int, float),
}
_OPTIONAL: dict[str, type] = {"preset": str, "note": str, "modelscope_repo": str}
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")


class CuratedError(ValueError):
    """The curated list file is missing or malformed; the message names the file and the entry."""


@dataclass(frozen=True)
class CuratedModel:
    repo: str
    source: str
    family: str  # a FAMILY_TABLE key
    shape: str  # a KNOWN_SHAPES name
    quantization: str  # the planner's family: awq, gptq, fp8, mxfp4
    disk_bytes: int
    preset: str = "gpu-default"
    note: str = ""
    modelscope_repo: str | None = None

    @property
    def family_entry(self) -> Family:
        """The family table's entry for it (its label, parsers and quirks)."""
        return family_by_name(self.family)

    @property
    def family_label(self) -> str:
        return self.family_entry.label

    @property
    def model_shape(self) -> ModelShape:
        """The checkpoint's shape as vLLM will load it: its published config.json where the planner
        has it (layer types, quantization), else the known shape of that name."""
        config = published_config(self.repo)
        if config is not None:
            return ModelShape.from_hf_config(config, self.shape)
        return KNOWN_SHAPES[self.shape]

    @property
    def engine_knobs(self) -> dict[str, Any]:
        """The scheduler and cache knobs of the preset it loads with (what the badges plan)."""

        preset = load_presets().get(self.preset)
        engine = dict(preset.engine) if preset is not None else {}
        keys = ("kv_cache_dtype", "max_num_seqs", "max_num_batched_tokens", "enforce_eager")
        return {k: engine[k] for k in keys if engine.get(k) is not None}

    @property
    def params(self) -> int:
        return self.model_shape.params

    def repo_for(self, source: str) -> str | None:
        """The repository id on ``source`` (``hf`` or ``modelscope``), None where not published."""
        return self.repo if source == self.source else self.modelscope_repo if source == "modelscope" else None


@dataclass(frozen=True)
class CuratedList:
    version: int
    updated: str
    models: list[CuratedModel]
    path: Path


@dataclass(frozen=True)
class FitBadges:
    """What the picker shows next to a model: the verdict at :data:`BADGE_CONTEXT` tokens, the
    longest context one user gets on the card (0: not even a short one), and the memory."""

    card: str  # the GPU profile's name
    context: int
    verdict: str  # fits / fits-with-changes / does-not-fit / unknown
    longest_context: int
    weights_bytes: int  # the weights as the engine holds them (a vision tower included)
    kv_bytes: int  # KV cache for one user at ``context``
    detail: str = ""
    #: a vision-language model: the prompt tokens of one picture (a fixed-size family's, else a
    #: :data:`REFERENCE_SIDE`-pixel square's: ``image_side``); 0 for a text model
    image_tokens: int = 0
    image_side: int = 0
    #: one user's decode speed as the device's memory bandwidth allows (the planner's roofline
    #: ceiling, tok/s); 0 where not planned
    decode_tok_s: float = 0.0

    @property
    def memory_bytes(self) -> int:
        return self.weights_bytes + self.kv_bytes

    @property
    def vision(self) -> bool:
        return self.image_tokens > 0

    def picture_text(self) -> Message | None:
        """The picker's picture badge ("vision: 256 tokens a picture"); None for a text model."""
        if not self.vision:
            return None
        if self.image_side:
            return Message("vision: {0} tokens a {1} px picture", f"{self.image_tokens:,}", self.image_side)
        return Message("vision: {0} tokens a picture", f"{self.image_tokens:,}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "card": self.card,
            "context": self.context,
            "verdict": self.verdict,
            "longest_context": self.longest_context,
            "weights_bytes": self.weights_bytes,
            "kv_bytes": self.kv_bytes,
            "memory_bytes": self.memory_bytes,
            "detail": self.detail,
            "vision": self.vision,
            "image_tokens": self.image_tokens,
            "image_side": self.image_side,
            "decode_tok_s": self.decode_tok_s,
        }


def unknown_badges(card: str | GpuProfile, detail: str) -> FitBadges:
    return FitBadges(picker_card(card).name, BADGE_CONTEXT, "unknown", 0, 0, 0, detail)


# -- the file ---------------------------------------------------------------------------------
def curated_path(root: Path | None = None) -> Path:
    """The newest ``curated-v<N>.json`` under ``root`` (default the project's resources/models)."""
    if root is None:
        root = resources_dir() / "models"
    found = sorted(
        (int(m.group(1)), p) for p in Path(root).glob("curated-v*.json") if (m := re.search(r"-v(\d+)\.json$", p.name))
    )
    if not found:
        raise CuratedError(f"No curated-v<N>.json in {root}: reinstall the console")
    return found[-1][1]


def validate_curated(data: Any, presets: set[str] | None = None) -> list[str]:
    """Every problem of a curated list document, one line each (empty: valid). ``presets``: the
    preset names an entry may name (None: not checked)."""
    if not isinstance(data, dict):
        return ["the document is not a JSON object"]
    problems = []
    if data.get("schema") != SCHEMA:
        problems.append(f"schema must be '{SCHEMA}'")
    if not isinstance(data.get("version"), int) or isinstance(data.get("version"), bool) or data["version"] < 1:
        problems.append("version must be a positive integer")
    models = data.get("models")
    if not isinstance(models, list) or not models:
        return problems + ["models must be a non-empty list"]
    seen: set[str] = set()
    for i, m in enumerate(models):
        where = f"models[{i}]"
        if not isinstance(m, dict):
            problems.append(f"{where} is not an object")
            continue
        where = f"models[{i}] ({m.get('repo', '?')})"
        for key, kind in _REQUIRED.items():
            if not isinstance(m.get(key), kind) or isinstance(m.get(key), bool):
                what = kind.__name__ if isinstance(kind, type) else "number"
                problems.append(f"{where}: '{key}' is missing or not a {what}")
        for key in set(m) - set(_REQUIRED) - set(_OPTIONAL):
            problems.append(f"{where}: unknown key '{key}'")
        for key, kind in _OPTIONAL.items():
            if key in m and not isinstance(m[key], kind):
                problems.append(f"{where}: '{key}' must be a string")
        repo = str(m.get("repo", ""))
        if not _REPO.match(repo):
            problems.append(f"{where}: repo must be 'owner/name'")
        if repo in seen:
            problems.append(f"{where}: listed twice")
        seen.add(repo)
        if m.get("source") not in ("hf", "modelscope"):
            problems.append(f"{where}: source must be hf or modelscope")
        if "modelscope_repo" in m and not _REPO.match(str(m["modelscope_repo"])):
            problems.append(f"{where}: modelscope_repo must be 'owner/name'")
        if isinstance(m.get("family"), str) and m["family"] not in {f.name for f in FAMILY_TABLE}:
            problems.append(
                f"{where}: family '{m['family']}' is not in the family table "
                f"({', '.join(f.name for f in FAMILY_TABLE)})"
            )
        if m.get("shape") not in KNOWN_SHAPES:
            problems.append(f"{where}: shape '{m.get('shape')}' is not in the planner's known shapes")
        if m.get("quantization") not in QUANTIZATIONS:
            problems.append(f"{where}: quantization must be one of {', '.join(QUANTIZATIONS)}")
        if isinstance(m.get("disk_gb"), (int, float)) and not 0 < m["disk_gb"] < 200:
            problems.append(f"{where}: disk_gb must be in (0, 200)")
        if presets is not None and m.get("preset", "gpu-default") not in presets:
            problems.append(f"{where}: preset '{m.get('preset')}' does not exist")
    return problems


def load_curated(path: Path | None = None) -> CuratedList:
    path = path or curated_path()
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CuratedError(f"{path} is unreadable ({exc})") from exc
    problems = validate_curated(data)
    if problems:
        raise CuratedError(f"{path}: {problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
    models = [
        CuratedModel(
            repo=m["repo"],
            source=m["source"],
            family=m["family"],
            shape=m["shape"],
            quantization=m["quantization"],
            disk_bytes=int(round(float(m["disk_gb"]) * 1e9)),
            preset=m.get("preset", "gpu-default"),
            note=m.get("note", ""),
            modelscope_repo=m.get("modelscope_repo"),
        )
        for m in data["models"]
    ]
    return CuratedList(int(data["version"]), str(data.get("updated", "")), models, Path(path))


# -- badges -----------------------------------------------------------------------------------
def picker_card(device: Any) -> GpuProfile:
    """The card badges are for: this machine's GPU, else (a CPU-only machine, or none given)
    :data:`DEFAULT_CARD`, the card the list is made for."""
    if device is None or (isinstance(device, str) and device.strip().lower().startswith("cpu")):
        return get_gpu(DEFAULT_CARD)
    profile = get_gpu(device)
    return get_gpu(DEFAULT_CARD) if profile.is_cpu else profile


def _longest_context(p: Plan) -> int:
    """The longest max_model_len (a multiple of 1024, at most the model's own) at which one user
    passes vLLM's start-up check on the planned cache; 0 when the weights leave no room."""
    if p.layout is None or any("do not fit" in x or "exceed" in x or "refuses to start" in x for x in p.problems):
        return 0
    length = (
        p.longest_context
        if p.longest_context >= p.request.shape.max_position_embeddings
        else (p.longest_context // 1024 * 1024)
    )
    return length if length >= 1024 else 0


def fit_badges(
    shape: ModelShape,
    quantization: str | None,
    device: Any = None,
    context: int = BADGE_CONTEXT,
    knobs: dict[str, Any] | None = None,
    in_use: tuple[int, tuple[tuple[int, str, int | None], ...]] | None = None,
) -> FitBadges:
    """The planner's verdict for one user at ``context`` tokens (capped at the model's own
    maximum) on ``device`` (see :func:`picker_card`) with the preset's ``knobs``, and the longest
    context one user gets. Every figure is the calibrated plan's (with its margin where the
    model family was never measured on such a card)."""
    return badges_on(picker_card(device), shape, quantization, context, knobs, in_use)


def badges_on(
    card: GpuProfile,
    shape: ModelShape,
    quantization: str | None,
    context: int = BADGE_CONTEXT,
    knobs: dict[str, Any] | None = None,
    in_use: tuple[int, tuple[tuple[int, str, int | None], ...]] | None = None,
) -> FitBadges:
    """:func:`fit_badges` on exactly ``card``: a GPU profile, or the CPU engine (``cpu:<GiB>``, its
    KV cache the ``knobs``' size, all of it in the machine's RAM)."""
    ctx = min(context, shape.max_position_embeddings)
    held: dict[str, Any] = {"in_use_bytes": in_use[0], "in_use_by": in_use[1]} if in_use is not None else {}
    p = plan(PlanRequest(shape, gpu=card, quantization=quantization, max_model_len=ctx, **(knobs or {}), **held))
    figures = (f"{p.per_gpu[0].weights_bytes / 2**30:.1f}", p.kv_tokens, card.name)
    detail = (
        Message("{0} GiB of weights, {1} tokens of KV cache on {2}; {3}", *figures, p.problems[0])
        if p.problems
        else Message("{0} GiB of weights, {1} tokens of KV cache on {2}", *figures)
    )
    return FitBadges(
        card.name,
        ctx,
        str(p.verdict),
        _longest_context(p),
        p.per_gpu[0].weights_bytes,
        p.kv_bytes_per_token * ctx,
        detail,
        image_tokens=shape.reference_image_tokens if shape.vision_params else 0,
        image_side=0 if shape.image_tokens or not shape.vision_params else REFERENCE_SIDE,
        decode_tok_s=float(p.roofline.get("decode_tok_s_single_stream", 0.0)),
    )


def curated_badges(
    models: list[CuratedModel],
    device: Any = None,
    in_use: tuple[int, tuple[tuple[int, str, int | None], ...]] | None = None,
) -> list[tuple[CuratedModel, FitBadges]]:
    """Each curated model with its badges (pure arithmetic: well under a second for the list);
    ``in_use``: what other programs hold on the card (this machine's, read from NVML)."""
    return [(m, fit_badges(m.model_shape, m.quantization, device, knobs=m.engine_knobs, in_use=in_use)) for m in models]


def badges_table(models: list[CuratedModel] | None = None, device: Any = None) -> str:
    """The curated list's badges as a Markdown table (the README's, generated: see the tests)."""
    pool = models if models is not None else load_curated().models
    card = picker_card(device)
    rows = [
        f"| checkpoint | preset | weights (GiB) | at {BADGE_CONTEXT:,} tokens | longest context, one user | pictures |",
        "|---|---|---|---|---|---|",
    ]
    for m, b in curated_badges(pool, card.name):
        picture = b.picture_text()
        images = str(picture).removeprefix("vision: ") if picture is not None else "-"
        weights = f"{b.weights_bytes / 2**30:.1f}"
        rows.append(f"| {m.repo} | {m.preset} | {weights} | {b.verdict} | {b.longest_context:,} | {images} |")
    return "\n".join(rows) + "\n"


def alternatives_for(
    shape_name: str | None, params: int | None = None, models: list[CuratedModel] | None = None
) -> list[CuratedModel]:
    """The curated checkpoints of the same model: the same planner shape, else (a shape the
    planner does not know) the same size within 10%; AWQ first, then FP8, then the rest."""
    pool = models if models is not None else load_curated().models
    if shape_name:
        found = [m for m in pool if m.shape == shape_name]
    else:
        found = []
    if not found and params:
        found = [m for m in pool if abs(m.params - params) <= 0.1 * params]
    order = {"awq": 0, "fp8": 1}
    return sorted(found, key=lambda m: (order.get(m.quantization, 2), m.disk_bytes))


__all__ = [
    "BADGE_CONTEXT",
    "CuratedError",
    "CuratedList",
    "CuratedModel",
    "DEFAULT_CARD",
    "FitBadges",
    "SCHEMA",
    "alternatives_for",
    "badges_on",
    "badges_table",
    "curated_badges",
    "curated_path",
    "fit_badges",
    "load_curated",
    "picker_card",
    "unknown_badges",
    "validate_curated",
]
