"""The Chat tab says what the loaded model cannot take before anything is typed: tools (and MCP)
greyed out with the reason when its chat template cannot run them, the Attach button greyed out
with the reason for a text-only model; both come back for a model that can. A picture's red line
goes with the picture.

On the real CPU engines: the session's tiny model (a ChatML template with no tools branch, text
only) and the Qwen3 family fixture (a template that renders tools); the engine reports both in
its ``EngineInfo``."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from PySide6.QtCore import Qt

from console.engine.types import EngineState

pytestmark = pytest.mark.engine


def _panel(host: Any, qtbot: Any, connections: Any) -> Any:
    from console.ui.chat.panel import ChatPanel

    assert host.status.state == EngineState.READY, host.status
    panel = ChatPanel(connections.context(engine=host))
    qtbot.addWidget(panel)
    panel.resize(1100, 700)
    panel.show()
    return panel


def _tools_usable(panel: Any) -> bool:
    box = panel.tools_box
    return box.enabled.isEnabled() and box.refusal_label.isHidden()


@pytest.mark.parametrize("family", ["qwen3"], indirect=True)
def test_tools_and_pictures_are_greyed_out_with_the_reason_for_a_model_that_cannot_take_them(
    tiny_engine: Any, family: tuple[str, Any], qtbot: Any, home: Path, connections: Any
) -> None:
    _, qwen3 = family
    panel = _panel(tiny_engine, qtbot, connections)
    assert panel.input.toPlainText() == ""  # nothing typed, nothing sent
    box = panel.tools_box
    assert not box.enabled.isEnabled() and not box.mcp.isEnabled()
    assert "never renders `tools`" in box.refusal_label.text() and box.refusal_label.isVisibleTo(panel)
    assert box.enabled.toolTip() == box.refusal_label.text()
    assert not panel.attach_button.isEnabled()
    assert "does not take images" in panel.attach_button.toolTip()

    # The Qwen3 engine's status, as the bridge brings it when that model is loaded: tools come
    # back (its template renders them), pictures stay off (it is text only).
    panel.ctx.bridge.statusChanged.emit(qwen3.status)
    assert qwen3.status.info.tools_refusal is None
    assert _tools_usable(panel)
    box.enabled.setChecked(True)
    assert box.calculator.isEnabled() and box.mcp.isEnabled()
    assert not panel.attach_button.isEnabled()

    # And the tiny model again: greyed out again, its ticked box kept for a model that can.
    panel.ctx.bridge.statusChanged.emit(tiny_engine.status)
    assert not _tools_usable(panel) and not box.calculator.isEnabled()

    # A Qwen3 panel of its own: usable from the start.
    assert _tools_usable(_panel(qwen3, qtbot, connections))


def test_a_vision_model_enables_attach_again_and_a_removed_picture_takes_its_red_line(
    tiny_engine: Any, qtbot: Any, home: Path, connections: Any, tmp_path: Path
) -> None:
    """The re-enabling is a widget-state check: the tiny engine's real status with
    ``takes_images`` set (a stand-in for a vision model's status, not a loaded one)."""
    panel = _panel(tiny_engine, qtbot, connections)
    path = tmp_path / "red.png"
    Image.new("RGB", (40, 20), "red").save(path)
    panel.images.attach_files([str(path)])  # attached before this model was loaded, say
    qtbot.waitUntil(lambda: panel.images.loading == 0, timeout=10_000)
    panel.input.setPlainText("What is this?")
    assert not panel.send()
    line = panel.error_label.text()
    assert "does not take images" in line and panel.error_label.isVisibleTo(panel)
    qtbot.mouseClick(panel.image_strip.buttons()[0], Qt.MouseButton.LeftButton)
    assert panel.error_label.isHidden() and panel.error_label.text() == ""

    status = tiny_engine.status
    vision = dataclasses.replace(status, info=dataclasses.replace(status.info, takes_images=True))
    panel.ctx.bridge.statusChanged.emit(vision)
    assert panel.attach_button.isEnabled() and "does not take images" not in panel.attach_button.toolTip()
    panel.ctx.bridge.statusChanged.emit(status)
    assert not panel.attach_button.isEnabled()
