"""The core's own sentences in the UI's language.

The core (no Qt) says some things in fixed English sentences that the window shows as they are:
why there is no GPU series (``metrics/nvml.py``, ``metrics/device.py``), where the planner's
figures came from (``planner/selfcal.py``), how a calibration changed an overhead
(``planner/calibration.py``), why an advisor rule was not checked (``advisor/evaluate.py``),
why the CPU check rejected a dtype (``engine/cpu_dtype.py``), the quality gate's verdict
(``quant/gate.py``), why a model does not fit and what would make it fit (``planner/core.py``,
``planner/speed.py``, ``planner/suggest.py``) and the calibration's error against the last load
(``planner/selfcal.py``). A sentence made of parts (a suggestion's levers joined by " + ", the
gate's figures) is matched part by part.
:func:`translate_core_text` recognises each of those sentences and gives it through the
catalogue (context "CoreText"); what it carries (a file name, a count, a library's own error) is
kept and put back in place. A sentence it does not know is shown as
written. ``tests/test_i18n_core_text.py`` builds each sentence with the core itself, so a
changed wording there fails the test instead of showing English.
"""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import QCoreApplication


def _table() -> list[tuple[str, str]]:
    """(the core's sentence as a pattern, its translation with {0}, {1} for what it carries);
    looked up at each call, so the catalogue installed at start is the one used."""
    tr = QCoreApplication.translate
    return [
        # metrics/device.py: the sampler's fallback, around one of the NVML reasons below
        (r"(.+); showing process RAM and CPU", tr("CoreText", "{0}; showing process RAM and CPU")),
        # metrics/nvml.py
        (
            r"no NVIDIA GPU: the NVML bindings \(nvidia-ml-py\) are not installed",
            tr("CoreText", "no NVIDIA GPU: the NVML bindings (nvidia-ml-py) are not installed"),
        ),
        (r"no NVIDIA GPU visible to NVML \((.+)\)", tr("CoreText", "no NVIDIA GPU visible to NVML ({0})")),
        (r"NVML could not count the GPUs \((.+)\)", tr("CoreText", "NVML could not count the GPUs ({0})")),
        (r"no NVIDIA GPU: NVML sees no device", tr("CoreText", "no NVIDIA GPU: NVML sees no device")),
        # planner/selfcal.py: the calibration's status and each figure's source
        (
            r"estimate \(no calibration for this GPU yet: load a model on it to calibrate\)",
            tr("CoreText", "estimate (no calibration for this GPU yet: load a model on it to calibrate)"),
        ),
        (
            r"calibrated on this GPU from (\d+) load\(s\) with vLLM (\S+)",
            tr("CoreText", "calibrated on this GPU from {0} load(s) with vLLM {1}"),
        ),
        (
            r"calibrated from (\d+) shipped load\(s\) \((.+)\)",
            tr("CoreText", "calibrated from {0} shipped load(s) ({1})"),
        ),
        (r"estimate", tr("CoreText", "estimate")),
        (r"calibrated on this GPU", tr("CoreText", "calibrated on this GPU")),
        (r"calibrated \((.+)\)", tr("CoreText", "calibrated ({0})")),
        (r"exact: kv_cache_memory_bytes, as given", tr("CoreText", "exact: kv_cache_memory_bytes, as given")),
        (r"measured on this GPU \((.*)\): ([\d,]+) tokens", tr("CoreText", "measured on this GPU ({0}): {1} tokens")),
        # planner/calibration.py: how a calibration changed an overhead
        (r"measured \((.+)\)", tr("CoreText", "measured ({0})")),
        (r"estimate corrected by (.+)", tr("CoreText", "estimate corrected by {0}")),
        (r"calibrated on this GPU \((\d+) load\(s\)\)", tr("CoreText", "calibrated on this GPU ({0} load(s))")),
        (
            r"from (.+) \(this GPU's loads have no figure for it\)",
            tr("CoreText", "from {0} (this GPU's loads have no figure for it)"),
        ),
        # advisor/evaluate.py: why a rule was not checked
        (
            r"no GPU utilisation series \(NVML\): not an NVIDIA GPU",
            tr("CoreText", "no GPU utilisation series (NVML): not an NVIDIA GPU"),
        ),
        (
            r"no throttle, temperature or power series \(NVML\): not an NVIDIA GPU",
            tr("CoreText", "no throttle, temperature or power series (NVML): not an NVIDIA GPU"),
        ),
        (
            r"no GPU memory series \(NVML\): not an NVIDIA GPU",
            tr("CoreText", "no GPU memory series (NVML): not an NVIDIA GPU"),
        ),
        (
            r"the engine's memory budget is unknown \(no engine settings given\)",
            tr("CoreText", "the engine's memory budget is unknown (no engine settings given)"),
        ),
        *_cpu_check(tr),
        *_gate(tr),
        *_planner(tr),
        # a suggestion's levers (planner/suggest.py), last: any sentence above may hold " + " itself
        (r"(.+?) \+ (.+)", "{0} + {1}"),
    ]


def _cpu_check(tr: Any) -> list[tuple[str, str]]:
    """engine/cpu_dtype.py ``judge``: why a dtype was kept or rejected."""
    return [
        (r"wrong answer to the known question: (.+)", tr("CoreText", "wrong answer to the known question: {0}")),
        (r"failed to run: (.+)", tr("CoreText", "failed to run: {0}")),
        (r"no answer to the known question", tr("CoreText", "no answer to the known question")),
        (r"reference", tr("CoreText", "reference")),
        (r"no correct (\S+) reference to compare with", tr("CoreText", "no correct {0} reference to compare with")),
        (r"no log-probabilities to compare", tr("CoreText", "no log-probabilities to compare")),
        (
            r"next-token choice agrees with (\S+) on only (\d+)% of positions",
            tr("CoreText", "next-token choice agrees with {0} on only {1}% of positions"),
        ),
        (
            r"log-probabilities differ from (\S+) by ([\d.]+) nats on average",
            tr("CoreText", "log-probabilities differ from {0} by {1} nats on average"),
        ),
        (r"agrees with float32", tr("CoreText", "agrees with float32")),
    ]


def _gate(tr: Any) -> list[tuple[str, str]]:
    """quant/gate.py ``GateResult.message`` and ``engine_note``: the quality gate's verdict."""
    rejected = "The quantized model loses too much quality; it was not kept."
    return [
        (r"Accepted: ([^\[]+) \[(.+)\]", tr("CoreText", "Accepted: {0} [{1}]")),
        (r"Accepted: ([^\[]+)", tr("CoreText", "Accepted: {0}")),
        (
            r"Rejected \((.+?)\): ([^\[]+) \[(.+)\]\. " + re.escape(rejected),
            tr("CoreText", "Rejected ({0}): {1} [{2}]. The quantized model loses too much quality; it was not kept."),
        ),
        (
            r"Rejected \((.+?)\): ([^\[]+)\. " + re.escape(rejected),
            tr("CoreText", "Rejected ({0}): {1}. The quantized model loses too much quality; it was not kept."),
        ),
        (r"perplexity", tr("CoreText", "perplexity")),
        (r"accuracy", tr("CoreText", "accuracy")),
        (r"regressions", tr("CoreText", "regressions")),
        (r"(perplexity|accuracy) and (.+)", tr("CoreText", "{0} and {1}")),
        (
            r"perplexity (\S+) -> (\S+) \(([+-]\S+)%, limit \+(\d+)% for (\S+)\); (accuracy .+)",
            tr("CoreText", "perplexity {0} -> {1} ({2}%, limit +{3}% for {4}); {5}"),
        ),
        (
            r"perplexity (\S+) -> (\S+) \(([+-]\S+)%, limit \+(\d+)% for (\S+)\)",
            tr("CoreText", "perplexity {0} -> {1} ({2}%, limit +{3}% for {4})"),
        ),
        (
            r"accuracy (\S+)% -> (\S+)% \(([+-]\S+) points, limit -(\d+) for (\S+); (\d+) of (\d+) questions "
            r"right -> wrong(.*), (\d+) wrong -> right\)",
            tr(
                "CoreText",
                "accuracy {0}% -> {1}% ({2} points, limit -{3} for {4}; {5} of {6} questions right -> "
                "wrong{7}, {8} wrong -> right)",
            ),
        ),
        (r" \(limit (\d+)\)", tr("CoreText", " (limit {0})")),
        (r", (\d+) of (\d+) facts \(limit (\d+) facts\)", tr("CoreText", ", {0} of {1} facts (limit {2} facts)")),
        (
            r"measured on the CPU engine; GPU kernels can differ \(vLLM (.+), (\S+)\)",
            tr("CoreText", "measured on the CPU engine; GPU kernels can differ (vLLM {0}, {1})"),
        ),
        (
            r"measured on the GPU: vLLM (\S+) chose quantization (.+), dtype (\S+), KV cache (\S+)",
            tr("CoreText", "measured on the GPU: vLLM {0} chose quantization {1}, dtype {2}, KV cache {3}"),
        ),
        (r"none \(16-bit weights\)", tr("CoreText", "none (16-bit weights)")),
    ]


def _planner(tr: Any) -> list[tuple[str, str]]:
    """planner/core.py and planner/speed.py: why a model does not fit; planner/suggest.py: what would
    make it fit; planner/selfcal.py ``last_load_text``: the calibration's error against the last load."""
    return [
        (
            r"tensor_parallel_size (\d+) does not divide the model's (\d+) attention heads",
            tr("CoreText", "tensor_parallel_size {0} does not divide the model's {1} attention heads"),
        ),
        (
            r"max_model_len ([\d,]+) is longer than the model's ([\d,]+) positions \(vLLM refuses it\)",
            tr("CoreText", "max_model_len {0} is longer than the model's {1} positions (vLLM refuses it)"),
        ),
        (
            r"weights (.+?) \+ KV cache (.+?) \+ overheads (.+?) = (.+?) exceed (.+?) of RAM",
            tr("CoreText", "weights {0} + KV cache {1} + overheads {2} = {3} exceed {4} of RAM"),
        ),
        (
            r"weights (.+?) \+ activations (.+?) do not fit in (\S+) x (.+?) = (.+)",
            tr("CoreText", "weights {0} + activations {1} do not fit in {2} x {3} = {4}"),
        ),
        (
            r"gpu_memory_utilization (\S+) asks for (.+?), but only (.+?) is free after the CUDA context: "
            r"vLLM refuses to start",
            tr(
                "CoreText",
                "gpu_memory_utilization {0} asks for {1}, but only {2} is free after the CUDA context: "
                "vLLM refuses to start",
            ),
        ),
        (
            r"vLLM would accept this and size the KV cache to (.+?), but CUDA graphs \((.+?)\) are outside its "
            r"budget: the process would need (.+?) more than (RAM|the card) has and run out of memory",
            tr(
                "CoreText",
                "vLLM would accept this and size the KV cache to {0}, but CUDA graphs ({1}) are outside "
                "its budget: the process would need {2} more than {3} has and run out of memory",
            ),
        ),
        (
            r"kv_cache_memory_bytes (.+?) \+ weights \+ overheads = (.+?) exceed (RAM|the card) \((.+)\)",
            tr("CoreText", "kv_cache_memory_bytes {0} + weights + overheads = {1} exceed {2} ({3})"),
        ),
        (r"RAM", tr("CoreText", "RAM")),
        (r"the card", tr("CoreText", "the card")),
        (
            r"KV offload moves GPU KV blocks to host memory: the CPU engine refuses it \(its KV cache is already in "
            r"RAM; size it with kv_cache_memory_bytes\)",
            tr(
                "CoreText",
                "KV offload moves GPU KV blocks to host memory: the CPU engine refuses it (its KV cache "
                "is already in RAM; size it with kv_cache_memory_bytes)",
            ),
        ),
        (
            r"KV offload of (\S+) GiB needs host memory; this machine has (\S+) GiB of RAM \((\S+) GiB after 4 GiB "
            r"for the system\)",
            tr(
                "CoreText",
                "KV offload of {0} GiB needs host memory; this machine has {1} GiB of RAM ({2} GiB after "
                "4 GiB for the system)",
            ),
        ),
        (
            r"the KV cache holds ([\d,]+) tokens: not one request of max_model_len ([\d,]+) \(vLLM refuses to start\)",
            tr(
                "CoreText",
                "the KV cache holds {0} tokens: not one request of max_model_len {1} (vLLM refuses to start)",
            ),
        ),
        (
            r"(\d+) users at ([\d,]+) tokens need ([\d,]+) tokens of KV cache; it holds ([\d,]+) "
            r"\(max concurrency (\S+)\)",
            tr("CoreText", "{0} users at {1} tokens need {2} tokens of KV cache; it holds {3} (max concurrency {4})"),
        ),
        (
            r"max_num_seqs (\d+) is below the (\d+) users asked for",
            tr("CoreText", "max_num_seqs {0} is below the {1} users asked for"),
        ),
        # engine/local_server.py: the Server tab's port (issue 31)
        (
            r"Port (\d+) on (\S+) is already in use \(another server, or one still stopping\): choose another port, "
            r"or stop what listens there",
            tr(
                "CoreText",
                "Port {0} on {1} is already in use (another server, or one still stopping): choose another port, "
                "or stop what listens there",
            ),
        ),
        # suggestions: each lever, the extras, the hardware ones
        (r"use (\S+) of the card", tr("CoreText", "use {0} of the card")),
        (r"eager mode \(no CUDA graphs\)", tr("CoreText", "eager mode (no CUDA graphs)")),
        (r"FP8 KV cache", tr("CoreText", "FP8 KV cache")),
        (r"FP8 weights", tr("CoreText", "FP8 weights")),
        (r"AWQ int4 weights \(an AWQ checkpoint\)", tr("CoreText", "AWQ int4 weights (an AWQ checkpoint)")),
        (r"as asked", tr("CoreText", "as asked")),
        (r"(\d+) users at ([\d,]+) tokens", tr("CoreText", "{0} users at {1} tokens")),
        (r"(\d+) x (.+) with tensor_parallel_size (\d+)", tr("CoreText", "{0} x {1} with tensor_parallel_size {2}")),
        (r"one (.+) as asked", tr("CoreText", "one {0} as asked")),
        (r"a smaller model: (.+) as asked", tr("CoreText", "a smaller model: {0} as asked")),
        # a load's stages (the engine host's and the local server's status)
        (r"starting", tr("CoreText", "starting")),
        (r"importing vLLM", tr("CoreText", "importing vLLM")),
        (r"building the engine \(weights, KV cache\)", tr("CoreText", "building the engine (weights, KV cache)")),
        (r"loading tokenizer", tr("CoreText", "loading tokenizer")),
        (r"keeping the loaded model warm", tr("CoreText", "keeping the loaded model warm")),
        (r"waking the warm model", tr("CoreText", "waking the warm model")),
        (r"starting the server process", tr("CoreText", "starting the server process")),
        # the last load
        (r"last load \((.*?), ([^,]*)\): (.+)", tr("CoreText", "last load ({0}, {1}): {2}")),
        (
            r"predicted ([\d,]+) KV tokens before it \((.*); error ([+-]\S+)%\), (.+)",
            tr("CoreText", "predicted {0} KV tokens before it ({1}; error {2}%), {3}"),
        ),
        (
            r"([\d,]+) after refitting, measured ([\d,]+) \(error ([+-]\S+)%\)",
            tr("CoreText", "{0} after refitting, measured {1} (error {2}%)"),
        ),
        (r"([\d,]+) after refitting, measured ([\d,]+)", tr("CoreText", "{0} after refitting, measured {1}")),
        *_picker_table(),
    ]


def _picker_table() -> list[tuple[str, str]]:
    """The model picker's sentences (``models/curated.py``, ``models/search.py``, ``privacy.py``)."""
    tr = QCoreApplication.translate
    return [
        (
            r"([\d.]+) GiB of weights, (\d+) tokens of KV cache on ([^;]+); (.+)",
            tr("CoreText", "{0} GiB of weights, {1} tokens of KV cache on {2}; {3}"),
        ),
        (
            r"([\d.]+) GiB of weights, (\d+) tokens of KV cache on ([^;]+)",
            tr("CoreText", "{0} GiB of weights, {1} tokens of KV cache on {2}"),
        ),
        (
            r"unknown until download: the planner reads config\.json when you Check the repository",
            tr("CoreText", "unknown until download: the planner reads config.json when you Check the repository"),
        ),
        (
            r"(.+) is limiting searches \(HTTP 429\): wait (\d+) s and search again",
            tr("CoreText", "{0} is limiting searches (HTTP 429): wait {1} s and search again"),
        ),
        (
            r"(.+) is limiting searches \(HTTP 429\): wait a minute and search again",
            tr("CoreText", "{0} is limiting searches (HTTP 429): wait a minute and search again"),
        ),
        (
            r"(.+) answered HTTP (\d+) \(a problem on its side\): search again later, or search (.+)",
            tr("CoreText", "{0} answered HTTP {1} (a problem on its side): search again later, or search {2}"),
        ),
        (
            r"(.+) refused the search \(HTTP (\d+) from (.+)\): check the endpoint",
            tr("CoreText", "{0} refused the search (HTTP {1} from {2}): check the endpoint"),
        ),
        (
            r"(.+) did not answer within (\S+) s \((.+)\): check the network and search again",
            tr("CoreText", "{0} did not answer within {1} s ({2}): check the network and search again"),
        ),
        (
            r"Could not reach (.+) at (\S+) \((.+)\): check the network or the endpoint",
            tr("CoreText", "Could not reach {0} at {1} ({2}): check the network or the endpoint"),
        ),
        (
            r"(.+) answered something that is not JSON \((.+)\): check the endpoint",
            tr("CoreText", "{0} answered something that is not JSON ({1}): check the endpoint"),
        ),
        (
            r"Offline mode is on \((\w+)=(.*)\): (.+) would use the network\. "
            r"Unset (\w+) to search, or pick from the curated list",
            tr(
                "CoreText",
                "Offline mode is on ({0}={1}): {2} would use the network. Unset {3} to search, "
                "or pick from the curated list",
            ),
        ),
        (r"searching (Hugging Face|ModelScope)", tr("CoreText", "searching {0}")),
        (
            r"Type a few words to search for, e\.g\. qwen3 awq",
            tr("CoreText", "Type a few words to search for, e.g. qwen3 awq"),
        ),
    ]


def translate_core_text(text: str) -> str:
    """``text`` in the UI's language when it is one of the core's known sentences (what it
    carries translated in turn: the fallback's NVML reason), else ``text`` as written."""
    for pattern, translation in _table():
        m = re.fullmatch(pattern, text, re.DOTALL)
        if m:
            return translation.format(*("" if g is None else translate_core_text(g) for g in m.groups()))
    return text
