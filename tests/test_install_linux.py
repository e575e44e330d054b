"""The Linux installer adds a menu entry and icon (and an environment), the uninstaller removes
exactly what was added and nothing else."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_install_then_uninstall_leaves_only_user_data(tmp_path: Path) -> None:
    data = tmp_path / "share"
    keep = data / "inference-console" / "models" / "registry.json"
    keep.parent.mkdir(parents=True)
    keep.write_text("{}")  # user data: must survive the uninstall
    env = dict(os.environ, HOME=str(tmp_path), XDG_DATA_HOME=str(data))
    venv = Path(sys.prefix)  # this test's environment stands in for the one setup.sh makes
    r = subprocess.run(
        ["bash", str(ROOT / "packaging/install-linux.sh"), "--no-env", "--venv", str(venv)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    desktop = data / "applications" / "inference-console.desktop"
    icon = data / "icons/hicolor/scalable/apps/inference-console.svg"
    text = desktop.read_text()
    assert f"Exec={venv}/bin/inference-console gui --load" in text and "Icon=inference-console" in text
    assert icon.read_text().startswith("<svg")
    r = subprocess.run(
        ["bash", str(ROOT / "packaging/uninstall-linux.sh")], capture_output=True, text=True, env=env, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert not desktop.exists() and not icon.exists()
    assert keep.read_text() == "{}"
    assert (venv / "bin").is_dir()  # --no-env: the environment was not ours to remove
