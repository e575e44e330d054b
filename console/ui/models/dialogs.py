"""The Models panel's small dialogs: the model's details (its registry entry and where the plan's
figures came from), the question before loading what the planner says does not fit, and the one
before removing a model from the store.

Split out of :mod:`console.ui.models.panel` by job; their strings stay in the panel's
translation context ("ModelsPanel").
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMessageBox, QTextBrowser, QVBoxLayout, QWidget

from console.planner.core import Plan
from console.models.fit_table import Fit


def _tr(text: str) -> str:
    return QCoreApplication.translate("ModelsPanel", text)


def confirm_fit(parent: QWidget, name: str, plan: Plan | None, fit: Fit | None) -> bool:
    """Ask before loading what the planner says does not fit as set ("does not fit", or "fits
    with changes": not without them), naming its first problem and the way out."""
    verdict = str(plan.verdict) if plan is not None else str(fit.verdict) if fit is not None else ""
    if verdict not in ("does-not-fit", "fits-with-changes"):
        return True
    why = str(plan.problems[0]) if plan is not None and plan.problems else fit.detail if fit else ""
    answer = QMessageBox.question(
        parent,
        _tr("Load anyway?"),
        _tr(
            "The planner says {0} does not fit with these settings. {1}\n\nApply one of its suggestions "
            "(Planner box) or load anyway?"
        )
        .format(name, why)
        .replace(" \n", "\n"),
    )
    return answer == QMessageBox.StandardButton.Yes


def confirm_remove(parent: QWidget, name: str, managed: bool, path: str) -> bool:
    """Ask before removing ``name`` from the store, saying what happens to its files."""
    what = (
        _tr("Its files in the store are deleted.")
        if managed
        else _tr("Its folder ({0}) is left as it is.").format(path)
    )
    answer = QMessageBox.question(
        parent, _tr("Remove model"), _tr("Remove {0} from the store?").format(name) + " " + what
    )
    return answer == QMessageBox.StandardButton.Yes


def show_details(parent: QWidget, text: str) -> QDialog:
    """The details of a model (markdown), in a non-modal dialog deleted on close."""
    dialog = QDialog(parent)
    dialog.setWindowTitle(_tr("Model details"))
    view = QTextBrowser(dialog)
    view.setMarkdown(text)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(view)
    layout.addWidget(buttons)
    dialog.resize(560, 480)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog
