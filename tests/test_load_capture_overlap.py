"""Two loads' log captures that overlap (a family engine started ahead while another loads, a
model kept warm): vLLM reads VLLM_LOGGING_CONFIG_PATH when a process starts, so the variable must
never be left pointing at a capture that has ended (its folder is removed: every vLLM process
started afterwards refused to start, "Could not load logging config. File does not exist"), and a
child the console starts itself (``vllm serve``) gets the user's value, not a load's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from console import children
from console.engine import load_capture

VAR = "VLLM_LOGGING_CONFIG_PATH"


@pytest.mark.parametrize("user_value", [None, "user"])
def test_overlapping_captures_leave_the_users_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, user_value: str | None
) -> None:
    monkeypatch.delenv("VLLM_CONFIGURE_LOGGING", raising=False)
    if user_value is None:
        monkeypatch.delenv(VAR, raising=False)
    else:
        own = tmp_path / "own-logging.json"
        own.write_text('{"version": 1, "disable_existing_loggers": false}', encoding="utf-8")
        monkeypatch.setenv(VAR, str(own))
    before = os.environ.get(VAR)

    first = load_capture.capture_logs()
    a = first.__enter__()
    second = load_capture.capture_logs()
    b = second.__enter__()
    assert os.environ[VAR] != before and Path(os.environ[VAR]).is_file()
    assert children.child_env().get(VAR) == before  # a child of ours gets the user's value meanwhile

    first.__exit__(None, None, None)  # the first load ends while the second is still building
    a.close()
    assert Path(os.environ[VAR]).is_file()  # still a capture that exists: the second one's
    assert b.folder is not None and os.environ[VAR] == str(b.folder / "logging.json")

    second.__exit__(None, None, None)
    b.close()
    assert os.environ.get(VAR) == before
    assert children.child_env().get(VAR) == before


def test_a_capture_that_ends_while_another_load_builds_keeps_its_files_until_no_load_builds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A process the second load started while the variable named the first capture (its engine
    core) reads that path again when it starts its own (its worker): the first capture's files
    stay while any load builds, then go. (A family engine built ahead of its tests failed so,
    "Could not load logging config. File does not exist", when the other load ended first.)"""
    monkeypatch.delenv("VLLM_CONFIGURE_LOGGING", raising=False)
    monkeypatch.delenv(VAR, raising=False)
    first = load_capture.capture_logs()
    a = first.__enter__()
    second = load_capture.capture_logs()
    b = second.__enter__()
    assert a.folder is not None and b.folder is not None
    a_config, b_config = a.folder / "logging.json", b.folder / "logging.json"

    second.__exit__(None, None, None)  # the second load ends first, and records what it logged
    b.close()
    assert b.folder is None and b_config.is_file()  # the first load's processes may have its path
    first.__exit__(None, None, None)
    assert not b_config.exists()  # no load builds now
    a.close()
    assert not a_config.exists() and not a_config.parent.exists() and not b_config.parent.exists()
