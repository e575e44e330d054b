"""The Models panel (the window's sidebar): the store's table, imports, the preset and its knobs,
the planner's verdict, and Load / Unload / Reload.

The planner (``console.planner``) is imported lazily: when it is missing or fails, the panel says
"planner not available" and everything else works. Imports and removals run in worker threads
(:mod:`console.ui.tasks`); loads go through the bridge, so nothing here waits on the engine.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFileDialog, QFormLayout,
    QGroupBox, QHBoxLayout, QHeaderView, QInputDialog, QLabel, QMessageBox, QPushButton, QSpinBox,
    QTableView, QTextBrowser, QVBoxLayout, QWidget,
)

from console.config import EngineConfig
from console.engine.types import EngineState, EngineStatus
from console.models.store import ModelEntry
from console.presets import Preset, PresetError, load_presets
from console.settings import Knobs, Settings
from console.ui.context import AppContext
from console.ui.formatting import format_bytes, format_count, format_params
from console.ui.plan_provenance import details_markdown, source_of, status_line
from console.ui.tasks import call_in_background, run_with_progress
from console.ui.widgets import ErrorLabel

KV_DTYPES = ("auto", "fp8", "fp8_e4m3", "fp8_e5m2")
_Index = QModelIndex | QPersistentModelIndex


def human_bytes(n: float | None) -> str:
    """A size in the user's locale (``1.5 GiB`` / ``1,5 GiB``); "—" for none."""
    return format_bytes(n)


def human_params(n: int | None) -> str:
    return format_params(n)


# -- the planner, lazily -------------------------------------------------------------------------
def planner_device(sampler: Any) -> Any:
    """The planner's device for this machine: the NVML card's profile (or one built from its
    memory), else the CPU engine with this machine's RAM."""
    from console.planner import GpuProfile, get_gpu  # lazy: another module, maybe absent
    from console.planner.selfcal import gpu_key

    if getattr(sampler, "kind", "") == "nvml":
        name = str(getattr(sampler.source, "name", "GPU"))
        try:  # "NVIDIA H100 80GB HBM3" -> h100-80gb; an unknown card: named as its recorded loads are
            return get_gpu(gpu_key(name))
        except ValueError:
            total = sampler.source.sample().get("mem_total_bytes", 0.0)
            return GpuProfile(gpu_key(name), name, int(total), 1000.0, 100.0)
    import psutil

    return f"cpu:{psutil.virtual_memory().total / 1024**3:.0f}"


def plan_for(entry: ModelEntry, config: EngineConfig, device: Any) -> Any:
    """The planner's Plan for ``entry`` under ``config`` on ``device`` (see :func:`planner_device`);
    raises ImportError when there is no planner."""
    from console.planner import PlanRequest, plan, shape_for  # lazy: another module, maybe absent

    request = PlanRequest(
        shape=shape_for(entry.path), gpu=device, quantization=entry.quantization or config.quantization,
        kv_cache_dtype=config.kv_cache_dtype, max_model_len=config.max_model_len, concurrency=1,
        gpu_memory_utilization=config.gpu_memory_utilization or 0.9,
        enforce_eager=bool(config.enforce_eager), kv_cache_memory_bytes=config.kv_cache_memory_bytes,
        max_num_seqs=config.max_num_seqs, max_num_batched_tokens=config.max_num_batched_tokens)
    return plan(request)


def verdict_text(p: Any) -> str:
    """The plan's verdict in the user's language."""
    v = str(getattr(p, "verdict", "?"))
    words = {"fits": QCoreApplication.translate("ModelsPanel", "fits"),
             "fits-with-changes": QCoreApplication.translate("ModelsPanel", "fits with changes"),
             "does-not-fit": QCoreApplication.translate("ModelsPanel", "does not fit")}
    return words.get(v, v)


class ModelTableModel(QAbstractTableModel):
    """The store's models as rows; the "fits?" column holds the planner's verdict per model."""

    COLUMNS = ("name", "architecture", "params", "quantization", "size", "max_context", "fits")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entries: list[ModelEntry] = []
        self.fits: dict[str, str] = {}

    def headers(self) -> list[str]:
        return [self.tr("Name"), self.tr("Architecture"), self.tr("Params"), self.tr("Quantization"),
                self.tr("Size"), self.tr("Max context"), self.tr("Fits?")]

    def set_entries(self, entries: list[ModelEntry]) -> None:
        self.beginResetModel()
        self.entries = list(entries)
        self.endResetModel()

    def set_fits(self, fits: dict[str, str]) -> None:
        self.fits = fits
        if self.entries:
            col = self.COLUMNS.index("fits")
            self.dataChanged.emit(self.index(0, col), self.index(len(self.entries) - 1, col))

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.entries)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.headers()[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.entries):
            return None
        e = self.entries[index.row()]
        col = self.COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                "name": e.name, "architecture": e.architecture.removesuffix("ForCausalLM"),
                "params": human_params(e.params), "quantization": e.quantization or self.tr("none"),
                "size": human_bytes(e.size_bytes),
                "max_context": format_count(e.max_context) if e.max_context else "—",
                "fits": self.fits.get(e.name, "?"),
            }[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            if not e.available:
                return self.tr("The files of this model are gone: {0}").format(e.path)
            return e.path
        if role == Qt.ItemDataRole.ForegroundRole and not e.available:
            return Qt.GlobalColor.gray
        if role == Qt.ItemDataRole.TextAlignmentRole and col in ("params", "size", "max_context"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class ModelsPanel(QWidget):
    """Sidebar: pick a model and a preset, tune the knobs, see the plan, load.

    Signals:
        selectionChanged(str, str): the selected model name ("" for none) and preset name.
        message(str): a one-line outcome for the status bar (import done, load refused, ...).
    """

    selectionChanged = Signal(str, str)
    message = Signal(str)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.presets: dict[str, Preset] = {}
        self._preset_error = ""
        self._loaded: tuple[str, str] | None = None  # (model, preset) of the last load intent
        self._planner_device: Any = None

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
        self.table.doubleClicked.connect(self._on_table_double_clicked)

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
        self.quantize_button = QPushButton(self.tr("Quantize…"), self)
        self.quantize_button.clicked.connect(lambda: self.quantize_selected())

        self.preset_combo = QComboBox(self)
        self.preset_combo.currentIndexChanged.connect(self._on_preset_combo_changed)
        self.preset_description = QLabel(self)
        self.preset_description.setWordWrap(True)
        self.preset_description.setStyleSheet("color: #555;")

        # Knobs: the minimum of each means "the preset's value".
        self.context_spin = QSpinBox(self)
        self.context_spin.setRange(0, 10_000_000)
        self.context_spin.setSingleStep(1024)
        self.seqs_spin = QSpinBox(self)
        self.seqs_spin.setRange(0, 65_536)
        self.kv_dtype_combo = QComboBox(self)
        self.kv_dtype_combo.addItem(self.tr("from preset"), None)
        for d in KV_DTYPES:
            self.kv_dtype_combo.addItem(d, d)
        self.util_spin = QDoubleSpinBox(self)
        self.util_spin.setRange(0.0, 1.0)
        self.util_spin.setSingleStep(0.05)
        self.util_spin.setDecimals(2)
        self.kv_gib_spin = QDoubleSpinBox(self)
        self.kv_gib_spin.setRange(0.0, 4096.0)
        self.kv_gib_spin.setDecimals(2)
        self.kv_gib_spin.setSingleStep(0.5)
        self.kv_gib_spin.setSuffix(" GiB")
        for w in (self.context_spin, self.seqs_spin, self.util_spin, self.kv_gib_spin):
            w.setSpecialValueText(self.tr("from preset"))
            w.valueChanged.connect(self._on_knob_changed)
        self.kv_dtype_combo.currentIndexChanged.connect(self._on_knob_changed)

        self.verdict_label = QLabel(self)
        self.verdict_label.setWordWrap(True)
        self.verdict_label.setTextFormat(Qt.TextFormat.RichText)
        self.plan_label = QLabel(self)
        self.plan_label.setWordWrap(True)
        self.plan_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.load_button = QPushButton(self.tr("Load"), self)
        self.load_button.setToolTip(self.tr("Load the selected model with this preset (Ctrl+L)"))
        self.unload_button = QPushButton(self.tr("Unload"), self)
        self.reload_button = QPushButton(self.tr("Reload"), self)
        self.load_button.clicked.connect(self.load_selected)
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

    def _build_layout(self) -> None:
        root = QVBoxLayout(self)
        root.setContentsMargins(6, 6, 6, 6)
        root.addWidget(self.table, 3)
        row = QHBoxLayout()
        for b in (self.get_model_button, self.import_gguf_button, self.import_folder_button, self.remove_button,
                  self.details_button):
            row.addWidget(b)
        row.addWidget(self.quantize_button)
        root.addLayout(row)

        config_box = QGroupBox(self.tr("Preset and knobs"), self)
        form = QFormLayout(config_box)
        form.addRow(self.tr("Preset:"), self.preset_combo)
        form.addRow(self.preset_description)
        form.addRow(self.tr("Context length:"), self.context_spin)
        form.addRow(self.tr("Max sequences:"), self.seqs_spin)
        form.addRow(self.tr("KV cache dtype:"), self.kv_dtype_combo)
        form.addRow(self.tr("GPU memory utilisation:"), self.util_spin)
        form.addRow(self.tr("KV cache size (CPU):"), self.kv_gib_spin)
        root.addWidget(config_box)

        plan_box = QGroupBox(self.tr("Planner"), self)
        plan_layout = QVBoxLayout(plan_box)
        plan_layout.addWidget(self.verdict_label)
        plan_layout.addWidget(self.plan_label)
        root.addWidget(plan_box)

        buttons = QHBoxLayout()
        for b in (self.load_button, self.unload_button, self.reload_button):
            buttons.addWidget(b)
        root.addLayout(buttons)
        root.addWidget(self.error_label)

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
        if keep:
            self.select_model(keep)
        self._plan_timer.start()  # the plan and the "fits?" column follow, off this call

    def reload_presets(self) -> None:
        current = self.preset_name()
        try:
            self.presets = load_presets()
            self._preset_error = ""
        except PresetError as exc:
            self.presets = {}
            self._preset_error = str(exc)
            self.show_error(self._preset_error)
        self.preset_combo.blockSignals(True)
        self.preset_combo.clear()
        for name in sorted(self.presets):
            self.preset_combo.addItem(name, name)
        self.preset_combo.blockSignals(False)
        if current and current in self.presets:
            self.select_preset(current)
        else:
            from console.launch import default_preset_name

            self.select_preset(default_preset_name())
        self._on_preset_combo_changed()

    def selected_entry(self) -> ModelEntry | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        return self.table_model.entries[rows[0].row()]

    def selected_name(self) -> str | None:
        e = self.selected_entry()
        return e.name if e else None

    def preset_name(self) -> str | None:
        data = self.preset_combo.currentData()
        return str(data) if data else None

    def select_model(self, name: str) -> bool:
        for row, e in enumerate(self.table_model.entries):
            if e.name == name:
                self.table.selectRow(row)
                return True
        return False

    def select_preset(self, name: str) -> bool:
        i = self.preset_combo.findData(name)
        if i >= 0:
            self.preset_combo.setCurrentIndex(i)
        return i >= 0

    def knobs(self) -> Knobs:
        return Knobs(
            max_model_len=self.context_spin.value() or None,
            max_num_seqs=self.seqs_spin.value() or None,
            kv_cache_dtype=self.kv_dtype_combo.currentData(),
            gpu_memory_utilization=self.util_spin.value() or None,
            kv_cache_gib=self.kv_gib_spin.value() or None,
        )

    def set_knobs(self, k: Knobs) -> None:
        self.context_spin.setValue(k.max_model_len or 0)
        self.seqs_spin.setValue(k.max_num_seqs or 0)
        i = self.kv_dtype_combo.findData(k.kv_cache_dtype) if k.kv_cache_dtype else 0
        self.kv_dtype_combo.setCurrentIndex(max(0, i))
        self.util_spin.setValue(k.gpu_memory_utilization or 0.0)
        self.kv_gib_spin.setValue(k.kv_cache_gib or 0.0)

    def overrides(self) -> dict[str, Any]:
        k = self.knobs()
        out: dict[str, Any] = {"max_model_len": k.max_model_len, "max_num_seqs": k.max_num_seqs,
                               "kv_cache_dtype": k.kv_cache_dtype,
                               "gpu_memory_utilization": k.gpu_memory_utilization}
        if k.kv_cache_gib:
            out["kv_cache_memory_bytes"] = int(k.kv_cache_gib * 1024**3)
        return {key: v for key, v in out.items() if v is not None}

    def engine_config(self) -> EngineConfig:
        """The configuration Load would use now (raises with a user-facing message)."""
        from console.launch import engine_config_for

        name = self.selected_name()
        if name is None:
            raise ValueError(self.tr("Select a model in the table first"))
        if self._preset_error:
            raise PresetError(self._preset_error)
        return engine_config_for(self.ctx.store, name, self.preset_name(), **self.overrides())

    # -- settings --------------------------------------------------------------------------------
    def restore(self, s: Settings) -> None:
        if s.last_preset:
            self.select_preset(s.last_preset)
        self.set_knobs(s.knobs)
        if s.last_model:
            self.select_model(s.last_model)
        elif self.table_model.entries:
            self.table.selectRow(0)

    def save(self, s: Settings) -> None:
        s.last_model = self.selected_name()
        s.last_preset = self.preset_name()
        s.knobs = self.knobs()

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
        state = self.ctx.host.status.state
        if state in (EngineState.LOADING, EngineState.STOPPING):
            self.show_error(self.tr("The engine is busy ({0}); wait for it to finish").format(state.value))
            return False
        self._loaded = (name, self.preset_name() or "")
        self.ctx.bridge.load(config, name)
        self._update_buttons()  # the host is LOADING already; don't wait for the bridge's tick
        self.message.emit(self.tr("Loading {0}…").format(name))
        return True

    def unload(self) -> None:
        self.clear_error()
        self.ctx.bridge.unload()
        self._update_buttons()

    def reload(self) -> bool:
        """Load again with the current choices (a new model or new knobs replace the old engine)."""
        return self.load_selected()

    def import_gguf(self, path: str | None = None, name: str | None = None) -> Any:
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, self.tr("Import a GGUF file"), "",
                                                  self.tr("GGUF files (*.gguf);;All files (*)"))
            if not path:
                return None
        if name is None:
            name = self._ask_name(Path(path).stem)
            if not name:
                return None
        from console.models.importers import import_gguf

        return self._run_import(self.tr("Importing {0}").format(Path(path).name),
                                lambda state: import_gguf(self.ctx.store, Path(path), name, state))

    def import_folder(self, path: str | None = None, name: str | None = None, copy: bool | None = None) -> Any:
        if path is None:
            path = QFileDialog.getExistingDirectory(self, self.tr("Import a Hugging Face model folder"))
            if not path:
                return None
        if copy is None:
            box = QMessageBox(QMessageBox.Icon.Question, self.tr("Import folder"),
                              self.tr("Copy the model into the store, or use it where it is?"),
                              QMessageBox.StandardButton.Cancel, self)
            copy_btn = box.addButton(self.tr("Copy into store"), QMessageBox.ButtonRole.AcceptRole)
            box.addButton(self.tr("Use in place"), QMessageBox.ButtonRole.AcceptRole)
            box.exec()
            if box.clickedButton() is box.button(QMessageBox.StandardButton.Cancel):
                return None
            copy = box.clickedButton() is copy_btn
        if name is None:
            name = self._ask_name(Path(path).name)
            if not name:
                return None
        from console.models.importers import import_hf_folder

        return self._run_import(self.tr("Importing {0}").format(Path(path).name),
                                lambda state: import_hf_folder(self.ctx.store, Path(path), name, state, copy=bool(copy)))

    def open_get_model(self) -> Any:
        """The "Get a model…" dialog (non-modal, one per panel, so a running download stays in
        view when reopened); a finished download appears selected here."""
        from console.ui.get_model_dialog import GetModelDialog

        dialog = getattr(self, "_get_model_dialog", None)
        if dialog is None:
            dialog = self._get_model_dialog = GetModelDialog(self.ctx.store, self._device(), self)
            dialog.downloaded.connect(lambda name: (self.refresh(select=name), self.message.emit(
                self.tr("Downloaded {0}").format(name))))
        dialog.show()
        dialog.raise_()
        return dialog

    def _ask_name(self, suggestion: str) -> str | None:
        clean = re.sub(r"[^A-Za-z0-9._-]+", "-", suggestion).strip("-._")[:64] or "model"
        name, ok = QInputDialog.getText(self, self.tr("Model name"), self.tr("Name in the store:"), text=clean)
        return name.strip() if ok and name.strip() else None

    def _run_import(self, title: str, fn: Any) -> Any:
        self.clear_error()

        def done(entry: ModelEntry) -> None:
            self.refresh(select=entry.name)
            self.message.emit(self.tr("Imported {0}").format(entry.name))

        def failed(msg: str) -> None:
            self.show_error(self.tr("Import failed: {0}").format(msg))

        def cancelled() -> None:
            self.message.emit(self.tr("Import cancelled; nothing was added"))

        return run_with_progress(self, title, fn, done, failed, cancelled)

    def quantize_selected(self) -> Any:
        """Open the Quantize dialog (console/ui/quantize_dialog.py) for the selected model."""
        entry = self.selected_entry()
        if entry is None:
            self.show_error(self.tr("Select a model to quantize"))
            return None
        from console.ui.quantize_dialog import QuantizeDialog

        dialog = QuantizeDialog(self.ctx, entry.name, self)
        dialog.modelAdded.connect(lambda name: self.refresh(select=name))
        dialog.show()
        return dialog

    def remove_selected(self, confirm: bool = True) -> Any:
        entry = self.selected_entry()
        if entry is None:
            return None
        status = self.ctx.host.status
        if status.model == entry.name and status.state in (EngineState.READY, EngineState.LOADING):
            self.show_error(self.tr("{0} is loaded; unload it before removing it").format(entry.name))
            return None
        if confirm:
            what = (self.tr("Its files in the store are deleted.") if entry.managed
                    else self.tr("Its folder ({0}) is left as it is.").format(entry.path))
            answer = QMessageBox.question(self, self.tr("Remove model"),
                                          self.tr("Remove {0} from the store?").format(entry.name) + " " + what)
            if answer != QMessageBox.StandardButton.Yes:
                return None
        name = entry.name
        return call_in_background(
            self.ctx.store.remove, name,
            on_success=lambda _e: (self.refresh(), self.message.emit(self.tr("Removed {0}").format(name))),
            on_failure=lambda msg: self.show_error(self.tr("Remove failed: {0}").format(msg)), context=self)

    def details_text(self) -> str:
        entry = self.selected_entry()
        if entry is None:
            return ""
        d = entry.to_dict()
        rows = "\n".join(f"| {k} | {json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v} |"
                         for k, v in d.items())
        planner = details_markdown(getattr(self, "_plan", None))
        return f"# {entry.name}\n\n| | |\n|---|---|\n{rows}\n" + (f"\n{planner}" if planner else "")

    def show_details(self) -> None:
        text = self.details_text()
        if not text:
            return
        dialog = QDialog(self)
        dialog.setWindowTitle(self.tr("Model details"))
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

    # -- messages --------------------------------------------------------------------------------
    def show_error(self, text: str) -> None:
        self.error_label.show_text(text)
        self.message.emit(text)

    def clear_error(self) -> None:
        self.error_label.clear_text()

    # -- planner ---------------------------------------------------------------------------------
    def _device(self) -> Any:
        if self._planner_device is None:
            self._planner_device = planner_device(self.ctx.sampler)
        return self._planner_device

    def _update_fits(self) -> None:
        from console.launch import engine_config_for

        fits: dict[str, str] = {}
        for e in self.table_model.entries:
            if not e.available:
                fits[e.name] = self.tr("files missing")
                continue
            try:  # the same configuration Load would use for this row
                config = engine_config_for(self.ctx.store, e.name, self.preset_name(), **self.overrides())
                fits[e.name] = verdict_text(plan_for(e, config, self._device()))
            except ImportError:
                fits[e.name] = "?"
            except Exception:
                fits[e.name] = self.tr("error")
        self.table_model.set_fits(fits)

    def update_plan(self) -> None:
        self._plan: Any = None
        entry = self.selected_entry()
        if entry is None:
            self.verdict_label.setText(self.tr("Select a model to see whether it fits."))
            self.plan_label.clear()
            return
        try:
            config = self.engine_config()
        except Exception as exc:
            self.verdict_label.setText(f"<b>{self.tr('Cannot plan')}</b>")
            self.plan_label.setText(str(exc))
            return
        try:
            p = plan_for(entry, config, self._device())
        except ImportError:
            self.verdict_label.setText(f"<i>{self.tr('planner not available')}</i>")
            self.plan_label.setText(self._config_summary(config))
            return
        except Exception as exc:
            self.verdict_label.setText(f"<b>{self.tr('The planner failed')}</b>")
            self.plan_label.setText(str(exc))
            return
        verdict = verdict_text(p)
        colour = {"fits": "#1b7f2a", "fits-with-changes": "#b26a00"}.get(str(p.verdict), "#b00020")
        self.verdict_label.setText(f"<b style='color:{colour}'>{verdict}</b>")
        self._plan = p  # its provenance goes into Details
        self.plan_label.setText(self._plan_summary(p) + "\n" + self._config_summary(config))

    def _plan_summary(self, p: Any) -> str:
        lines = []
        weights = getattr(p, "weights_bytes", None)
        if weights is not None:
            lines.append(self.tr("Weights: {0}").format(human_bytes(weights)) + f" ({source_of(p, 'weights')})")
        kv = getattr(p, "kv_tokens", None)
        if kv is not None:
            lines.append(self.tr("KV cache: {0:,} tokens").format(int(kv)) + f" ({source_of(p, 'kv_tokens')})")
        if status_line(p):
            lines.append(str(status_line(p)))
        conc = getattr(p, "max_concurrency", None)
        if conc is not None:
            lines.append(self.tr("Max concurrency at full context: {0:.1f}×").format(conc))
        for problem in list(getattr(p, "problems", []) or [])[:2]:
            lines.append("⚠ " + str(problem))
        for s in list(getattr(p, "suggestions", []) or [])[:3]:
            lines.append("→ " + str(getattr(s, "summary", s)))
        for note in list(getattr(p, "notes", []) or [])[:2]:
            lines.append("ℹ " + str(note))
        return "\n".join(lines)

    def _config_summary(self, c: EngineConfig) -> str:
        parts = [self.tr("context {0}").format(c.max_model_len or self.tr("model default")),
                 self.tr("max seqs {0}").format(c.max_num_seqs or self.tr("default")),
                 self.tr("KV dtype {0}").format(c.kv_cache_dtype)]
        if c.gpu_memory_utilization:
            parts.append(self.tr("utilisation {0:.2f}").format(c.gpu_memory_utilization))
        if c.kv_cache_memory_bytes:
            parts.append(self.tr("KV cache {0}").format(human_bytes(c.kv_cache_memory_bytes)))
        return " · ".join(parts)

    # -- slots -----------------------------------------------------------------------------------
    def _on_table_selection_changed(self, *_: Any) -> None:
        self._update_buttons()
        self._plan_timer.start()
        self.selectionChanged.emit(self.selected_name() or "", self.preset_name() or "")

    def _on_table_double_clicked(self, _index: QModelIndex) -> None:
        self.show_details()

    def _on_preset_combo_changed(self, *_: Any) -> None:
        preset = self.presets.get(self.preset_name() or "")
        self.preset_description.setText(preset.description if preset else "")
        self.preset_description.setVisible(bool(preset and preset.description))
        if preset:  # the knobs show the preset's values as their "from preset" text
            e = preset.engine
            self.context_spin.setSpecialValueText(self.tr("from preset ({0})").format(e.get("max_model_len", self.tr("model"))))
            self.seqs_spin.setSpecialValueText(self.tr("from preset ({0})").format(e.get("max_num_seqs", self.tr("default"))))
            self.util_spin.setSpecialValueText(self.tr("from preset ({0})").format(e.get("gpu_memory_utilization", "—")))
            kv = e.get("kv_cache_memory_bytes")
            self.kv_gib_spin.setSpecialValueText(self.tr("from preset ({0})").format(human_bytes(kv) if kv else "—"))
            self.kv_dtype_combo.setItemText(0, self.tr("from preset ({0})").format(e.get("kv_cache_dtype", "auto")))
        self._on_knob_changed()
        self.selectionChanged.emit(self.selected_name() or "", self.preset_name() or "")

    def _on_knob_changed(self, *_: Any) -> None:
        self._plan_timer.start()

    def _on_plan_timer_timeout(self) -> None:
        self.update_plan()
        self._update_fits()

    def _on_bridge_status_changed(self, status: EngineStatus) -> None:
        self._update_buttons()

    def _on_bridge_load_finished(self, outcome: object) -> None:
        if isinstance(outcome, str):
            self.show_error(self.tr("Load failed: {0}").format(outcome))

    def _update_buttons(self) -> None:
        state = self.ctx.host.status.state
        has = self.selected_entry() is not None
        busy = state in (EngineState.LOADING, EngineState.STOPPING)
        self.load_button.setEnabled(has and not busy)
        self.reload_button.setEnabled(has and not busy and state == EngineState.READY)
        self.unload_button.setEnabled(state in (EngineState.READY, EngineState.FAILED))
        self.remove_button.setEnabled(has and not busy)
        self.details_button.setEnabled(has)
