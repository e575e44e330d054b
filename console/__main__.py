"""``python -m console`` is the same as the ``inference-console`` entry point."""

from console.cli.main import main

if __name__ == "__main__":  # vLLM spawns workers: keep the entry point guarded.
    raise SystemExit(main())
