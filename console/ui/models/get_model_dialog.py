"""The "Get a model…" dialog: a repository from Hugging Face (or its mirror) or ModelScope into
the store, through the same core as ``inference-console models pull``.

At the top, the model picker (:mod:`console.ui.models.get_model_picker`): the curated list and search, with
fit badges; choosing a row fills the repository box and runs Check. For a GGUF the summary says
what the import makes of it (its size as 16-bit weights) and offers the curated AWQ or FP8
checkpoint of the same model instead (``Preview.gguf_advice``).

Two steps, both off the GUI thread (:class:`console.ui.tasks.BackgroundCall`): **Check** lists
the repository's files and reads its ``config.json`` (``console.models.download.preview``), so
the total size and the planner's verdict for this machine's GPU are on screen before anything big
moves; **Download** runs ``pull`` with progress, speed, ETA and Cancel. The model reaches the
store only when complete (the core's staging); an interrupted download resumes on the next try.
"""

from __future__ import annotations

import time
from pathlib import PurePosixPath
from typing import Any, cast

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from console.models.store import ModelEntry, ModelStore
from console.ui.formatting import format_bytes, format_count, format_duration, format_params, format_rate
from console.ui.models.get_model_picker import ModelPicker
from console.ui.tasks import BackgroundCall
from console.ui.widgets import ErrorLabel

EXAMPLE_REPO = "HuggingFaceTB/SmolLM2-135M-Instruct"  # a repository id: the same in every language
SOURCE_IDS = ("hf", "modelscope")  # console.models.download.SOURCES, without importing it here


def _check(
    repo: str,
    source: str,
    revision: str | None,
    include: list[str] | None,
    variant: str | None,
    gpu: Any,
    listing: Any = None,
) -> tuple[Any, Any, list[str]]:
    """Worker side of Check: (listing, preview, GGUF files to choose from)."""
    # deferred: imports httpx
    from console.models.download import list_files, preview

    listing = listing or list_files(repo, source=source, revision=revision)
    ggufs = sorted(f.path for f in listing.files if f.path.lower().endswith(".gguf"))
    if include is None and variant is None and len(ggufs) > 1:
        has_safetensors = any(f.path.endswith(".safetensors") and "/" not in f.path for f in listing.files)
        if not has_safetensors:
            variant = ggufs[0]  # a choice is needed: start with the first, the user may change it
    chosen = variant in ggufs  # a whole file name from the GGUF list, not a variant tag
    pv = preview(
        repo,
        source=source,
        include=[variant] if chosen and variant is not None else include,  # chosen: a name from the list
        variant=None if chosen else variant,
        gpu=gpu,
        listing=listing,
    )
    return listing, pv, ggufs


class GetModelDialog(QDialog):
    """Check a repository, then download it into ``store``.

    Signals:
        downloaded(str): the store name of a model that finished downloading.
    """

    downloaded = Signal(str)

    def __init__(self, store: ModelStore, gpu: Any = "rtx-4090", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Get a model"))
        self.setMinimumWidth(720)
        self.resize(980, 640)  # the picker's columns at a glance; fits a 1366 x 768 laptop
        self.store = store
        self.gpu = gpu
        self.picker = ModelPicker(gpu, self)
        self.listing: Any = None
        self.preview: Any = None
        self._call: BackgroundCall | None = None
        self._started = 0.0

        self.repo_edit = QLineEdit(self)
        self.repo_edit.setPlaceholderText(EXAMPLE_REPO)
        self.source_combo = QComboBox(self)
        for label, source in (
            (self.tr("Hugging Face (or HF_ENDPOINT mirror)"), SOURCE_IDS[0]),
            (self.tr("ModelScope"), SOURCE_IDS[1]),
        ):
            self.source_combo.addItem(label, source)
        self.revision_edit = QLineEdit(self)
        self.revision_edit.setPlaceholderText(self.tr("main branch"))
        self.include_edit = QLineEdit(self)
        self.include_edit.setPlaceholderText(self.tr("e.g. *Q4_K_M.gguf (comma-separated globs; optional)"))
        self.variant_combo = QComboBox(self)
        self.variant_combo.setEnabled(False)
        self.name_edit = QLineEdit(self)
        self.summary_label = QLabel(self)
        self.summary_label.setWordWrap(True)
        self.progress_bar = QProgressBar(self)
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.hide()
        self.status_label = QLabel(self)
        self.status_label.setWordWrap(True)
        self.error_label = ErrorLabel(self)
        self.instead_button = QPushButton(self)
        self.instead_button.hide()
        self._instead: str | None = None

        self.check_button = QPushButton(self.tr("Check"), self)
        self.download_button = QPushButton(self.tr("Download"), self)
        self.cancel_button = QPushButton(self.tr("Cancel download"), self)
        self.close_button = QPushButton(self.tr("Close"), self)
        self.download_button.setEnabled(False)
        self.cancel_button.setEnabled(False)

        form = QFormLayout()
        form.addRow(self.tr("Repository:"), self.repo_edit)
        form.addRow(self.tr("Source:"), self.source_combo)
        form.addRow(self.tr("Revision:"), self.revision_edit)
        form.addRow(self.tr("Include:"), self.include_edit)
        form.addRow(self.tr("GGUF file:"), self.variant_combo)
        form.addRow(self.tr("Name in the store:"), self.name_edit)
        buttons = QHBoxLayout()
        for b in (self.check_button, self.download_button, self.cancel_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.close_button)
        root = QVBoxLayout(self)
        root.addWidget(self.picker, 1)
        root.addLayout(form)
        root.addWidget(self.summary_label)
        root.addWidget(self.instead_button, 0, Qt.AlignmentFlag.AlignLeft)
        root.addWidget(self.progress_bar)
        root.addWidget(self.status_label)
        root.addWidget(self.error_label)
        root.addLayout(buttons)

        self.check_button.clicked.connect(self.check)
        self.download_button.clicked.connect(self.download)
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button.clicked.connect(self.reject)
        self.repo_edit.textEdited.connect(self._on_inputs_edited)
        self.revision_edit.textEdited.connect(self._on_inputs_edited)
        self.include_edit.textEdited.connect(self._on_inputs_edited)
        self.source_combo.currentIndexChanged.connect(self._on_inputs_edited)
        self.variant_combo.activated.connect(self._on_variant_combo_activated)
        self.picker.chosen.connect(self.choose)
        self.instead_button.clicked.connect(lambda: self._instead and self.choose(self._instead, "hf"))

    # -- inputs ----------------------------------------------------------------------------------
    def _inputs(self) -> tuple[str, str, str | None, list[str] | None]:
        include = [p.strip() for p in self.include_edit.text().split(",") if p.strip()] or None
        return (
            self.repo_edit.text().strip(),
            str(self.source_combo.currentData()),
            self.revision_edit.text().strip() or None,
            include,
        )

    @property
    def busy(self) -> bool:
        return self._call is not None

    def _set_busy(self, call: BackgroundCall | None, downloading: bool = False) -> None:
        self._call = call
        for w in (
            self.check_button,
            self.repo_edit,
            self.source_combo,
            self.revision_edit,
            self.include_edit,
            self.name_edit,
        ):
            w.setEnabled(call is None)
        self.variant_combo.setEnabled(call is None and self.variant_combo.count() > 1)
        self.download_button.setEnabled(call is None and self.preview is not None)
        self.cancel_button.setEnabled(downloading)
        self.close_button.setEnabled(not downloading)

    def choose(self, repo: str, source: str) -> None:
        """Check ``repo`` on ``source``: a row chosen in the picker, or the checkpoint offered
        instead of a GGUF. Ignored while a download runs."""
        if self.busy:
            return
        self.repo_edit.setText(repo)
        self.source_combo.setCurrentIndex(max(self.source_combo.findData(source), 0))
        for edit in (self.revision_edit, self.include_edit, self.name_edit):
            edit.clear()
        self._on_inputs_edited()
        self.check()

    # -- check -----------------------------------------------------------------------------------
    def check(self, variant: str | None = None) -> None:
        repo, source, revision, include = self._inputs()
        if not repo:
            self.error_label.show_text(self.tr("Enter a repository id, e.g. Qwen/Qwen2.5-0.5B-Instruct"))
            return
        self.error_label.clear_text()
        self.preview = None
        self.summary_label.setText(self.tr("Reading the file list and config.json of {0}…").format(repo))
        listing = self.listing if variant else None
        call = BackgroundCall(_check, repo, source, revision, include, variant or None, self.gpu, listing)
        call.succeeded.connect(self._on_check_succeeded)
        call.failed.connect(self._on_call_failed)
        call.finished.connect(self._on_call_finished)
        self._set_busy(call)
        call.start()

    def _on_check_succeeded(self, result: object) -> None:
        listing, pv, ggufs = cast("tuple[Any, Any, list[str]]", result)  # what _check returns
        self.listing, self.preview = listing, pv
        self.variant_combo.clear()
        for g in ggufs:
            self.variant_combo.addItem(PurePosixPath(g).name, g)
        if pv.gguf:
            self.variant_combo.setCurrentIndex(max(self.variant_combo.findData(pv.gguf), 0))
        if not self.name_edit.text().strip():
            # deferred: imports httpx
            from console.models.download import default_pull_name

            self.name_edit.setText(default_pull_name(pv.repo))
        self.summary_label.setText(self._summary(pv))

    def _summary(self, pv: Any) -> str:
        words = {
            "fits": self.tr("fits"),
            "fits-with-changes": self.tr("fits with changes"),
            "does-not-fit": self.tr("does not fit"),
            "unknown": self.tr("unknown"),
        }
        text = self.tr("{0} files, {1} to download (revision {2}).").format(
            format_count(len(pv.files)), format_bytes(pv.total_bytes), pv.commit[:12]
        )
        advice = pv.gguf_advice
        if pv.gguf and advice is not None and advice.converted_bytes:
            text += " " + self.tr(
                "{0} is a {1} GGUF of a {2}-parameter model: vLLM needs it converted to 16-bit weights, "
                "which makes it about {3} on disk and in memory."
            ).format(
                PurePosixPath(pv.gguf).name,
                format_bytes(advice.file_bytes),
                format_params(advice.params),
                format_bytes(advice.converted_bytes),
            )
        elif pv.gguf:
            text += " " + self.tr("{0} is converted to 16-bit safetensors after the download.").format(
                PurePosixPath(pv.gguf).name
            )
        text += "\n" + self.tr("Planner: {0} — {1}").format(words.get(pv.verdict, pv.verdict), pv.verdict_detail)
        self._offer_instead(advice.alternatives[0] if pv.gguf and advice and advice.alternatives else None)
        return text

    def _offer_instead(self, alternative: Any) -> None:
        """The curated AWQ/FP8 checkpoint of the same model, one click away, for a GGUF."""
        self._instead = alternative.repo if alternative is not None else None
        self.instead_button.setVisible(alternative is not None)
        if alternative is not None:
            self.instead_button.setText(
                self.tr("Get {0} instead ({1}, {2}, runs in vLLM as it is)").format(
                    alternative.repo, alternative.quantization.upper(), format_bytes(alternative.disk_bytes)
                )
            )

    def _on_variant_combo_activated(self, _index: int) -> None:
        if self.listing is not None and not self.busy:
            self.check(variant=str(self.variant_combo.currentData()))

    def _on_inputs_edited(self, *_: Any) -> None:
        self._offer_instead(None)
        self.listing = self.preview = None
        self.variant_combo.clear()
        self.download_button.setEnabled(False)
        self.summary_label.clear()

    # -- download --------------------------------------------------------------------------------
    def download(self) -> None:
        # deferred: imports httpx
        from console.models.download import pull

        pv = self.preview
        if pv is None or self.busy:
            return
        name = self.name_edit.text().strip()
        _repo, source, _revision, include = self._inputs()
        include = [pv.gguf] if pv.gguf else include
        self.error_label.clear_text()
        self.progress_bar.setValue(0)
        self.progress_bar.show()
        self.status_label.setText(self.tr("Starting…"))
        self._started = time.monotonic()
        call = BackgroundCall(
            lambda: pull(
                self.store, pv.repo, name, source=source, include=include, task=call.state, listing=self.listing
            )
        )
        call.progressed.connect(self._on_download_progressed)
        call.succeeded.connect(self._on_download_succeeded)
        call.failed.connect(self._on_call_failed)
        call.cancelled.connect(self._on_download_cancelled)
        call.finished.connect(self._on_call_finished)
        self._set_busy(call, downloading=True)
        call.start()

    def cancel(self) -> None:
        if self._call is not None:
            self._call.state.cancel()
            self.status_label.setText(self.tr("Cancelling…"))

    def _on_download_progressed(self, p: Any) -> None:
        total = self.preview.total_bytes if self.preview is not None else 0
        if p.fraction is None:
            self.progress_bar.setRange(0, 0)
            self.status_label.setText(p.stage)
            return
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(int(1000 * p.fraction))
        if p.stage.startswith("downloading") and total:
            done = p.fraction * total
            elapsed = max(time.monotonic() - self._started, 1e-3)
            speed = done / elapsed
            eta = (total - done) / speed if speed > 0 else None
            self.status_label.setText(
                self.tr("{0} of {1} · {2} · {3} left").format(
                    format_bytes(done), format_bytes(total), format_rate(speed), format_duration(eta)
                )
            )
        elif p.stage == "registering":
            self.status_label.setText(self.tr("Adding to the store…"))

    def _on_download_succeeded(self, entry: object) -> None:
        name = entry.name if isinstance(entry, ModelEntry) else ""
        self.progress_bar.setValue(1000)
        self.status_label.setText(self.tr("Downloaded: '{0}' is in the store.").format(name))
        self.downloaded.emit(name)

    def _on_download_cancelled(self) -> None:
        self.status_label.setText(
            self.tr("Download stopped. Nothing was added; Download again resumes where it stopped.")
        )

    def _on_call_failed(self, message: str) -> None:
        self.error_label.show_text(message)
        self.status_label.clear()
        if self.preview is None:
            self.summary_label.clear()

    def _on_call_finished(self) -> None:
        self._set_busy(None)

    def reject(self) -> None:
        if self._call is not None and self.cancel_button.isEnabled():
            return  # a download is running: Cancel it first
        super().reject()
