#!/usr/bin/env bash
# The test command (README, CI): set up if needed (no launch), then run the whole suite.
# Extra arguments go to pytest, e.g. `bash packaging/test.sh -k planner`.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$ROOT/packaging/setup.sh" --no-launch
cd "$ROOT"
exec "${INFERENCE_CONSOLE_VENV:-$ROOT/.venv}/bin/python" -m pytest "$@"
