"""NVML has one owner (console/metrics/nvml.py): it answers "no NVIDIA GPU" clearly, initialises
at most once per process, and nothing else in the package calls NVML's init or shutdown."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from console.metrics import nvml

PACKAGE = Path(__file__).resolve().parent.parent / "console"
NO_GPU_HERE = not Path("/dev/nvidiactl").exists()


@pytest.fixture(autouse=True)
def fresh_nvml():
    nvml.shutdown()  # forget any cached answer from an earlier test
    yield
    nvml.shutdown()


def test_nothing_else_opens_nvml() -> None:
    """A static scan: the owner is the only module that imports pynvml or calls init/shutdown."""
    pattern = re.compile(r"nvmlInit|nvmlShutdown|import\s+pynvml|from\s+pynvml")
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "metrics" / "nvml.py":
            continue
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{no}: {line.strip()}")
    assert offenders == [], "NVML opened outside console/metrics/nvml.py:\n" + "\n".join(offenders)
    # and the scan itself sees the owner's own call (so the pattern is not simply wrong)
    assert pattern.search((PACKAGE / "metrics" / "nvml.py").read_text(encoding="utf-8"))


@pytest.mark.skipif(not NO_GPU_HERE, reason="this machine has an NVIDIA driver: the no-GPU answer needs one without")
def test_no_gpu_answer_on_this_machine() -> None:
    from console.cli.main import version_report
    from console.engine.in_process import cuda_available
    from console.metrics.device import ProcessSource, open_source

    assert nvml.available() is False
    reason = nvml.unavailable_reason()
    assert reason.startswith("no NVIDIA GPU"), reason
    with pytest.raises(nvml.NoNvidiaGpu, match="no NVIDIA GPU"):
        nvml.nvml()
    assert nvml.device_count() == 0 and nvml.gpu_names() == [] and nvml.gpu_name(0) is None
    assert nvml.driver_version() is None and nvml.cuda_driver_version() is None
    assert nvml.memory_total_bytes() is None
    assert cuda_available() is False
    source, why = open_source()
    assert isinstance(source, ProcessSource) and why.startswith(reason) and "process RAM" in why
    assert version_report()["gpus"] == "none visible to NVML"


def test_missing_bindings_say_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # `import pynvml` raises ImportError
    assert nvml.available() is False
    assert "nvidia-ml-py" in nvml.unavailable_reason()


def test_init_is_attempted_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    pynvml = pytest.importorskip("pynvml")
    calls = []
    real = pynvml.nvmlInit

    def counting_init(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(pynvml, "nvmlInit", counting_init)
    first = nvml.available()
    for _ in range(3):
        assert nvml.available() is first
        nvml.gpu_names()
        nvml.driver_version()
    assert len(calls) == 1
    nvml.shutdown()  # the next question starts over (as a new process would)
    nvml.available()
    assert len(calls) == 2
