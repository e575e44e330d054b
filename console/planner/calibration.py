"""Calibration files: measured corrections to the planner's overhead estimates, one per device.

``resources/calibration/<gpu>.json`` (shipped) or ``<data home>/calibration/<gpu>.json`` (the
user's own, which wins) looks like::

    {
      "format": 1,
      "gpu": "rtx-4090",
      "source": "who measured what, with which vLLM",
      "overheads": {                       # any of the named overheads, each one of:
        "cuda_context":    {"bytes": 536870912},   # replace the estimate
        "activation_peak": {"scale": 1.1},         # multiply the estimate
        "cuda_graphs":     {"add_bytes": 67108864} # add to the estimate
      },
      "points": [ ... ]                    # the measurements behind it (kept for tests and review)
    }

Each ``points`` entry records one engine start: the model shape, the engine arguments and what
vLLM reported (``num_gpu_blocks``, ``block_size``, ``kv_cache_size_tokens``, ``max_concurrency``),
so the arithmetic can be re-checked against real figures without an engine.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from console.messages import Message
from console.paths import data_home, resources_dir
from console.vllm_compat import vllm_distribution

OVERHEAD_NAMES = ("cuda_context", "activation_peak", "cuda_graphs")
_RULES = ("bytes", "scale", "add_bytes")


class CalibrationError(ValueError):
    """A calibration file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Calibration:
    gpu: str
    source: str = ""
    overheads: dict[str, dict[str, float]] = field(default_factory=dict)
    points: tuple[dict[str, Any], ...] = ()
    path: str | None = None
    #: The total vLLM (CUDA) sees on this card; NVML reports more on some (H200: 0.6 GiB).
    device_total_bytes: int | None = None
    weights_scale: float | None = None  # vLLM's weight figure over the planner's estimate
    origin: str = "shipped"  # "shipped" | "user" (fitted from this machine's own loads)
    loads: int = 0  # user calibrations: how many recorded loads it was fitted from
    vllm_version: str | None = None
    last_load: dict[str, Any] | None = None  # the newest load: measured vs predicted KV tokens
    inherited: dict[str, str] = field(default_factory=dict)  # user fits: overhead -> the file it came from

    def correct(self, name: str, estimate: int) -> tuple[int, str | None]:
        """The corrected figure for overhead ``name`` and a note saying how (None: unchanged)."""
        rule = self.overheads.get(name)
        if not rule:
            return estimate, None
        where = Path(self.path).name if self.path else "calibration"
        if self.origin == "user":
            value = rule.get("bytes", estimate * float(rule.get("scale", 1.0)) + float(rule.get("add_bytes", 0)))
            note = (
                Message("from {0} (this GPU's loads have no figure for it)", self.inherited[name])
                if name in self.inherited
                else Message("calibrated on this GPU ({0} load(s))", self.loads)
            )
            return max(0, int(value)), note
        if "bytes" in rule:
            return int(rule["bytes"]), Message("measured ({0})", where)
        value = estimate * float(rule.get("scale", 1.0)) + float(rule.get("add_bytes", 0))
        return max(0, int(value)), Message("estimate corrected by {0}", where)


def parse_calibration(data: Any, where: str) -> Calibration:
    if not isinstance(data, dict):
        raise CalibrationError(f"{where}: expected a JSON object")
    if data.get("format", 1) != 1:
        raise CalibrationError(f"{where}: unsupported format {data.get('format')!r} (this console reads 1)")
    gpu = data.get("gpu")
    if not isinstance(gpu, str) or not gpu:
        raise CalibrationError(f"{where}: 'gpu' is required")
    overheads = data.get("overheads", {})
    if not isinstance(overheads, dict):
        raise CalibrationError(f"{where}: 'overheads' must be an object")
    clean: dict[str, dict[str, float]] = {}
    for name, rule in overheads.items():
        if name not in OVERHEAD_NAMES:
            raise CalibrationError(f"{where}: unknown overhead '{name}' (known: {', '.join(OVERHEAD_NAMES)})")
        if not isinstance(rule, dict) or not rule or set(rule) - set(_RULES):
            raise CalibrationError(f"{where}: overhead '{name}' must be an object with {', '.join(_RULES)}")
        if "bytes" in rule and len(rule) > 1:
            raise CalibrationError(f"{where}: overhead '{name}': 'bytes' replaces the estimate; don't combine it")
        for key, value in rule.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise CalibrationError(f"{where}: overhead '{name}'.{key} must be a number >= 0")
        clean[name] = {k: float(v) for k, v in rule.items()}
    points = data.get("points", [])
    if not isinstance(points, list):
        raise CalibrationError(f"{where}: 'points' must be a list")
    total, scale = data.get("device_total_bytes"), data.get("weights_scale")
    for key, value in (("device_total_bytes", total), ("weights_scale", scale)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
            raise CalibrationError(f"{where}: '{key}' must be a number > 0")
    last = data.get("last_load")
    inherited = data.get("inherited", {})
    if not isinstance(inherited, dict):
        raise CalibrationError(f"{where}: 'inherited' must be an object")
    return Calibration(
        gpu=gpu,
        source=str(data.get("source", "")),
        overheads=clean,
        points=tuple(points),
        path=where,
        device_total_bytes=int(total) if total else None,
        weights_scale=float(scale) if scale else None,
        origin="user" if data.get("origin") == "user" else "shipped",
        loads=int(data.get("loads", 0) or 0),
        vllm_version=data.get("vllm_version"),
        last_load=last if isinstance(last, dict) else None,
        inherited={str(k): str(v) for k, v in inherited.items()},
    )


def calibration_dirs() -> list[Path]:
    """Shipped first, then the user's (a later directory wins)."""
    return [resources_dir() / "calibration", data_home() / "calibration"]


@lru_cache(maxsize=64)
def _load_cached(path: str, mtime_ns: int) -> Calibration:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CalibrationError(f"{path}: unreadable calibration file ({exc})") from exc
    return parse_calibration(data, path)


def load_calibration_file(path: Path) -> Calibration:
    path = Path(path)
    return _load_cached(str(path), path.stat().st_mtime_ns)


def find_calibration(gpu: str, dirs: list[Path] | None = None, vllm_version: str | None = None) -> Calibration | None:
    """The calibration for profile ``gpu``: the last of ``dirs`` holding ``<gpu>.json``; by default
    (no ``dirs``) the user's own fit from this GPU's loads wins (see :mod:`console.planner.selfcal`):
    the one for ``vllm_version`` (default: the installed vLLM), else the newest for another version."""
    found = None
    for d in dirs if dirs is not None else calibration_dirs():
        candidate = Path(d) / f"{gpu}.json"
        if candidate.is_file():
            found = load_calibration_file(candidate)
    if dirs is None:
        own = own_calibration_file(gpu, vllm_version or installed_vllm_version())
        if own is not None:
            try:
                found = load_calibration_file(own)
            except CalibrationError:
                pass  # a damaged fit of our own: the next load rewrites it; plan with the shipped one
    return found


def own_calibration_dir(gpu: str) -> Path:
    """``<data home>/calibration/<gpu>/``: the loads recorded on this machine and the fits."""
    return data_home() / "calibration" / gpu


def own_calibration_file(gpu: str, vllm_version: str | None) -> Path | None:
    folder = own_calibration_dir(gpu)
    exact = folder / f"vllm-{vllm_version}.json"
    if vllm_version and exact.is_file():
        return exact
    others = sorted(folder.glob("vllm-*.json"), key=lambda p: p.stat().st_mtime_ns) if folder.is_dir() else []
    return others[-1] if others else None


@lru_cache(maxsize=1)
def installed_vllm_distribution() -> tuple[str, str] | None:
    """(distribution, version) of the installed vLLM build, read without importing it."""

    return vllm_distribution()


def installed_vllm_version() -> str | None:
    dist = installed_vllm_distribution()
    return dist[1] if dist else None
