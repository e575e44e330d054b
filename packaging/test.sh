#!/usr/bin/env bash
# The test command (README, CI): set up if needed (no launch), then run the whole suite.
# Extra arguments go to pytest, e.g. `bash packaging/test.sh -k planner`.
# --quick: the quick lane, every test that starts no engine, server or heavy child
# (pytest -m "not engine and not e2e"; the marker rule is enforced by tests/marker_guard.py).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ARGS=()
for arg in "$@"; do
  if [ "$arg" = --quick ]; then ARGS+=(-m "not engine and not e2e"); else ARGS+=("$arg"); fi
done
bash "$ROOT/packaging/setup.sh" --no-launch
cd "$ROOT"
exec "${INFERENCE_CONSOLE_VENV:-$ROOT/.venv}/bin/python" -m pytest ${ARGS[@]+"${ARGS[@]}"}
