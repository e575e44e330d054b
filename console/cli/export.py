"""``inference-console export``: a tuned configuration as server files, and back.

inference-console export --preset NAME --model NAME --format yaml|cmd|compose|k8s|ray|bundle [-o PATH]
inference-console export --preset NAME --model NAME --format trtllm [-o FOLDER]   (TensorRT-LLM's trtllm-serve)
inference-console export import FILE.yaml [--name NAME]
inference-console export import --command "vllm serve MODEL --flag value ..."
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from console.atomic import atomic_write_text
from console.cli.common import CliError
from console.cli.flags import deprecated_alias
from console.cli.knob_flags import add_knob_flags
from console.config import EngineConfig
from console.engine.serve_options import DEFAULT_IMAGE, ExportError, ServeOptions
from console.engine.adapters import lora_settings
from console.export.plan_report import planner_report, planner_text
from console.models.adapters import lora_modules_for
from console.models.lora import AdapterError
from console.models.store import ModelStore, StoreError
from console.vllm_compat import have_vllm, vllm_distribution
from console.launch import engine_config_for
from console.presets import get_preset

FORMATS = ("yaml", "cmd", "compose", "k8s", "ray", "bundle", "trtllm")
#: The export target is a GPU server, whatever machine the console runs on.
DEFAULT_PRESET = "gpu-default"


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "export",
        help="export a preset + model as vllm serve YAML, command, compose, "
        "Kubernetes, Ray, a bundle or a trtllm-serve configuration; `export import` reads one back",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "action", nargs="?", choices=["import"], help="`import`: read a vllm serve YAML/command into a preset"
    )
    p.add_argument("file", nargs="?", help="(import) a `vllm serve --config` YAML file")
    p.add_argument("--command", dest="serve_command", help="(import) a `vllm serve ...` command line")
    p.add_argument("--name", help="(import) name of the preset to write (default: imported-<model>)")
    p.add_argument("--preset", default=None, help=f"preset to export (default {DEFAULT_PRESET})")
    p.add_argument("--model", help="a model name from the store, or a checkpoint folder")
    p.add_argument("--format", choices=FORMATS, default="yaml")
    p.add_argument(
        "-o",
        "--output",
        help="file (a folder or .zip for a bundle; for ray, a .yaml gets the "
        "KubeRay RayService, anything else the head/worker script); "
        "default: standard output",
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="address the server binds to (default 127.0.0.1: this machine only)"
    )
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--served-model-name", help="model name clients ask for (default: the store name)")
    p.add_argument(
        "--served-api-key",
        help="the key the exported server requires on /v1 (written into the "
        "exported files); chat's --api-key is a remote server's key",
    )
    deprecated_alias(p, "--api-key", "--served-api-key", "served_api_key")
    p.add_argument("--image", default=DEFAULT_IMAGE, help=f"container image (default {DEFAULT_IMAGE})")
    add_knob_flags(p, ["tensor_parallel_size", "pipeline_parallel_size", "max_model_len"], short=True)
    p.add_argument(
        "--adapter",
        action="append",
        default=[],
        metavar="NAME",
        help="a LoRA adapter of the model from the store to serve (repeatable): --enable-lora --lora-modules NAME=PATH",
    )
    add_knob_flags(p, ["max_loras"], notes={"max_loras": "vLLM's default 1"})
    p.add_argument("--nodes", type=int, default=1, help="machines to spread the model over (>1 uses Ray)")
    p.add_argument("--gpu", help="GPU profile for the planner's memory view (e.g. h100-80gb)")
    p.add_argument("--bench", help="(bundle) a benchmark report JSON to include as evidence")
    p.add_argument("--namespace", default="default", help="Kubernetes namespace")
    p.add_argument("--no-validate", action="store_true", help="skip checking the YAML/command with vLLM's own parser")
    p.add_argument("--force", action="store_true", help="overwrite an existing output / preset")
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    try:
        if args.action == "import":
            return _import(args)
        return _export(args)
    except ExportError as exc:
        raise CliError(str(exc)) from None


def resolve_config(model: str, preset: str | None, **overrides: Any) -> EngineConfig:
    """A store model (with its own trust_remote_code) or a checkpoint folder (remote code off)."""

    store = ModelStore()
    if model in store:
        return engine_config_for(store, model, preset or DEFAULT_PRESET, **overrides)
    folder = Path(model).expanduser()
    if (folder / "config.json").is_file():
        config = get_preset(preset or DEFAULT_PRESET).apply(str(folder.resolve()), **overrides)
        config.trust_remote_code = False  # only a store entry can turn it on (per model)
        return config
    known = ", ".join(e.name for e in store.list()) or "none"
    raise CliError(
        f"'{model}' is neither a model in the store (known: {known}) nor a checkpoint folder with config.json"
    )


def _with_adapters(config: EngineConfig, model: str, adapters: list[str], max_loras: int | None) -> EngineConfig:
    try:
        modules = lora_modules_for(ModelStore(), model, adapters) if adapters else None
        return lora_settings(
            config.replace(lora_modules=modules, enable_lora=True, max_loras=max_loras or config.max_loras)
        )
    except (AdapterError, StoreError) as exc:
        raise CliError(str(exc)) from None


def _validate(config: EngineConfig, options: ServeOptions, yaml_text: str, **kw: Any) -> None:
    # deferred: imports yaml
    from console.export.validate import check_yaml

    if not have_vllm():
        print("note: vLLM is not installed here; the YAML was not checked with its parser", file=sys.stderr)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "serve.yaml"
        path.write_text(yaml_text, encoding="utf-8")
        problems = check_yaml(path, config, options, **kw)
    if problems:
        raise CliError("vLLM's own parser reads the export differently:\n  " + "\n  ".join(problems))
    dist = vllm_distribution()
    print(
        f"checked with {dist[0]} {dist[1]}'s parser: every setting reads back as written"
        if dist
        else "checked with vLLM's parser",
        file=sys.stderr,
    )


def _export(args: argparse.Namespace) -> int:
    # deferred: imports yaml
    from console.engine import serve_args

    # deferred: imports yaml
    from console.export import bundle, compose, k8s, ray

    if args.file:
        raise CliError(f"unexpected argument '{args.file}' (did you mean `export import {args.file}`?)")
    if not args.model:
        raise CliError("--model is required (a model name from `inference-console models list`, or a folder)")
    options = ServeOptions(
        host=args.host,
        port=args.port,
        served_model_name=args.served_model_name,
        api_key=args.served_api_key,
        image=args.image,
        nodes=args.nodes,
        gpu=args.gpu,
        namespace=args.namespace,
    )
    options.validate()
    config = resolve_config(
        args.model,
        args.preset,
        tensor_parallel_size=args.tensor_parallel_size,
        pipeline_parallel_size=args.pipeline_parallel_size,
        max_model_len=args.max_model_len,
    )
    if args.adapter or args.max_loras:
        config = _with_adapters(config, args.model, args.adapter, args.max_loras)
    fmt = args.format
    validate = not args.no_validate
    if fmt == "trtllm":
        return _export_trtllm(args, config, options)
    if fmt == "bundle":
        if not args.output:
            raise CliError("a bundle needs -o FOLDER or -o FILE.zip")
        bench = bundle.load_bench(args.bench) if args.bench else None
        files = bundle.bundle_files(
            config,
            options,
            model_dir=config.model,
            bench=bench,
            source={"model": args.model, "preset": args.preset or DEFAULT_PRESET},
        )
        if validate:
            _validate(config, options, files["serve.yaml"])
            if "container/serve.yaml" in files:
                _validate(
                    config,
                    options,
                    files["container/serve.yaml"],
                    model=serve_args.container_model_path(config, options),
                    host="0.0.0.0",
                )
        out = bundle.write_bundle(args.output, files, overwrite=args.force)
        _warn(config, options)
        print(f"bundle written to {out} ({len(files)} files)")
        return 0
    if fmt == "yaml":
        text = serve_args.serve_yaml(config, options)
        if validate:
            _validate(config, options, text)
    elif fmt == "cmd":
        text = serve_args.serve_command(config, options) + "\n"
        if validate:
            _validate(config, options, serve_args.serve_yaml(config, options))
    elif fmt == "compose":
        text = compose.compose_yaml(config, options, config.model)
    elif fmt == "k8s":
        text = k8s.k8s_yaml(config, options, config.model)
    else:  # ray: the head/worker script, or the KubeRay RayService when -o names a .yaml
        manifest = (args.output or "").endswith((".yaml", ".yml"))
        text = ray.rayservice_yaml(config, options, config.model) if manifest else ray.ray_commands(config, options)

        print(planner_text(planner_report(config, options)), end="", file=sys.stderr)
    if fmt == "compose":
        # Compose mounts serve.yaml from beside the compose file: write both when -o is given.
        inner = compose.container_serve_yaml(config, options, "docker-compose.yaml publishes it on the host")
        if validate:
            _validate(config, options, inner, model=serve_args.container_model_path(config, options), host="0.0.0.0")
        if args.output:
            _write(Path(args.output).with_name("serve.yaml"), inner, args.force)
        else:
            text += (
                "\n# --- serve.yaml (mounted by the compose file; write it beside it) ---\n"
                + "\n".join("# " + line for line in inner.splitlines())
                + "\n"
            )
    _warn(config, options)
    if args.output:
        _write(Path(args.output), text, args.force)
        print(f"written to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _export_trtllm(args: argparse.Namespace, config: EngineConfig, options: ServeOptions) -> int:
    """TensorRT-LLM's files: into -o FOLDER, else the YAML and the command on standard output."""
    # deferred: imports yaml
    from console.export.compose import single_node_only

    # deferred: imports yaml
    from console.export.trtllm import TRTLLM_IMAGE

    # deferred: imports yaml
    from console.export.trtllm_readme import trtllm_files

    single_node_only(options, "trtllm")
    files = trtllm_files(config, options, TRTLLM_IMAGE if args.image == DEFAULT_IMAGE else args.image)
    _warn(config, options)
    if not args.output:
        command = files["trtllm-serve.sh"].rsplit("exec ", 1)[1]
        sys.stdout.write(files["trtllm.yaml"] + "\n# " + command)
        print("note: -o FOLDER also writes the Dockerfile and a README with the knob mapping", file=sys.stderr)
        return 0
    folder = Path(args.output)
    if folder.exists() and any(folder.iterdir()) and not args.force:
        raise CliError(f"{folder} exists and is not empty; add --force to overwrite it")
    for rel, text in files.items():
        _write(folder / rel, text, True)
    (folder / "trtllm-serve.sh").chmod(0o755)
    print(f"TensorRT-LLM files written to {folder}: {', '.join(sorted(files))}", file=sys.stderr)
    return 0


def _write(path: Path, text: str, force: bool) -> None:
    if path.exists() and not force:
        raise CliError(f"{path} exists; add --force to overwrite it")
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text)


def _warn(config: EngineConfig, options: ServeOptions) -> None:
    # deferred: imports yaml
    from console.export.ray import ray_layout

    note = options.exposure_note()
    if note:
        print(f"warning: {note}", file=sys.stderr)
    spread = ray_layout(config, options).spread_note() if options.nodes > 1 else None
    if spread:
        print(f"warning: {spread}", file=sys.stderr)
    if config.trust_remote_code:
        print(
            "warning: trust_remote_code is ON for this model: the server will run its repository's code",
            file=sys.stderr,
        )


def _import(args: argparse.Namespace) -> int:
    # deferred: imports yaml
    from console.export.importer import import_command, import_yaml, save_preset

    if bool(args.file) == bool(args.serve_command):
        raise CliError('give either a YAML file or --command "vllm serve ..." (one of them)')
    if args.file:
        if not Path(args.file).is_file():
            raise CliError(f"{args.file} does not exist")
        result = import_yaml(args.file, args.name)
    else:
        result = import_command(args.serve_command, args.name)
    path = save_preset(result, overwrite=args.force)
    for line in result.report_lines():
        print(line, file=sys.stderr if line.startswith(("warning", "NOT")) else sys.stdout)
    print(f"preset '{result.preset.name}' written to {path}")
    return 0
