"""The AWQ quantize job: a child process writes the checkpoint into the store's staging area.

``quantize_awq`` checks the request (source model, name, group size against the model's shape),
starts ``python -m console.quant.awq_worker`` and turns its JSON lines into
:class:`console.jobs.TaskState` progress (per decoder layer, with an ETA) and log lines. Cancel
kills the child; the store's staging context then deletes the partial folder, so the registry
never lists a half-written model. The new model carries its lineage (source, method, parameters,
calibration set, date, tool versions).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from console.children import Child, python_module
from console.jobs import TaskState
from console.models.store import ModelEntry, ModelStore, StoreError
from console.quant.gate import calibration_path

LogSink = Callable[[str], None]
AUTOAWQ_VERSION = "0.2.9"


class QuantizeError(Exception):
    """A quantize job that failed; the message is meant for the user."""


@dataclass(frozen=True)
class AwqParams:
    w_bit: int = 4
    group_size: int | None = None  # None: 128 when the model's widths allow it, else 64 or 32
    zero_point: bool = True
    version: str = "GEMM"
    # Measured on SmolLM2-135M on 2 CPU cores (benchmarks/quantize-smollm2.md): bf16 search is
    # ~3x faster than fp16 there (CPU fp16 matmul is slow); 5 blocks of 128 tokens and 64 tokens
    # for the clipping search gave +10% perplexity in 15 minutes.
    max_seq_len: int = 128
    compute_dtype: str = "bfloat16"  # dtype of the scale/clip search; saved weights are fp16
    clip: bool = True  # AWQ's weight-clipping search
    clip_tokens: int = 64  # tokens sampled by that search (AutoAWQ's default: 512)
    max_blocks: int | None = 5  # calibrate on at most this many blocks of max_seq_len tokens, spread


def awq_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("awq") is not None


def pick_group_size(model_dir: Path, wanted: int | None) -> int:
    """AWQ groups must divide every quantized input width (hidden and intermediate size)."""
    cfg = json.loads((Path(model_dir) / "config.json").read_text(encoding="utf-8"))
    widths = [int(cfg[k]) for k in ("hidden_size", "intermediate_size") if k in cfg]
    candidates = [wanted] if wanted else [128, 64, 32]
    for g in candidates:
        if all(w % g == 0 for w in widths):
            return g
    raise QuantizeError(
        f"group size {wanted} does not divide the model's widths {widths}; pick one that does (128, 64 or 32)"
    )


def calibration_info(path: Path) -> dict[str, Any]:
    data = Path(path).read_bytes()
    text = data.decode("utf-8")
    paragraphs = [p for p in text.split("\n\n") if p.strip()]
    builtin = Path(path).resolve() == calibration_path().resolve()
    return {
        "file": "built-in corpus (resources/quant/calibration.txt)" if builtin else str(path),
        "sha256": hashlib.sha256(data).hexdigest()[:16],
        "paragraphs": len(paragraphs),
        "words": len(text.split()),
    }


def default_name(source: str, params: AwqParams) -> str:
    return f"{source}-awq-w{params.w_bit}"[:64]


def run_worker(spec: dict[str, Any], task: TaskState, on_log: LogSink | None = None) -> dict[str, Any]:
    """Run the AWQ child process for ``spec``; returns its final ``done`` message."""
    log = on_log or (lambda _line: None)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(spec, fh)
        spec_file = fh.name
    error: str | None = None
    done: dict[str, Any] = {}

    def on_message(msg: dict[str, Any]) -> None:
        nonlocal error, done
        kind = msg.get("type")
        if kind == "progress":
            task.report(msg["stage"], msg.get("fraction"), msg.get("message", ""))
            log(f"{msg['stage']} {msg.get('message', '')}".rstrip())
        elif kind == "log":
            log(msg["line"])
        elif kind == "error":
            error = msg["message"]
        elif kind == "done":
            done = msg

    child = Child(
        python_module("console.quant.awq_worker", spec_file),
        on_message=on_message,
        on_line=lambda line: log(line) if line.strip() else None,
        env={"TRANSFORMERS_VERBOSITY": "error", "TQDM_DISABLE": "1", "PYTHONWARNINGS": "ignore"},
    )
    try:
        with child.start():
            # The child may be silent for a minute inside one layer: wait() checks Cancel often.
            code = child.wait(task=task)
    finally:
        os.unlink(spec_file)
    if code != 0:
        raise QuantizeError(error or child.error_message("the AWQ process", n=3))
    return done


def quantize_awq(
    store: ModelStore,
    source: str,
    out_name: str | None = None,
    *,
    params: AwqParams | None = None,
    calib_file: Path | None = None,
    task: TaskState | None = None,
    on_log: LogSink | None = None,
    apply_fix: bool = True,
) -> ModelEntry:
    """AWQ-quantize store model ``source`` into a new store model (default ``<source>-awq-w4``)."""
    task = task or TaskState()
    params = params or AwqParams()
    if not awq_available():
        raise QuantizeError(
            "AutoAWQ is not installed: run packaging/setup.sh again "
            f"(it installs autoawq=={AUTOAWQ_VERSION} without its GPU-only pins)"
        )
    src = store.get(source)
    if src.quantization:
        raise QuantizeError(f"'{source}' is already quantized ({src.quantization}); start from the original")
    name = out_name or default_name(source, params)
    if name in store:
        raise StoreError(f"A model named '{name}' already exists; remove it or pick another name")
    group = pick_group_size(Path(src.path), params.group_size)
    params = AwqParams(**{**asdict(params), "group_size": group})
    calib = Path(calib_file) if calib_file else calibration_path()
    if not calib.is_file():
        raise QuantizeError(f"calibration file {calib} does not exist")
    started = _dt.datetime.now(_dt.timezone.utc)
    result: dict[str, Any] = {}

    def write(tmp: Path) -> None:
        spec = {
            "source": src.path,
            "dest": str(tmp),
            "calib_file": str(calib),
            "apply_fix": apply_fix,
            **asdict(params),
        }
        result.update(run_worker(spec, task, on_log))

    lineage = {
        "source": source,
        "source_path": src.path,
        "method": "awq",
        "w_bit": params.w_bit,
        "group_size": params.group_size,
        "zero_point": params.zero_point,
        "version": params.version,
        "calibration": calibration_info(calib),
        "max_seq_len": params.max_seq_len,
        "max_blocks": params.max_blocks,
        "compute_dtype": params.compute_dtype,
        "clip": params.clip,
        "clip_tokens": params.clip_tokens,
        "date": started.isoformat(timespec="seconds"),
        "tool": f"autoawq {AUTOAWQ_VERSION}",
        "cpu_scale_fix": apply_fix,
    }
    store.add_staged(name, write, source=f"AWQ int{params.w_bit} of {source}", lineage=lineage)
    lineage["seconds"] = result.get("seconds")
    return store.update(name, lineage=lineage)
