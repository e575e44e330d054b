"""Translations: every visible string in console/ui is wrapped for translation, the zh_CN
catalogue covers all of them (finished, placeholders intact), the compiled .qm matches the .ts,
and the window really shows Chinese when the language is zh_CN."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any


from console.ui import i18n

UI = Path(i18n.__file__).resolve().parent
#: Calls whose string arguments are shown to the user.
VISIBLE_METHODS = {
    "setText",
    "setWindowTitle",
    "setToolTip",
    "setStatusTip",
    "setPlaceholderText",
    "setTitle",
    "addTab",
    "insertTab",
    "setTabText",
    "addMenu",
    "addAction",
    "showMessage",
    "setHorizontalHeaderLabels",
    "setVerticalHeaderLabels",
    "addRow",
    "setLabelText",
    "setWhatsThis",
    "setPrefix",
    "setSuffix",
    "setSpecialValueText",
    "addItem",
    "addItems",
    "setHeaderLabels",
    "setPlainText",
    "setFormat",
    "setCancelButtonText",
    "setInformativeText",
}
VISIBLE_CLASSES = {
    "QLabel",
    "QPushButton",
    "QAction",
    "QCheckBox",
    "QRadioButton",
    "QGroupBox",
    "QToolButton",
    "QMenu",
    "QProgressDialog",
    "QMessageBox",
    "QDockWidget",
}
MESSAGE_BOX = {"information", "warning", "critical", "question", "about"}
#: addItem/setText also carry data that is not prose: preset file names, numbers, model names.
_WORD = re.compile(r"[A-Za-z]{2,}")
UNITS = {"GiB", "MiB", "KiB", "GB", "MB", "ms", "MHz"}


def _is_prose(text: str) -> bool:
    """Words a user reads: not markup (HTML tags) and not bare units."""
    words = _WORD.findall(re.sub(r"<[^>]*>", " ", text))
    return any(w not in UNITS for w in words)


def _literals(node: ast.AST) -> list[ast.AST]:
    """String literals (or f-strings) that reach the call directly, not through tr()."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node] if _is_prose(node.value) else []
    if isinstance(node, ast.JoinedStr):
        text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
        return [node] if _is_prose(text) else []
    if isinstance(node, (ast.List, ast.Tuple)):
        return [x for e in node.elts for x in _literals(e)]
    if isinstance(node, ast.BinOp):
        return _literals(node.left) + _literals(node.right)
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    return []  # calls (tr(...), str.format of tr(...)), names, attributes: not literals


def unwrapped(source: str, filename: str) -> list[str]:
    bad = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        visible = (
            name in VISIBLE_METHODS
            or name in VISIBLE_CLASSES
            or (name in MESSAGE_BOX and isinstance(f, ast.Attribute) and getattr(f.value, "id", "") == "QMessageBox")
        )
        if not visible:
            continue
        args = list(node.args) + [k.value for k in node.keywords if k.arg in ("text", "title", "toolTip")]
        for a in args:
            for lit in _literals(a):
                bad.append(f"{filename}:{lit.lineno} {name}({ast.unparse(lit)[:60]})")
    return bad


def test_every_visible_string_is_wrapped_for_translation() -> None:
    bad = [
        b
        for p in sorted(UI.rglob("*.py"))
        for b in unwrapped(p.read_text(encoding="utf-8"), p.relative_to(UI).as_posix())
    ]
    assert not bad, "wrap these in self.tr() / QCoreApplication.translate():\n" + "\n".join(bad)


def test_the_scanner_catches_unwrapped_strings() -> None:
    code = (
        "class W:\n def f(self):\n  self.b = QPushButton('Load model')\n  self.l.setText(f'Loaded {x}')\n"
        "  QMessageBox.warning(self, self.tr('Ok'), 'Plain words')\n  self.t.addTab(w, self.tr('Chat'))\n"
        "  self.c.setSuffix(' GiB')\n  self.h.setText(f'<b>{v}</b>')\n"
    )
    found = unwrapped(code, "x.py")
    assert [f.split()[1].split("(")[0] for f in found] == ["QPushButton", "setText", "warning"], found


def test_zh_cn_catalogue_is_complete() -> None:
    strings = i18n.extract()
    assert len(strings) > 200
    # the core's messages are found in its Message("template", ...) calls, outside console/ui/
    assert sum(1 for c, _s in strings if c == "CoreText") > 100
    ts = i18n.read_ts(i18n.ts_path("zh_CN"))
    missing = [f"{c}: {s!r} ({w[0]})" for (c, s), w in strings.items() if (c, s) not in ts]
    unfinished = [f"{c}: {s!r}" for (c, s) in strings if (c, s) in ts and not (ts[(c, s)][1] and ts[(c, s)][0])]
    assert not missing, "not in console_zh_CN.ts (run python -m console.ui.i18n, then translate):\n" + "\n".join(
        missing
    )
    assert not unfinished, "unfinished in console_zh_CN.ts:\n" + "\n".join(unfinished)
    placeholders = re.compile(r"\{[^{}]*\}")
    broken = [s for (c, s) in strings if sorted(placeholders.findall(s)) != sorted(placeholders.findall(ts[(c, s)][0]))]
    assert not broken, f"placeholders changed in the translation of: {broken}"
    assert sum(bool(re.search(r"[\u4e00-\u9fff]", t)) for t, _ in ts.values()) > 0.8 * len(ts)


def test_compiled_qm_matches_the_catalogue(qapp: Any) -> None:
    from PySide6.QtCore import QTranslator

    qm = i18n.ts_path("zh_CN").with_suffix(".qm")
    tr = QTranslator()
    assert tr.load(str(qm)), f"{qm} does not load"
    ts = i18n.read_ts(i18n.ts_path("zh_CN"))
    stale = [s for (c, s), (t, _) in ts.items() if tr.translate(c, s) != t]
    assert not stale, f"{qm.name} is older than the .ts (run python -m console.ui.i18n): {stale[:5]}"


def test_window_speaks_chinese(qapp: Any, qtbot: Any, home: Path) -> None:
    from PySide6.QtCore import QLocale

    from console.models.store import ModelStore
    from console.settings import load_settings
    from console.ui.app import install_translators
    from console.ui.context import AppContext
    from console.ui.main_window import MainWindow

    before = QLocale()
    installed = install_translators(qapp, "zh_CN")
    try:
        assert installed, "no catalogue loaded for zh_CN"
        ctx = AppContext.create(store=ModelStore())
        w = MainWindow(ctx, load_settings(), owns_engine=False)
        qtbot.addWidget(w)
        tabs = [w.tabs.tabText(i) for i in range(w.tabs.count())]
        assert "对话" in tabs, tabs
        assert w.windowTitle().startswith("Inference Console 推理控制台")
        assert [a.text() for a in w.menuBar().actions()][0] == "文件(&F)"
        ctx.sampler.stop()
    finally:
        for t in installed:
            qapp.removeTranslator(t)
        QLocale.setDefault(before)


def test_language_menu_saves_the_choice(qapp: Any, qtbot: Any, home: Path) -> None:
    from console.models.store import ModelStore
    from console.settings import load_settings
    from console.ui.context import AppContext
    from console.ui.main_window import MainWindow

    ctx = AppContext.create(store=ModelStore())
    w = MainWindow(ctx, load_settings(), owns_engine=False)
    qtbot.addWidget(w)
    menu = i18n.add_language_menu(w)
    acts = {a.data(): a for a in menu.actions()}
    assert set(acts) == set(i18n.LANGUAGES) and acts[""].isChecked()
    acts["zh_CN"].trigger()
    assert load_settings().language == "zh_CN"
    assert "简体中文" in acts["zh_CN"].text()
    ctx.sampler.stop()


def test_every_advisor_rule_text_has_a_chinese_translation() -> None:
    """The rules are data: each shipped title, what/why template and action text must be in the
    catalogue (context AdvisorRules), finished, in Chinese, with its {fields} intact."""
    from console.advisor import load_rules, rule_texts
    from console.paths import resources_dir

    texts = rule_texts(load_rules(resources_dir() / "advisor" / "rules.toml"))
    assert len(texts) > 20
    assert {(i18n.RULES_CONTEXT, t) for t in texts} <= set(i18n.extract())  # the generator carries them
    ts = i18n.read_ts(i18n.ts_path("zh_CN"))
    placeholders = re.compile(r"\{[^{}]*\}")
    bad = []
    for text in texts:
        translation, finished = ts.get((i18n.RULES_CONTEXT, text), ("", False))
        if not (
            finished
            and re.search(r"[\u4e00-\u9fff]", translation)
            and sorted(placeholders.findall(text)) == sorted(placeholders.findall(translation))
        ):
            bad.append(text)
    assert not bad, (
        "advisor rule texts without a (good) zh_CN translation (run python -m console.ui.i18n):\n" + "\n".join(bad)
    )


def test_advisor_dock_shows_rules_in_chinese(qapp: Any, qtbot: Any, tmp_path: Path) -> None:
    import time

    from PySide6.QtCore import QLocale

    from console.engine.in_process import InProcessEngine
    from console.metrics.store import MetricsStore
    from console.metrics.recording import save_recording
    from console.ui.advisor.panel import AdvisorPanel
    from console.ui.app import install_translators

    store = MetricsStore()
    for i in range(16):  # 8 s with the KV cache full and preemptions: two rules fire
        store.record_step(t=time.time() - 8 + i * 0.5, running=3, kv_usage=0.97, preemptions=1)
    path = save_recording(store, tmp_path / "full.json")

    class Ctx:
        engine = InProcessEngine()
        metrics = MetricsStore()

    before = QLocale()
    installed = install_translators(qapp, "zh_CN")
    try:
        panel = AdvisorPanel(Ctx())  # type: ignore[arg-type]
        qtbot.addWidget(panel)
        assert panel.open_recording(str(path))
        titles = [panel.list.item(i).text() for i in range(panel.list.count())]
        assert any("KV 缓存将满" in t for t in titles) and any("请求被抢占" in t for t in titles), titles
        panel.list.setCurrentRow(0)
        assert "KV 缓存在" in panel.detail.text() and "97%" in panel.detail.text()  # evidence filled in
        panel.stop()
    finally:
        for t in installed:
            qapp.removeTranslator(t)
        QLocale.setDefault(before)


def test_the_extractor_sees_aliases_and_helpers(tmp_path: Path) -> None:
    """``tr = self.tr`` (the Monitor's plot titles were missed through it) and a module helper
    ``_tr(text)`` that translates in a fixed context (the planner box, the CPU check) are found,
    each in the right context; an alias does not leak into another method. A helper that only
    marks its text with ``QT_TRANSLATE_NOOP`` too. A core module's ``Message("template", ...)``
    gives its template in the context CoreText."""
    code = tmp_path / "panel.py"
    code.write_text(
        "from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP\n\n"
        'def _tr(text):\n    """doc"""\n    return QCoreApplication.translate(\'Helper\', text)\n\n'
        "def _n(text):\n    return QT_TRANSLATE_NOOP('Marked', text)\n\n"
        "TABLE = {_n('A sentence {0}'): ('.+',)}\n\n"
        "class Panel:\n"
        "    def build(self):\n        tr = self.tr\n        self.a = tr('Plot title')\n"
        "        _tr('Through the helper')\n"
        "    def other(self):\n        tr = QCoreApplication.translate\n        tr('Ctx', 'Two arguments')\n"
        "        tr('not a self.tr alias here')\n",
        encoding="utf-8",
    )
    found = set(i18n.extract([code], rules=False))
    assert found == {
        ("Panel", "Plot title"),
        ("Helper", "Through the helper"),
        ("Ctx", "Two arguments"),
        ("Marked", "A sentence {0}"),
    }, found
    core = "from console.messages import Message\n\ndef f(n):\n    return Message('{0} loads', n), Message(TEMPLATE)\n"
    assert set(i18n.message_templates(core, "x.py")) == {("CoreText", "{0} loads")}


def test_every_shipped_preset_description_has_a_chinese_translation() -> None:
    """Preset descriptions are data (presets/*.toml): each shipped one is in the catalogue
    (context Presets), finished, in Chinese; the Models panel shows it through the catalogue."""
    descriptions = i18n.shipped_preset_descriptions()
    assert len(descriptions) >= 10
    assert {(i18n.PRESETS_CONTEXT, t) for t in descriptions.values()} <= set(i18n.extract())
    ts = i18n.read_ts(i18n.ts_path("zh_CN"))
    bad = [
        name
        for name, text in descriptions.items()
        if not (
            ts.get((i18n.PRESETS_CONTEXT, text), ("", False))[1]
            and re.search(r"[\u4e00-\u9fff]", ts[(i18n.PRESETS_CONTEXT, text)][0])
        )
    ]
    assert not bad, f"preset descriptions without a zh_CN translation (python -m console.ui.i18n): {bad}"
