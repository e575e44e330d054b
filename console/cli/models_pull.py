"""``inference-console models pull REPO``: download a model from Hugging Face (or a mirror via
``HF_ENDPOINT``) or ModelScope into the store, after showing its size and the planner's verdict."""

from __future__ import annotations

import argparse
import sys

from console.cli.common import CliError, ProgressPrinter, human_bytes, print_json
from console.jobs import Cancelled, TaskState
from console.models.store import ModelStore


def register_pull(msub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = msub.add_parser("pull", help="download a model from Hugging Face (HF_ENDPOINT mirrors too) or ModelScope")
    p.add_argument("repo", help="repository id, e.g. HuggingFaceTB/SmolLM2-135M-Instruct")
    p.add_argument("--source", choices=["hf", "modelscope"], default="hf")
    p.add_argument("--revision", help="branch, tag or commit (default: the main branch)")
    p.add_argument(
        "--include",
        action="append",
        metavar="PATTERN",
        help="only files matching this glob (repeatable), e.g. '*Q4_K_M.gguf'",
    )
    p.add_argument("--variant", help="quantization variant to pick among GGUF files, e.g. Q4_K_M")
    p.add_argument("--name", help="name in the store (default: the repository's name)")
    p.add_argument("--gpu", default="rtx-4090", help="GPU profile for the fit verdict (default rtx-4090)")
    p.add_argument("--yes", "-y", action="store_true", help="download without asking")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_pull)


def cmd_pull(args: argparse.Namespace) -> int:
    # deferred: imports httpx
    from console.models.download import DownloadError, default_pull_name, list_files, preview, pull

    store = ModelStore()
    name = args.name or default_pull_name(args.repo)
    try:
        listing = list_files(args.repo, source=args.source, revision=args.revision)
        pv = preview(
            args.repo, source=args.source, include=args.include, variant=args.variant, gpu=args.gpu, listing=listing
        )
        if not args.json:
            print(f"{args.repo}@{pv.commit[:12]} ({pv.source}): {len(pv.files)} files, {human_bytes(pv.total_bytes)}")
            for f in pv.files:
                print(f"  {f.path:50} {human_bytes(f.size or 0):>10}")
            if pv.gguf:
                print(f"  {pv.gguf} will be converted to 16-bit safetensors after the download")
            advice = pv.gguf_advice
            if pv.gguf and advice is not None and advice.converted_bytes:
                print(
                    f"  as 16-bit weights it becomes about {human_bytes(advice.converted_bytes)} on disk and in memory"
                )
                if advice.alternatives:
                    alt = advice.alternatives[0]
                    print(
                        f"  instead: {alt.repo} ({alt.quantization.upper()}, {human_bytes(alt.disk_bytes)}) runs in "
                        f"vLLM as it is: inference-console models pull {alt.repo}"
                    )
            print(f"planner on {args.gpu}: {pv.verdict} — {pv.verdict_detail}")
        if not args.yes:
            if not sys.stdin.isatty():
                raise CliError("add --yes to download without a terminal to confirm on")
            if input(f"Download as '{name}'? [y/N] ").strip().lower() not in ("y", "yes"):
                print("nothing downloaded")
                return 1
        printer = ProgressPrinter()
        task = TaskState(None if args.json else printer)
        entry = pull(
            store,
            args.repo,
            name,
            source=args.source,
            include=args.include,
            variant=args.variant,
            task=task,
            listing=listing,
        )
    except DownloadError as exc:
        raise CliError(str(exc)) from exc
    except Cancelled:
        raise CliError("download stopped; run the same command again to resume") from None
    if args.json:
        print_json({"entry": entry.to_dict(), "verdict": pv.verdict, "bytes": pv.total_bytes})
    else:
        printer.end_line()
        print(f"pulled '{entry.name}': {entry.architecture}, {human_bytes(entry.size_bytes)} at {entry.path}")
    return 0
