"""The settings schema behind the window's memory (core, no Qt): round trip, migration from
version 1, and tolerance of corrupt or mistyped files."""

from __future__ import annotations

import json
from pathlib import Path

from console.settings import SCHEMA_VERSION, Settings, load_settings, save_settings, settings_path


def test_defaults_round_trip(home: Path) -> None:
    assert load_settings() == Settings()
    s = Settings(last_model="tiny", last_preset="cpu-default", last_tab=2, window_geometry="AdnQyw==")
    s.sampling.temperature = 0.2
    s.sampling.stop = ["###"]
    s.knobs.max_model_len = 2048
    save_settings(s)
    data = json.loads(settings_path().read_text())
    assert data["schema_version"] == SCHEMA_VERSION
    assert load_settings() == s


def test_migrates_version_1(home: Path) -> None:
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text(
        json.dumps({"schema_version": 1, "last_model": "m", "temperature": 0.3, "max_tokens": 99, "stop": ["END"]})
    )
    s = load_settings()
    assert s.schema_version == SCHEMA_VERSION and s.last_model == "m"
    assert (s.sampling.temperature, s.sampling.max_tokens, s.sampling.stop) == (0.3, 99, ["END"])


def test_wrong_types_and_unknown_keys_fall_back(home: Path) -> None:
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text(
        json.dumps(
            {
                "schema_version": SCHEMA_VERSION,
                "last_tab": "two",
                "bogus": 1,
                "last_model": 5,
                "sampling": {"temperature": "hot", "top_k": 40},
                "knobs": {"max_num_seqs": True},
            }
        )
    )
    s = load_settings()
    assert s.last_tab == 0 and s.last_model is None
    assert s.sampling.temperature is None and s.sampling.top_k == 40  # None: the loaded model's default
    assert s.knobs.max_num_seqs is None


def test_version_3_sampling_at_the_old_default_follows_the_model(home: Path) -> None:
    """Version 3 saved the chat's controls whatever they were: a value equal to the old one
    default (temperature 0.7, top-p 1, top-k off, repetition penalty 1) was that default and now
    follows the loaded model (None); a value the user had changed stays theirs."""
    settings_path().parent.mkdir(parents=True)
    old = {"temperature": 0.7, "top_p": 1.0, "top_k": 0, "repetition_penalty": 1.0, "max_tokens": 0}
    settings_path().write_text(json.dumps({"schema_version": 3, "sampling": old}))
    s = load_settings().sampling
    assert (s.temperature, s.top_p, s.top_k, s.repetition_penalty) == (None, None, None, None)
    settings_path().write_text(json.dumps({"schema_version": 3, "sampling": {**old, "temperature": 0.3, "top_k": 40}}))
    s = load_settings().sampling
    assert (s.temperature, s.top_p, s.top_k, s.repetition_penalty) == (0.3, None, 40, None)


def test_corrupt_file_is_moved_aside(home: Path) -> None:
    settings_path().parent.mkdir(parents=True)
    settings_path().write_text("{not json")
    assert load_settings() == Settings()
    assert settings_path().with_name("settings.json.bad").read_text() == "{not json"
