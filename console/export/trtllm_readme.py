"""The files of a ``--format trtllm`` export and the README that maps every knob.

The README is the export's contract with the operator: each knob of the preset appears once, in
"Mapped" with the TensorRT-LLM key it became, or in "No equivalent" with the reason; the
checkpoint each quantization needs is said in its own section.
"""

from __future__ import annotations

from console.config import EngineConfig
from console.engine.serve_options import ServeOptions
from console.engine.serve_args import served_name
from console.export.trtllm import (
    TRTLLM_IMAGE,
    Translation,
    config_yaml,
    container_translation,
    dockerfile,
    serve_command,
    server_env,
    translate,
    validated,
)
from console.export.trtllm_schema import RELEASE, load_schema


def trtllm_files(config: EngineConfig, options: ServeOptions, image: str = TRTLLM_IMAGE) -> dict[str, str]:
    """``{relative path: text}``: the YAML, the command, the container files and the README."""
    t = validated(translate(config, options))
    inner = validated(container_translation(config, options))
    return {
        "trtllm.yaml": config_yaml(t, options),
        "trtllm-serve.sh": f'#!/bin/sh\n# TensorRT-LLM {RELEASE}, PyTorch backend\ncd "$(dirname "$0")"\n'
        + "".join(f"export {k}={v}\n" for k, v in server_env(config).items())
        + "exec "
        + serve_command(t)
        + "\n",
        "trtllm.container.yaml": config_yaml(inner, ServeOptions(**{**options.__dict__, "host": "0.0.0.0"})),
        "Dockerfile": dockerfile(config, options, image),
        "README.md": readme(config, options, t, image),
    }


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|")


def readme(config: EngineConfig, options: ServeOptions, t: Translation, image: str = TRTLLM_IMAGE) -> str:
    schema = load_schema()
    name = served_name(config, options)
    out = [
        f"# Serving `{name}` with TensorRT-LLM (`trtllm-serve`, PyTorch backend)",
        "",
        f"Exported by inference-console from the same preset as its vLLM export, for TensorRT-LLM "
        f"**{schema.release}** (container `{image}`). The YAML was checked against that release's "
        "`TorchLlmArgs` (the configuration model kept in `resources/trtllm/`; regenerate it with "
        f"`{schema.regenerate}`).",
        "",
        "## Run it",
        "",
        "```sh",
        serve_command(t),
        "```",
        "",
        "or build the container (`Dockerfile`, which copies `trtllm.container.yaml`); the comment at its top "
        "has the `docker run` line. `trtllm-serve` names the model after its folder in `/v1/models`: the "
        f"container mounts it as `/models/{name}` so clients ask for `{name}`.",
        "",
        "Point the console at it: `inference-console chat --engine trtllm+http://HOST:PORT` (chat, batch and "
        "bench take the same `--engine`; the Monitor reads its `/metrics`, which this configuration turns on "
        "with `enable_iter_perf_stats: true`).",
        "",
        "## Checkpoint",
        "",
        t.checkpoint,
        "",
        "## Mapped",
        "",
        "| console knob | TensorRT-LLM | how |",
        "|---|---|---|",
    ]
    out += [f"| `{_cell(a)}` | `{_cell(b)}` | {_cell(c)} |" for a, b, c in t.mapped]
    out += [
        "| host, port, tokenizer, trust_remote_code | `trtllm-serve` options | as written in the command |",
        "",
        "A knob the preset leaves at vLLM's default is left at TensorRT-LLM's (prefix caching is on in both; "
        "chunked prefill is written on, as vLLM has it).",
        "",
        "## No equivalent (not carried over)",
        "",
    ]
    if t.unmapped:
        out += ["| console knob | value | why |", "|---|---|---|"]
        out += [f"| `{_cell(a)}` | `{_cell(b)}` | {_cell(c)} |" for a, b, c in t.unmapped]
    else:
        out.append("Every knob this preset sets has an equivalent.")
    out += [
        "",
        "## What was checked here, and what only a GPU run shows",
        "",
        "- Checked: every key and value of `trtllm.yaml` against the release's `TorchLlmArgs` (unknown keys "
        "and wrong types are refused), every command option against its `trtllm-serve` options.",
        "- Not checked without a GPU: that the checkpoint loads, the KV cache's real size (TensorRT-LLM "
        "measures free memory after loading), the speed, and the answers' quality. Run "
        "`inference-console bench --engine trtllm+http://HOST:PORT --compare-local` on the GPU machine for the "
        "figures side by side with the console's vLLM engine.",
        "",
    ]
    return "\n".join(out)
