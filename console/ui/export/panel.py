"""The Export tab: the current engine configuration as ``vllm serve`` YAML, a command line, a
Docker Compose file, Kubernetes manifests, a Ray layout or a whole bundle, in a read-only
editor with Save and Copy.

The texts come from :mod:`console.export` (Qt-free; the same code as ``inference-console
export``), imported lazily so the window opens fast and still opens if that package is missing.
The configuration is that of the model and preset chosen (the application state's, followed
as it changes and read again each time the tab comes into view, as the knobs feed it); with none
(valid) chosen, the loaded engine's (updated when the engine becomes ready).

Signals:
    saved(str): a file or folder was written (its path).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontDatabase, QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from console.app_state import Selection
from console.config import EngineConfig
from console.engine.types import EngineState, EngineStatus
from console.ui.context import AppContext
from console.ui.state_signals import follow_selection

FORMATS = ("yaml", "cmd", "compose", "k8s", "ray", "bundle", "trtllm")
_SUFFIX = {"yaml": ".yaml", "cmd": ".sh", "compose": ".yaml", "k8s": ".yaml", "ray": ".sh"}


def render_export(
    fmt: str, config: EngineConfig, host: str = "127.0.0.1", port: int = 8000, served_model_name: str | None = None
) -> dict[str, str]:
    """``{file name: text}`` for one format (several files for compose, ray, bundle and trtllm).
    Raises ExportError (a ValueError) for an impossible export."""
    # deferred: imports yaml
    from console.engine import serve_args

    # deferred: imports yaml
    from console.export import ServeOptions, bundle, compose, k8s, ray

    options = ServeOptions(host=host, port=port, served_model_name=served_model_name or None)
    options.validate()
    if fmt == "yaml":
        return {"serve.yaml": serve_args.serve_yaml(config, options)}
    if fmt == "cmd":
        return {"serve.sh": serve_args.serve_script(config, options)}
    if fmt == "compose":
        where = "docker-compose.yaml publishes it on the host"
        return {
            "docker-compose.yaml": compose.compose_yaml(config, options, config.model, "./container/serve.yaml"),
            "container/serve.yaml": compose.container_serve_yaml(config, options, where),
        }
    if fmt == "k8s":
        return {"k8s.yaml": k8s.k8s_yaml(config, options, config.model)}
    if fmt == "ray":
        return {
            "ray-cluster.sh": ray.ray_commands(config, options),
            "rayservice.yaml": ray.rayservice_yaml(config, options, config.model),
        }
    if fmt == "bundle":
        return bundle.bundle_files(config, options, model_dir=config.model)
    if fmt == "trtllm":
        # deferred: imports yaml
        from console.export.trtllm_readme import trtllm_files

        return trtllm_files(config, options)
    raise ValueError(f"unknown export format {fmt!r}")


class ExportPanel(QWidget):
    saved = Signal(str)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.config: EngineConfig | None = None
        self._pinned = False  # True while a config is chosen; engine loads then don't replace it
        self.files: dict[str, str] = {}
        self._build()
        if ctx.bridge is not None:
            ctx.bridge.statusChanged.connect(self._on_bridge_status_changed)
        follow_selection(ctx.state, self, self._on_state_selection_changed)
        self.show_selection()

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.format_combo = QComboBox(self)
        names = {
            "yaml": self.tr("vllm serve YAML"),
            "cmd": self.tr("Command line"),
            "compose": self.tr("Docker Compose"),
            "k8s": self.tr("Kubernetes"),
            "ray": self.tr("Ray (multi-node)"),
            "bundle": self.tr("Bundle (all of them + plan + README)"),
            "trtllm": self.tr("TensorRT-LLM (trtllm-serve)"),
        }
        for fmt in FORMATS:
            self.format_combo.addItem(names[fmt], fmt)
        self.format_combo.currentIndexChanged.connect(self._on_format_changed)
        self.host_edit = QLineEdit("127.0.0.1", self)
        self.host_edit.setToolTip(self.tr("Address the server listens on; anything but 127.0.0.1 exposes it"))
        self.host_edit.editingFinished.connect(self.refresh)
        self.port_spin = QSpinBox(self)
        self.port_spin.setRange(1, 65535)
        self.port_spin.setValue(8000)
        self.port_spin.valueChanged.connect(self._on_port_changed)
        self.name_edit = QLineEdit(self)
        self.name_edit.setPlaceholderText(self.tr("served model name (default: the model's)"))
        self.name_edit.editingFinished.connect(self.refresh)
        for label, w in (
            (self.tr("Format"), self.format_combo),
            (self.tr("Host"), self.host_edit),
            (self.tr("Port"), self.port_spin),
            (self.tr("Name"), self.name_edit),
        ):
            row.addWidget(QLabel(label, self))
            row.addWidget(w)
        layout.addLayout(row)
        row = QHBoxLayout()
        self.file_combo = QComboBox(self)
        self.file_combo.currentIndexChanged.connect(self._on_file_changed)
        row.addWidget(QLabel(self.tr("File"), self))
        row.addWidget(self.file_combo, 1)
        self.copy_button = QPushButton(self.tr("Copy"), self)
        self.copy_button.clicked.connect(self._on_copy_clicked)
        self.save_button = QPushButton(self.tr("Save…"), self)
        self.save_button.clicked.connect(self._on_save_clicked)
        row.addWidget(self.copy_button)
        row.addWidget(self.save_button)
        layout.addLayout(row)
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.editor = QPlainTextEdit(self)
        self.editor.setReadOnly(True)
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(self.editor, 1)

    # -- intents -------------------------------------------------------------------------------
    @property
    def fmt(self) -> str:
        return str(self.format_combo.currentData())

    def set_format(self, fmt: str) -> None:
        self.format_combo.setCurrentIndex(FORMATS.index(fmt))

    def set_config(self, config: EngineConfig | None) -> None:
        """Export this configuration (None: the loaded engine's, and the next one's as it loads)."""
        self.config = config if config is not None else self._loaded_config()
        self._pinned = config is not None
        self.refresh()

    def _loaded_config(self) -> EngineConfig | None:
        engine = self.ctx.engine
        if engine is not None and engine.status.state == EngineState.READY and engine.config is not None:
            return engine.config
        return None

    def show_selection(self) -> None:
        """Export the configuration of the model and preset chosen, as Load would use it now."""
        try:
            config: EngineConfig | None = self.ctx.state.engine_config()
        except Exception:
            config = None  # nothing (valid) chosen: the panel follows the loaded engine
        self.set_config(config)

    def refresh(self) -> None:
        self.files = {}
        if self.config is None:
            self._show_placeholder(
                self.tr("Load a model (or choose a model and preset) to export its server configuration.")
            )
            return
        try:
            self.files = render_export(
                self.fmt,
                self.config,
                self.host_edit.text().strip(),
                self.port_spin.value(),
                self.name_edit.text().strip() or None,
            )
        except ValueError as exc:  # ExportError is a ValueError: an export that cannot be made
            self._show_placeholder(self.tr("Cannot export: {e}").format(e=exc))
            return
        self.file_combo.blockSignals(True)
        self.file_combo.clear()
        self.file_combo.addItems(list(self.files))
        self.file_combo.blockSignals(False)
        self.file_combo.setEnabled(len(self.files) > 1)
        self._on_file_changed(0)
        self.copy_button.setEnabled(True)
        self.save_button.setEnabled(True)
        host = self.host_edit.text().strip()
        exposed = host not in ("127.0.0.1", "localhost", "::1")
        text = self.tr("{n} file(s) for {model}.").format(n=len(self.files), model=Path(self.config.model).name)
        if exposed:
            text += " " + self.tr("Warning: the server will be reachable from other machines on {h}.").format(h=host)
        self.message.setText(text)

    def _show_placeholder(self, text: str) -> None:
        self.file_combo.clear()
        self.file_combo.setEnabled(False)
        self.editor.setPlainText("")
        self.editor.setPlaceholderText(text)
        self.message.setText(text)
        self.copy_button.setEnabled(False)
        self.save_button.setEnabled(False)

    def current_text(self) -> str:
        return self.editor.toPlainText()

    def save_to(self, path: Path | str) -> Path:
        """One file: write the shown text to ``path``. Several: write them all under the folder
        ``path`` (which must not exist yet). Returns what was written."""
        path = Path(path)
        if len(self.files) == 1:
            tmp = path.with_name(path.name + ".part")
            tmp.write_text(self.current_text(), encoding="utf-8")
            tmp.replace(path)
            if self.fmt == "cmd":
                path.chmod(0o755)
        else:
            # deferred: imports yaml
            from console.export.bundle import write_bundle

            write_bundle(path, self.files)
        self.message.setText(self.tr("Saved to {p}").format(p=path))
        self.saved.emit(str(path))
        return path

    # -- slots ---------------------------------------------------------------------------------
    def _on_format_changed(self, _index: int) -> None:
        self.refresh()

    def _on_port_changed(self, _value: int) -> None:
        self.refresh()

    def _on_file_changed(self, index: int) -> None:
        names = list(self.files)
        if 0 <= index < len(names):
            self.editor.setPlainText(self.files[names[index]])

    def _on_copy_clicked(self) -> None:
        QGuiApplication.clipboard().setText(self.current_text())
        self.message.setText(self.tr("Copied to the clipboard."))

    def _on_save_clicked(self) -> None:
        model = Path(self.config.model).name if self.config else "model"
        if len(self.files) == 1:
            name = next(iter(self.files))
            path, _ = QFileDialog.getSaveFileName(self, self.tr("Save export"), name)
        else:
            path, _ = QFileDialog.getSaveFileName(self, self.tr("Save as a new folder"), f"{model}-{self.fmt}")
        if not path:
            return
        try:
            self.save_to(path)
        except (OSError, ValueError) as exc:
            self.message.setText(self.tr("Save failed: {e}").format(e=exc))

    def showEvent(self, event: QShowEvent) -> None:
        if not event.spontaneous():  # the tab comes into view (not the window restored)
            self.show_selection()  # knob edits since the selection changed
        super().showEvent(event)

    def _on_state_selection_changed(self, _chosen: Selection) -> None:
        self.show_selection()

    def _on_bridge_status_changed(self, status: EngineStatus) -> None:
        engine: Any = self.ctx.engine
        if status.state == EngineState.READY and not self._pinned and engine is not None and engine.config is not None:
            self.config = engine.config
            self.refresh()
