#!/usr/bin/env bash
# Lint and types (README, CI): set up if needed (no launch), then ruff check, ruff format --check, mypy and
# lint-imports (the import layers) with the configuration in pyproject.toml. Takes seconds; exits non-zero
# if any of the four finds something.
#   bash packaging/lint.sh           check
#   bash packaging/lint.sh --fix     apply ruff's safe fixes and the formatter, then check
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FIX=0
for arg in "$@"; do
  case "$arg" in
    --fix) FIX=1 ;;
    -h|--help) sed -n '2,5p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "lint.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done
bash "$ROOT/packaging/setup.sh" --no-launch
cd "$ROOT"
PY="${INFERENCE_CONSOLE_VENV:-$ROOT/.venv}/bin/python"
if [ "$FIX" = 1 ]; then
  "$PY" -m ruff check --fix .
  "$PY" -m ruff format .
fi
status=0
echo "== ruff check" >&2; "$PY" -m ruff check . || status=1
echo "== ruff format --check" >&2; "$PY" -m ruff format --check . || status=1
echo "== mypy" >&2; "$PY" -m mypy || status=1
echo "== lint-imports" >&2; "$(dirname "$PY")/lint-imports" || status=1
exit $status
