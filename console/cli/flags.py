"""What the CLI's flags mean and how it talks about them: one meaning per flag across commands
(an old spelling stays as a hidden alias that prints a deprecation note), argparse errors as one
line naming the flag and the way out ("did you mean"), and the cheap checks (model name, preset,
file) a command runs before anything slow (vLLM's import, an engine load)."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path
from typing import Any, NoReturn

from console.cli.common import CliError
from console.engine.factory import parse_engine_choice
from console.models.store import ModelStore
from console.launch import default_model_name, resolve_preset
from console.presets import PresetError


class ConsoleArgumentParser(argparse.ArgumentParser):
    """argparse with one-line errors: ``error: plan: unrecognized arguments: --concurency; did you
    mean --users? (inference-console plan --help)``, exit code 2, no usage block."""

    #: the command line being parsed (``main`` sets it; else ``sys.argv``)
    argv: list[str] | None = None

    def error(self, message: str) -> NoReturn:
        options, sub = self._options()
        hint = self._did_you_mean(message, options)
        prog = sub.prog if sub is not None and message.startswith("unrecognized") else self.prog
        command = prog.split(" ", 1)[1] if " " in prog else ""
        where = f"{command}: " if command else ""
        self.exit(2, f"error: {where}{message}{hint} ({prog} --help lists them)\n")

    def _did_you_mean(self, message: str, options: dict[str, str]) -> str:
        if message.startswith("unrecognized arguments:"):
            for word in message.split(":", 1)[1].split():
                if word.startswith("-"):
                    close = difflib.get_close_matches(word.split("=", 1)[0], list(options), n=1, cutoff=0.6)
                    if close:
                        return f"; did you mean {options[close[0]]}?"
            return ""
        if "invalid choice:" in message:
            try:
                bad = message.split("invalid choice:", 1)[1].split("'")[1]
            except IndexError:
                return ""
            choices = [c for a in self._actions if a.choices for c in a.choices]
            close = difflib.get_close_matches(bad, [str(c) for c in choices], n=1, cutoff=0.6)
            return f"; did you mean '{close[0]}'?" if close else ""
        return ""

    def _options(self) -> tuple[dict[str, str], argparse.ArgumentParser | None]:
        """Each option string of this parser and of the subcommand named on the command line (the
        top parser reports a subcommand's unknown flags) -> the flag to suggest for it (an old
        spelling's new one); and that subcommand's parser."""
        actions, chosen = list(self._actions), None
        argv = self.argv if self.argv is not None else sys.argv[1:]
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    if name in argv and chosen is None:
                        chosen = sub
                        actions += sub._actions
        return ({s: a.new if isinstance(a, _Deprecated) else s for a in actions for s in a.option_strings}, chosen)


class _Deprecated(argparse.Action):
    """An old spelling: sets the new flag's value and says which flag to use now."""

    def __init__(self, option_strings: list[str], dest: str, new: str = "", **kwargs: Any) -> None:
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        command = parser.prog.split(" ", 1)[-1]
        print(f"note: {option_string} is deprecated in `{command}`; use {self.new} (same meaning)", file=sys.stderr)
        setattr(namespace, self.dest, values)


def deprecated_alias(p: argparse.ArgumentParser, old: str, new: str, dest: str, **kwargs: Any) -> None:
    """``old`` keeps working as ``new`` (same ``dest``), hidden from --help, with a note when used."""
    p.add_argument(
        old, dest=dest, action=_Deprecated, new=new, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **kwargs
    )


def check_model_and_preset(args: argparse.Namespace, folder_ok: bool = False) -> None:
    """``--model`` names a model in the store (or, with ``folder_ok``, a folder with config.json)
    and ``--preset`` a preset; CliError naming the flag, the closest name and the way out. Runs
    in well under a second: before vLLM is imported or an engine loads."""

    try:
        if not parse_engine_choice(getattr(args, "engine", "local")).needs_model:
            return  # a remote server serves its own model
    except ValueError as exc:
        raise CliError(f"--engine: {exc}") from None
    name = getattr(args, "model", None) or default_model_name()
    store = ModelStore()
    if name not in store and not (folder_ok and (Path(name) / "config.json").is_file()):
        names = [e.name for e in store.list()]
        close = difflib.get_close_matches(name, names, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f" (known: {', '.join(names) or 'none'})"
        raise CliError(
            f"--model: No model named '{name}' in the store{hint} "
            "(`inference-console models list` lists them, `models import` adds one)"
        )
    try:
        resolve_preset(getattr(args, "preset", None))
    except PresetError as exc:
        raise CliError(f"--preset: {exc} (`inference-console presets list` lists them)") from None


def check_file(path: str | None, flag: str) -> None:
    """An input file a flag names exists (before anything slow)."""
    if path and not path.startswith(("http://", "https://")) and not Path(path).is_file():
        raise CliError(f"{flag}: {path} does not exist")


__all__ = ["ConsoleArgumentParser", "check_file", "check_model_and_preset", "deprecated_alias"]
