"""Help > Check CPU engine…: the CPU dtype check (``inference-console doctor``) off the GUI
thread, behind a progress dialog with Cancel; the verdict is stored and shown in a message box."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox, QWidget

from console.jobs import TaskState
from console.ui.core_text import translate_core_text
from console.ui.tasks import BackgroundCall, run_with_progress
from console.bench.cpu_dtype_check import bundled_model, run_check
from console.engine import cpu_dtype
from console.engine.cpu_dtype import FALLBACK


def _tr(text: str) -> str:
    return QCoreApplication.translate("CpuCheck", text)


def check_and_save(task: TaskState) -> Any:
    """The worker: check with the bundled model (imported first if missing) and store the result."""

    result = run_check(bundled_model(task), task=task)
    cpu_dtype.save(result)
    return result


def summary(result: Any) -> str:
    """Plain text for the message box, in the UI's language: one line per dtype (its speed, kept or
    rejected, and why), then the verdict."""

    lines = []
    for r in result.results:
        tps = "-" if r.output_tokens_per_s is None else f"{r.output_tokens_per_s:.0f} tok/s"
        verdict = _tr("ok") if r.ok else _tr("rejected")
        lines.append(f"{r.dtype}: {tps}, {verdict} ({translate_core_text(r.reason)})")
    lines.append("")
    best = next((r for r in result.results if r.dtype == result.choice), None)
    if result.choice and best is not None and best.output_tokens_per_s:
        lines.append(
            _tr("{0}: the fastest correct dtype ({1:.0f} tok/s)").format(result.choice, best.output_tokens_per_s)
        )
    elif result.choice:
        lines.append(_tr("{0}: the fastest correct dtype").format(result.choice))
    else:  # the core's message says the same in English (engine/cpu_dtype.py decide)
        lines.append(
            _tr(
                "{0} gave wrong results in every dtype on this CPU. The CPU engine will use {1}, but its "
                "answers may be wrong: check the model, or report this CPU and vLLM version."
            ).format(result.model, FALLBACK)
        )
    return "\n".join(lines)


def start_cpu_check(parent: QWidget) -> BackgroundCall:
    """Run the check; minutes (three engine loads on the CPU). The loaded model keeps running."""
    title = _tr("Checking the CPU engine (bfloat16, float16, float32)…")

    def done(result: Any) -> None:
        box = QMessageBox.information if result.choice else QMessageBox.warning
        box(
            parent,
            _tr("CPU engine check"),
            summary(result) + "\n\n" + _tr("Models loaded from now on with dtype 'auto' use this choice."),
        )

    def failed(message: str) -> None:
        QMessageBox.warning(parent, _tr("CPU engine check"), _tr("The check could not run: {0}").format(message))

    return run_with_progress(parent, title, check_and_save, done, failed)
