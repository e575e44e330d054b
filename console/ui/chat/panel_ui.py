"""The Chat tab's widgets and layout (what Qt Designer's ``setupUi`` would make): the chat is the
page (the transcript and the input in front, the conversation list at the left) and its settings
(system prompt, sampling, output, LoRA, tools) sit in a side panel at the right that folds away
(the Settings button, View > Chat settings). :class:`console.ui.chat.panel.ChatPanel` calls
:func:`setup_ui` once, then connects the widgets to its slots and keeps the chat's behaviour
(intents, streaming, rendering); the widgets become its attributes, by the names the panel and the
tests use. Nothing here knows the panel's class (it is above this module)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from console.ui.chat.adapter_box import AdapterBox
from console.ui.chat.conversation_list import ConversationList
from console.ui.chat.pictures import ImageStrip
from console.ui.chat.input_box import ChatInput
from console.ui.chat.model_combo import ChatModelPicker
from console.ui.chat.output_control import OutputControl
from console.ui.chat.sampling_box import SamplingBox
from console.ui.chat.transcript import TranscriptView
from console.ui.chat.context_meter import ContextMeter
from console.ui.chat.load_banner import LoadBanner
from console.ui.chat.logprob_view import ChoicesView
from console.ui.chat.tools_editor import ToolsEditor
from console.ui.widgets import ErrorLabel, VerticalScroll
from console.ui.theme import text_colour

if TYPE_CHECKING:
    from console.chat.session import ChatSession
    from console.ui.context import AppContext


def _tr(text: str) -> str:
    return QCoreApplication.translate("ChatPanel", text)


class ChatWidgets(QWidget):
    """The Chat panel's widgets, as :func:`setup_ui` makes them (declared here, so the panel that
    subclasses this is typed), and the side panel's fold.

    Signals:
        settingsShownChanged(bool): the side panel of settings was unfolded (True) or folded away.
    """

    settingsShownChanged = Signal(bool)

    conversations: ConversationList
    conversation_list: QListWidget
    new_button: QPushButton
    rename_button: QPushButton
    delete_button: QPushButton
    export_button: QPushButton
    transcript: TranscriptView
    input: ChatInput
    image_strip: ImageStrip
    attach_button: QPushButton
    edit_label: QLabel
    error_label: ErrorLabel
    send_button: QPushButton
    stop_button: QPushButton
    regenerate_button: QPushButton
    edit_button: QPushButton
    continue_button: QPushButton
    think_box: QCheckBox
    system_prompt: QPlainTextEdit
    sampling_box: SamplingBox
    temperature: QDoubleSpinBox
    top_p: QDoubleSpinBox
    top_k: QSpinBox
    max_tokens: QSpinBox
    repetition_penalty: QDoubleSpinBox
    seed: QSpinBox
    stop_strings: QPlainTextEdit
    output: OutputControl
    choices_view: ChoicesView
    context_bar: ContextMeter
    adapter_box: AdapterBox
    tools_box: ToolsEditor
    model_picker: ChatModelPicker
    load_banner: LoadBanner
    splitter: QSplitter
    side_panel: VerticalScroll
    settings_button: QPushButton

    def set_settings_shown(self, shown: bool) -> None:
        """Unfold the side panel of settings (or fold it away: the transcript takes its room)."""
        changed = shown != self.settings_shown()
        self.side_panel.setVisible(shown)
        self.splitter.refresh()  # its minimum width follows at once (before the window first shows too)
        self.settings_button.setChecked(shown)
        if changed:
            self.settingsShownChanged.emit(shown)

    def settings_shown(self) -> bool:
        return not self.side_panel.isHidden()


def setup_ui(panel: ChatWidgets, ctx: AppContext, session: ChatSession) -> None:
    """Make the panel's widgets (its attributes, parented to it) and lay them out; the panel then
    connects them to its slots."""
    build_widgets(panel, ctx, session)
    build_layout(panel, ctx)


def build_widgets(panel: ChatWidgets, ctx: AppContext, session: ChatSession) -> None:
    panel.conversations = ConversationList(panel)
    panel.conversation_list = panel.conversations.list
    c = panel.conversations
    panel.new_button, panel.rename_button = c.new_button, c.rename_button
    panel.delete_button, panel.export_button = c.delete_button, c.export_button

    panel.transcript = TranscriptView(panel)
    panel.input = ChatInput(panel)  # Enter sends, Shift+Enter breaks the line (or the Ctrl+Enter way)
    panel.image_strip = ImageStrip(panel)  # the pictures going with the next message
    # an icon beside Think (the row is at its width limit on a 1366 px laptop screen), named for screen readers
    panel.attach_button = QPushButton(panel)
    panel.attach_button.setIcon(panel.style().standardIcon(QStyle.StandardPixmap.SP_DialogOpenButton))
    panel.attach_button.setAccessibleName(_tr("Attach picture…"))
    panel.attach_button.setToolTip(
        _tr("Attach pictures to your message (or paste one, or drop it here); for models that take images")
    )
    panel.edit_label = QLabel(panel)
    text_colour(panel.edit_label, lambda c: c.warning)
    panel.edit_label.hide()
    panel.error_label = ErrorLabel(panel)
    panel.send_button = QPushButton(_tr("Send"), panel)
    panel.stop_button = QPushButton(_tr("Stop"), panel)
    panel.stop_button.setToolTip(_tr("Stop the answer (Esc)"))
    panel.regenerate_button = QPushButton(_tr("Regenerate"), panel)
    panel.edit_button = QPushButton(_tr("Edit last"), panel)
    panel.continue_button = QPushButton(_tr("Continue"), panel)
    panel.continue_button.setToolTip(_tr("Go on with the last answer where max tokens or Stop cut it"))
    panel.edit_button.setToolTip(
        _tr("Put your last message back in the box; sending replaces it and the answers after it")
    )
    panel.think_box = QCheckBox(_tr("Think"), panel)  # shown where the template has a thinking switch
    panel.think_box.setChecked(True)
    panel.think_box.setToolTip(
        _tr("Let the model think before it answers (its template's thinking switch); the thinking shows apart")
    )
    panel.think_box.hide()

    panel.system_prompt = QPlainTextEdit(panel)
    panel.system_prompt.setPlaceholderText(_tr("System prompt (optional)"))
    panel.system_prompt.setMaximumHeight(90)
    panel.sampling_box = SamplingBox(panel)
    box = panel.sampling_box  # its knobs, by their names here too
    panel.temperature, panel.top_p, panel.top_k = box.temperature, box.top_p, box.top_k
    panel.max_tokens, panel.repetition_penalty = box.max_tokens, box.repetition_penalty
    panel.seed, panel.stop_strings = box.seed, box.stop_strings

    panel.output = OutputControl(panel)  # structured output, logprobs, n
    panel.choices_view = ChoicesView(panel)
    panel.context_bar = ContextMeter(panel)
    panel.adapter_box = AdapterBox(ctx, panel)  # LoRA: which adapter answers
    panel.tools_box = ToolsEditor(session, panel)  # function tools, per conversation


def build_layout(panel: ChatWidgets, ctx: AppContext) -> None:
    centre = QWidget(panel)
    cv = QVBoxLayout(centre)
    cv.setContentsMargins(0, 0, 0, 0)
    panel.model_picker, panel.load_banner = ChatModelPicker(centre), LoadBanner(ctx, centre)
    panel.settings_button = QPushButton(_tr("Settings"), centre)
    panel.settings_button.setCheckable(True)
    panel.settings_button.setChecked(True)
    panel.settings_button.setToolTip(
        _tr("Show or hide the chat's settings: system prompt, sampling, output, adapter, tools (Ctrl+Shift+S)")
    )
    top = QHBoxLayout()
    top.addWidget(panel.model_picker, 1)
    panel.context_bar.setMinimumWidth(130)
    panel.context_bar.setMaximumWidth(260)  # how full the context is stays in sight when the settings fold
    top.addWidget(panel.context_bar)
    top.addWidget(panel.settings_button)
    cv.addLayout(top)
    cv.addWidget(panel.load_banner)
    cv.addWidget(panel.transcript, 1)
    cv.addWidget(panel.choices_view, 1)
    cv.addWidget(panel.error_label)
    cv.addWidget(panel.edit_label)
    cv.addWidget(panel.image_strip)
    cv.addWidget(panel.input)
    buttons = QHBoxLayout()
    for b in (panel.send_button, panel.stop_button, panel.continue_button, panel.regenerate_button, panel.edit_button):
        buttons.addWidget(b)
    buttons.addStretch(1)
    buttons.addWidget(panel.attach_button)
    buttons.addWidget(panel.think_box)
    cv.addLayout(buttons)

    right = QWidget(panel)
    rv = QVBoxLayout(right)
    rv.setContentsMargins(0, 0, 0, 0)
    sys_box = QGroupBox(_tr("System prompt"), right)
    QVBoxLayout(sys_box).addWidget(panel.system_prompt)
    rv.addWidget(sys_box)
    rv.addWidget(panel.sampling_box)
    rv.addWidget(panel.output)
    rv.addWidget(panel.adapter_box)
    rv.addWidget(panel.tools_box)
    rv.addStretch(1)

    panel.side_panel = VerticalScroll(right, panel)  # it scrolls on a laptop
    panel.splitter = QSplitter(Qt.Orientation.Horizontal, panel)
    for w in (panel.conversations, centre, panel.side_panel):
        panel.splitter.addWidget(w)
    for index, factor in enumerate((0, 1, 0)):
        panel.splitter.setStretchFactor(index, factor)
        panel.splitter.setCollapsible(index, index == 0)  # the chat and its settings fold by the button
    panel.splitter.setSizes([190, 700, 290])
    panel.settings_button.toggled.connect(panel.set_settings_shown)
    layout = QVBoxLayout(panel)
    layout.setContentsMargins(4, 4, 4, 4)
    layout.addWidget(panel.splitter)
