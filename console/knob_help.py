"""The window's view of the engine knobs: each knob's row label, its tooltip texts (what it does,
its RTX 4090 default and why), the device it applies to and whether it sits under "Advanced", read from the
knobs' one description on :class:`~console.config.EngineConfig`'s fields (:mod:`console.knobs`).
``console.ui.i18n`` extracts the texts for translation in context :data:`HELP_CONTEXT`.

The 4090 defaults are those of the ``gpu-default`` preset (``presets/gpu-default.toml``) and of
vLLM's offline scheduler on a 24 GB card (``planner/defaults.py``); ``tests/test_ui_knobs.py``
checks them against both.
"""

from __future__ import annotations

from console.config import window_knobs
from console.knobs import Knob

#: The translation context of the knobs' texts.
HELP_CONTEXT = "KnobHelp"

#: The window's knobs by EngineConfig field (kv_cache_memory_bytes: the CPU KV cache size).
KNOB_HELP: dict[str, Knob] = window_knobs()


def applies_to(key: str, gpu: bool) -> bool:
    """Whether ``key``'s knob means anything on this device (a GPU, or else the CPU engine)."""
    where = KNOB_HELP[key].device
    return where == "any" or (where == "gpu") == gpu


def help_texts() -> list[str]:
    """Every text of the window's knobs, for the translation catalogue: the tooltip's, the row's
    label, the word for a preset that leaves the knob unset and the words of its choices."""
    return [
        t
        for k in KNOB_HELP.values()
        for t in (k.help, k.default_4090, k.why, k.label, k.unset, *(word for _v, word in k.choice_labels))
        if t
    ]
