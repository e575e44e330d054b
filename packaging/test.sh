#!/usr/bin/env bash
# The test command (README, CI): set up if needed (no launch), then run the whole suite.
# Extra arguments go to pytest, e.g. `bash packaging/test.sh -k planner`.
# --quick: the quick lane, every test that starts no engine, server or heavy child
# (pytest -m "not engine and not e2e"; the marker rule is enforced by tests/marker_guard.py).
# The suite runs on one pytest-xdist worker per core (at most 4, and one per 6 GiB of memory), the
# tests of each shared engine on one worker (tests/xdist_groups.py). INFERENCE_CONSOLE_TEST_WORKERS=N
# sets the number (1: one process, as plain pytest); -n/--numprocesses/--dist/-p no:xdist of your own win.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ARGS=()
CHOSEN=""
for arg in "$@"; do
  case "$arg" in
    -n | -n[0-9]* | --numprocesses* | --dist* | no:xdist | -pno:xdist) CHOSEN=1 ;;
  esac
  if [ "$arg" = --quick ]; then ARGS+=(-m "not engine and not e2e"); else ARGS+=("$arg"); fi
done
if [ -z "$CHOSEN" ]; then
  workers=${INFERENCE_CONSOLE_TEST_WORKERS:-}
  if [ -z "$workers" ]; then
    mem_gib=$(awk '/^MemTotal:/ {print int($2 / 1048576)}' /proc/meminfo 2>/dev/null || echo 6)
    workers=$(nproc 2>/dev/null || echo 1)
    workers=$((workers < 4 ? workers : 4))
    workers=$((workers < mem_gib / 6 ? workers : mem_gib / 6))
  fi
  if [ "$workers" -ge 2 ]; then ARGS=(-n "$workers" --dist loadgroup ${ARGS[@]+"${ARGS[@]}"}); fi
fi
bash "$ROOT/packaging/setup.sh" --no-launch
cd "$ROOT"
exec "${INFERENCE_CONSOLE_VENV:-$ROOT/.venv}/bin/python" -m pytest ${ARGS[@]+"${ARGS[@]}"}
