"""The Models panel (the window's sidebar): the store's table, imports, the preset and its knobs,
the planner's verdict, and Load / Unload / Reload.

The table, the knobs and the plan are widgets of their own (:mod:`console.ui.models.table`,
:mod:`console.ui.models.knobs_box`, :mod:`console.ui.models.plan_view`). The "fits?" column and the plan are
computed off the GUI thread from what is already loaded (the store's entries, the presets, one
device description; :mod:`console.models.fit_table`), a burst of knob edits costing one
computation and a stale result being dropped. Imports and removals run in worker threads
(:mod:`console.ui.tasks`); loads go through the bridge, so nothing here waits on the engine.

The model and preset picked here go to the application state (``ctx.state``), which the other
views follow; the panel is its one writer.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QMenu,
    QPushButton,
    QTableView,
    QWidget,
)

from console.config import EngineConfig
from console.engine.types import EngineState, EngineStatus
from console.models.store import ModelEntry
from console.models.fit_table import Device, Planned, local_in_use, plan_models, planner_device
from console.presets import Preset, PresetError, load_presets, validate_overrides
from console.settings import Knobs, Settings
from console.ui.context import AppContext
from console.ui.core_text import translate_core_text
from console.ui.models.knobs_box import KnobsBox, knobs_with_change
from console.ui.models.dialogs import confirm_fit, confirm_remove, show_details
from console.ui.models.model_imports import ModelImporter
from console.ui.models.table import ModelTableModel
from console.ui.models.plan_view import PlanView, details_markdown
from console.ui.tasks import call_in_background
from console.ui.models.warm_line import WarmLine
from console.ui.models.panel_layout import build_layout
from console.ui.widgets import ErrorLabel
from console.launch import default_preset_name, engine_config_for
from console.ui.models.get_model_dialog import GetModelDialog
from console.ui.models.quantize_dialog import QuantizeDialog

if TYPE_CHECKING:  # built at its first opening (its module is imported then)
    from console.ui.models.get_model_dialog import GetModelDialog


class ModelsPanel(QWidget):
    """Sidebar: pick a model and a preset, tune the knobs, see the plan, load.

    Signals:
        message(str): a one-line outcome for the status bar (import done, load refused, ...).
    """

    message = Signal(str)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._preset_error = ""
        self._loaded: tuple[str, str] | None = None  # (model, preset) of the last load intent
        self._get_model_dialog: GetModelDialog | None = None  # made at its first opening
        self._planner_device: Device | None = None  # found once, off the GUI thread
        self._plan_round = 0  # a result of an earlier round is dropped
        self._knobs_edited = False  # since the last plan (the fit column is not theirs yet)

        self.table_model = ModelTableModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.table_model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.selectionModel().selectionChanged.connect(self._on_table_selection_changed)
        self.table.doubleClicked.connect(self._on_table_double_clicked)  # loads; Details: button, menu
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._on_table_context_menu)

        self.get_model_button = QPushButton(self.tr("Get a model…"), self)
        self.get_model_button.setToolTip(self.tr("Download from Hugging Face (or a mirror) or ModelScope"))
        self.get_model_button.clicked.connect(lambda: self.open_get_model())
        self.import_gguf_button = QPushButton(self.tr("Import GGUF…"), self)
        self.import_folder_button = QPushButton(self.tr("Import folder…"), self)
        self.remove_button = QPushButton(self.tr("Remove"), self)
        self.details_button = QPushButton(self.tr("Details"), self)
        self.import_gguf_button.clicked.connect(lambda: self.import_gguf())
        self.import_folder_button.clicked.connect(lambda: self.import_folder())
        self.remove_button.clicked.connect(lambda: self.remove_selected())
        self.details_button.clicked.connect(self.show_details)
        self.importer = ModelImporter(self, ctx)  # GGUF / folder imports, with progress and cancel
        self.importer.started.connect(self.clear_error)
        self.importer.imported.connect(lambda name: self.refresh(select=name))
        self.importer.failed.connect(self.show_error)
        self.importer.message.connect(self.message)
        self.quantize_button = QPushButton(self.tr("Quantize…"), self)
        self.quantize_button.clicked.connect(lambda: self.quantize_selected())

        self.knobs_box = KnobsBox(self)
        self.knobs_box.presetChanged.connect(self._on_knobs_box_preset_changed)
        self.knobs_box.knobsChanged.connect(self._on_knobs_box_knobs_changed)
        self.knobs_box.set_device(gpu=ctx.sampler.kind == "nvml")  # rows that apply to this machine's engine
        k = self.knobs_box  # the rows the panel's users reach most, by short names
        self.preset_combo, self.context_spin, self.seqs_spin = (
            k.preset_combo,
            k.widget("max_model_len"),
            k.widget("max_num_seqs"),
        )
        self.kv_dtype_combo, self.util_spin = k.widget("kv_cache_dtype"), k.widget("gpu_memory_utilization")
        self.kv_gib_spin = k.widget("kv_cache_memory_bytes")
        self.plan_view = PlanView(self)
        self.plan_view.applyRequested.connect(self.apply_change)  # a suggestion's Apply sets its knobs
        self.verdict_label, self.plan_label = self.plan_view.verdict_label, self.plan_view.plan_label

        self.load_button = QPushButton(self.tr("Load"), self)
        self.load_button.setToolTip(self.tr("Load the selected model with this preset (Ctrl+L)"))
        self.unload_button = QPushButton(self.tr("Unload"), self)
        self.reload_button = QPushButton(self.tr("Reload"), self)
        self.load_button.clicked.connect(self.load_selected)
        self.warm_line = WarmLine(ctx, self)
        self.warm_line.switched.connect(self.message)
        self.keep_warm_check, self.warm_label = self.warm_line.keep_check, self.warm_line.label
        self.drop_warm_button = self.warm_line.drop_button
        self.unload_button.clicked.connect(self.unload)
        self.reload_button.clicked.connect(self.reload)
        self.error_label = ErrorLabel(self)

        self._plan_timer = QTimer(self)
        self._plan_timer.setSingleShot(True)
        self._plan_timer.setInterval(120)  # edits in a burst cost one plan
        self._plan_timer.timeout.connect(self._on_plan_timer_timeout)

        self._build_layout()
        ctx.bridge.statusChanged.connect(self._on_bridge_status_changed)
        ctx.bridge.loadFinished.connect(self._on_bridge_load_finished)
        self.reload_presets()
        self.refresh()
        self._update_buttons()
        self._publish_selection()

    def _build_layout(self) -> None:
        self.column_scroll = build_layout(
            self,
            self.table,
            (
                self.get_model_button,
                self.import_gguf_button,
                self.import_folder_button,
                self.details_button,
                self.quantize_button,
                self.remove_button,
            ),
            (self.knobs_box, self.plan_view),
            (self.load_button, self.unload_button, self.reload_button, self.keep_warm_check),
            (self.warm_line, self.error_label),
        )

    # -- data ----------------------------------------------------------------------------------
    def refresh(self, select: str | None = None) -> None:
        """Re-read the store (after an import or removal), keeping or moving the selection."""
        keep = select or self.selected_name()
        try:
            entries = self.ctx.store.list()
        except Exception as exc:  # an unreadable registry is reported, not raised
            entries = []
            self.show_error(str(exc))
        self.table_model.set_entries(entries)
        self.ctx.state.list_models([e.name for e in entries])
        if keep:
            self.select_model(keep)
        self._plan_timer.start()  # the plan and the "fits?" column follow, off this call

    def reload_presets(self) -> None:
        current = self.preset_name()
        presets: dict[str, Preset] = {}
        try:
            presets = load_presets()
            self._preset_error = ""
        except PresetError as exc:
            self._preset_error = str(exc)
            self.show_error(self._preset_error)
        if not (current and current in presets):
            current = default_preset_name()
        self.knobs_box.set_presets(presets, current)

    def selected_entry(self) -> ModelEntry | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        return self.table_model.entries[rows[0].row()]

    def selected_name(self) -> str | None:
        e = self.selected_entry()
        return e.name if e else None

    def preset_name(self) -> str | None:
        return self.knobs_box.preset_name()

    @property
    def presets(self) -> dict[str, Preset]:
        return self.knobs_box.presets

    def select_model(self, name: str) -> bool:
        for row, e in enumerate(self.table_model.entries):
            if e.name == name:
                self.table.selectRow(row)
                return True
        return False

    def select_preset(self, name: str) -> bool:
        return self.knobs_box.select_preset(name)

    def knobs(self) -> Knobs:
        return self.knobs_box.knobs()

    def set_knobs(self, k: Knobs) -> None:
        self.knobs_box.set_knobs(k)

    def overrides(self) -> dict[str, Any]:
        return self.knobs_box.overrides()

    def engine_config(self) -> EngineConfig:
        """The configuration Load would use now (raises with a user-facing message)."""

        name = self.selected_name()
        if name is None:
            raise ValueError(self.tr("Select a model in the table first"))
        if self._preset_error:
            raise PresetError(self._preset_error)
        overrides = validate_overrides(self.overrides(), self.knobs_box.knob_names())  # names the knob
        return engine_config_for(self.ctx.store, name, self.preset_name(), **overrides)

    # -- settings --------------------------------------------------------------------------------
    def restore(self, s: Settings) -> None:
        if s.last_preset:
            self.select_preset(s.last_preset)
        self.set_knobs(s.knobs)
        if s.last_model:
            self.select_model(s.last_model)
        elif self.table_model.entries:
            self.table.selectRow(0)
        self.keep_warm_check.setChecked(s.keep_warm)

    def save(self, s: Settings) -> None:
        s.last_model = self.selected_name()
        s.last_preset = self.preset_name()
        s.knobs = self.knobs()
        s.keep_warm = self.keep_warm_check.isChecked()

    # -- intents ---------------------------------------------------------------------------------
    def load_selected(self) -> bool:
        """Load the selected model with the preset and knobs; False (and a message) if refused."""
        self.clear_error()
        try:
            config = self.engine_config()
        except Exception as exc:
            self.show_error(self.tr("Cannot load: {0}").format(exc))
            return False
        name = self.selected_name() or ""
        state = self.ctx.engine.status.state
        if state in (EngineState.LOADING, EngineState.STOPPING):
            self.show_error(self.tr("The engine is busy ({0}); wait for it to finish").format(state.value))
            return False
        if not self._confirm_fit(name):
            return False
        self._loaded = (name, self.preset_name() or "")
        self.ctx.bridge.load(config, name, keep_warm=self.keep_warm_check.isChecked())
        self._update_buttons()  # the engine is LOADING already; don't wait for the bridge's tick
        self.message.emit(self.tr("Loading {0}…").format(name))
        return True

    def _confirm_fit(self, name: str) -> bool:
        if self._plan_timer.isActive() and self._knobs_edited:
            return True  # the knobs just changed: the verdict shown is not theirs (the engine still checks)
        plan = None if self._plan_timer.isActive() else self.plan_view.plan  # just selected: its row's verdict
        return confirm_fit(self, name, plan, self.table_model.verdicts.get(name))

    def apply_change(self, change: dict[str, Any]) -> None:
        """Set the knobs a change names (an Advisor finding's or a planner suggestion's Apply)."""
        knobs, skipped = knobs_with_change(self.knobs(), change)
        self.set_knobs(knobs)
        text = self.tr("Knobs changed; reload the model to use them.")
        if skipped:
            text += " " + self.tr("Set in the preset file (no knob here): {0}").format(", ".join(skipped))
        self.message.emit(text)

    def unload(self) -> None:
        self.clear_error()
        self.ctx.bridge.unload()
        self._update_buttons()

    def reload(self) -> bool:
        """Load again with the current choices (a new model or new knobs replace the old engine)."""
        return self.load_selected()

    def import_gguf(self, path: str | None = None, name: str | None = None) -> Any:
        return self.importer.import_gguf(path, name)

    def import_folder(self, path: str | None = None, name: str | None = None, copy: bool | None = None) -> Any:
        return self.importer.import_folder(path, name, copy)

    def _on_downloaded(self, name: str) -> None:
        self.refresh(select=name)
        self.message.emit(self.tr("Downloaded {0}").format(name))

    def _refresh_saying(self, text: str) -> None:
        self.refresh()
        self.message.emit(text)

    def open_get_model(self) -> Any:
        """The "Get a model…" dialog (non-modal, one per panel, so a running download stays in
        view when reopened); a finished download appears selected here."""

        dialog = self._get_model_dialog
        if dialog is None:
            dialog = self._get_model_dialog = GetModelDialog(self.ctx.store, self._device(), self)
            dialog.downloaded.connect(self._on_downloaded)
        dialog.show()
        dialog.raise_()
        return dialog

    def quantize_selected(self) -> Any:
        """Open the Quantize dialog (console/ui/models/quantize_dialog.py) for the selected model."""
        entry = self.selected_entry()
        if entry is None:
            self.show_error(self.tr("Select a model to quantize"))
            return None

        dialog = QuantizeDialog(self.ctx, entry.name, self)
        dialog.modelAdded.connect(lambda name: self.refresh(select=name))
        dialog.show()
        return dialog

    def remove_selected(self, confirm: bool = True) -> Any:
        entry = self.selected_entry()
        if entry is None:
            return None
        status = self.ctx.engine.status
        if status.model == entry.name and status.state in (EngineState.READY, EngineState.LOADING):
            self.show_error(self.tr("{0} is loaded; unload it before removing it").format(entry.name))
            return None
        if confirm and not confirm_remove(self, entry.name, entry.managed, entry.path):
            return None
        name = entry.name
        return call_in_background(
            self.ctx.store.remove,
            name,
            on_success=lambda _e: self._refresh_saying(self.tr("Removed {0}").format(name)),
            on_failure=lambda msg: self.show_error(self.tr("Remove failed: {0}").format(msg)),
            context=self,
        )

    def details_text(self) -> str:
        entry = self.selected_entry()
        if entry is None:
            return ""
        d = entry.to_dict()
        rows = "\n".join(
            f"| {k} | {json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v} |" for k, v in d.items()
        )
        planner = details_markdown(self.plan_view.plan)  # where the plan's figures came from
        return f"# {entry.name}\n\n| | |\n|---|---|\n{rows}\n" + (f"\n{planner}" if planner else "")

    def show_details(self) -> None:
        text = self.details_text()
        if text:
            show_details(self, text)

    # -- messages --------------------------------------------------------------------------------
    def show_error(self, text: str) -> None:
        self.error_label.show_text(text)
        self.message.emit(text)

    def clear_error(self) -> None:
        self.error_label.clear_text()

    # -- planner ---------------------------------------------------------------------------------
    def _device(self) -> Device:
        if self._planner_device is None:
            self._planner_device = planner_device(self.ctx.sampler)
        return self._planner_device

    def update_plan(self) -> None:
        """Plan again, off the GUI thread, from the entries and the preset already loaded: the
        "fits?" column for every model and the plan box for the selected one."""
        self._plan_round += 1
        self._knobs_edited = False
        self.plan_view.plan = None  # Details must not show the previous selection's plan
        plan_round, entries, selected = self._plan_round, list(self.table_model.entries), self.selected_entry()
        preset, overrides = self.knobs_box.preset(), self.overrides()
        device, sampler = self._planner_device, self.ctx.sampler
        if selected is None:
            self.plan_view.show_no_selection()
        if preset is None:
            if selected is not None:
                self.plan_view.show_cannot_plan(self._preset_error or self.tr("Choose a preset"))
            self.table_model.set_fits({})
            return

        def work() -> Planned:
            card = device if device is not None else planner_device(sampler)
            # what other programs hold on this machine's card, read here (NVML can block)
            return plan_models(entries, preset, overrides, card, selected, local_in_use(card))

        def done(result: Planned) -> None:
            self._planner_device = result[0]
            if plan_round == self._plan_round:  # a later round supersedes this one
                self._show_planned(result)

        def failed(msg: str) -> None:
            if plan_round == self._plan_round:
                self.plan_view.show_planner_failed(msg)

        call_in_background(work, on_success=done, on_failure=failed, context=self)

    def _show_planned(self, result: Planned) -> None:
        _device, fits, chosen = result
        self.table_model.set_fits(fits)
        if isinstance(chosen, str):
            self.plan_view.show_cannot_plan(chosen)
        elif chosen is not None:
            self.plan_view.show_plan(*chosen)

    # -- slots -----------------------------------------------------------------------------------
    def _on_table_selection_changed(self, *_: Any) -> None:
        entry = self.selected_entry()
        self.knobs_box.set_context_limit(entry.max_context if entry is not None else None)
        self._update_buttons()
        self._plan_timer.start()
        self._publish_selection()

    def _publish_selection(self) -> None:
        """The selection to the application state (what the other views follow), its configuration
        first: a view that follows the selection reads the configuration that goes with it."""
        self._publish_config()
        self.ctx.state.select(self.selected_name(), self.preset_name())

    def _publish_config(self) -> None:
        """The configuration Load would use now to the application state (or why there is none):
        what the Server and Export tabs start and show."""
        try:
            self.ctx.state.set_config(self.engine_config())
        except Exception as exc:  # no model, a broken preset, a refused knob: said where it is used
            self.ctx.state.set_config(None, exc)

    def _on_table_double_clicked(self, _index: QModelIndex) -> None:
        self.load_selected()

    def _on_table_context_menu(self, pos: Any) -> None:
        if self.selected_entry() is None:
            return
        menu = QMenu(self)
        menu.addAction(self.tr("Load"), self.load_selected)
        menu.addAction(self.tr("Details"), self.show_details)
        menu.addAction(self.tr("Remove"), lambda: self.remove_selected())
        menu.popup(self.table.viewport().mapToGlobal(pos))

    def _on_knobs_box_preset_changed(self) -> None:
        self._knobs_edited = True
        self._plan_timer.start()
        self._publish_selection()

    def _on_knobs_box_knobs_changed(self) -> None:
        self._knobs_edited = True
        self._plan_timer.start()
        self._publish_config()

    def _on_plan_timer_timeout(self) -> None:
        self.update_plan()

    def _on_bridge_status_changed(self, status: EngineStatus) -> None:
        self._update_buttons()

    def _on_bridge_load_finished(self, outcome: object) -> None:
        if isinstance(outcome, str):
            self.show_error(self.tr("Load failed: {0}").format(translate_core_text(outcome)))

    def _update_buttons(self) -> None:
        state = self.ctx.engine.status.state
        has = self.selected_entry() is not None
        busy = state in (EngineState.LOADING, EngineState.STOPPING)
        self.load_button.setEnabled(has and not busy)
        self.reload_button.setEnabled(has and not busy and state == EngineState.READY)
        self.unload_button.setEnabled(state in (EngineState.READY, EngineState.FAILED))
        self.remove_button.setEnabled(has and not busy)
        self.details_button.setEnabled(has)
