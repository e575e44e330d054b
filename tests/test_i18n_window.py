"""The whole window in zh_CN shows no English: every widget is walked (labels, buttons,
tab titles, group boxes, tooltips, window titles, combo items, table headers, menus, the
Monitor's plot titles, the docks) and every text a user reads must be Chinese, apart from a
short list of proper nouns, units and flags (ALLOWED, each with its reason) and the names of
the user's models and presets. No engine: the engine is never loaded (as tests/test_advisor_ui.py).

A new English string fails here with the widget and the text named: wrap it in self.tr() and
translate it (python -m console.ui.i18n, then console_zh_CN.ts), or, when it is a name that
stays English in Chinese software too, add it to ALLOWED with the reason.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any, Iterator

#: Words that stay as they are in the Chinese window, and why (names, acronyms and units that
#: Chinese technical software writes in Latin letters too).
ALLOWED: dict[str, str] = {
    # names
    "Inference": "the product's name (Inference Console 推理控制台)",
    "Console": "the product's name",
    "vLLM": "the engine's name",
    "vllm serve": "the command the export writes for",
    "NVIDIA": "a vendor",
    "NVML": "NVIDIA's library",
    "CUDA": "NVIDIA's toolkit",
    "RTX": "NVIDIA's cards",
    "Ada": "NVIDIA's architecture",
    "Hugging": "Hugging Face, a site",
    "Face": "Hugging Face",
    "HF": "Hugging Face",
    "ModelScope": "a site",
    "OpenAI": "the API the server speaks",
    "MCP": "the Model Context Protocol, as MCP clients name it",
    "mcpServers": "the key of an MCP configuration file",
    "Claude Desktop": "a product (its mcp.json format)",
    "LM Studio": "a product (its mcp.json format)",
    "Prometheus": "a monitoring system",
    "Docker Compose": "a product",
    "Kubernetes": "a product",
    "Ray": "a product (a Ray cluster)",
    "TensorRT": "NVIDIA's inference library (TensorRT-LLM, the export format's name)",
    "LLM": "in TensorRT-LLM, a product's name",
    "PEFT": "the adapter library",
    "EAGLE": "a speculative decoding method",
    "Marlin": "a GPU kernel",
    "GEMM": "a kernel layout (AWQ's GEMM)",
    "AutoAWQ": "a library (the AWQ job runs it)",
    "awq": "the quantization method's id, as the CLI and the gate's verdict write it",
    "README": "a file's name",
    "Top": "Top-k / Top-p, the sampling parameters",
    "roofline": "the English term, glossed after 屋顶线",
    "FILE": "a placeholder in a command to type",
    "auto": "a vLLM value ('auto')",
    "curl": "a program's name (the Server tab's example)",
    "Python": "a language (the Server tab's example)",
    "openai": "the Python package the Server tab's example uses",
    # acronyms and formats
    "GPU": "acronym",
    "CPU": "acronym",
    "KV": "KV cache",
    "LoRA": "acronym",
    "AWQ": "a quantization method",
    "FP8": "a number format",
    "GGUF": "a file format",
    "JSON": "a file format",
    "JSONL": "a file format",
    "CSV": "a file format",
    "YAML": "a file format",
    "ID": "acronym",
    "API": "acronym (API 密钥)",
    "URL": "acronym",
    "TTFT": "time to first token",
    "ITL": "inter-token latency",
    "TPOT": "time per output token (vLLM's figure name)",
    "RSS": "resident set size",
    "SM": "a GPU clock (streaming multiprocessor)",
    "token": "kept as is in Chinese LLM software, as the catalogue does",
    # units and keys
    "GiB": "unit",
    "MiB": "unit",
    "KiB": "unit",
    "GB": "unit",
    "ms": "unit",
    "MHz": "unit",
    "Ctrl": "a key",
    "Enter": "a key",
    "Esc": "a key",
    "Shift": "a key",
}
#: Not prose, taken out before looking for words (each with why):
_NOT_PROSE = [
    re.compile(r"<[^>]*>"),  # markup
    re.compile(r"\(&?[A-Za-z]\)|&"),  # menu mnemonics: 文件(&F), 关于(A)
    re.compile(r"%\w"),  # a progress bar's %p
    re.compile(r"inference-console [^（）()。；;\n]*"),  # a command line to type
    re.compile(r"\w*(?:Error|Exception)\w*: [^)）;；\n]*"),  # a library's own error, quoted for bug reports
    re.compile(r"\w+\(\)"),  # code: generate()
    re.compile(r'\{\s*".*\}', re.S),  # code: a JSON example (the tools box's definitions)
    re.compile(r"[\w.\-/:=]*[_\d./:=][\w.\-/:=]*"),  # identifiers: max_num_seqs, 4090-fp8-kv8, tok/s
    re.compile(r"(?<![A-Za-z])(?:--?[a-z][\w-]*|[a-z]+(?:-[a-z]+)+)"),  # flags; ids: n-gram, cpu-default
]
#: English prose: two letters or more (single letters are units, mnemonics, placeholders: s, W, M)
_WORD = re.compile(r"[A-Za-z]{2,}")


def english_words(text: str, names: set[str]) -> list[str]:
    """The English words of ``text`` (markup, identifiers, names and ALLOWED taken out)."""
    text = html.unescape(text)
    for name in sorted(names | {k for k in ALLOWED if " " in k}, key=len, reverse=True):
        text = text.replace(name, " ")
    for pattern in _NOT_PROSE:
        text = pattern.sub(" ", text)
    return [w for w in _WORD.findall(text) if w not in ALLOWED]


def texts(widget: Any) -> Iterator[tuple[str, str]]:
    """(what, text) for everything a user reads on ``widget``."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import (
        QAbstractButton,
        QAbstractItemView,
        QAbstractSpinBox,
        QComboBox,
        QDockWidget,
        QGroupBox,
        QLabel,
        QLineEdit,
        QPlainTextEdit,
        QProgressBar,
        QTableWidget,
        QTabWidget,
        QTextEdit,
    )

    yield "toolTip", widget.toolTip()
    yield "statusTip", widget.statusTip()
    yield "whatsThis", widget.whatsThis()
    if widget.isWindow() or isinstance(widget, QDockWidget):
        yield "windowTitle", widget.windowTitle()
    if isinstance(widget, QLabel):
        yield "text", widget.text()
    elif isinstance(widget, QAbstractButton):
        yield "text", widget.text()
    elif isinstance(widget, QGroupBox):
        yield "title", widget.title()
    elif isinstance(widget, QTabWidget):
        for i in range(widget.count()):
            yield f"tab {i}", widget.tabText(i)
            yield f"tab {i} toolTip", widget.tabToolTip(i)
    elif isinstance(widget, QComboBox):
        for i in range(widget.count()):
            yield f"item {i}", widget.itemText(i)
            yield f"item {i} toolTip", str(widget.itemData(i, Qt.ItemDataRole.ToolTipRole) or "")
    elif isinstance(widget, (QLineEdit, QPlainTextEdit, QTextEdit)):
        yield "placeholder", widget.placeholderText()
    elif isinstance(widget, QAbstractSpinBox):
        yield "prefix", getattr(widget, "prefix", lambda: "")()
        yield "suffix", getattr(widget, "suffix", lambda: "")()
        yield "specialValueText", widget.specialValueText()
    elif isinstance(widget, QProgressBar):
        yield "format", widget.format() if widget.isTextVisible() else ""
    if isinstance(widget, QTableWidget):  # the first column labels the rows (the gate's comparison)
        for r in range(widget.rowCount()):
            item = widget.item(r, 0)
            yield f"row {r}", item.text() if item is not None else ""
    header = getattr(widget, "horizontalHeader", None) or getattr(widget, "header", None)
    if isinstance(widget, QAbstractItemView) and header is not None and widget.model() is not None:
        model, horizontal = widget.model(), Qt.Orientation.Horizontal
        for c in range(header().count()):
            yield f"header {c}", str(model.headerData(c, horizontal, Qt.ItemDataRole.DisplayRole) or "")
            yield f"header {c} toolTip", str(model.headerData(c, horizontal, Qt.ItemDataRole.ToolTipRole) or "")
    for action in widget.actions():  # a menu is a widget of its own: its actions are walked there
        yield f"action {action.text()!r}", action.text()
        yield f"action {action.text()!r} toolTip", action.toolTip()


def plot_titles(widget: Any) -> Iterator[tuple[str, str]]:
    """The titles and axis labels of a pyqtgraph GraphicsLayoutWidget's plots."""
    import pyqtgraph as pg

    for item in widget.ci.items:
        if isinstance(item, pg.PlotItem):
            yield "plot title", item.titleLabel.text
            for name in ("left", "bottom"):
                axis = item.getAxis(name)
                yield f"{name} axis", axis.labelText or ""


def where(widget: Any) -> str:
    path = []
    w = widget
    while w is not None:
        path.append(w.objectName() or type(w).__name__)
        w = w.parentWidget()
    return "/".join(reversed(path[:4]))


def walk(window: Any, names: set[str]) -> list[str]:
    import pyqtgraph as pg
    from PySide6.QtWidgets import QWidget

    found = []
    for widget in [window] + window.findChildren(QWidget):
        pairs = list(texts(widget))
        if isinstance(widget, pg.GraphicsLayoutWidget):
            pairs += list(plot_titles(widget))
        for what, text in pairs:
            words = english_words(text, names)
            if words:
                found.append(f"{type(widget).__name__} {where(widget)} {what}: {text[:100]!r} ({' '.join(words)})")
    return sorted(set(found))


def test_english_words_are_found_and_names_are_not() -> None:
    assert english_words("加载 model", set()) == ["model"]
    assert english_words("<b>显存</b> 12.0 GiB · max_num_seqs = 64 · --max-model-len · 4090-fp8-kv8", set()) == []
    assert english_words("模型 tiny 已加载", {"tiny"}) == [] and english_words("文件(&F)", set()) == []
    assert english_words("Inference Console 推理控制台", set()) == []
    assert english_words("console + engine RSS", set()) == ["console", "engine"]
    assert english_words("Keep-warm · n-gram · Top-k", set()) == ["Keep", "warm"]  # ids are lower-case


def test_the_window_in_zh_cn_has_no_english_left(qapp: Any, qtbot: Any, home: Path, tiny_model: Path) -> None:
    from PySide6.QtCore import QLocale

    from console.models.store import ModelStore
    from console.presets import load_presets
    from console.settings import load_settings
    from console.ui.app import install_translators
    from console.ui.context import AppContext
    from console.ui.i18n import LANGUAGES, add_language_menu
    from console.ui.main_window import MainWindow

    before = QLocale()
    installed = install_translators(qapp, "zh_CN")
    try:
        assert installed, "no catalogue loaded for zh_CN"
        store = ModelStore()
        store.add_reference("tiny", tiny_model)
        ctx = AppContext.create(store=store)
        w = MainWindow(ctx, load_settings(), owns_engine=False)
        qtbot.addWidget(w)
        add_language_menu(w)
        w.show()
        qtbot.waitUntil(lambda: w._panels_built, timeout=10_000)
        assert w.models.select_model("tiny")  # the planner box shows its plan and where its figures came from
        qtbot.waitUntil(lambda: w.models.plan_view.plan is not None, timeout=10_000)
        w.models.plan_view.show_plan(*_plan_with_notes())  # its ℹ lines: the planner's notes
        questions = _quantize_dialog_with_a_gate_table(qtbot, ctx, w)
        # the user's model and preset names, and each language's name in its own language (the menu)
        names = {"tiny"} | set(load_presets()) | {QLocale(c).nativeLanguageName() for c in LANGUAGES if c}
        names |= questions  # what the gate asked the models, shown as asked
        found = walk(w, names)
        ctx.sampler.stop()
    finally:
        for t in installed:
            qapp.removeTranslator(t)
        QLocale.setDefault(before)
    assert not found, (
        f"{len(found)} English texts in the zh_CN window (translate them, or add a proper noun "
        "to ALLOWED with its reason):\n" + "\n".join(found)
    )


def _plan_with_notes() -> tuple[Any, Any]:
    """A plan by the planner with two notes (n-gram speculation, an AWQ checkpoint), and its config."""
    from console.config import EngineConfig
    from console.planner import KNOWN_SHAPES, PlanRequest, plan

    req = PlanRequest(
        KNOWN_SHAPES["Llama-3.1-8B"],
        gpu="h200",
        max_model_len=8192,
        quantization="awq",
        speculative_method="ngram",
        num_speculative_tokens=4,
    )
    p = plan(req)
    assert len(p.notes) >= 2, p.notes
    return p, EngineConfig(model="tiny", max_model_len=8192)


def _quantize_dialog_with_a_gate_table(qtbot: Any, ctx: Any, window: Any) -> set[str]:
    """The Quantize dialog (a child of the window, so the walk reads it) after a job whose gate
    filled the comparison table: the gate's figures, a question asked, one that flipped. Gives the
    questions (asked as written, not translated). The job is a stand-in (no AWQ run): only the
    dialog's showing of a real GateResult is walked."""
    from types import SimpleNamespace

    from console.quant.evalset import Flip
    from console.quant.gate import GateResult, ModelReport
    from console.ui.models.quantize_dialog import QuantizeDialog

    cpu = {"device": "cpu", "vllm_version": "0.32.0", "dtype": "float16"}

    def report(name: str, ppl: float, correct: int) -> ModelReport:
        ev = {"set": "quick-v2", "correct": correct, "total": 250}
        return ModelReport(name, "/x", ppl, 400, ["4"], 2**28, 2**27, 50.0, 3.0, correct / 250, ev, cpu)

    flip = Flip("en-1", "How many legs has a cat?", "4", "4", "5")
    gate = GateResult("awq", report("tiny", 10.0, 200), report("tiny-awq", 10.8, 199), 0.15, ["What is 2 + 2?"])
    gate.regressions = [flip]

    def runner(*_: Any, **__: Any) -> Any:
        return SimpleNamespace(entry=SimpleNamespace(name="tiny-awq"), gate=gate, kept=True)

    dialog = QuantizeDialog(ctx, "tiny", window, runner=runner)
    dialog.start()
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 7, timeout=10_000)
    return {"What is 2 + 2?", "How many legs has a cat?", "tiny-awq"}
