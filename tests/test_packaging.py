"""The wheel carries presets/ and resources/ as package data: an installed console works from
outside the source tree (built here, installed into a clean venv with no other package)."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


#: The console's own light dependencies that the no-engine commands import (presets are validated
#: with pydantic): copied from this environment into the bare venv, so the test needs no index.
LIGHT_DEPENDENCIES = ("pydantic", "pydantic_core", "annotated_types", "typing_extensions", "typing_inspection")


def _copy_light_dependencies(site: Path) -> None:
    import importlib.util
    import shutil

    for name in LIGHT_DEPENDENCIES:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin, f"{name} is not installed here"
        origin = Path(spec.origin)
        if origin.name == "__init__.py":
            shutil.copytree(origin.parent, site / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(origin, site / origin.name)


def test_wheel_installs_and_runs_outside_the_source_tree(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    wheel = next(dist.glob("inference_console-*.whl"))
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    inst = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], capture_output=True, text=True, timeout=600
    )
    assert inst.returncode == 0, inst.stderr[-2000:]
    site = env_dir / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    _copy_light_dependencies(site)
    exe = env_dir / "bin" / "inference-console"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "INFERENCE_CONSOLE_HOME": str(tmp_path / "home")}
    version = subprocess.run(
        [str(exe), "--version"], capture_output=True, text=True, cwd=elsewhere, env=env, timeout=120
    )
    assert version.returncode == 0, version.stderr
    assert "inference-console: " in version.stdout and "engine: not installed" in version.stdout
    presets = subprocess.run(
        [str(exe), "presets", "list"], capture_output=True, text=True, cwd=elsewhere, env=env, timeout=120
    )
    assert presets.returncode == 0, presets.stderr
    shipped = sorted(p.stem for p in (ROOT / "presets").glob("*.toml"))
    for name in shipped:  # found inside the installed package, not in this checkout
        assert name in presets.stdout
    installed_data = (
        env_dir
        / "lib"
        / f"python{sys.version_info.major}.{sys.version_info.minor}"
        / "site-packages"
        / "console"
        / "_data"
    )
    assert (installed_data / "resources" / "icons" / "inference-console.svg").is_file()
