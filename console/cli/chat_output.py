"""``chat``'s output flags (``--json-schema FILE``, ``--choice``, ``--regex``, ``--grammar``,
``--logprobs N``, ``-n``) and how the extra answers and log-probabilities are printed."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, Sequence

from console.cli.common import CliError
from console.engine.choices import Choice
from console.engine.openai_body import output_fields


def add_output_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("output (structured outputs, logprobs, several answers; as vLLM's OpenAI API)")
    g.add_argument("--json-schema", metavar="FILE", help="answer as JSON valid against the schema in FILE")
    g.add_argument("--json-object", action="store_true", help="answer as a JSON object (any shape)")
    g.add_argument("--choice", action="append", metavar="TEXT", help="answer with exactly one of these (repeatable)")
    g.add_argument("--regex", help="answer matching this regular expression")
    g.add_argument("--grammar", metavar="FILE", help="answer following the EBNF/GBNF grammar in FILE")
    g.add_argument(
        "--logprobs",
        type=int,
        metavar="N",
        help="print each token's log-probability and its N likeliest alternatives (0-20)",
    )
    g.add_argument("-n", type=int, default=None, help="number of answers (needs a temperature above 0)")
    g.add_argument(
        "--think",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="switch the model's thinking on or off where its template has the switch (Qwen3: "
        "chat_template_kwargs enable_thinking); default: the template's own",
    )


def _read(path: str, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot read the {what} {path}: {exc.strerror or exc}") from None


def output_fields_from_args(args: argparse.Namespace) -> dict[str, Any]:
    schema = None
    if getattr(args, "json_schema", None):
        try:
            schema = json.loads(_read(args.json_schema, "JSON schema"))
        except json.JSONDecodeError as exc:
            raise CliError(f"{args.json_schema} is not valid JSON: {exc.msg} (line {exc.lineno})") from None
    grammar = _read(args.grammar, "grammar") if getattr(args, "grammar", None) else None
    fields = output_fields(
        json_schema=schema,
        json_object=bool(getattr(args, "json_object", False)),
        choice=getattr(args, "choice", None),
        regex=getattr(args, "regex", None),
        grammar=grammar,
        logprobs=getattr(args, "logprobs", None),
        n=getattr(args, "n", None),
    )
    if getattr(args, "think", None) is not None:  # reaches the template through vLLM's chat preprocessing
        fields["chat_template_kwargs"] = {"enable_thinking": bool(args.think)}
    return fields


def logprob_lines(choice: Choice) -> list[str]:
    """One line per token: probability, the token, and its alternatives."""
    lines = []
    for step in choice.logprobs or ():
        p = "   ?  " if step.logprob is None else f"{100 * math.exp(step.logprob):5.1f}%"
        alts = ", ".join(f"{t!r} {100 * math.exp(v):.1f}%" for t, v in step.top if t != step.token)
        lines.append(f"  {p} {step.token!r}" + (f"   (also: {alts})" if alts else ""))
    return lines


def print_choices(choices: Sequence[Choice]) -> None:
    """Answers after the first (streamed already), then the logprobs of each, on stderr/stdout."""
    for c in choices[1:]:
        print(f"--- answer {c.index + 1} (finish: {c.finish_reason})", file=sys.stderr)
        sys.stdout.write(c.text + "\n")
    for c in choices:
        if c.logprobs is not None:
            print(f"--- logprobs, answer {c.index + 1}", file=sys.stderr)
            print("\n".join(logprob_lines(c)), file=sys.stderr)
