"""About: the versions a bug report needs first, and "Copy diagnostics" to paste them."""

from __future__ import annotations

import platform

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from console import privacy
from console.engine.interface import Engine
from console.paths import data_home
from console.versions import version_report


def diagnostics_text(engine: Engine | None = None) -> str:
    """Plain text: versions, platform, data folder, engine state and the loaded model's figures."""
    lines = [f"{k}: {v}" for k, v in version_report().items()]
    lines.append(f"platform: {platform.platform()}")
    lines.append(f"data folder: {data_home()}")
    if engine is not None:
        st = engine.status
        lines.append(f"engine state: {st.state.value}" + (f" ({st.model})" if st.model else ""))
        if st.error:
            lines.append(f"engine error: {st.error}")
        if st.info is not None:
            lines.append(
                f"device: {st.info.device}, max_model_len {st.info.max_model_len}, "
                f"KV cache {st.info.kv_cache_tokens} tokens, vLLM {st.info.vllm_version}"
            )
    return "\n".join(lines)


class AboutDialog(QDialog):
    def __init__(self, engine: Engine | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("About Inference Console"))
        self._engine = engine
        self.text = diagnostics_text(engine)
        layout = QVBoxLayout(self)
        layout.addWidget(
            QLabel(self.tr("Inference Console: tuned LLM inference on your own GPU or CPU, with vLLM."), self)
        )
        self.view = QTextBrowser(self)
        self.view.setPlainText(self.text)
        layout.addWidget(self.view)
        # The one privacy switch (console.privacy): off unless the user ticks it.
        self.usage_stats_box = QCheckBox(
            self.tr("Share usage statistics with vLLM and Hugging Face (applies to engines started from now on)"), self
        )
        self.usage_stats_box.setChecked(privacy.usage_stats_allowed())
        self.usage_stats_box.toggled.connect(self._on_usage_stats_box_toggled)
        layout.addWidget(self.usage_stats_box)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.copy_button = QPushButton(self.tr("Copy diagnostics"), self)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self._on_copy_clicked)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(560, 360)

    def _on_usage_stats_box_toggled(self, checked: bool) -> None:
        privacy.save_choice(checked)
        self.text = diagnostics_text(self._engine)
        self.view.setPlainText(self.text)

    def _on_copy_clicked(self) -> None:
        QGuiApplication.clipboard().setText(self.text)
        self.copy_button.setText(self.tr("Copied"))
