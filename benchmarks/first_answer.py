"""How long the bundled model's first answers are, and whether they loop, under several samplings.

    PYTHONPATH=. python benchmarks/first_answer.py --model DIR [--max-tokens 1500] [--json out.json]
    PYTHONPATH=. python benchmarks/first_answer.py --rescore out.json   # the table again, no engine

Loads the model once through the console's own in-process engine (CPU, eager, 4,096-token
context as the window's CPU default) and sends every prompt under every sampling at once, each
capped at ``--max-tokens``. For each answer: its tokens, why it ended, the most times one
paragraph appears (``console/chat/repetition.py``), the longest run of words said twice, and
where the chat's loop guard would stop it (the answer fed to it 4 characters at a time, about a
token each). Figures and the choice made from them:
benchmarks/README.md, "First answers of the bundled model".
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

PROMPTS = {
    "story": "Write a long story about a dragon and a knight.",
    "france": "What is the capital of France?",
    "list": "List ten fruits and one fact about each.",
    "code": "Write a Python function that checks whether a number is prime.",
}

#: name -> (sampling fields, seeds); greedy ones run once.
SAMPLINGS: dict[str, tuple[dict[str, float], tuple[int | None, ...]]] = {
    "greedy": ({"temperature": 0.0}, (None,)),
    "greedy rp1.1": ({"temperature": 0.0, "repetition_penalty": 1.1}, (None,)),
    "greedy rp1.2": ({"temperature": 0.0, "repetition_penalty": 1.2}, (None,)),
    "greedy rp1.3": ({"temperature": 0.0, "repetition_penalty": 1.3}, (None,)),
    "card t0.2 p0.9": ({"temperature": 0.2, "top_p": 0.9}, (0, 1, 2)),
    "card + rp1.1": ({"temperature": 0.2, "top_p": 0.9, "repetition_penalty": 1.1}, (0, 1, 2)),
}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--model", help="a model folder (e.g. the store's smollm2)")
    p.add_argument("--rescore", metavar="JSON", help="print the table of a saved run (its answers scored again)")
    p.add_argument("--max-tokens", type=int, default=1500)
    p.add_argument("--max-model-len", type=int, default=4096)
    p.add_argument("--kv-gib", type=float, default=2.0)
    p.add_argument("--json", help="write every answer and its figures here")
    args = p.parse_args()
    if args.rescore:
        saved = json.loads(Path(args.rescore).read_text(encoding="utf-8"))
        rows = [{**r, **score(r["text"], r["prompt"])} for r in saved["rows"]]
        print_table(rows, saved["single_stream_tok_s"])
        return 0
    if not args.model:
        p.error("--model or --rescore is needed")

    from console.config import EngineConfig
    from console.sampling import SamplingSettings
    from console.engine.in_process import InProcessEngine
    from console.engine.types import GenerationRequest, RequestFinished

    engine = InProcessEngine()
    engine.load(
        EngineConfig(
            model=args.model,
            max_model_len=args.max_model_len,
            kv_cache_memory_bytes=int(args.kv_gib * 1024**3),
            enforce_eager=True,
            device="cpu",
        ),
        "smollm2",
    ).result(timeout=900)
    try:
        jobs: list[tuple[str, str, int | None]] = []
        requests = []
        for sname, (fields, seeds) in SAMPLINGS.items():
            for seed in seeds:
                for pname, prompt in PROMPTS.items():
                    jobs.append((sname, pname, seed))
                    requests.append(
                        GenerationRequest(
                            messages=[{"role": "user", "content": prompt}],
                            sampling=SamplingSettings(**fields, seed=seed, max_tokens=args.max_tokens),  # type: ignore[arg-type]
                            stream=False,
                        )
                    )
        start = time.monotonic()
        handles = engine.submit_many(requests)
        rows: list[dict[str, Any]] = []
        for (sname, pname, seed), h in zip(jobs, handles):
            ev = h.result(timeout=3600)
            assert isinstance(ev, RequestFinished), ev
            row = {"sampling": sname, "prompt": pname, "seed": seed, "tokens": ev.output_tokens}
            row.update(finish=ev.finish_reason, text=ev.text, **score(ev.text, pname))
            stop_at = row["guard_stops_at_char"]
            row["guard_stops_at_tokens"] = None if stop_at is None else engine.count_tokens(ev.text[:stop_at])
            rows.append(row)
        took = time.monotonic() - start
        # one story answer alone: the speed one user sees
        single = engine.generate(
            GenerationRequest(
                messages=[{"role": "user", "content": PROMPTS["story"]}],
                sampling=SamplingSettings(temperature=0.0, max_tokens=256, ignore_eos=True),
            ),
            timeout=900,
        )
        assert isinstance(single, RequestFinished)
        single_tok_s = single.output_tokens / max(single.e2e_s, 1e-9)
    finally:
        engine.close()
    print(f"{len(rows)} answers in {took:.0f} s", file=sys.stderr)
    print_table(rows, single_tok_s)
    if args.json:
        Path(args.json).write_text(json.dumps({"single_stream_tok_s": single_tok_s, "rows": rows}, indent=2))
    return 0


def score(text: str, prompt: str) -> dict[str, Any]:
    """The loop figures of one answer."""
    from console.chat.repetition import RepetitionGuard, longest_repeated_span, most_repeated_paragraph

    guard = RepetitionGuard()
    stop_at = next((i + 4 for i in range(0, len(text), 4) if guard.feed(text[i : i + 4])), None)
    return {
        "max_paragraph_repeats": most_repeated_paragraph(text),
        "longest_repeated_words": longest_repeated_span(text),
        "guard_stops_at_char": stop_at,
        "paris": ("the capital of france is paris" in text.lower()) if prompt == "france" else None,
    }


def print_table(rows: list[dict[str, Any]], single_tok_s: float) -> None:
    print(f"one stream alone: {single_tok_s:.1f} tok/s", file=sys.stderr)
    print(
        "| sampling | seed | prompt | tokens | finish | most repeats of a paragraph | longest repeated span (words) "
        "| the guard stops it at (chars) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        seed = "" if r["seed"] is None else r["seed"]
        extra = "" if r["paris"] is None else (" (Paris)" if r["paris"] else " (**not Paris**)")
        print(
            f"| {r['sampling']} | {seed} | {r['prompt']}{extra} | {r['tokens']} | {r['finish']} | "
            f"{r['max_paragraph_repeats']} | {r['longest_repeated_words']} | {r['guard_stops_at_char'] or '-'} |"
        )


if __name__ == "__main__":
    sys.exit(main())
