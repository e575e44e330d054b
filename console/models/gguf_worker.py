"""Child-process entry point for GGUF conversion: ``python -m console.models.gguf_worker SRC DST``.

Writes one JSON object per line on stdout: ``{"type": "progress", "stage", "fraction"}`` and,
on failure, ``{"type": "error", "message"}`` before exiting non-zero.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from console.jobs import Progress, TaskState
from console.models.importers import convert_gguf


def _emit(obj: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    src, dst = Path(argv[0]), Path(argv[1])

    def on_progress(p: Progress) -> None:
        _emit({"type": "progress", "stage": p.stage, "fraction": p.fraction})

    try:
        convert_gguf(src, dst, TaskState(on_progress))
    except Exception as exc:
        _emit({"type": "error", "message": f"{src.name}: {exc}"})
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
