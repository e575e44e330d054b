"""Read an existing ``vllm serve`` YAML or command line back into a console preset.

Keys the console's :class:`~console.config.EngineConfig` knows go into the preset's ``[engine]``;
serving keys (model, host, port, ...) are reported as "not stored in a preset"; everything else is
reported as unknown. Nothing is dropped silently. A YAML that writes a boolean with underscores and
``false`` gets a warning: ``vllm serve`` itself ignores such a line
(``tests/test_export_roundtrip.py``), so the server it came from did not run with that setting,
whatever the file says.
"""

from __future__ import annotations

import datetime as _dt
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args, get_type_hints

import yaml

from console.atomic import atomic_write_text
from console.config import SPECULATIVE_FIELDS, EngineConfig
from console.presets import Preset, PresetError, load_preset_file, user_presets_dir, validate_engine_values
from console.schema import engine_schema, value_message
from console.speed import unfold_speculative

#: vLLM's short options, for the fields a preset can hold.
SHORT_OPTIONS = {"-tp": "tensor-parallel-size", "-pp": "pipeline-parallel-size", "-q": "quantization"}
#: Keys ``vllm serve`` knows that belong to the server, not to an engine preset.
SERVING_KEYS = {
    "model",
    "served-model-name",
    "tokenizer",
    "host",
    "port",
    "api-key",
    "distributed-executor-backend",
    "config",
    "uvicorn-log-level",
    "disable-log-requests",
    "enable-log-requests",
    "headless",
    "lora-modules",
}  # adapter paths: this machine's, not a preset's
_ENGINE_KEYS = (
    {name.replace("_", "-") for name in EngineConfig.field_names()}
    - SERVING_KEYS
    - {"device"}
    - {name.replace("_", "-") for name in SPECULATIVE_FIELDS}
)
_HINTS = get_type_hints(EngineConfig)
_NAME_RE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class ImportResult:
    preset: Preset
    model: str | None = None
    serving: dict[str, Any] = field(default_factory=dict)
    unknown: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def report_lines(self) -> list[str]:
        engine = ", ".join(f"{k}={v}" for k, v in sorted(self.preset.engine.items()))
        lines = [f"preset '{self.preset.name}': " + (engine or "no engine settings")]
        if self.serving:
            lines.append(
                "not stored in a preset (serving options): "
                + ", ".join(f"{k}={'***' if k == 'api-key' else v}" for k, v in self.serving.items())
            )
        if self.unknown:
            lines.append(
                "NOT imported (the console has no setting for them): "
                + ", ".join(f"{k}={v}" for k, v in self.unknown.items())
            )
        lines += [f"warning: {w}" for w in self.warnings]
        return lines


def _convert(key: str, value: Any) -> Any:
    """A command-line string (or YAML scalar) as the type EngineConfig declares for ``key``:
    the preset schema's field, validated in pydantic's lax mode ("4096" -> 4096, "on" -> True)."""
    from pydantic import ValidationError

    name = key.replace("-", "_")
    try:
        return getattr(engine_schema().model_validate({name: value}, strict=False), name)
    except ValidationError as exc:
        raise PresetError(value_message(exc.errors()[0], key, value)) from None


def _sort(raw: list[tuple[str, Any, str]], source: str, name: str | None) -> ImportResult:
    """``raw`` is (key as written, value, origin) in order; later entries win, as in argparse."""
    engine: dict[str, Any] = {}
    result = ImportResult(preset=Preset(name="?"))
    for written, value, origin in raw:
        key = written.lstrip("-").replace("_", "-")
        if key == "speculative-config":  # one JSON flag, several console fields
            try:
                engine.update(unfold_speculative(value, source))
            except ValueError as exc:
                raise PresetError(str(exc)) from None
        elif key in _ENGINE_KEYS:
            try:
                engine[key.replace("-", "_")] = _convert(key, value)
            except PresetError as exc:
                raise PresetError(f"{source}: {exc}") from None
            if origin == "yaml" and "_" in written and value is False:
                result.warnings.append(
                    f"'{written}: false' uses underscores: `vllm serve --config` ignores that line, so the "
                    f"server this came from ran with {key} at vLLM's default. The preset keeps what the file "
                    f"says ({key.replace('-', '_')} = false); exports write it dashed, so it takes effect."
                )
        elif key in SERVING_KEYS:
            if key == "model":
                result.model = str(value)
            result.serving[key] = value
        else:
            result.unknown[key] = value
    validate_engine_values(engine, source)
    stem = name or str(result.serving.get("served-model-name") or Path(result.model or source).name)
    preset_name = _NAME_RE.sub("-", stem if name else f"imported-{stem}").strip("-.")[:64] or "imported"
    when = _dt.date.today().isoformat()
    result.preset = Preset(
        name=preset_name, description=f"Imported from {source} on {when}", goal="balanced", gpu="any", engine=engine
    )
    return result


def _yaml_items(path: Path) -> list[tuple[str, Any, str]]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise PresetError(f"{path}: cannot read it ({exc})") from None
    except yaml.YAMLError as exc:
        raise PresetError(f"{path}: not valid YAML ({exc})") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise PresetError(f"{path}: a `vllm serve --config` file is a mapping of option: value")
    items = []
    for key, value in data.items():
        if isinstance(value, list) and key.replace("_", "-") == "served-model-name":
            value = value[0] if value else None
        items.append((str(key), value, "yaml"))
    return items


def import_yaml(path: str | Path, name: str | None = None) -> ImportResult:
    path = Path(path)
    return _sort(_yaml_items(path), str(path), name)


def _command_items(command: str, base: Path) -> tuple[list[tuple[str, Any, str]], list[str]]:
    tokens = shlex.split(command.replace("\\\n", " "))
    notes: list[str] = []
    # Skip the program: `vllm serve`, `python -m vllm.entrypoints.openai.api_server`, env assignments.
    while tokens and (re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", tokens[0]) or tokens[0] in ("exec", "env")):
        tokens.pop(0)
    if tokens[:2] == ["vllm", "serve"] or (tokens[:1] and tokens[0].endswith("/vllm") and tokens[1:2] == ["serve"]):
        tokens = tokens[2:]
    elif len(tokens) >= 3 and tokens[0].startswith("python") and tokens[1] == "-m":
        tokens = tokens[3:]
    items: list[tuple[str, Any, str]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if not tok.startswith("-"):
            items.append(("model", tok, "cli"))
            continue
        if tok in SHORT_OPTIONS:
            tok = "--" + SHORT_OPTIONS[tok]
        key, eq, inline = tok.lstrip("-").partition("=")
        key = key.replace("_", "-")
        if eq:
            items.append((key, inline, "cli"))
            continue
        is_bool = _is_flag(key)
        if key.startswith("no-") and _is_flag(key[3:]):
            items.append((key[3:], False, "cli"))
            continue
        values: list[str] = []
        while (
            not is_bool
            and i < len(tokens)
            and not _is_option(tokens[i])
            and (not values or key in ("served-model-name", "api-key"))
        ):
            values.append(tokens[i])
            i += 1
        if key == "config" and values:
            cfg = Path(values[0]) if Path(values[0]).is_absolute() else base / values[0]
            if cfg.is_file():
                items = _yaml_items(cfg) + items  # the command line wins over the file
            else:
                notes.append(f"--config {values[0]} was not found, its settings are not imported")
            continue
        items.append((key, values[0] if len(values) == 1 else (values or True), "cli"))
    return items, notes


def _is_flag(key: str) -> bool:
    """An EngineConfig field typed ``bool`` (or ``bool | None``): a flag that takes no value."""
    hint = _HINTS.get(key.replace("-", "_"))
    return hint is bool or set(get_args(hint)) == {bool, type(None)}


def _is_option(token: str) -> bool:
    return token.startswith("-") and not re.match(r"^-\d", token)


def import_command(command: str, name: str | None = None, base: Path | None = None) -> ImportResult:
    items, notes = _command_items(command, base or Path.cwd())
    result = _sort(items, "the command line", name)
    result.warnings += notes
    return result


def save_preset(result: ImportResult, *, overwrite: bool = False) -> Path:
    """Write the preset to the user's presets folder and read it back (so it is known to load)."""
    folder = user_presets_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{result.preset.name}.toml"
    if path.exists() and not overwrite:
        raise PresetError(
            f"a user preset named '{result.preset.name}' exists ({path}); choose another --name or add --force"
        )
    atomic_write_text(path, result.preset.to_toml())
    loaded = load_preset_file(path)
    result.preset.path = loaded.path
    return path
