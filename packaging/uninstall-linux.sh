#!/usr/bin/env bash
# Remove exactly what packaging/install-linux.sh added (listed in its manifest). Models,
# conversations and settings in ~/.local/share/inference-console stay unless --purge.
set -euo pipefail
DATA=${XDG_DATA_HOME:-$HOME/.local/share}
APP="$DATA/inference-console"
MANIFEST="$APP/install-manifest.txt"
[ -f "$MANIFEST" ] || { echo "nothing to uninstall (no $MANIFEST)"; exit 0; }
while IFS= read -r path; do
  case "$path" in
    "$DATA"/*|"$HOME"/*) rm -rf -- "$path" ;;
    *) echo "skipping $path (outside your data folder)" >&2 ;;
  esac
done < "$MANIFEST"
rm -f "$MANIFEST"
if [ "${1:-}" = --purge ]; then rm -rf -- "$APP"; fi
echo "uninstalled"
