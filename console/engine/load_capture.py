"""Record vLLM's memory report of every engine start, so the planner calibrates itself.

vLLM sizes the KV cache in its engine-core (and worker) processes, so its report lines are not
logged in this process. vLLM applies the logging ``dictConfig`` named by
``VLLM_LOGGING_CONFIG_PATH`` in every process it starts (and hands it on inside its config), so
for the duration of a load :func:`capture_logs` points that variable at a config that is vLLM's
own (or the user's, when they set one) plus a file handler for this load; vLLM's normal console
output is unchanged. After a successful load :func:`record_load` parses the file into a
:class:`console.planner.selfcal.LoadRecord` (with NVML's peak on a GPU) and refits the GPU's
calibration. Recording never breaks a load: any failure is logged and ignored.

A second file handler writes the same lines with the time each was logged
(``<seconds since the epoch> <message>``): :mod:`console.engine.phase_watch` reads it while the
engine is built, for the load's phases (:mod:`console.engine.load_phases`).

``INFERENCE_CONSOLE_RECORD_LOADS=0`` turns the recording off (the test suite's shared engines set
it); the capture itself, and so the phases, stay on unless vLLM's logging is turned off
(``VLLM_CONFIGURE_LOGGING=0``).
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator
from console import children
from console.engine.errors import kv_refusal
from console.metrics.device import NvmlSource
from console.planner.loadlog import parse_vllm_log
from console.planner.selfcal import gpu_key, LoadRecord, record_load as save
from console.planner.shape_lookup import shape_from_folder
from console.vllm_compat import default_logging_config

log = logging.getLogger(__name__)
RECORD_ENV = "INFERENCE_CONSOLE_RECORD_LOADS"
_PATH_ENV = "VLLM_LOGGING_CONFIG_PATH"
_HANDLER = "inference_console_load_capture"
_PHASES_HANDLER = "inference_console_load_phases"


@dataclass
class LogCapture:
    folder: Path | None = None  # None: not capturing (turned off, or logging is not vLLM's to configure)
    failed_text: str = ""  # what vLLM logged before a load that failed (the files are gone by then)

    @property
    def log_path(self) -> Path | None:
        return None if self.folder is None else self.folder / "vllm-load.log"

    @property
    def phases_path(self) -> Path | None:
        """The same lines, each after the time it was logged (``%(created)f %(message)s``)."""
        return None if self.folder is None else self.folder / "vllm-phases.log"

    def text(self) -> str:
        path = self.log_path
        return path.read_text(encoding="utf-8", errors="replace") if path and path.is_file() else ""

    def close(self) -> None:
        """Delete the files and detach our handler where vLLM also applied the config here. While
        another load builds, the files are deleted when no load builds any more (``_ended``)."""
        if self.folder is None:
            return
        ours = {str(self.log_path), str(self.phases_path)}
        for handler in list(logging.getLogger("vllm").handlers):
            if getattr(handler, "baseFilename", None) in ours:
                logging.getLogger("vllm").removeHandler(handler)
                handler.close()
        folder, self.folder = self.folder, None
        with _active_lock:
            if any(path != str(folder / "logging.json") for path in _active):
                _ended.append(folder)
                return
        _remove(folder)


def _remove(folder: Path) -> None:
    with contextlib.suppress(OSError):  # the engine's processes may still hold the log open
        for child in folder.iterdir():
            child.unlink(missing_ok=True)
        folder.rmdir()


#: The captures under way (their config paths, the newest last) and what the variable held before
#: the first of them: loads may overlap (a model kept warm, engines started side by side), so the
#: variable is never restored to a capture that has ended (its folder is gone, and a vLLM process
#: started later would refuse to start on it).
_active: list[str] = []
_original: list[str | None] = [None]
_active_lock = threading.Lock()
#: The folders of captures that ended while another load was building: a process that load started
#: while the variable named one of them (its engine core) reads the path again when it starts its
#: own (its workers), so they are deleted only when no load builds.
_ended: list[Path] = []


def user_logging_config_path() -> str | None:
    """``VLLM_LOGGING_CONFIG_PATH`` as the user set it, whatever capture is under way."""
    with _active_lock:
        return _original[0] if _active else os.environ.get(_PATH_ENV)


def _base_config() -> dict[str, Any]:
    """The user's vLLM logging config if they set one, else vLLM's default."""
    own = user_logging_config_path()
    if own:
        data = json.loads(Path(own).read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError(f"{own}: not a logging dictConfig object")
        return data

    return default_logging_config()


def logging_config_with_capture(
    base: dict[str, Any], log_path: Path, phases_path: Path | None = None
) -> dict[str, Any]:
    """``base`` plus a file handler on the "vllm" logger writing bare messages to ``log_path`` (and
    one writing them after the time each was logged to ``phases_path``)."""
    config = copy.deepcopy(base)
    config.setdefault("version", 1)
    config.setdefault("disable_existing_loggers", False)
    ours = {_HANDLER: (log_path, "%(message)s")}
    if phases_path is not None:
        ours[_PHASES_HANDLER] = (phases_path, "%(created).3f %(message)s")
    for name, (path, form) in ours.items():
        config.setdefault("formatters", {})[name] = {"format": form}
        config.setdefault("handlers", {})[name] = {
            "class": "logging.FileHandler",
            "filename": str(path),
            "formatter": name,
            "level": "INFO",
            "encoding": "utf-8",
        }
    logger = config.setdefault("loggers", {}).setdefault("vllm", {"level": "INFO", "propagate": False})
    # The report lines are INFO: let them reach our file even where vLLM's console output is set
    # quieter, by moving that level from the logger onto its existing handlers.
    level = str(logger.get("level", "INFO")).upper()
    if logging.getLevelName(level) in range(logging.INFO + 1, logging.CRITICAL + 11):
        for name in logger.get("handlers", []):
            handler = config["handlers"].get(name)
            if isinstance(handler, dict) and logging.getLevelName(
                str(handler.get("level", "NOTSET")).upper()
            ) < logging.getLevelName(level):
                handler["level"] = level
        logger["level"] = "INFO"
    logger["handlers"] = [*logger.get("handlers", []), *ours]
    return config


def recording() -> bool:
    """Loads are recorded for the planner (``INFERENCE_CONSOLE_RECORD_LOADS`` is not "0")."""
    return os.environ.get(RECORD_ENV, "1") != "0"


def _refresh_vllm_envs() -> None:
    """vLLM may memoize its environment variables (``envs.enable_envs_cache``, done in its engine
    processes); where this process did so, forget them so the change of the path is seen."""
    import sys

    getter = getattr(sys.modules.get("vllm.envs"), "__getattr__", None)
    cache_clear = getattr(getter, "cache_clear", None)
    if cache_clear is not None:
        cache_clear()


@contextlib.contextmanager
def capture_logs() -> Iterator[LogCapture]:
    """Around building the engine: vLLM's processes started inside also log into a file."""
    cap = LogCapture()
    if os.environ.get("VLLM_CONFIGURE_LOGGING", "1") == "0":
        yield cap
        return
    path = ""
    try:
        folder = Path(tempfile.mkdtemp(prefix="console-load-"))
        cap.folder = folder
        config = logging_config_with_capture(_base_config(), folder / "vllm-load.log", folder / "vllm-phases.log")
        (folder / "logging.json").write_text(json.dumps(config), encoding="utf-8")
        path = str(folder / "logging.json")
        with _active_lock:
            if not _active:
                _original[0] = os.environ.get(_PATH_ENV)
                children.lend_env(_PATH_ENV, _original[0])
            _active.append(path)
            os.environ[_PATH_ENV] = path
        _refresh_vllm_envs()
    except Exception as exc:  # never stop a load for this
        log.warning("not reading this load's log (memory report, phases): %s", exc)
        cap.close()
    try:
        yield cap
    except BaseException:
        cap.failed_text = cap.text()  # the load failed: only a refusal is recorded (record_refusal)
        cap.close()
        raise
    finally:
        if path:
            ended: list[Path] = []
            with _active_lock:
                _active.remove(path)
                last = _active[-1] if _active else _original[0]
                if not _active:
                    children.return_env(_PATH_ENV)
                    ended, _ended[:] = list(_ended), []
                if last is None:
                    os.environ.pop(_PATH_ENV, None)
                else:
                    os.environ[_PATH_ENV] = last
            _refresh_vllm_envs()
            for folder in ended:
                _remove(folder)


def _engine_args(config: Any, vc: Any) -> dict[str, Any]:
    """The arguments the engine really ran with (vLLM's resolved config; ours where it has none)."""
    mc, cc = getattr(vc, "model_config", None), getattr(vc, "cache_config", None)
    sc, pc = getattr(vc, "scheduler_config", None), getattr(vc, "parallel_config", None)

    def pick(obj: Any, attr: str, fallback: Any) -> Any:
        value = getattr(obj, attr, None) if obj is not None else None
        return fallback if value is None else value

    return {
        "max_model_len": pick(mc, "max_model_len", config.max_model_len),
        "gpu_memory_utilization": pick(cc, "gpu_memory_utilization", config.gpu_memory_utilization),
        "max_num_seqs": pick(sc, "max_num_seqs", config.max_num_seqs),
        "max_num_batched_tokens": pick(sc, "max_num_batched_tokens", config.max_num_batched_tokens),
        "enforce_eager": bool(pick(mc, "enforce_eager", config.enforce_eager)),
        "kv_cache_dtype": str(pick(cc, "cache_dtype", config.kv_cache_dtype)),
        "quantization": pick(mc, "quantization", config.quantization),
        "kv_cache_memory_bytes": pick(cc, "kv_cache_memory_bytes", config.kv_cache_memory_bytes),
        "tensor_parallel_size": pick(pc, "tensor_parallel_size", config.tensor_parallel_size),
        "pipeline_parallel_size": pick(pc, "pipeline_parallel_size", config.pipeline_parallel_size),
    }


def _nvml(metrics: Any, since: float) -> tuple[str, float | None]:
    """(device name, peak memory used) from NVML: the sampler's samples since ``since`` and now."""

    source = NvmlSource(0)
    used = [source.sample().get("mem_used_bytes")]
    if metrics is not None:
        used += [s.values.get("mem_used_bytes") for s in metrics.device_samples() if s.t >= since]
    values = [float(u) for u in used if u]
    return source.name, (max(values) if values else None)


def build_record(
    cap: LogCapture,
    config: Any,
    device: str,
    vllm_config: Any,
    vllm_version: str,
    gpu_name: str = "",
    nvml_peak: float | None = None,
) -> Any:
    """The :class:`LoadRecord` of this load (None: no report lines were captured)."""

    report = parse_vllm_log(cap.text())
    cc = getattr(vllm_config, "cache_config", None)
    blocks, block = getattr(cc, "num_gpu_blocks", None), getattr(cc, "block_size", None)
    kv_tokens = report.kv_tokens or (blocks * block if blocks and block else None)
    if not kv_tokens or report.kv_budget_gib is None:
        return None
    shape = shape_from_folder(Path(config.model))
    return LoadRecord(
        gpu="cpu" if device == "cpu" else gpu_key(gpu_name or "gpu"),
        vllm_version=report.vllm_version or vllm_version,
        shape=shape.to_dict(),
        engine_args=_engine_args(config, vllm_config),
        report=report,
        kv_tokens=int(kv_tokens),
        block_size=block,
        gpu_name=gpu_name,
        model=shape.name,
        nvml_peak_used_bytes=nvml_peak,
        device="cpu" if device == "cpu" else "cuda",
    )


def record_load(
    cap: LogCapture,
    config: Any,
    device: str,
    vllm_config: Any,
    vllm_version: str,
    metrics: Any = None,
    since: float = 0.0,
) -> Any:
    """After a successful load: record it and refit the calibration. Returns the record or None."""
    if cap.folder is None or not recording():
        cap.close()
        return None
    try:
        name, peak = ("", None)
        if device != "cpu":
            try:
                name, peak = _nvml(metrics, since)
            except Exception as exc:
                log.info("NVML unavailable for the load record: %s", exc)
        record = build_record(cap, config, device, vllm_config, vllm_version, name, peak)
        if record is None:
            log.info("vLLM's memory report was not in its log: this load is not recorded")
            return None
        save(record)
        return record
    except Exception:
        log.exception("recording the load for the planner's calibration failed")
        return None
    finally:
        cap.close()


def record_refusal(cap: LogCapture, config: Any, device: str, error: str) -> Any:
    """After vLLM refused a load because the KV cache cannot hold one request of max_model_len:
    record what it said (its KV memory, its own longest length, the weights it had loaded) as a
    load record of this GPU, beside the successful loads. Returns the record or None."""

    refusal = kv_refusal(error) or kv_refusal(cap.failed_text)
    if refusal is None or device == "cpu" or not recording():
        return None
    try:
        report = parse_vllm_log(cap.failed_text)
        name = ""
        try:
            name = _nvml(None, 0.0)[0]
        except Exception:
            pass
        shape = shape_from_folder(Path(config.model))
        record = LoadRecord(
            gpu=gpu_key(name or "gpu"),
            vllm_version=report.vllm_version or "?",
            shape=shape.to_dict(),
            engine_args=_engine_args(config, None),
            report=report,
            kv_tokens=0,
            gpu_name=name,
            model=shape.name,
            refusal=refusal.to_dict(),
        )
        save(record)
        return record
    except Exception:
        log.exception("recording vLLM's refusal for the planner failed")
        return None


__all__ = [
    "LogCapture",
    "RECORD_ENV",
    "build_record",
    "capture_logs",
    "logging_config_with_capture",
    "record_load",
    "record_refusal",
    "recording",
    "user_logging_config_path",
]
