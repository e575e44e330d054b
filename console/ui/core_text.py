"""The core's own sentences in the UI's language.

The core (no Qt) says some things in fixed English sentences that the window shows as they are:
why there is no GPU series (``metrics/nvml.py``, ``metrics/device.py``), where the planner's
figures came from (``planner/selfcal.py``), how a calibration changed an overhead
(``planner/calibration.py``), why an advisor rule was not checked (``advisor/evaluate.py``).
:func:`translate_core_text` recognises each of those sentences and gives it through the
catalogue (context "CoreText"); what it carries (a file name, a count, a library's own error) is
kept and put back in place. A sentence it does not know is shown as
written. ``tests/test_i18n_core_text.py`` builds each sentence with the core itself, so a
changed wording there fails the test instead of showing English.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication


def _table() -> list[tuple[str, str]]:
    """(the core's sentence as a pattern, its translation with {0}, {1} for what it carries);
    looked up at each call, so the catalogue installed at start is the one used."""
    tr = QCoreApplication.translate
    return [
        # metrics/device.py: the sampler's fallback, around one of the NVML reasons below
        (r"(.+); showing process RAM and CPU", tr("CoreText", "{0}; showing process RAM and CPU")),
        # metrics/nvml.py
        (r"no NVIDIA GPU: the NVML bindings \(nvidia-ml-py\) are not installed",
         tr("CoreText", "no NVIDIA GPU: the NVML bindings (nvidia-ml-py) are not installed")),
        (r"no NVIDIA GPU visible to NVML \((.+)\)", tr("CoreText", "no NVIDIA GPU visible to NVML ({0})")),
        (r"NVML could not count the GPUs \((.+)\)", tr("CoreText", "NVML could not count the GPUs ({0})")),
        (r"no NVIDIA GPU: NVML sees no device", tr("CoreText", "no NVIDIA GPU: NVML sees no device")),
        # planner/selfcal.py: the calibration's status and each figure's source
        (r"estimate \(no calibration for this GPU yet: load a model on it to calibrate\)",
         tr("CoreText", "estimate (no calibration for this GPU yet: load a model on it to calibrate)")),
        (r"calibrated on this GPU from (\d+) load\(s\) with vLLM (\S+)",
         tr("CoreText", "calibrated on this GPU from {0} load(s) with vLLM {1}")),
        (r"calibrated from (\d+) shipped load\(s\) \((.+)\)",
         tr("CoreText", "calibrated from {0} shipped load(s) ({1})")),
        (r"estimate", tr("CoreText", "estimate")),
        (r"calibrated on this GPU", tr("CoreText", "calibrated on this GPU")),
        (r"calibrated \((.+)\)", tr("CoreText", "calibrated ({0})")),
        (r"exact: kv_cache_memory_bytes, as given", tr("CoreText", "exact: kv_cache_memory_bytes, as given")),
        (r"measured on this GPU \((.*)\): ([\d,]+) tokens", tr("CoreText", "measured on this GPU ({0}): {1} tokens")),
        # planner/calibration.py: how a calibration changed an overhead
        (r"measured \((.+)\)", tr("CoreText", "measured ({0})")),
        (r"estimate corrected by (.+)", tr("CoreText", "estimate corrected by {0}")),
        (r"calibrated on this GPU \((\d+) load\(s\)\)", tr("CoreText", "calibrated on this GPU ({0} load(s))")),
        (r"from (.+) \(this GPU's loads have no figure for it\)",
         tr("CoreText", "from {0} (this GPU's loads have no figure for it)")),
        # advisor/evaluate.py: why a rule was not checked
        (r"no GPU utilisation series \(NVML\): not an NVIDIA GPU",
         tr("CoreText", "no GPU utilisation series (NVML): not an NVIDIA GPU")),
        (r"no throttle, temperature or power series \(NVML\): not an NVIDIA GPU",
         tr("CoreText", "no throttle, temperature or power series (NVML): not an NVIDIA GPU")),
        (r"no GPU memory series \(NVML\): not an NVIDIA GPU",
         tr("CoreText", "no GPU memory series (NVML): not an NVIDIA GPU")),
        (r"the engine's memory budget is unknown \(no engine settings given\)",
         tr("CoreText", "the engine's memory budget is unknown (no engine settings given)")),
    ]


def translate_core_text(text: str) -> str:
    """``text`` in the UI's language when it is one of the core's known sentences (what it
    carries translated in turn: the fallback's NVML reason), else ``text`` as written."""
    for pattern, translation in _table():
        m = re.fullmatch(pattern, text, re.DOTALL)
        if m:
            return translation.format(*(translate_core_text(g) for g in m.groups()))
    return text
