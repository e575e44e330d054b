"""The engine knobs are described once, as metadata on EngineConfig's fields (console/knobs.py),
and every surface is generated from it: each CLI knob flag of every command, each settings knob
and each row of the window's knobs names one field and says that field's text. A hand-written
copy (a flag added with its own help, a settings field the metadata does not name, a row without
metadata) fails here. No engine."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any, Iterator, get_type_hints

import pytest

from console.cli.knob_flags import add_knob_flags, flag_help
from console.cli.main import build_parser
from console.config import EngineConfig, engine_knobs, window_knobs
from console.knobs import Knob, knob, knobs_of
from console.settings import Knobs, settings_name

#: EngineConfig fields that CLI flags set without being knobs, and why.
NOT_KNOBS = {
    "model": "a store name or folder, not a setting of the engine",
    "seed": "chat/batch/bench's is the requests' sampling seed",
    "served_model_name": "the name clients ask for",
    "trust_remote_code": "`models import` records it per model",
}


def _actions(parser: argparse.ArgumentParser, path: str = "") -> Iterator[tuple[str, argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _actions(sub, f"{path} {name}".strip())
        else:
            yield path, action


def test_every_cli_knob_flag_is_generated_from_its_fields_metadata() -> None:
    knobs, fields = engine_knobs(), {f.name for f in dataclasses.fields(EngineConfig)}
    flags = {k.flag(name): name for name, k in knobs.items()}
    seen: dict[str, set[str]] = {}
    for command, action in _actions(build_parser()):
        for option in action.option_strings:  # a knob's spelling always sets that knob
            assert flags.get(option, action.dest) == action.dest, (command, option)
        if action.dest in fields and action.dest not in knobs:
            assert action.dest in NOT_KNOBS, f"{command}: {action.option_strings} sets a field with no knob metadata"
        if action.dest not in knobs or action.help == argparse.SUPPRESS:  # a deprecated alias is hidden
            continue
        k = knobs[action.dest]
        assert k.flag(action.dest) in action.option_strings, command
        assert action.help and action.help.startswith(flag_help(k)), (command, action.dest, action.help)
        seen.setdefault(action.dest, set()).add(command)
    # the commands that take engine knobs take them all from the metadata
    assert {"chat", "batch", "bench", "plan"} <= seen["max_model_len"] and "export" in seen["max_model_len"]
    assert {"chat", "plan"} <= seen["kv_cache_dtype"] and {"chat", "plan"} <= seen["speculative_method"]
    offered = set(seen) | set(window_knobs())  # no knob described and offered nowhere
    assert offered == set(knobs), set(knobs) - offered


def test_the_settings_knobs_are_the_window_knobs_in_their_metadatas_names_and_units() -> None:
    hints, settings_hints = get_type_hints(EngineConfig), get_type_hints(Knobs)
    expected = {settings_name(name): name for name in window_knobs()}
    assert [f.name for f in dataclasses.fields(Knobs)] and set(settings_hints) == set(expected)
    for field_name, engine_field in expected.items():
        k = window_knobs()[engine_field]
        if k.settings_unit and k.settings_unit != k.unit:
            assert settings_hints[field_name] == float | None, field_name
        else:  # the engine's type, None for "the preset's"
            assert settings_hints[field_name] == hints[engine_field] | None, field_name


def test_the_settings_convert_by_the_unit_the_metadata_says() -> None:
    knobs = Knobs(kv_cache_gib=2.0, kv_offloading_gib=3.0, max_num_seqs=8, speculative_method="ngram")
    assert knobs.overrides() == {
        "kv_cache_memory_bytes": 2 * 1024**3,  # GiB in the settings, bytes in the engine
        "kv_offloading_size": 3.0,  # GiB in both
        "max_num_seqs": 8,
        "speculative_method": "ngram",
        "num_speculative_tokens": 4,  # n-gram over a preset without draft tokens
    }
    back, skipped = Knobs().with_change({"kv_cache_memory_bytes": 3 * 1024**3, "block_size": 16, "max_num_seqs": 2})
    assert (back.kv_cache_gib, back.max_num_seqs, skipped) == (3.0, 2, ["block_size"])
    assert Knobs(kv_cache_gib=1.5).with_change({"kv_cache_memory_bytes": None})[0].kv_cache_gib is None


def test_the_window_rows_are_the_window_knobs_with_their_texts(qtbot: Any) -> None:
    pytest.importorskip("pytestqt")
    from console.ui.models.knobs_box import KNOB_KEYS, KnobsBox

    box = KnobsBox()
    qtbot.addWidget(box)
    assert set(box.rows) == set(window_knobs()) == set(KNOB_KEYS)
    for key, (_form, widget) in box.rows.items():
        k = window_knobs()[key]
        assert widget.toolTip().startswith(k.help) and k.why in widget.toolTip(), key
        assert box.advanced.isAncestorOf(widget) == k.advanced, key


def test_metadata_on_a_field_is_all_a_new_knob_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A field with knob metadata gets its flag from the one generator (a subclass stands in for
    EngineConfig with one more field)."""

    @dataclasses.dataclass
    class Wider(EngineConfig):
        swap_space: float | None = dataclasses.field(
            default=None, metadata=knob(help="Host memory for swapped-out requests.", unit="GiB", device="gpu")
        )

    import console.cli.knob_flags as knob_flags

    assert "swap_space" in knobs_of(Wider) and "swap_space" not in engine_knobs()
    monkeypatch.setattr(knob_flags, "EngineConfig", Wider)
    monkeypatch.setattr(knob_flags, "engine_knobs", lambda: knobs_of(Wider))
    p = argparse.ArgumentParser()
    add_knob_flags(p, ["swap_space", "enforce_eager"], defaults={"enforce_eager": False})
    action = next(a for a in p._actions if a.dest == "swap_space")
    assert action.option_strings == ["--swap-space"] and action.metavar == "GIB" and action.type is float
    assert action.help == "Host memory for swapped-out requests (GPU only)"
    args = p.parse_args(["--swap-space", "4", "--enforce-eager"])
    assert (args.swap_space, args.enforce_eager) == (4.0, True)
    assert isinstance(knobs_of(Wider)["swap_space"], Knob)


def test_a_new_window_knob_is_one_field(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """One field with window-knob metadata is a range for every check, a settings field in its
    unit and a row of the window with its label, range, step and tooltip: nothing else is written
    for it (a subclass stands in for EngineConfig with one more field)."""
    pytest.importorskip("pytestqt")
    import console.config as config
    import console.knob_help as knob_help
    import console.settings as settings
    import console.ui.models.knobs_box as knobs_box
    from PySide6.QtWidgets import QDoubleSpinBox

    # the tables every check reads are the metadata's, nothing added by hand
    assert config.ENGINE_LIMITS == config.limits_of(EngineConfig)
    assert config.ENGINE_CHOICES == config.choices_of(EngineConfig)

    @dataclasses.dataclass
    class Wider(EngineConfig):
        swap_space: float | None = dataclasses.field(
            default=None,
            metadata=knob(
                help="Host memory for swapped-out requests.",
                unit="GiB",
                device="gpu",
                window=True,
                advanced=True,
                label="Swap space:",
                step=2.0,
                settings_name="swap_gib",
                ge=0,
                le=64,
                default_4090="off",
                why="Preempted requests resume without recomputing.",
            ),
        )

    assert config.limits_of(Wider)["swap_space"] == {"ge": 0, "le": 64}
    monkeypatch.setattr(config, "EngineConfig", Wider)
    monkeypatch.setattr(settings, "EngineConfig", Wider)
    assert "swap_space" in config.window_knobs() and settings.settings_name("swap_space") == "swap_gib"
    # the settings' field, in the settings' unit and checked by the knob's range
    fields = {name: kind for name, kind, _f in settings.knob_fields()}
    assert fields["swap_gib"] == float | None
    monkeypatch.setattr(settings, "ENGINE_LIMITS", config.limits_of(Wider))
    assert settings.knob_limits()["swap_gib"] == {"ge": 0, "le": 64}
    wider_knobs = dataclasses.make_dataclass("Knobs", settings.knob_fields(), bases=(settings.KnobValues,))
    assert wider_knobs(swap_gib=8.0).overrides() == {"swap_space": 8.0}
    # the window's row
    monkeypatch.setattr(knob_help, "KNOB_HELP", config.window_knobs())
    monkeypatch.setattr(knobs_box, "KNOB_HELP", config.window_knobs())
    monkeypatch.setattr(knobs_box, "EngineConfig", Wider)
    monkeypatch.setattr(knobs_box, "ENGINE_LIMITS", config.limits_of(Wider))
    monkeypatch.setattr(knobs_box, "Knobs", wider_knobs)
    box = knobs_box.KnobsBox()
    qtbot.addWidget(box)
    form, widget = box.rows["swap_space"]
    assert isinstance(widget, QDoubleSpinBox) and (widget.maximum(), widget.singleStep()) == (64.0, 2.0)
    assert widget.suffix() == " GiB" and form.labelForField(widget).text() == "Swap space:"
    assert widget.toolTip().startswith("Host memory for swapped-out requests.") and box.advanced.isAncestorOf(widget)
    assert box.knob_names()["swap_space"] == "Swap space"
    widget.setValue(4.0)
    assert box.knobs().swap_gib == 4.0 and box.overrides()["swap_space"] == 4.0
    box.set_device(gpu=False)
    assert not box.row_shown("swap_space")


def test_the_plan_command_takes_the_engines_quantizations() -> None:
    from console.cli.plan import PLAN_QUANTIZATIONS
    from console.config import ENGINE_CHOICES

    assert set(PLAN_QUANTIZATIONS) <= set(ENGINE_CHOICES["quantization"])
