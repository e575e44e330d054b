"""``inference-console models curated`` and ``models search QUERY``: the model picker's lists in the
terminal, each model with the planner's fit badges for the machine the picker shows them for
(``console.models.machine_fit``): this machine's card, or without one the CPU engine's verdict and
the RTX 4090's beside it; ``--gpu`` names a card instead."""

from __future__ import annotations

import argparse
from typing import Any

from console.cli.common import CliError, human_bytes, print_json, print_table
from console.models.curated import CuratedError, load_curated
from console.models.fit_table import this_machine
from console.models.machine_fit import Machine, MachineVerdict, caption, curated_verdicts, picker_machines, verdicts


def register_search(msub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    gpu_help = (
        "GPU profile the fit badges are for, e.g. rtx-4090, rtx-4080, h100 (default: this machine: its "
        "NVIDIA card, or the CPU engine in its RAM beside an rtx-4090)"
    )
    cur = msub.add_parser("curated", help="checkpoints vLLM serves well on 24 GB, with their fit on this machine")
    cur.add_argument("--gpu", default=None, help=gpu_help)
    cur.add_argument("--json", action="store_true")
    cur.set_defaults(func=cmd_curated)

    s = msub.add_parser(
        "search",
        help="search Hugging Face or ModelScope for models, with their fit on a GPU (asks the hub: needs the network)",
    )
    s.add_argument("query", nargs="+", help="words to search for, e.g. qwen3 awq")
    s.add_argument("--source", choices=["hf", "modelscope"], default="hf", help="the hub to search (default hf)")
    s.add_argument("--gpu", default=None, help=gpu_help)
    s.add_argument("--limit", type=int, default=20, help="at most this many results (default 20, at most 100)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_search)


def _machines(gpu: str | None) -> list[Machine]:
    """The machines the badges are for: ``--gpu``'s card, else this machine (asks NVML)."""
    try:
        return picker_machines(gpu if gpu is not None else this_machine())
    except ValueError as exc:
        raise CliError(f"--gpu: {exc}") from exc


def _columns(machines: list[Machine]) -> list[str]:
    return [f"{m.label}: fits at 8k" for m in machines]


def _texts(found: tuple[MachineVerdict, ...]) -> list[str]:
    return [str(x.text()) for x in found]


def _context(badges: Any) -> str:
    return f"{badges.longest_context:,}" if badges.longest_context else "-"


def cmd_curated(args: argparse.Namespace) -> int:
    machines = _machines(args.gpu)
    try:
        listed = load_curated()
    except CuratedError as exc:
        raise CliError(str(exc)) from exc
    found = curated_verdicts(listed.models, machines)
    rows = [(m, v[0].badges, v) for m, v in found]
    if args.json:
        print_json(
            {
                "version": listed.version,
                "gpu": machines[0].profile.name,
                "machines": [m.label for m in machines],
                "caption": caption(machines),
                "models": [
                    {
                        "repo": m.repo,
                        "modelscope_repo": m.modelscope_repo,
                        "family": m.family,
                        "family_label": m.family_label,
                        "shape": m.shape,
                        "quantization": m.quantization,
                        "disk_bytes": m.disk_bytes,
                        "preset": m.preset,
                        "note": m.note,
                        "badges": b.to_dict(),
                        "verdicts": [x.to_dict() for x in v],
                    }
                    for m, b, v in rows
                ],
            }
        )
        return 0
    print(f"Curated list v{listed.version} ({listed.updated}), one user each. {caption(machines)}:")
    table = [
        [m.repo, m.quantization.upper(), human_bytes(m.disk_bytes), *_texts(v), _context(b),
         human_bytes(b.memory_bytes), m.preset, b.picture_text() or "-"]
        for m, b, v in rows
    ]  # fmt: skip
    print_table(
        table,
        ["repository", "weights", "on disk", *_columns(machines), "longest context", "memory at 8k", "preset",
         "pictures"],
    )  # fmt: skip
    print("Get one: inference-console models pull REPOSITORY")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    # deferred: imports httpx
    from console.models.search import SearchError, search_models

    machines = _machines(args.gpu)
    card = machines[0].profile
    query = " ".join(args.query)
    if not 1 <= args.limit <= 100:
        raise CliError(f"--limit {args.limit} is out of range: give 1 to 100")
    try:
        hits = search_models(query, source=args.source, limit=args.limit, device=card)
    except SearchError as exc:
        raise CliError(str(exc)) from exc
    found = [
        verdicts(h.model_shape, None if h.gguf else h.quantization, machines, unknown=h.badges.detail) for h in hits
    ]
    if args.json:
        results = [{**h.to_dict(), "verdicts": [x.to_dict() for x in v]} for h, v in zip(hits, found)]
        print_json(
            {"query": query, "source": args.source, "gpu": card.name, "caption": caption(machines), "results": results}
        )
        return 0
    if not hits:
        print(f"Nothing found for '{query}' on {args.source}.")
        return 0
    table = []
    for h, v in zip(hits, found):
        size = human_bytes(h.size_bytes) if h.size_bytes else "-"
        weights = "GGUF" if h.gguf else (h.quantization or "16-bit").upper()
        table.append([h.repo, weights, size, *_texts(v), _context(v[0].badges), f"{h.downloads:,}"])
    print(f"{caption(machines)}:")
    print_table(table, ["repository", "weights", "on disk", *_columns(machines), "longest context", "downloads"])
    for h in hits:
        if h.gguf and h.converted_bytes:
            line = f"{h.repo}: a GGUF becomes about {human_bytes(h.converted_bytes)} as 16-bit weights"
            if h.alternatives:
                line += f"; {h.alternatives[0].repo} runs in vLLM as it is"
            print(line)
    if any(h.badges.verdict == "unknown" for h in hits):
        print("unknown: the planner reads config.json at download; `models pull REPO` shows the verdict first")
    return 0
