"""Start the desktop console: ``run(argv) -> int``.

Builds the QApplication, the shared :class:`AppContext` (in-process engine, metrics, model store,
device sampler, bridge), installs translations for the chosen or system language, shows the
window and runs the event loop. vLLM and torch are not imported here: the in-process engine imports
them on its own thread when a model is loaded, so the window appears in well under 2 s.
Closing the window shuts the engine down off the GUI thread (see ``MainWindow.closeEvent``).
"""

from __future__ import annotations

import logging
import os
import sys
import traceback
from types import TracebackType
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTimer, QTranslator
from PySide6.QtWidgets import QApplication

from console.paths import resources_dir
from console.settings import Settings, load_settings

if TYPE_CHECKING:  # imported where used: the window's modules load after the QApplication exists
    # deferred: the window's modules load after the QApplication and the import hooks
    from console.ui.context import AppContext

    # deferred: the window's modules load after the QApplication and the import hooks
    from console.ui.main_window import MainWindow

log = logging.getLogger(__name__)


def install_translators(app: QApplication, language: str = "") -> list[QTranslator]:
    """Qt's own and the console's catalogues for ``language`` (``""``: the system locale).
    Missing catalogues are fine: the English source strings are shown."""
    locale = QLocale(language) if language else QLocale.system()
    QLocale.setDefault(locale)
    installed = []
    for name, folder in (
        ("qtbase", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)),
        ("console", str(resources_dir() / "i18n")),
    ):
        tr = QTranslator(app)
        if tr.load(locale, name, "_", folder):
            app.installTranslator(tr)
            installed.append(tr)
    return installed


def _excepthook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    """An exception escaping a slot is logged and shown in the status bar, not as a crash."""
    log.error("unhandled error: %s", "".join(traceback.format_exception(exc_type, exc, tb)))
    # deferred: the window's modules load after the QApplication and the import hooks
    from console.ui.main_window import MainWindow

    app = QApplication.instance()
    for w in app.topLevelWidgets() if isinstance(app, QApplication) else []:
        if isinstance(w, MainWindow):
            w.show_message(QCoreApplication.translate("App", "Internal error: {0}").format(exc))


def create_window(settings: Settings | None = None) -> tuple[AppContext, MainWindow]:
    """The context and the window (not shown); the QApplication must exist."""
    # deferred: the window's modules load after the QApplication and the import hooks
    from console.ui.context import AppContext

    # deferred: the window's modules load after the QApplication and the import hooks
    from console.ui.main_window import MainWindow

    ctx = AppContext.create()
    ctx.sampler.start()
    return ctx, MainWindow(ctx, settings if settings is not None else load_settings())


def start_loading(window: MainWindow, name: str) -> bool:
    """Select ``name`` in the Models panel and load it with the selected preset."""
    if window.models.select_model(name):
        return bool(window.models.load_selected())
    window.show_message(
        QCoreApplication.translate("App", "Model '{0}' is not in the store; import it from the Models panel").format(
            name
        )
    )
    return False


def run(argv: list[str], load_model: str | None = None) -> int:
    """Show the console; with ``load_model``, select that model and start loading it at once
    (the README's first command opens the console on the bundled model this way)."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    # deferred: the window's modules load after the QApplication and the import hooks
    from console.ui.refcount_guard import pin_singletons

    pin_singletons()  # PySide6 6.12 on Python 3.11 loses a reference to None per void call
    # deferred: the window's modules load after the QApplication and the import hooks
    from console.ui.import_hook import cheapen_feature_check

    cheapen_feature_check()  # PySide6 read every imported module's source: 0.7 s of GIL per load
    app = QApplication.instance() or QApplication(argv)
    assert isinstance(app, QApplication)
    app.setApplicationName("Inference Console")
    app.setOrganizationName("inference-console")
    settings = load_settings()
    install_translators(app, settings.language)
    sys.excepthook = _excepthook
    # deferred: the window's modules load after the QApplication and the import hooks
    from console.ui.gc_guard import GuiThreadCollector

    collector = GuiThreadCollector(parent=app)  # no Qt object may be collected on the engine thread
    # deferred: the window's modules load after the QApplication and the import hooks
    from console.engine import priority

    priority.prefer_the_window()  # a CPU engine core yields the cores to the window (engine/priority.py)
    ctx, window = create_window(settings)
    # deferred: the window's modules load after the QApplication and the import hooks
    from console.ui.i18n import add_language_menu

    add_language_menu(window)  # View > Language: saved in settings, applied at the next start
    window.show()
    if load_model:
        QTimer.singleShot(200, lambda: start_loading(window, load_model))
    code = 1
    try:
        code = int(app.exec())
    finally:
        # The window's close already did this off the GUI thread; these are idempotent backstops
        # for other ways out (a signal, app.quit()).
        ctx.sampler.stop()
        ctx.engine.close()
        collector.stop()
    # pyqtgraph's objects can abort the interpreter's final teardown ("bool_dealloc" refcount
    # error, exit 134) after everything has been saved and shut down above; leave directly.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    raise SystemExit(run(sys.argv))
