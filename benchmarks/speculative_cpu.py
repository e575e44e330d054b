"""Single-stream speed-up of n-gram speculative decoding on the CPU engine.

    PYTHONPATH=. python benchmarks/speculative_cpu.py --model DIR [--json out.json] [--max-tokens 128]

Loads the model twice through the console's own in-process engine: the ``cpu-ngram`` preset with
speculation cleared, then as shipped; sends each prompt alone, greedy. Prompts are real text
(this project's own documentation) in the shapes n-gram favours -- edit it and return it in full,
summarise it -- plus free-form ones where nothing can be copied from the prompt.
Figures and commands: benchmarks/speculative-cpu.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def paragraphs(n: int) -> list[str]:
    """``n`` prose paragraphs (100-700 characters) from docs/ARCHITECTURE.md."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    out = []
    for block in re.split(r"\n\s*\n", text):
        block = " ".join(block.split())
        if 200 <= len(block) <= 700 and not block.startswith(("|", "#", "`", "-", "1.")):
            out.append(block)
    return out[:n]


def prompts(kind: str) -> list[list[dict[str, str]]]:
    chats = []
    if kind in ("copy", "all"):
        for para in paragraphs(3):
            chats.append(
                [
                    {
                        "role": "user",
                        "content": "Rewrite the following text with every 'engine' replaced by "
                        f"'motor'. Return the whole text and nothing else.\n\n{para}",
                    }
                ]
            )
            chats.append([{"role": "user", "content": f"Summarise the following text in two sentences.\n\n{para}"}])
    if kind in ("free", "all"):
        for topic in ("a lighthouse keeper", "the first day of spring", "a cat who learns to fly"):
            chats.append([{"role": "user", "content": f"Write a short story about {topic}."}])
    return chats


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True, help="a model folder (e.g. the store's smollm2)")
    p.add_argument("--preset", default="cpu-ngram")
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--kind", choices=("copy", "free", "all"), default="all")
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args()

    from console.bench.speculation import compare
    from console.engine.in_process import InProcessEngine
    from console.presets import get_preset

    config = get_preset(args.preset).apply(args.model)
    results = {}
    for kind in ("copy", "free") if args.kind == "all" else (args.kind,):
        res = compare(config, prompts(kind), args.max_tokens, InProcessEngine)
        results[kind] = res
        print(
            f"{kind}: plain {res['plain']['decode_tok_s']:.1f} tok/s, speculative "
            f"{res['speculative']['decode_tok_s']:.1f} tok/s, speed-up {res['decode_speedup']:.2f}x, "
            f"acceptance {res['speculative']['acceptance_rate']}, tokens/step "
            f"{res['speculative']['tokens_per_step']}, same answers {res['same_answers']}/{res['prompts']}",
            file=sys.stderr,
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
