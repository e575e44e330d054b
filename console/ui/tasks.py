"""Long work off the GUI thread, its outcome back on it.

:class:`BackgroundCall` runs a plain function in a daemon thread and delivers its result (or the
exception's message) through queued signals. :func:`run_with_progress` does the same for a
function that takes a :class:`console.jobs.TaskState`, behind a progress dialog whose Cancel
button sets the task's cancel flag (Orange's TaskState pattern). The GUI thread never joins the
worker.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from console.jobs import Cancelled, Progress, TaskState
from console.messages import message_of

log = logging.getLogger(__name__)

#: Calls in flight, so neither they nor their dialogs are garbage-collected mid-way.
_LIVE: set["BackgroundCall"] = set()


class BackgroundCall(QObject):
    """One call of ``fn(*args)`` in a worker thread.

    Signals:
        succeeded(object): the return value.
        failed(object): the exception's message, a ``str`` (its :class:`console.messages.Message`
            when it carries one, for the window to translate; never a traceback).
        cancelled(): the function raised :class:`console.jobs.Cancelled`.
        progressed(object): a :class:`console.jobs.Progress` reported through ``state``.
        finished(): after any of the three outcomes.
    """

    succeeded = Signal(object)
    failed = Signal(object)
    cancelled = Signal()
    progressed = Signal(object)
    finished = Signal()

    def __init__(self, fn: Callable[..., Any], *args: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._fn = fn
        self._args = args
        self.state = TaskState(on_progress=self.progressed.emit)
        self.finished.connect(self._on_self_finished)

    def start(self) -> "BackgroundCall":
        _LIVE.add(self)
        threading.Thread(target=self._run, name="console-task", daemon=True).start()
        return self

    def _run(self) -> None:
        try:
            result = self._fn(*self._args)
        except Cancelled:
            self.cancelled.emit()
        except Exception as exc:  # the message is for the user; the traceback goes to the log
            log.info("background call failed", exc_info=True)
            self.failed.emit(message_of(exc) or type(exc).__name__)
        else:
            self.succeeded.emit(result)
        self.finished.emit()

    def _on_self_finished(self) -> None:
        _LIVE.discard(self)


def call_in_background(
    fn: Callable[..., Any],
    *args: Any,
    on_success: Callable[[Any], None] | None = None,
    on_failure: Callable[[str], None] | None = None,
    context: QObject | None = None,
) -> BackgroundCall:
    """Run ``fn(*args)`` off the GUI thread. With ``context`` (the widget the callbacks update),
    an outcome that arrives after that widget was deleted is dropped instead of touching it."""
    call = BackgroundCall(fn, *args)

    def guarded(cb: Callable[[Any], None]) -> Callable[[Any], None]:
        if context is None:
            return cb

        def run(value: Any) -> None:
            if shiboken6.isValid(context):
                cb(value)

        return run

    if on_success is not None:
        call.succeeded.connect(guarded(on_success))
    if on_failure is not None:
        call.failed.connect(guarded(on_failure))
    return call.start()


def run_with_progress(
    parent: QWidget,
    title: str,
    fn: Callable[[TaskState], Any],
    on_success: Callable[[Any], None],
    on_failure: Callable[[str], None],
    on_cancel: Callable[[], None] | None = None,
) -> BackgroundCall:
    """Run ``fn(state)`` in a worker behind a window-modal progress dialog with Cancel."""
    dialog = QProgressDialog(title, QCoreApplication.translate("Tasks", "Cancel"), 0, 1000, parent)
    dialog.setWindowTitle(title)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(0)
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    dialog.setMinimumWidth(420)
    dialog.setValue(0)
    call = BackgroundCall(lambda: fn(call.state))
    call.dialog = dialog  # type: ignore[attr-defined]  # tests find it here

    def on_progress(p: Progress) -> None:
        if p.fraction is None:
            dialog.setRange(0, 0)  # busy indicator while a stage's length is unknown
        else:
            dialog.setRange(0, 1000)
            dialog.setValue(int(1000 * p.fraction))
        dialog.setLabelText(f"{title}\n{p.stage}")

    def on_canceled() -> None:
        dialog.setLabelText(QCoreApplication.translate("Tasks", "Cancelling…"))
        call.state.cancel()

    call.progressed.connect(on_progress)
    dialog.canceled.connect(on_canceled)
    call.succeeded.connect(on_success)
    call.failed.connect(on_failure)
    if on_cancel is not None:
        call.cancelled.connect(on_cancel)
    call.finished.connect(dialog.close)
    call.finished.connect(dialog.deleteLater)
    dialog.show()
    return call.start()
