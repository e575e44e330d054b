"""The console's main window: the Models sidebar, the Chat / Batch / Monitor / Export / Bench / Server
tabs, a status bar (with the address a server engine answers on), menus with the keyboard shortcuts,
and the memory of layout and last choices.

The panels share the model and preset chosen through the application state (``ctx.state``,
:mod:`console.app_state`), not through each other; the status bar's preset follows it too.

The Batch, Monitor, Export, Bench and Server tabs are built just after the window first paints (pyqtgraph
is slow to import); until then each tab shows "Loading…". Closing the window shuts the engine down
in a worker thread while the window stays responsive.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from typing import TYPE_CHECKING, Any, Callable

from PySide6.QtCore import QByteArray, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QTabWidget, QVBoxLayout, QWidget

from console.app_state import Selection
from console.engine.types import EngineState, EngineStatus
from console.settings import Settings, load_settings, save_settings
from console.ui.chat.panel import ChatPanel
from console.ui.chat.models_link import connect_models
from console.ui.context import AppContext
from console.ui.core_text import translate_core_text
from console.ui.formatting import format_bytes, format_number
from console.ui.load_phases_text import phases_summary
from console.ui.models.panel import ModelsPanel
from console.ui.state_signals import follow_selection
from console.ui.theme import STATE_COLOURS, set_themed_style
from console.ui.theme_switch import add_theme_menu
from console.ui.widgets import VerticalScroll, install_wheel_guard
from console.ui.window_fit import PREFERRED, fit_to_screen, initial_size
from console.engine.interface import Switchable
from console.ui.about import AboutDialog
from console.ui.advisor.panel import add_advisor_dock
from console.ui.batch.panel import BatchPanel
from console.ui.cpu_check import start_cpu_check
from console.ui.engine_picker import add_engine_picker
from console.ui.export.panel import ExportPanel

if TYPE_CHECKING:
    from console.ui.batch.panel import BatchPanel
    from console.ui.export.panel import ExportPanel
    from console.ui.monitor.panel import MonitorPanel
    from console.ui.server.panel import ServerPanel

log = logging.getLogger(__name__)

#: On a first start the chat's settings are unfolded where the window can be this wide at least.
CHAT_SETTINGS_WIDTH = 1200


class PlaceholderPanel(QWidget):
    """Holds a tab's place until its panel is built."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        label = QLabel(text, self)
        label.setWordWrap(True)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        QVBoxLayout(self).addWidget(label)


class MainWindow(QMainWindow):
    """The console window.

    Signals:
        shutdownFinished(): the in-process engine was closed after the window was asked to close.
    """

    shutdownFinished = Signal()

    def __init__(
        self,
        ctx: AppContext,
        settings: Settings | None = None,
        *,
        owns_engine: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.settings = settings if settings is not None else load_settings()
        self.owns_engine = owns_engine
        self._status = ctx.engine.status
        self._loading_since: float | None = None
        self._shutdown_thread: threading.Thread | None = None
        self._shutdown_done = False
        self.setWindowTitle(self.tr("Inference Console"))
        self.setObjectName("MainWindow")
        install_wheel_guard()  # the wheel scrolls past fields; it changes only the focused one

        self.models = ModelsPanel(ctx, self)
        self.dock = QDockWidget(self.tr("Models"), self)
        self.dock.setObjectName("ModelsDock")
        self.dock.setWidget(VerticalScroll(self.models, self))  # scrolls rather than overflowing a laptop
        self.dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.dock)

        self.advisor = add_advisor_dock(self, ctx, self.models)

        self.chat = ChatPanel(ctx, self)
        m = self.models  # the chat's model picker and load banner: the state, and the panel's intents
        connect_models(
            ctx,
            self.chat.model_picker,
            self.chat.load_banner,
            select=m.select_model,
            load=m.load_selected,
            apply_change=m.apply_change,
            plan=lambda: m.plan_view.plan,
        )
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.chat, self.tr("Chat"))
        self._panel_titles = (
            self.tr("Batch"),
            self.tr("Monitor"),
            self.tr("Export"),
            self.tr("Bench"),
            self.tr("Server"),
        )
        self.panels: dict[str, QWidget] = {"chat": self.chat}
        self.batch: BatchPanel | None = None  # these three (and Bench) exist once build_panels ran
        self.monitor: MonitorPanel | None = None
        self.export: ExportPanel | None = None
        self.server: ServerPanel | None = None
        for title in self._panel_titles:  # built just after the window shows (pyqtgraph is slow to import)
            self.tabs.addTab(PlaceholderPanel(self.tr("Loading…"), self), title)
        self._panels_built = False
        self.setCentralWidget(self.tabs)

        self._build_status_bar()
        self._build_actions()
        self.theme, self.theme_actions = add_theme_menu(self)  # View > Theme, the choice applied now

        self._status_timer = QTimer(self)
        self._status_timer.setInterval(500)
        self._status_timer.timeout.connect(self._on_status_timer_timeout)
        self._status_timer.start()
        ctx.bridge.statusChanged.connect(self._on_bridge_status_changed)
        follow_selection(ctx.state, self, self._on_state_selection_changed)  # the preset shown below
        self.models.message.connect(self.show_message)
        self.chat.message.connect(self.show_message)

        self.restore_settings()
        self._on_bridge_status_changed(ctx.engine.status)
        QTimer.singleShot(150, self.build_panels)  # after the first paint

    def build_panels(self) -> None:
        """Put the Batch, Monitor and Export panels in their tabs (once; idempotent)."""
        if self._panels_built:
            return
        self._panels_built = True
        # deferred: imports pyqtgraph
        from console.ui.bench.panel import BenchPanel

        # deferred: imports numpy, pyqtgraph
        from console.ui.monitor.panel import MonitorPanel

        # deferred: imports httpx, prometheus_client, yaml
        from console.ui.server.panel import ServerPanel

        current = self.tabs.currentIndex()
        self.batch, self.monitor = BatchPanel(self.ctx, self), MonitorPanel(self.ctx, self)
        self.export = ExportPanel(self.ctx, self)
        self.server = ServerPanel(self.ctx, self)
        built = {
            "batch": self.batch,
            "monitor": self.monitor,
            "export": self.export,
            "bench": BenchPanel(self.ctx, self),
            "server": self.server,
        }
        for i, ((key, panel), title) in enumerate(zip(built.items(), self._panel_titles), start=1):
            self.panels[key] = panel
            old = self.tabs.widget(i)
            self.tabs.removeTab(i)
            self.tabs.insertTab(i, panel, title)
            if old is not None:
                old.deleteLater()
        self.tabs.setCurrentIndex(current)
        self.monitor.recordingOpened.connect(self._open_recording_in_advisor)  # the Advisor replays what
        self.monitor.comparisonClosed.connect(self.advisor.show_live)  # the Monitor compares
        self.server.addressChanged.connect(self._on_server_address_changed)
        self._on_server_address_changed(self.server.address_text())

    def _open_recording_in_advisor(self, path: str) -> None:
        if self.advisor.dock is not None:
            self.advisor.dock.show()  # hidden until asked: a replay asks
        self.advisor.open_recording(path)

    # -- construction ------------------------------------------------------------------------------
    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.state_label = QLabel(self)
        self.model_label = QLabel(self)
        self.preset_label = QLabel(self)
        self.device_label = QLabel(self)
        self.memory_label = QLabel(self)
        self.rate_label = QLabel(self)
        self.address_label = QLabel(self)  # the base URL a server engine answers on
        self.address_label.hide()
        for w in (
            self.address_label,
            self.state_label,
            self.model_label,
            self.preset_label,
            self.device_label,
            self.memory_label,
            self.rate_label,
        ):
            w.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            bar.addPermanentWidget(w)
        self.state_label.setMinimumWidth(120)
        self.state_label.setMaximumWidth(520)
        for w in (self.model_label, self.preset_label, self.device_label, self.memory_label, self.address_label):
            w.setMinimumWidth(40)  # shrink (cut, full text in the tooltip) rather than widen the window
        reason = self.ctx.sampler.reason
        if self.ctx.sampler.kind == "nvml":
            self.device_label.setText(self.tr("Device: {0}").format(self.ctx.sampler.source.name))
        else:
            self.device_label.setText(self.tr("Device: CPU"))
        self.device_label.setToolTip(translate_core_text(reason) if reason else "")

    def _action(self, text: str, slot: Callable[[], Any], shortcuts: list[str] | None = None) -> QAction:
        action = QAction(text, self)
        if shortcuts:
            action.setShortcuts([QKeySequence(s) for s in shortcuts])
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda _checked=False: slot())
        self.addAction(action)  # shortcuts work even when the menu bar is hidden
        return action

    def _build_actions(self) -> None:
        m = self.models
        self.act_import_gguf = self._action(self.tr("Import &GGUF…"), m.import_gguf)
        self.act_import_folder = self._action(self.tr("Import &folder…"), m.import_folder)
        self.act_quit = self._action(self.tr("&Quit"), self.close, ["Ctrl+Q"])
        self.act_load = self._action(self.tr("&Load model"), m.load_selected, ["Ctrl+L"])
        self.act_unload = self._action(self.tr("&Unload"), m.unload)
        self.act_reload = self._action(self.tr("&Reload"), m.reload, ["Ctrl+R"])
        self.act_send = self._action(self.tr("&Send"), self._send, ["Ctrl+Return", "Ctrl+Enter"])
        self.act_stop = self._action(self.tr("S&top"), self.chat.stop, ["Esc"])
        self.act_new_chat = self._action(self.tr("&New chat"), self._new_chat, ["Ctrl+N"])
        self.tab_actions = [
            self._action(self.tabs.tabText(i), functools.partial(self.tabs.setCurrentIndex, i), [f"Ctrl+{i + 1}"])
            for i in range(self.tabs.count())
        ]

        menubar = self.menuBar()
        file_menu = menubar.addMenu(self.tr("&File"))
        file_menu.addActions([self.act_import_gguf, self.act_import_folder])
        file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        engine_menu = menubar.addMenu(self.tr("&Engine"))
        engine_menu.addActions([self.act_load, self.act_unload, self.act_reload])

        if isinstance(self.ctx.engine, Switchable):  # where the engine runs: in process, a local server, a remote one
            add_engine_picker(self, self.ctx.engine, engine_menu)
        chat_menu = menubar.addMenu(self.tr("&Chat"))
        chat_menu.addActions([self.act_new_chat, self.act_send, self.act_stop])
        chat_menu.addSeparator()
        self.act_enter_sends = QAction(self.tr("&Enter sends (Shift+Enter breaks the line)"), self)
        self.act_enter_sends.setCheckable(True)
        self.act_enter_sends.setChecked(True)
        self.act_enter_sends.setStatusTip(self.tr("Off: Enter breaks the line and Ctrl+Enter sends"))
        self.act_enter_sends.toggled.connect(self.chat.set_enter_sends)
        chat_menu.addAction(self.act_enter_sends)
        self._build_view_menu()
        help_menu = menubar.addMenu(self.tr("&Help"))
        self.act_about = self._action(self.tr("&About and diagnostics…"), self._show_about)
        help_menu.addAction(self.act_about)
        self.act_cpu_check = self._action(self.tr("Check &CPU engine…"), self._check_cpu_engine)
        help_menu.addAction(self.act_cpu_check)

    def _build_view_menu(self) -> None:
        view_menu = self.menuBar().addMenu(self.tr("&View"))
        view_menu.addAction(self.dock.toggleViewAction())
        if self.advisor.dock is not None:
            view_menu.addAction(self.advisor.dock.toggleViewAction())
        view_menu.addSeparator()
        view_menu.addActions(self.tab_actions)
        view_menu.addSeparator()
        self.act_chat_settings = QAction(self.tr("Chat &settings"), self)  # the chat's side panel
        self.act_chat_settings.setCheckable(True)
        self.act_chat_settings.setChecked(self.chat.settings_shown())
        self.act_chat_settings.setShortcut(QKeySequence("Ctrl+Shift+S"))
        self.act_chat_settings.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.act_chat_settings.toggled.connect(self._on_chat_settings_toggled)
        self.chat.settingsShownChanged.connect(self.act_chat_settings.setChecked)
        self.addAction(self.act_chat_settings)
        view_menu.addAction(self.act_chat_settings)

    def _on_chat_settings_toggled(self, shown: bool) -> None:
        if shown:
            self.tabs.setCurrentWidget(self.chat)  # the settings asked for are the chat's: in sight
        self.chat.set_settings_shown(shown)

    def _check_cpu_engine(self) -> None:
        self._cpu_check = start_cpu_check(self)

    def _show_about(self) -> None:
        AboutDialog(self.ctx.engine, self).exec()

    # -- intents ---------------------------------------------------------------------------------------
    def _send(self) -> None:
        self.tabs.setCurrentWidget(self.chat)
        self.chat.send()

    def _new_chat(self) -> None:
        self.tabs.setCurrentWidget(self.chat)
        self.chat.new_conversation()

    def show_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    # -- settings ----------------------------------------------------------------------------------------
    def restore_settings(self) -> None:
        s = self.settings
        screen = self.screen()
        free = screen.availableGeometry().size() if screen is not None else QSize(*PREFERRED)
        first_width = initial_size((free.width(), free.height()))[0]
        shown = s.chat_settings_shown if s.chat_settings_shown is not None else first_width >= CHAT_SETTINGS_WIDTH
        self.chat.set_settings_shown(shown)  # folded first: the window's minimum is then the narrower
        if s.window_geometry:
            self.restoreGeometry(QByteArray.fromBase64(s.window_geometry.encode("ascii")))
        else:
            self.resize(QSize(*initial_size((free.width(), free.height()))))
        if s.window_state:
            self.restoreState(QByteArray.fromBase64(s.window_state.encode("ascii")))
        else:  # the Models sidebar: a third of a laptop's window at most
            self.resizeDocks([self.dock], [min(520, self.width() // 3)], Qt.Orientation.Horizontal)
        fit_to_screen(self)  # a geometry saved on a larger screen, or a minimum larger than this one
        self.models.restore(s)
        self.chat.restore(s)
        self.act_enter_sends.setChecked(s.enter_sends)
        if 0 <= s.last_tab < self.tabs.count():
            self.tabs.setCurrentIndex(s.last_tab)

    def save_settings(self) -> None:
        s = self.settings
        s.window_geometry = bytes(self.saveGeometry().toBase64().data()).decode("ascii")
        s.window_state = bytes(self.saveState().toBase64().data()).decode("ascii")
        s.last_tab = self.tabs.currentIndex()
        self.models.save(s)
        self.chat.save(s)
        try:
            save_settings(s)
        except OSError as exc:
            log.warning("could not save settings: %s", exc)

    # -- status bar ----------------------------------------------------------------------------------------
    def state_text(self) -> str:
        st = self._status
        if st.state == EngineState.LOADING:
            elapsed = time.monotonic() - (self._loading_since or time.monotonic())
            return self.tr("Loading: {0} ({1:.0f} s)").format(st.stage or "…", elapsed)
        if st.state == EngineState.READY:
            return self.tr("Ready")
        if st.state == EngineState.STOPPING:
            return self.tr("Stopping…")
        if st.state == EngineState.FAILED:
            return self.tr("Failed: {0}").format(st.error or "")
        return self.tr("Stopped")

    def memory_text(self) -> str:
        samples = self.ctx.metrics.device_samples(since=time.time() - 10)
        if not samples:
            return ""
        v = samples[-1].values
        if "mem_used_bytes" in v:
            return self.tr("VRAM {0} / {1}").format(
                format_bytes(v["mem_used_bytes"]), format_bytes(v.get("mem_total_bytes"))
            )
        if "rss_bytes" in v:
            return self.tr("RAM {0} (console + engine) · system {1} / {2}").format(
                format_bytes(v["rss_bytes"]),
                format_bytes(v.get("ram_used_bytes")),
                format_bytes(v.get("ram_total_bytes")),
            )
        return ""

    def _refresh_status_bar(self) -> None:
        st = self._status
        text = self.state_text()
        self.state_label.setText(text if len(text) <= 90 else text[:87] + "…")
        ready = st.info if st.state == EngineState.READY else None  # hover "Ready": where the load's time went
        summary = phases_summary(ready.load_phases, ready.load_seconds) if ready is not None else ""
        self.state_label.setToolTip(st.error or st.stage or summary)
        colour = STATE_COLOURS.get(st.state)  # the stylesheet is set only when it changes (a relayout)
        set_themed_style(
            self.state_label, lambda c: f"color: {colour(c)}; font-weight: bold;" if colour else "font-weight: bold;"
        )
        self.model_label.setText(self.tr("Model: {0}").format(st.model or "—"))
        self.preset_label.setText(self.tr("Preset: {0}").format(self.ctx.state.selection.preset or "—"))
        self.memory_label.setText(self.memory_text())
        for w in (self.model_label, self.preset_label, self.memory_label):
            w.setToolTip(w.text())
        rate = self.ctx.metrics.rate("generation_tokens", window_s=3.0)
        self.rate_label.setText(self.tr("{0} tok/s").format(format_number(rate, 1)))

    def _on_status_timer_timeout(self) -> None:
        self._refresh_status_bar()

    def _on_server_address_changed(self, url: str) -> None:
        self.address_label.setText(self.tr("Server: {0}").format(url) if url else "")
        self.address_label.setVisible(bool(url))

    def _on_bridge_status_changed(self, status: EngineStatus) -> None:
        if status.state == EngineState.LOADING and self._status.state != EngineState.LOADING:
            self._loading_since = time.monotonic()
        self._status = status
        info = status.info
        if status.state == EngineState.READY and info is not None and info.device == "cpu" and info.dtype:
            self.device_label.setText(self.tr("Device: CPU · {0}").format(info.dtype))
            self.device_label.setToolTip(info.dtype_note)
        title = self.tr("Inference Console")
        ready = status.state == EngineState.READY and status.model
        self.setWindowTitle(f"{title} — {status.model}" if ready else title)
        self._refresh_status_bar()

    def _on_state_selection_changed(self, _chosen: Selection) -> None:
        self._refresh_status_bar()

    def _stop_panels(self) -> None:
        """Stop the panels' GUI timers (monitor redraw) and the Advisor's /metrics server (its
        port is freed) before closing."""
        if self.monitor is not None:
            self.monitor.stop()
        self.advisor.stop()

    # -- shutdown -------------------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if self.chat.saving.when_idle(self.close):  # a message's pictures being written: kept first
            event.ignore()
            return
        if self._shutdown_done or not self.owns_engine:
            if not self._shutdown_done:
                self.save_settings()
                self._stop_panels()
            event.accept()
            return
        event.ignore()
        if self._shutdown_thread is not None:
            return  # already shutting down
        self.save_settings()
        self.chat.stop()
        self._stop_panels()
        central = self.centralWidget()
        if central is not None:
            central.setEnabled(False)
        self.dock.setEnabled(False)
        self.statusBar().showMessage(self.tr("Shutting down the engine…"))
        ctx = self.ctx

        batch = self.batch
        tools = self.chat.session.tools

        def shutdown() -> None:
            try:
                tools.close()  # the chat's MCP servers (no Qt calls)
                if batch is not None:
                    batch.shutdown()  # cancels and joins its worker (no Qt calls): fine off the GUI thread
                ctx.sampler.stop()
                ctx.engine.close()
            except Exception:
                log.exception("shutdown failed")

        self._shutdown_thread = threading.Thread(target=shutdown, name="console-shutdown", daemon=True)
        self._shutdown_thread.start()
        poll = QTimer(self)
        poll.setInterval(50)

        def check() -> None:
            if self._shutdown_thread is not None and not self._shutdown_thread.is_alive():
                poll.stop()
                self._shutdown_done = True
                self.shutdownFinished.emit()
                self.close()

        poll.timeout.connect(check)
        poll.start()
