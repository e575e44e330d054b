"""Write TensorRT-LLM's configuration model as JSON, read from its source without importing it.

    python resources/trtllm/regenerate.py SOURCE --release LABEL [--output FILE]

SOURCE is a TensorRT-LLM checkout (``git clone --depth 1 --branch vX.Y.Z
https://github.com/NVIDIA/TensorRT-LLM``). ``tensorrt_llm/llmapi/llm_args.py`` gives every
pydantic class (its fields, their type as written and their default), the enums and the type
aliases; ``tensorrt_llm/commands/serve.py`` gives the ``trtllm-serve`` options. Python's ``ast``
reads both files: nothing of TensorRT-LLM is imported, so this runs on any machine.

The JSON keeps the release label, the files read and this command, so a reader knows what the
console checks exports against and how to bring it to another release.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path
from typing import Any

LLM_ARGS = "tensorrt_llm/llmapi/llm_args.py"
SERVE = "tensorrt_llm/commands/serve.py"
#: The class a ``trtllm-serve --config`` YAML maps onto (the PyTorch backend's arguments).
ROOT = "TorchLlmArgs"
_ENUM_BASES = {"Enum", "StrEnum", "IntEnum"}


def _literal(node: ast.expr | None) -> Any:
    """A default as JSON: a literal's value, an enum member's name, else the source text."""
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        pass
    if isinstance(node, ast.Attribute):  # SomeEnum.MEMBER
        return {"enum_member": ast.unparse(node)}
    return {"expression": ast.unparse(node)}


def _field_default(value: ast.expr | None) -> dict[str, Any]:
    """``{"default": ...}``, ``{"default_factory": name}`` or ``{"required": True}``."""
    if value is None:
        return {"required": True}
    if isinstance(value, ast.Call) and ast.unparse(value.func) in ("Field", "PydanticField"):
        keywords = {k.arg: k.value for k in value.keywords if k.arg}
        out: dict[str, Any] = {}
        if "default_factory" in keywords:
            out["default_factory"] = ast.unparse(keywords["default_factory"])
        elif "default" in keywords:
            out["default"] = _literal(keywords["default"])
        elif value.args and not (isinstance(value.args[0], ast.Constant) and value.args[0].value is Ellipsis):
            out["default"] = _literal(value.args[0])
        else:
            out["required"] = True
        status = keywords.get("status")
        if isinstance(status, ast.Constant):
            out["status"] = status.value
        alias = keywords.get("alias")
        if isinstance(alias, ast.Constant):
            out["alias"] = alias.value
        return out
    if isinstance(value, ast.Call) and ast.unparse(value.func) == "PrivateAttr":
        return {"private": True}
    return {"default": _literal(value)}


def _class_entry(node: ast.ClassDef) -> dict[str, Any]:
    bases = [ast.unparse(b) for b in node.bases]
    entry: dict[str, Any] = {"bases": bases, "fields": {}, "classvars": {}}
    if _ENUM_BASES & set(bases):
        entry["enum"] = [
            t.id
            for stmt in node.body
            if isinstance(stmt, ast.Assign)
            for t in stmt.targets
            if isinstance(t, ast.Name) and not t.id.startswith("_")
        ]
        entry["values"] = {
            t.id: _literal(stmt.value)
            for stmt in node.body
            if isinstance(stmt, ast.Assign)
            for t in stmt.targets
            if isinstance(t, ast.Name) and not t.id.startswith("_")
        }
        return entry
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            name = stmt.target.id
            annotation = ast.unparse(stmt.annotation)
            if annotation.startswith("ClassVar"):
                entry["classvars"][name] = _literal(stmt.value)
                continue
            if name.startswith("_") or name == "model_config":
                continue
            info = _field_default(stmt.value)
            if info.get("private"):
                continue
            entry["fields"][name] = {"type": annotation, **info}
        elif isinstance(stmt, ast.FunctionDef) and stmt.name == "from_dict":
            dispatch = _dispatch_table(stmt)
            if dispatch:
                entry["dispatch"] = dispatch
    return entry


def _dispatch_table(func: ast.FunctionDef) -> dict[str, str]:
    """``{"NGram": "NGramDecodingConfig", ...}``: the ``config_classes`` dict a ``from_dict`` uses."""
    for stmt in ast.walk(func):
        if (
            isinstance(stmt, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "config_classes" for t in stmt.targets)
            and isinstance(stmt.value, ast.Dict)
        ):
            return {
                ast.literal_eval(k): ast.unparse(v)
                for k, v in zip(stmt.value.keys, stmt.value.values)
                if isinstance(k, ast.Constant)
            }
    return {}


def read_llm_args(text: str) -> dict[str, Any]:
    tree = ast.parse(text)
    classes: dict[str, Any] = {}
    aliases: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            classes[node.name] = _class_entry(node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            if ast.unparse(node.annotation) == "TypeAlias":
                aliases[node.target.id] = ast.unparse(node.value)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    aliases[t.id] = node.value.id  # e.g. LlmArgs = TorchLlmArgs
    if ROOT not in classes:
        raise SystemExit(f"{ROOT} not found: is this TensorRT-LLM's {LLM_ARGS}?")
    return {"classes": classes, "aliases": aliases}


def read_serve_options(text: str) -> dict[str, Any]:
    """The ``serve`` command's click options: every spelling, the type and the default."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "serve":
            break
    else:
        raise SystemExit(f"no `serve` command in {SERVE}")
    options: dict[str, Any] = {}
    for deco in node.decorator_list:
        if not (isinstance(deco, ast.Call) and ast.unparse(deco.func) == "click.option"):
            continue
        names = [a.value for a in deco.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        flags = [n for n in names if n.startswith("-")]
        dest = next((n for n in names if not n.startswith("-")), flags[0].lstrip("-").replace("-", "_"))
        keywords = {k.arg: k.value for k in deco.keywords if k.arg}
        options[dest] = {
            "flags": flags,
            "type": ast.unparse(keywords["type"])
            if "type" in keywords
            else ("flag" if "is_flag" in keywords else "str"),
            "default": _literal(keywords.get("default")),
            "is_flag": _literal(keywords["is_flag"]) if "is_flag" in keywords else False,
            "multiple": _literal(keywords["multiple"]) if "multiple" in keywords else False,
        }
    return options


def build(source: Path, release: str, command: str, note: str = "") -> dict[str, Any]:
    llm_args = read_llm_args((source / LLM_ARGS).read_text(encoding="utf-8"))
    serve = read_serve_options((source / SERVE).read_text(encoding="utf-8"))
    return {
        "release": release,
        "root": ROOT,
        "read_from": [LLM_ARGS, SERVE],
        "source_note": note,
        "regenerate": command,
        **llm_args,
        "trtllm_serve_options": serve,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source", type=Path, help="a TensorRT-LLM checkout (or a folder with the two files)")
    p.add_argument("--release", required=True, help="the release those files are from, e.g. 1.2.0")
    p.add_argument("--output", type=Path, help="default: resources/trtllm/llm_args-<release>.json")
    p.add_argument("--note", default="", help="where SOURCE came from (a tag, a commit), kept in the JSON")
    args = p.parse_args(argv)
    output = args.output or Path(__file__).with_name(f"llm_args-{args.release}.json")
    command = f"python resources/trtllm/regenerate.py <TensorRT-LLM checkout> --release {args.release}"
    data = build(args.source, args.release, command, args.note)
    output.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {output}: {len(data['classes'])} classes, {len(data['trtllm_serve_options'])} serve options")
    return 0


if __name__ == "__main__":
    sys.exit(main())
