"""The core's own sentences in the UI's language.

The core (no Qt) says some things in fixed English sentences that the window shows as they are:
why there is no GPU series (``metrics/nvml.py``, ``metrics/device.py``), where the planner's
figures came from (``planner/selfcal.py``), how a calibration changed an overhead
(``planner/calibration.py``), why an advisor rule was not checked (``advisor/evaluate.py``),
why the CPU check rejected a dtype (``engine/cpu_dtype.py``), the quality gate's verdict
(``quant/gate.py``), why a model does not fit and what would make it fit (``planner/core.py``,
``planner/speed.py``, ``planner/suggest.py``) and the calibration's error against the last load
(``planner/selfcal.py``), the planner's notes (``planner/verdict.py``, ``planner/speed.py``) and
the row labels of the gate's comparison table (``quant/gate.py``, ``quant/fp8.py``). A sentence
made of parts (a suggestion's levers joined by " + ", the gate's figures) is matched part by part.
:func:`translate_core_text` recognises each of those sentences and gives it through the
catalogue (context "CoreText"); what it carries (a file name, a count, a library's own error) is
kept and put back in place. A sentence it does not know is shown as
written. Each sentence is written once, as its catalogue text with ``{0}``, ``{1}`` where it
carries something; the pattern that recognises it is made from that text and what each ``{n}``
may hold. ``tests/test_i18n_core_text.py`` builds each sentence with the core itself, so a
changed wording there fails the test instead of showing English.
"""

from __future__ import annotations

import functools
import re

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

CONTEXT = "CoreText"
# What a {n} may hold (the others are written where they are used).
ANY, SOME, MAYBE = ".+", ".+?", ".*"
WORD, INT, COUNT, SIGNED = r"\S+", r"\d+", r"[\d,]+", r"[+-]\S+"


def _n(text: str) -> str:
    """``text`` as written, marked for the catalogue (context CoreText; console/ui/i18n.py finds it)."""
    return str(QT_TRANSLATE_NOOP("CoreText", text))  # the stubs type its result as object; it is ``text``


#: The core's sentences, in the order they are tried (a longer sentence before one it contains):
#: catalogue text -> what each of its {0}, {1}, ... may hold (a regular expression).
SENTENCES: dict[str, tuple[str, ...]] = {
    # metrics/device.py: the sampler's fallback, around one of the NVML reasons below
    _n("{0}; showing process RAM and CPU"): (ANY,),
    # metrics/nvml.py
    _n("no NVIDIA GPU: the NVML bindings (nvidia-ml-py) are not installed"): (),
    _n("no NVIDIA GPU visible to NVML ({0})"): (ANY,),
    _n("NVML could not count the GPUs ({0})"): (ANY,),
    _n("no NVIDIA GPU: NVML sees no device"): (),
    # planner/selfcal.py: the calibration's status and each figure's source
    _n("estimate (no calibration for this GPU yet: load a model on it to calibrate)"): (),
    _n("calibrated on this GPU from {0} load(s) with vLLM {1}"): (INT, WORD),
    _n("calibrated from {0} shipped load(s) ({1})"): (INT, ANY),
    _n("estimate"): (),
    _n("calibrated on this GPU"): (),
    _n("calibrated ({0}, {1}, vLLM {2}, {3} load(s))"): (WORD, WORD, WORD, INT),
    _n("calibrated ({0})"): (ANY,),
    _n("exact: kv_cache_memory_bytes, as given"): (),
    _n("measured on this GPU ({0}): {1} tokens"): (MAYBE, COUNT),
    # planner/calibration.py: how a calibration changed an overhead
    _n("measured ({0})"): (ANY,),
    _n("estimate corrected by {0}"): (ANY,),
    _n("calibrated on this GPU ({0} load(s))"): (INT,),
    _n("from {0} (this GPU's loads have no figure for it)"): (ANY,),
    # advisor/evaluate.py: why a rule was not checked
    _n("no GPU utilisation series (NVML): not an NVIDIA GPU"): (),
    _n("no throttle, temperature or power series (NVML): not an NVIDIA GPU"): (),
    _n("no GPU memory series (NVML): not an NVIDIA GPU"): (),
    _n("the engine's memory budget is unknown (no engine settings given)"): (),
    # engine/cpu_dtype.py judge: why a dtype was kept or rejected
    _n("wrong answer to the known question: {0}"): (ANY,),
    _n("failed to run: {0}"): (ANY,),
    _n("no answer to the known question"): (),
    _n("reference"): (),
    _n("no correct {0} reference to compare with"): (WORD,),
    _n("no log-probabilities to compare"): (),
    _n("next-token choice agrees with {0} on only {1}% of positions"): (WORD, INT),
    _n("log-probabilities differ from {0} by {1} nats on average"): (WORD, r"[\d.]+"),
    _n("agrees with float32"): (),
    # quant/gate.py GateResult.message and engine_note: the quality gate's verdict
    _n("Accepted: {0} [{1}]"): (r"[^\[]+", ANY),
    _n("Accepted: {0}"): (r"[^\[]+",),
    _n("Rejected ({0}): {1} [{2}]. The quantized model loses too much quality; it was not kept."): (
        SOME,
        r"[^\[]+",
        ANY,
    ),
    _n("Rejected ({0}): {1}. The quantized model loses too much quality; it was not kept."): (SOME, r"[^\[]+"),
    _n("perplexity"): (),
    _n("accuracy"): (),
    _n("regressions"): (),
    _n("{0} and {1}"): ("perplexity|accuracy", ANY),
    _n("perplexity {0} -> {1} ({2}%, limit +{3}% for {4}); {5}"): (WORD, WORD, SIGNED, INT, WORD, "accuracy .+"),
    _n("perplexity {0} -> {1} ({2}%, limit +{3}% for {4})"): (WORD, WORD, SIGNED, INT, WORD),
    _n(
        "accuracy {0}% -> {1}% ({2} points, limit -{3} for {4}; {5} of {6} questions right -> wrong{7}, {8} "
        "wrong -> right)"
    ): (WORD, WORD, SIGNED, INT, WORD, INT, INT, MAYBE, INT),
    _n(" (limit {0})"): (INT,),
    _n(", {0} of {1} facts (limit {2} facts)"): (INT, INT, INT),
    _n("measured on the CPU engine; GPU kernels can differ (vLLM {0}, {1})"): (ANY, WORD),
    _n("measured on the GPU: vLLM {0} chose quantization {1}, dtype {2}, KV cache {3}"): (WORD, ANY, WORD, WORD),
    _n("none (16-bit weights)"): (),
    # quant/gate.py GateResult.table and quant/fp8.py MemoryWon.rows: the Quantize dialog's row labels
    _n("perplexity (held-out)"): (),
    _n("accuracy ({0})"): (ANY,),
    _n("eval set"): (),
    _n("size on disk"): (),
    _n("weights memory"): (),
    _n("generation tok/s"): (),
    _n("{0} {1} (expected {2})"): ("[✗✓]", SOME, ANY),
    _n("weights"): (),
    _n("KV bytes per token"): (),
    _n("KV cache tokens"): (),
    # planner/core.py and planner/speed.py: why a model does not fit
    _n("tensor_parallel_size {0} does not divide the model's {1} attention heads"): (INT, INT),
    _n("max_model_len {0} is longer than the model's {1} positions (vLLM refuses it)"): (COUNT, COUNT),
    _n("weights {0} + KV cache {1} + overheads {2} = {3} exceed {4} of RAM"): (SOME, SOME, SOME, SOME, SOME),
    _n("weights {0} + activations {1} do not fit in {2} x {3} = {4}"): (SOME, SOME, WORD, SOME, ANY),
    _n("gpu_memory_utilization {0} asks for {1}, but only {2} is free after the CUDA context: vLLM refuses to start"): (
        WORD,
        SOME,
        SOME,
    ),
    _n(
        "vLLM would accept this and size the KV cache to {0}, but CUDA graphs ({1}) are outside its budget: "
        "the process would need {2} more than {3} has and run out of memory"
    ): (SOME, SOME, SOME, "RAM|the card"),
    _n("kv_cache_memory_bytes {0} + weights + overheads = {1} exceed {2} ({3})"): (SOME, SOME, "RAM|the card", ANY),
    _n("RAM"): (),
    _n("the card"): (),
    _n(
        "KV offload moves GPU KV blocks to host memory: the CPU engine refuses it (its KV cache is already "
        "in RAM; size it with kv_cache_memory_bytes)"
    ): (),
    _n(
        "KV offload of {0} GiB needs host memory; this machine has {1} GiB of RAM ({2} GiB after 4 GiB for the system)"
    ): (WORD, WORD, WORD),
    _n(
        "the KV cache holds {0} tokens: not one request of max_model_len {1} (vLLM refuses to start; the longest "
        "that fits is {2})"
    ): (COUNT, COUNT, COUNT),
    _n("{0} users at {1} tokens need {2} KV blocks; the cache has {3} (max concurrency {4})"): (
        INT,
        COUNT,
        COUNT,
        COUNT,
        WORD,
    ),
    _n("max_num_seqs {0} is below the {1} users asked for"): (INT, INT),
    # engine/local_server.py: the Server tab's port
    _n(
        "Port {0} on {1} is already in use (another server, or one still stopping): choose another port, "
        "or stop what listens there"
    ): (INT, WORD),
    # planner/suggest.py: what would make it fit (each lever, the extras, the hardware ones)
    _n("use {0} of the card"): (WORD,),
    _n("eager mode (no CUDA graphs)"): (),
    _n("FP8 KV cache"): (),
    _n("FP8 weights"): (),
    _n("AWQ int4 weights (an AWQ checkpoint)"): (),
    _n("as asked"): (),
    _n("{0} users at {1} tokens"): (INT, COUNT),
    _n("{0} x {1} with tensor_parallel_size {2}"): (INT, ANY, INT),
    _n("one {0} as asked"): (ANY,),
    _n("a smaller model: {0} as asked"): (ANY,),
    # a load's stages (the engine host's and the local server's status)
    _n("starting"): (),
    _n("importing vLLM"): (),
    _n("building the engine (weights, KV cache)"): (),
    _n("loading tokenizer"): (),
    _n("keeping the loaded model warm"): (),
    _n("waking the warm model"): (),
    _n("starting the server process"): (),
    # planner/core.py and planner/overheads.py: how closely a family calibration covers the plan
    _n("calibration for {0} on {1} with vLLM {2}: {3}; {4} held back from the KV cache"): (
        WORD,
        WORD,
        WORD,
        SOME,
        SOME,
    ),
    _n("calibrated for this family, GPU and vLLM release"): (),
    _n("measured on another GPU with this vLLM release"): (),
    _n("measured on this GPU with another vLLM release"): (),
    _n("measured on another GPU with another vLLM release"): (),
    _n("no measurement of this family: an estimate"): (),
    # planner/rules.py and planner/kvlayout.py: the rules a plan follows (the Details dialog)
    _n("vLLM {0} (installed): {1}"): (WORD, ANY),
    _n("vLLM {0} (what the gpu extra installs): {1}"): (WORD, ANY),
    _n("vLLM {0} (the CPU build): {1}"): (WORD, ANY),
    _n("vLLM {0} (as recorded): {1}"): (WORD, ANY),
    _n("no CUDA graphs (eager)"): (),
    _n("CUDA graphs inside the budget"): (),
    _n("CUDA graphs outside the budget (captured after the KV cache)"): (),
    _n("every layer as full attention ({0} sliding-window layers too: no hybrid KV cache on this device)"): (INT,),
    _n("every layer as full attention"): (),
    _n("every layer a {0}-token sliding window"): (INT,),
    _n(
        "hybrid KV cache: {0} full-attention + {1} sliding-window ({2} tokens) layers in {3} groups of {4}; a "
        "request holds its whole context in the full layers and window + 2 x {5} batched tokens in each sliding one"
    ): (INT, INT, INT, INT, INT, COUNT),
    # planner/verdict.py and planner/speed.py notes: the Planner box's ℹ lines
    _n(
        "n-gram speculation ({0} draft tokens): no draft model, no device memory; faster when answers copy "
        "the prompt (code editing, summarising)"
    ): (INT,),
    _n("{0} draft head: {1} GiB of weights and one layer of KV per token, counted in the budget above"): (
        WORD,
        r"[\d.]+",
    ),
    _n(
        "KV offload: {0} GiB of host RAM holds {1} more tokens of evicted KV for prefix-cache reuse (not more "
        "concurrent context)"
    ): (WORD, COUNT),
    _n("Gemma-2's sliding-window layers are planned as global ones: vLLM may fit more tokens"): (),
    _n("{0} needs a checkpoint quantized that way (inference-console quantize, or a published one)"): ("AWQ|GPTQ",),
    _n("{0} has no FP8 tensor cores: FP8 weights save memory, compute stays 16-bit"): (ANY,),
    # planner/selfcal.py last_load_text: the calibration's error against the last load
    _n("last load ({0}, {1}): {2}"): (".*?", "[^,]*", ANY),
    _n("predicted {0} KV tokens before it ({1}; error {2}%), {3}"): (COUNT, MAYBE, SIGNED, ANY),
    _n("{0} after refitting, measured {1} (error {2}%)"): (COUNT, COUNT, SIGNED),
    _n("{0} after refitting, measured {1}"): (COUNT, COUNT),
    # the model picker (models/curated.py, models/search.py, privacy.py)
    _n("{0} GiB of weights, {1} tokens of KV cache on {2}; {3}"): (r"[\d.]+", INT, "[^;]+", ANY),
    _n("{0} GiB of weights, {1} tokens of KV cache on {2}"): (r"[\d.]+", INT, "[^;]+"),
    _n("unknown until download: the planner reads config.json when you Check the repository"): (),
    _n("{0} is limiting searches (HTTP 429): wait {1} s and search again"): (ANY, INT),
    _n("{0} is limiting searches (HTTP 429): wait a minute and search again"): (ANY,),
    _n("{0} answered HTTP {1} (a problem on its side): search again later, or search {2}"): (ANY, INT, ANY),
    _n("{0} refused the search (HTTP {1} from {2}): check the endpoint"): (ANY, INT, ANY),
    _n("{0} did not answer within {1} s ({2}): check the network and search again"): (ANY, WORD, ANY),
    _n("Could not reach {0} at {1} ({2}): check the network or the endpoint"): (ANY, WORD, ANY),
    _n("{0} answered something that is not JSON ({1}): check the endpoint"): (ANY, ANY),
    _n("Offline mode is on ({0}={1}): {2} would use the network. Unset {3} to search, or pick from the curated list"): (
        r"\w+",
        MAYBE,
        ANY,
        r"\w+",
    ),
    _n("searching {0}"): ("Hugging Face|ModelScope",),
    _n("Type a few words to search for, e.g. qwen3 awq"): (),
    # a suggestion's levers (planner/suggest.py) joined, last: any sentence above may hold " + " itself;
    # not for the catalogue (nothing to translate)
    "{0} + {1}": (SOME, ANY),
}


@functools.cache
def _patterns() -> list[tuple[re.Pattern[str], str]]:
    """Each sentence's pattern: its text with every {n} replaced by a group of what it may hold."""
    out = []
    for text, holds in SENTENCES.items():
        parts = re.split(r"\{(\d+)\}", text)  # literal, index, literal, ...
        pattern = "".join(re.escape(p) if i % 2 == 0 else f"({holds[int(p)]})" for i, p in enumerate(parts))
        out.append((re.compile(pattern, re.DOTALL), text))
    return out


def translate_core_text(text: str) -> str:
    """``text`` in the UI's language when it is one of the core's known sentences (what it
    carries translated in turn: the fallback's NVML reason), else ``text`` as written. The
    catalogue is read at each call, so the one installed at start is the one used."""
    for pattern, source in _patterns():
        m = pattern.fullmatch(text)
        if m:
            translation = QCoreApplication.translate(CONTEXT, source)
            return translation.format(*("" if g is None else translate_core_text(g) for g in m.groups()))
    return text
