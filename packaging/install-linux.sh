#!/usr/bin/env bash
# User-level install on Linux (and WSL2): an environment of its own, the engine build that fits
# the machine (as packaging/setup.sh picks it), a menu entry and its icon. Nothing outside $HOME.
#   bash packaging/install-linux.sh            install
#   bash packaging/uninstall-linux.sh          remove exactly what this added (see the manifest)
# Options: --venv DIR (default ~/.local/share/inference-console/venv), --no-env (menu entry only,
# pointing at an existing environment given by --venv).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA=${XDG_DATA_HOME:-$HOME/.local/share}
APP="$DATA/inference-console"
VENV="$APP/venv"
MAKE_ENV=1
while [ $# -gt 0 ]; do
  case "$1" in
    --venv) VENV=$2; shift 2 ;;
    --no-env) MAKE_ENV=0; shift ;;
    *) echo "install-linux.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
MANIFEST="$APP/install-manifest.txt"
mkdir -p "$APP" "$DATA/applications" "$DATA/icons/hicolor/scalable/apps"
: > "$MANIFEST.new"
if [ "$MAKE_ENV" = 1 ]; then
  INFERENCE_CONSOLE_VENV="$VENV" bash "$ROOT/packaging/setup.sh" --no-launch
  echo "$VENV" >> "$MANIFEST.new"
fi
[ -x "$VENV/bin/inference-console" ] || { echo "no console in $VENV (run without --no-env)" >&2; exit 1; }
ICON="$DATA/icons/hicolor/scalable/apps/inference-console.svg"
cp "$ROOT/resources/icons/inference-console.svg" "$ICON"
DESKTOP="$DATA/applications/inference-console.desktop"
cat > "$DESKTOP" <<DESK
[Desktop Entry]
Type=Application
Name=Inference Console
Name[zh_CN]=推理控制台
Comment=Tuned LLM inference on your GPU (vLLM)
Exec=$VENV/bin/inference-console gui --load
Icon=inference-console
Terminal=false
Categories=Development;Science;
DESK
printf '%s\n%s\n' "$ICON" "$DESKTOP" >> "$MANIFEST.new"
mv "$MANIFEST.new" "$MANIFEST"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$DATA/applications" 2>/dev/null || true
echo "installed: menu entry $DESKTOP (Exec $VENV/bin/inference-console)"
