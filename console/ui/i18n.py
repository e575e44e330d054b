"""The translation catalogue: find every translatable string under ``console/ui/``, keep
``resources/i18n/console_<lang>.ts`` in step with it, and compile the ``.qm`` files Qt loads.

Strings are found with :mod:`ast`, the way Qt's runtime looks them up: ``self.tr("text")`` is
looked up in the context of the enclosing class, ``QCoreApplication.translate("Ctx", "text")``
(or a local alias of it, ``tr = QCoreApplication.translate``) in ``Ctx``, and a local alias of
``self.tr`` (``tr = self.tr``; ``tr("text")``) in the enclosing class, as ``self.tr`` itself,
and a module's helper ``def _tr(text): return QCoreApplication.translate("Ctx", text)`` called
with a literal (``_tr("text")``) in ``Ctx``. pyside6-lupdate misreads such aliases, hence this
module.

The core's sentences are :class:`console.messages.Message` values: every ``Message("template",
...)`` call with a literal template in a module of ``console/`` outside ``console/ui/`` gives
its template in the context :data:`console.messages.CONTEXT` ("CoreText"), where
``console/ui/core_text.py`` looks it up.

The advisor's rules are data (``resources/advisor/rules.toml``): their titles, what/why
templates and action words are extracted too, in the context :data:`RULES_CONTEXT`, and the
Advisor dock looks them up there (a template is translated before its evidence is filled in, so
a translation keeps the same ``{fields}``). The shipped presets' descriptions (``presets/*.toml``,
data too) are extracted in the context :data:`PRESETS_CONTEXT`, and the Models panel shows them
through it; a user's own preset is shown as written.

    python -m console.ui.i18n            # update the .ts files and compile them to .qm
"""

from __future__ import annotations

import ast
import posixpath
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from console.paths import presets_dir, resources_dir
from console.knob_help import HELP_CONTEXT, help_texts
from console.messages import CONTEXT
from console.advisor.rules import load_rules, rule_texts
from console.presets import load_preset_file

UI_DIR = Path(__file__).resolve().parent
#: The languages offered in View > Language ("" follows the system locale).
LANGUAGES = ("", "en_US", "zh_CN")

Key = tuple[str, str]  # (context, source text)
#: The context of the advisor rules' texts in the catalogue.
RULES_CONTEXT = "AdvisorRules"
RULES_LOCATION = "advisor/rules.toml:0"  # relative to resources/
#: The context of the shipped presets' descriptions in the catalogue.
PRESETS_CONTEXT = "Presets"


def _const_str(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _helpers(tree: ast.Module) -> dict[str, str]:
    """Module functions that only translate their one argument in a fixed context:
    ``def _tr(text): return QCoreApplication.translate("Ctx", text)`` -> {"_tr": "Ctx"}."""
    out: dict[str, str] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or len(node.args.args) != 1:
            continue
        body = [b for b in node.body if not (isinstance(b, ast.Expr) and _const_str(b.value) is not None)]
        if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
            continue
        call = body[0].value
        if isinstance(call.func, ast.Name) and call.func.id == "str" and len(call.args) == 1:
            if not isinstance(call.args[0], ast.Call):
                continue
            call = call.args[0]  # ``return str(QT_TRANSLATE_NOOP(...))``: typed as str, the same marker
        param = node.args.args[0].arg
        if (
            _is_translate(call.func, set())
            and len(call.args) == 2
            and _const_str(call.args[0]) is not None
            and isinstance(call.args[1], ast.Name)
            and call.args[1].id == param
        ):
            out[node.name] = str(_const_str(call.args[0]))
    return out


def _is_translate(func: ast.AST, aliases: set[str]) -> bool:
    if isinstance(func, ast.Attribute) and func.attr == "translate":
        return True
    return isinstance(func, ast.Name) and (func.id in aliases or func.id in ("translate", "QT_TRANSLATE_NOOP"))


class _Finder(ast.NodeVisitor):
    def __init__(self, filename: str, helpers: dict[str, str] | None = None) -> None:
        self.filename = filename
        #: module helpers that translate their argument in a fixed context (see :func:`_helpers`)
        self.helpers = helpers or {}
        self.classes: list[str] = []
        self.aliases: set[str] = set()
        #: names bound to ``self.tr`` in the function being read (``tr = self.tr``)
        self.self_tr: set[str] = set()
        self.found: dict[Key, list[str]] = {}

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        outer = self.self_tr
        self.self_tr = set()
        self.generic_visit(node)
        self.self_tr = outer

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(node.name)
        self.generic_visit(node)
        self.classes.pop()

    def visit_Assign(self, node: ast.Assign) -> None:
        if isinstance(node.value, ast.Attribute) and node.value.attr == "translate":
            self.aliases.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node.value, ast.Attribute) and node.value.attr == "tr" and self.classes:
            self.self_tr.update(t.id for t in node.targets if isinstance(t, ast.Name))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        key: Key | None = None
        if _is_translate(f, self.aliases) and len(node.args) >= 2:
            ctx, src = _const_str(node.args[0]), _const_str(node.args[1])
            if ctx is not None and src is not None:
                key = (ctx, src)
        elif isinstance(f, ast.Name) and f.id in self.helpers and len(node.args) == 1:
            src = _const_str(node.args[0])
            if src is not None:
                key = (self.helpers[f.id], src)
        elif (
            node.args
            and self.classes
            and (isinstance(f, ast.Attribute) and f.attr == "tr" or isinstance(f, ast.Name) and f.id in self.self_tr)
        ):
            src = _const_str(node.args[0])
            if src is not None:
                key = (self.classes[-1], src)
        if key is not None:
            self.found.setdefault(key, []).append(f"{self.filename}:{node.lineno}")
        self.generic_visit(node)


def extract(files: list[Path] | None = None, rules: bool = True) -> dict[Key, list[str]]:
    """Every (context, source) pair in the UI code, with where it occurs; with ``rules``, the
    shipped advisor rules' texts too (context :data:`RULES_CONTEXT`)."""
    out: dict[Key, list[str]] = {}
    for path in files or sorted(UI_DIR.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        name = path.relative_to(UI_DIR).as_posix() if UI_DIR in path.parents else path.name
        finder = _Finder(name, _helpers(tree))
        finder.visit(tree)
        for k, v in finder.found.items():
            out.setdefault(k, []).extend(v)
    if rules:
        for key, where in core_messages().items():
            out.setdefault(key, []).extend(where)
        for text in shipped_rule_texts():
            out.setdefault((RULES_CONTEXT, text), []).append(RULES_LOCATION)
        for file_name, text in shipped_preset_descriptions().items():
            out.setdefault((PRESETS_CONTEXT, text), []).append(f"../presets/{file_name}:0")

        for text in help_texts():  # the knobs' tooltips: their metadata on EngineConfig's fields
            out.setdefault((HELP_CONTEXT, text), []).append("../config.py:0")
    return out


def message_templates(source: str, filename: str) -> dict[Key, list[str]]:
    """The literal templates of the ``Message(...)`` calls in ``source`` (context CoreText)."""

    out: dict[Key, list[str]] = {}
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Message" and node.args:
            template = _const_str(node.args[0])
            if template is not None:
                out.setdefault((CONTEXT, template), []).append(f"{filename}:{node.lineno}")
    return out


def core_messages() -> dict[Key, list[str]]:
    """Every template the core writes as a :class:`console.messages.Message` (context CoreText)."""
    out: dict[Key, list[str]] = {}
    package = UI_DIR.parent
    for path in sorted(package.rglob("*.py")):
        if UI_DIR in path.parents:
            continue
        name = "../" + path.relative_to(package).as_posix()
        for key, where in message_templates(path.read_text(encoding="utf-8"), name).items():
            out.setdefault(key, []).extend(where)
    return out


def shipped_preset_descriptions() -> dict[str, str]:
    """File name -> description of each shipped preset (not the user's own)."""

    return {
        p.name: load_preset_file(p).description
        for p in sorted(presets_dir().glob("*.toml"))
        if load_preset_file(p).description
    }


def translate_preset_description(text: str) -> str:
    """A preset's description in the UI's language (a shipped one through the catalogue)."""
    from PySide6.QtCore import QCoreApplication

    return QCoreApplication.translate(PRESETS_CONTEXT, text) if text else text


def translate_knob_help(text: str) -> str:
    """A knob's tooltip text (:mod:`console.knob_help`) in the UI's language."""
    from PySide6.QtCore import QCoreApplication

    return QCoreApplication.translate(HELP_CONTEXT, text) if text else text


def shipped_rule_texts() -> list[str]:
    """The texts of ``resources/advisor/rules.toml`` (not a user's copy of it)."""

    return rule_texts(load_rules(resources_dir() / "advisor" / "rules.toml"))


def ts_path(language: str) -> Path:
    return resources_dir() / "i18n" / f"console_{language}.ts"


def read_ts(path: Path) -> dict[Key, tuple[str, bool]]:
    """(context, source) -> (translation, finished) of a .ts file."""
    out: dict[Key, tuple[str, bool]] = {}
    if not path.exists():
        return out
    for ctx in ET.parse(path).getroot().iter("context"):
        name = ctx.findtext("name") or ""
        for m in ctx.iter("message"):
            t = m.find("translation")
            finished = t is not None and t.get("type") not in ("unfinished", "obsolete", "vanished")
            out[(name, m.findtext("source") or "")] = ((t.text or "") if t is not None else "", finished)
    return out


def write_ts(
    path: Path, language: str, strings: dict[Key, list[str]], translations: dict[Key, tuple[str, bool]]
) -> None:
    root = ET.Element("TS", version="2.1", language=language)
    for ctx in sorted({c for c, _ in strings}):
        c = ET.SubElement(root, "context")
        ET.SubElement(c, "name").text = ctx
        for (cx, src), where in sorted(strings.items()):
            if cx != ctx:
                continue
            m = ET.SubElement(c, "message")
            # File names only: line numbers would churn the catalogue on every edit.
            for fname in sorted({loc.rsplit(":", 1)[0] for loc in where}):
                file = posixpath.normpath(f"../../console/ui/{fname}") if fname.endswith(".py") else f"../{fname}"
                ET.SubElement(m, "location", filename=file)
            ET.SubElement(m, "source").text = src
            text, finished = translations.get((cx, src), ("", False))
            t = ET.SubElement(m, "translation")
            t.text = text
            if not finished or not text:
                t.set("type", "unfinished")
    ET.indent(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = ET.tostring(root, encoding="unicode")
    path.write_text('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + body + "\n", encoding="utf-8")


def lrelease() -> str:
    for cand in (
        Path(sys.executable).parent / "pyside6-lrelease",
        shutil.which("pyside6-lrelease"),
        shutil.which("lrelease"),
    ):
        if cand and Path(cand).exists():
            return str(cand)
    raise FileNotFoundError("pyside6-lrelease is not installed (it comes with PySide6-Essentials)")


def compile_ts(path: Path) -> Path:
    qm = path.with_suffix(".qm")
    subprocess.run([lrelease(), str(path), "-qm", str(qm)], check=True, capture_output=True)
    return qm


def update(language: str = "zh_CN") -> Path:
    path = ts_path(language)
    write_ts(path, language, extract(), read_ts(path))
    return compile_ts(path)


def add_language_menu(window: Any) -> Any:
    """A View > Language submenu on ``window`` (a MainWindow): the choice goes into its settings
    (``Settings.language``) and applies at the next start, as Qt's catalogues are installed
    before any widget is built."""
    from PySide6.QtCore import QCoreApplication, QLocale
    from PySide6.QtGui import QAction, QActionGroup

    tr = QCoreApplication.translate
    bar = window.menuBar()
    view = next(
        (
            a.menu()
            for a in bar.actions()
            if a.menu() is not None and window.dock.toggleViewAction() in a.menu().actions()
        ),
        None,
    )
    menu = (view or bar).addMenu(tr("Language", "&Language"))
    group = QActionGroup(menu)
    current = window.settings.language
    for code in LANGUAGES:
        label = tr("Language", "System language") if not code else QLocale(code).nativeLanguageName()
        act = QAction(label, menu, checkable=True)
        act.setChecked(code == current)
        act.setData(code)
        group.addAction(act)
        menu.addAction(act)

    def chosen(act: Any) -> None:
        window.settings.language = str(act.data() or "")
        window.save_settings()
        window.show_message(tr("Language", "The language changes when the console starts next time."))

    group.triggered.connect(chosen)
    return menu


if __name__ == "__main__":
    print(update(sys.argv[1] if len(sys.argv) > 1 else "zh_CN"))
