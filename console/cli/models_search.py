"""``inference-console models curated`` and ``models search QUERY``: the model picker's lists in the
terminal, each model with the planner's fit badge for a card (``--gpu``, default rtx-4090)."""

from __future__ import annotations

import argparse
from typing import Any

from console.cli.common import CliError, human_bytes, print_json, print_table
from console.models.curated import curated_badges, CuratedError, load_curated, picker_card


def register_search(msub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    gpu_help = "GPU profile the fit badges are for (default rtx-4090), e.g. rtx-4080, h100"
    cur = msub.add_parser("curated", help="checkpoints vLLM serves well on 24 GB, with their fit on a GPU")
    cur.add_argument("--gpu", default="rtx-4090", help=gpu_help)
    cur.add_argument("--json", action="store_true")
    cur.set_defaults(func=cmd_curated)

    s = msub.add_parser(
        "search",
        help="search Hugging Face or ModelScope for models, with their fit on a GPU (asks the hub: needs the network)",
    )
    s.add_argument("query", nargs="+", help="words to search for, e.g. qwen3 awq")
    s.add_argument("--source", choices=["hf", "modelscope"], default="hf", help="the hub to search (default hf)")
    s.add_argument("--gpu", default="rtx-4090", help=gpu_help)
    s.add_argument("--limit", type=int, default=20, help="at most this many results (default 20, at most 100)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_search)


def _card(gpu: str) -> Any:
    try:
        return picker_card(gpu)
    except ValueError as exc:
        raise CliError(f"--gpu: {exc}") from exc


def _context(badges: Any) -> str:
    return f"{badges.longest_context:,}" if badges.longest_context else "-"


def cmd_curated(args: argparse.Namespace) -> int:
    card = _card(args.gpu)
    try:
        listed = load_curated()
    except CuratedError as exc:
        raise CliError(str(exc)) from exc
    rows = curated_badges(listed.models, card)
    if args.json:
        print_json(
            {
                "version": listed.version,
                "gpu": card.name,
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
                    }
                    for m, b in rows
                ],
            }
        )
        return 0
    print(f"Curated list v{listed.version} ({listed.updated}); fit for one user on {card.name}:")
    table = [
        [m.repo, m.quantization.upper(), human_bytes(m.disk_bytes), b.verdict, _context(b), human_bytes(b.memory_bytes),
         m.preset, b.picture_text() or "-"]
        for m, b in rows
    ]  # fmt: skip
    print_table(
        table,
        ["repository", "weights", "on disk", "fits at 8k", "longest context", "memory at 8k", "preset", "pictures"],
    )
    print("Get one: inference-console models pull REPOSITORY")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    # deferred: imports httpx
    from console.models.search import SearchError, search_models

    card = _card(args.gpu)
    query = " ".join(args.query)
    if not 1 <= args.limit <= 100:
        raise CliError(f"--limit {args.limit} is out of range: give 1 to 100")
    try:
        hits = search_models(query, source=args.source, limit=args.limit, device=card)
    except SearchError as exc:
        raise CliError(str(exc)) from exc
    if args.json:
        print_json({"query": query, "source": args.source, "gpu": card.name, "results": [h.to_dict() for h in hits]})
        return 0
    if not hits:
        print(f"Nothing found for '{query}' on {args.source}.")
        return 0
    table = []
    for h in hits:
        size = human_bytes(h.size_bytes) if h.size_bytes else "-"
        weights = "GGUF" if h.gguf else (h.quantization or "16-bit").upper()
        table.append([h.repo, weights, size, h.badges.verdict, _context(h.badges), f"{h.downloads:,}"])
    print_table(
        table, ["repository", "weights", "on disk", f"fits at 8k ({card.name})", "longest context", "downloads"]
    )
    for h in hits:
        if h.gguf and h.converted_bytes:
            line = f"{h.repo}: a GGUF becomes about {human_bytes(h.converted_bytes)} as 16-bit weights"
            if h.alternatives:
                line += f"; {h.alternatives[0].repo} runs in vLLM as it is"
            print(line)
    if any(h.badges.verdict == "unknown" for h in hits):
        print("unknown: the planner reads config.json at download; `models pull REPO` shows the verdict first")
    return 0
