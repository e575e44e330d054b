"""Build hook: ship ``presets/`` and ``resources/`` inside the wheel as ``console/_data/``.

The source tree keeps them at the top level (data, not code); an installed console finds them
through :func:`console.paths.presets_dir` / :func:`console.paths.resources_dir`, which look in
``console/_data`` first. Everything else is in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildPyWithData(build_py):
    def run(self) -> None:
        super().run()
        for name in ("presets", "resources"):
            src = ROOT / name
            if src.is_dir():
                shutil.copytree(src, Path(self.build_lib) / "console" / "_data" / name, dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildPyWithData})
