"""The core's messages shown in the window come out in Chinese under zh_CN: why there is no GPU
series, where the planner's figures came from, why an advisor rule was not checked, the CPU
check, the quality gate, the planner's problems, suggestions and notes. Each message is made by
the core itself (NVML's reason on this machine, the planner's provenance of real plans, the
advisor's report on an empty store), so a message whose template has no finished translation, or
whose translation's placeholders differ from the template's, fails here instead of showing
English in the window. No engine."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from console.messages import CONTEXT, Message
from console.ui import i18n
from console.ui.core_text import translate_core_text
from tests.test_i18n_window import english_words

CJK = re.compile(r"[\u4e00-\u9fff]")
PLACEHOLDER = re.compile(r"\{\d+\}")


@pytest.fixture()
def zh_cn(qapp: Any) -> Iterator[None]:
    from PySide6.QtCore import QLocale

    from console.ui.app import install_translators

    before = QLocale()
    installed = install_translators(qapp, "zh_CN")
    assert installed
    try:
        yield
    finally:
        for t in installed:
            qapp.removeTranslator(t)
        QLocale.setDefault(before)


def _catalogue() -> dict[tuple[str, str], tuple[str, bool]]:
    return i18n.read_ts(i18n.ts_path("zh_CN"))


def _templates(message: str) -> list[str]:
    """The templates of ``message`` and of every message among its arguments."""
    if not isinstance(message, Message):
        return []
    return [message.template] + [t for a in message.args for t in _templates(a)]


def _check_catalogue(message: str) -> None:
    """Every template in ``message`` has a finished translation with the same placeholders."""
    assert isinstance(message, Message), f"not a message (the window cannot translate it): {message!r}"
    ts = _catalogue()
    for template in _templates(message):
        translation, finished = ts.get((CONTEXT, template), ("", False))
        assert finished and translation, f"no translation of {template!r}"
        assert sorted(PLACEHOLDER.findall(translation)) == sorted(PLACEHOLDER.findall(template)), (
            template,
            translation,
        )


def _translated(text: str) -> str:
    _check_catalogue(text)
    out = translate_core_text(text)
    assert out != text and CJK.search(out), f"not translated: {text!r} -> {out!r}"
    return out


def _nvml_reason(monkeypatch: pytest.MonkeyPatch, module: Any) -> str:
    """NVML's reason with ``module`` standing in for pynvml (None: not installed)."""
    from console.metrics import nvml

    monkeypatch.setitem(sys.modules, "pynvml", module)
    for name, value in (("_tried", False), ("_module", None), ("_reason", None)):
        monkeypatch.setattr(nvml, name, value)
    return nvml.unavailable_reason()


def test_nvml_and_device_reasons(zh_cn: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from console.metrics import device, nvml

    here = nvml.unavailable_reason()  # this machine: no NVIDIA GPU, the real bindings' own error
    if not here:
        pytest.skip("an NVIDIA GPU is visible here")
    out = _translated(here)
    detail = re.search(r"\((.*)\)$", here)
    assert detail is None or detail.group(1) in out  # the library's own error is kept as it said it
    fallback = device.open_source()[1]
    assert _translated(fallback).startswith(out)

    class Refuses:  # stand-ins for pynvml on the failure paths this machine cannot take
        @staticmethod
        def nvmlInit() -> None:
            pass

        @staticmethod
        def nvmlShutdown() -> None:
            pass

        @staticmethod
        def nvmlDeviceGetCount() -> int:
            raise OSError("driver gone")

    class NoDevice(Refuses):
        @staticmethod
        def nvmlDeviceGetCount() -> int:
            return 0

    for stand_in in (None, Refuses, NoDevice):
        reason = _nvml_reason(monkeypatch, stand_in)
        assert reason, stand_in
        _translated(reason)


def test_planner_provenance(zh_cn: None, tiny_model: Path, home: Path) -> None:
    from console.config import EngineConfig
    from console.models.store import ModelStore
    from console.planner.calibration import Calibration
    from console.models.fit_table import plan_for
    from console.planner.selfcal import status_text
    from console.ui.models.plan_view import details_markdown

    store = ModelStore()
    entry = store.add_reference("tiny", tiny_model)
    seen = set()
    for device, config in (
        ("cpu:24", EngineConfig(model=str(tiny_model), kv_cache_memory_bytes=2 * 1024**3)),
        ("h200", EngineConfig(model=str(tiny_model))),
        ("rtx-4090", EngineConfig(model=str(tiny_model))),
    ):
        p = plan_for(entry, config, device)
        texts = [p.calibration["status"], *p.calibration["sources"].values()]
        for text in texts:
            _translated(text)
            seen.add(text)
        assert not english_words(details_markdown(p), set()), details_markdown(p)
    user = Calibration(
        gpu="h200",
        origin="user",
        loads=3,
        vllm_version="0.33.0",
        path="/x/h200-user.json",
        overheads={"cuda_context": {"scale": 1.1}, "cuda_graphs": {"bytes": 1}},
        inherited={"cuda_graphs": "h200.json"},
    )
    shipped = Calibration(gpu="h200", path="/x/h200.json", overheads={"activation_peak": {"scale": 1.2}})
    notes = [
        user.correct("cuda_context", 100)[1],
        user.correct("cuda_graphs", 100)[1],
        shipped.correct("activation_peak", 100)[1],
    ]
    for text in (
        status_text(None),
        status_text(user),
        Message("calibrated on this GPU"),
        Message("measured on this GPU ({0}): {1} tokens", "2026-12-01 10:00", "93,184"),
        *notes,
    ):
        _translated(text)
    assert any(t.startswith("calibrated (") for t in seen) and "exact: kv_cache_memory_bytes, as given" in seen


def test_advisor_reasons(zh_cn: None) -> None:
    from console.advisor import evaluate, load_rules
    from console.metrics.store import MetricsStore
    from console.paths import resources_dir

    report = evaluate(MetricsStore(), load_rules(resources_dir() / "advisor" / "rules.toml"))
    assert len(report.not_evaluated) >= 3  # no NVML series here, no engine settings
    for reason in report.not_evaluated.values():
        _translated(reason)


def test_text_that_is_not_a_message_is_shown_as_written(zh_cn: None) -> None:
    assert translate_core_text("something the core says now") == "something the core says now"
    assert translate_core_text("estimate") == "estimate"  # plain text is never read back as a message
    assert translate_core_text(Message("estimate")) != "estimate"
    # a template the catalogue does not know: English, with its arguments (translated where known)
    unknown = Message("{0} is new ({1})", "vLLM 0.40", Message("estimate"))
    assert translate_core_text(unknown).startswith("vLLM 0.40 is new (") and CJK.search(translate_core_text(unknown))


def test_every_core_template_is_in_the_catalogue_with_its_placeholders() -> None:
    """Each template the core writes (found the way ``python -m console.ui.i18n`` finds it) has a
    finished Chinese translation with exactly its ``{n}`` placeholders."""
    templates = {s for (c, s) in i18n.core_messages() if c == CONTEXT}
    assert len(templates) > 120
    ts = _catalogue()
    missing = sorted(t for t in templates if not (ts.get((CONTEXT, t)) or ("", False))[1])
    assert not missing, missing
    broken = [
        t for t in templates if sorted(PLACEHOLDER.findall(t)) != sorted(PLACEHOLDER.findall(ts[(CONTEXT, t)][0]))
    ]
    assert not broken, broken


def test_a_message_keeps_its_english_through_str_json_pickle_and_errors() -> None:
    import copy
    import json
    import pickle

    from console.messages import MessageError, message_of
    from console.planner.selfcal import last_load_text

    line = last_load_text({"last_load": {"model": "m", "time": "t", "predicted_kv_tokens": 5, "measured_kv_tokens": 6}})
    assert line == "last load (m, t): 5 after refitting, measured 6" and str(line) == line
    assert json.loads(json.dumps({"x": line}))["x"] == line
    for again in (pickle.loads(pickle.dumps(line)), copy.deepcopy(line)):
        assert isinstance(again, Message) and again == line and again.template == line.template
        assert again.args == line.args
    err = MessageError(line)
    assert str(err) == line and message_of(err) is line and message_of(ValueError(line)) is line
    assert message_of(ValueError("plain")) == "plain"


def test_a_core_error_shown_in_the_window_is_chinese_with_its_arguments(
    zh_cn: None, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model picker's search refused in offline mode: the core raises SearchError, the worker
    hands its message to the window, which shows it in Chinese with the variable and the hub."""
    from console.ui.models.get_model_picker import ModelPicker

    picker = ModelPicker(None)
    qtbot.addWidget(picker)
    qtbot.waitUntil(lambda: not picker.busy, timeout=20_000)
    monkeypatch.setenv("INFERENCE_CONSOLE_OFFLINE", "1")
    picker.search_edit.setText("qwen3")
    picker.search()
    qtbot.waitUntil(lambda: not picker.busy, timeout=20_000)
    shown = picker.error_label.text()
    assert CJK.search(shown) and "INFERENCE_CONSOLE_OFFLINE=1" in shown and "Hugging Face" in shown, shown
    assert "Offline mode is on" not in shown


# -- part C: the CPU check, the quality gate, the planner's problems and suggestions, the last load ----------
def _no_english(text: str, names: set[str] | None = None) -> None:
    assert CJK.search(text) and not english_words(text, names or set()), (text, english_words(text, names or set()))


def test_cpu_check_reasons_and_dialog(zh_cn: None) -> None:
    """Every reason ``judge`` gives a dtype, and the check's message box, in Chinese."""
    from console.engine.cpu_dtype import CheckResult, DtypeResult, Fingerprint, decide, judge
    from console.ui.cpu_check import summary

    ref = judge(DtypeResult("float32", "Paris", True, None, None, 30.9), None)
    cases = [
        judge(DtypeResult("bfloat16", "L'Étoile", False, None, None, 6.3), ref),
        judge(DtypeResult("float16", "", False, None, None, None, error="RuntimeError: boom"), ref),
        judge(DtypeResult("float16", "", False, None, None, None), ref),
        judge(DtypeResult("float16", "Paris", True, None, None, 6.0), None),
        judge(DtypeResult("float16", "Paris", True, None, None, 6.0), ref),
        judge(DtypeResult("float16", "Paris", True, 0.5, 0.01, 6.0), ref),
        judge(DtypeResult("float16", "Paris", True, 0.99, 9.0, 6.0), ref),
        judge(DtypeResult("bfloat16", "Paris", True, 0.99, 0.01, 6.3), ref),
        ref,
    ]
    assert len({r.reason for r in cases}) == len(cases)  # each of judge's sentences once
    for r in cases:
        _no_english(_translated(r.reason), {"L'Étoile", "RuntimeError: boom"})
    choice, message = decide(cases, "smollm2")
    text = summary(CheckResult(Fingerprint("x", (), "v"), "smollm2", cases, choice, message))
    _no_english(text, {"smollm2", "L'Étoile"})
    wrong = [cases[0], cases[2]]
    none = summary(CheckResult(Fingerprint("x", (), "v"), "smollm2", wrong, *decide(wrong, "smollm2")))
    _no_english(none, {"smollm2", "L'Étoile"})


def test_gate_verdicts(zh_cn: None) -> None:
    """The quality gate's verdict (Quantize dialog): accepted and rejected, with and without the
    evaluation set and its facts, on the CPU and the GPU engine."""
    from console.quant.evalset import Flip
    from console.quant.gate import GateResult, ModelReport

    def report(ppl: float, correct: int | None, engine: dict[str, Any]) -> ModelReport:
        ev = None if correct is None else {"set": "quick-v2", "correct": correct, "total": 250}
        return ModelReport(
            "m",
            "/x",
            ppl,
            400,
            [],
            1,
            1,
            50.0,
            3.0,
            accuracy=None if correct is None else correct / 250,
            eval=ev,
            engine=engine,
        )

    cpu = {"device": "cpu", "vllm_version": "0.32.0", "dtype": "float16"}
    gpu = {"device": "cuda", "vllm_version": "0.26.0", "dtype": "bfloat16", "quantization": None}
    flip = Flip("en-1", "q", "7", "7", "4")
    gates = [
        GateResult("awq", report(10.0, 200, cpu), report(10.8, 199, cpu), 0.15, regressions=[flip]),
        GateResult("awq", report(10.0, 200, gpu), report(13.0, 150, gpu), 0.15, regressions=[flip] * 50),
        GateResult("fp8", report(10.0, None, {}), report(10.1, None, {}), 0.05),
        GateResult("fp8", report(10.0, None, {}), report(12.0, None, {}), 0.05),
        GateResult(
            "awq",
            report(10.0, 200, cpu),
            report(10.2, 190, cpu),
            0.15,
            regressions=[flip] * 10,
            facts_total=120,
            lost_facts=["f1", "f2", "f3", "f4", "f5", "f6", "f7"],
        ),
    ]
    assert [g.passed for g in gates] == [True, False, True, False, False]
    for g in gates:
        _no_english(_translated(g.message), {"awq", "fp8"})


def test_planner_problems_and_suggestions(zh_cn: None, qapp: Any) -> None:
    """Why a model does not fit and what would make it fit, made by the planner itself, and the
    Planner box showing them."""
    from console.config import EngineConfig
    from console.planner import GPU_PROFILES, KNOWN_SHAPES, PlanRequest, plan, shape_for
    from console.planner.gpus import GiB
    from console.ui.models.plan_view import PlanView

    llama8 = KNOWN_SHAPES["Llama-3.1-8B"]
    g4090 = GPU_PROFILES["rtx-4090"]
    requests = [
        PlanRequest(KNOWN_SHAPES["Qwen2.5-7B"], gpu="h200", max_model_len=8192, tensor_parallel_size=8),
        PlanRequest(shape_for("Qwen2.5-14B"), gpu="rtx-4090", max_model_len=32768, concurrency=8),
        PlanRequest(
            llama8,
            gpu=g4090,
            gpu_memory_utilization=round(23.0 * GiB / g4090.memory_bytes, 5),
            max_model_len=8192,
            concurrency=1,
            max_num_seqs=256,
            max_num_batched_tokens=8192,
            vllm_version="0.26.0",  # its dense models' CUDA graphs are outside vLLM's budget: the OOM sentence
        ),
        PlanRequest(shape_for("Qwen2.5-32B"), gpu="rtx-4080", quantization="awq", max_model_len=8192, concurrency=2),
        PlanRequest(shape_for("Gemma-2-9B"), gpu="h100-80gb", max_model_len=32768),
        PlanRequest(llama8, gpu="h200", kv_offloading_size=40.0, host_memory_bytes=32 * GiB),
        PlanRequest(KNOWN_SHAPES["SmolLM2-135M"], gpu="cpu:24", max_model_len=4096, kv_offloading_size=2.0),
        PlanRequest(shape_for("Qwen2.5-32B"), gpu="cpu:24", max_model_len=4096, kv_cache_memory_bytes=8 * GiB),
        PlanRequest(llama8, gpu="rtx-4090", max_model_len=8192, kv_cache_memory_bytes=30 * GiB),
        PlanRequest(llama8, gpu="rtx-4090", max_model_len=8192, gpu_memory_utilization=0.99),
        PlanRequest(llama8, gpu="rtx-4090", max_model_len=131072, concurrency=1),
        PlanRequest(llama8, gpu="h200", max_model_len=8192, concurrency=8, max_num_seqs=4),
    ]
    said: list[str] = []
    view = PlanView()
    for req in requests:
        p = plan(req)
        assert p.verdict != "fits", req
        texts = list(p.problems) + [s.summary for s in p.suggestions]
        said += texts
        names = {g.label for g in GPU_PROFILES.values()} | set(GPU_PROFILES) | set(KNOWN_SHAPES)
        for text in texts:  # some suggestions are only knobs and figures ("gpu_memory_utilization 0.95")
            if isinstance(text, Message):
                _check_catalogue(text)
            out = translate_core_text(text)
            assert not english_words(out, names) and (out != text or not english_words(text, names)), (text, out)
        view.show_plan(p, EngineConfig(model="m", max_model_len=req.context))
        shown = "\n".join(line for line in view.plan_label.text().splitlines() if line[:1] in "⚠→")
        assert shown and not english_words(shown, names), shown
    joined = "\n".join(said)
    for kind in (
        "does not divide",
        "do not fit",
        "CUDA graphs",
        "positions",
        "KV offload of",
        "CPU engine refuses",
        "of RAM",
        " + weights + overheads",
        "is free after the CUDA context",
        "not one request",
        "users at",
        "is below the",
        "tensor_parallel_size 2",
        "as asked",
        "a smaller model: ",
        " + ",
    ):
        assert kind in joined, kind  # each of the planner's sentences was made and checked above


def test_last_load_line(zh_cn: None) -> None:
    """The Details dialog's "last load ..." line, with and without the prediction before the refit."""
    from console.planner.selfcal import last_load_text

    base = {
        "model": "smollm2",
        "time": "2026-12-01T10:00:00",
        "predicted_kv_tokens": 93_000,
        "measured_kv_tokens": 93_184,
        "error": -0.00197,
    }
    lines = [
        last_load_text({"last_load": base}),
        last_load_text({"last_load": {**base, "error": None}}),
        last_load_text(
            {"last_load": {**base, "predicted_before": 90_000, "error_before": -0.0342, "before": "h200.json"}}
        ),
    ]
    for line in lines:
        assert line is not None
        _no_english(_translated(line), {"smollm2"})


def test_planner_notes(zh_cn: None, qapp: Any) -> None:
    """The planner's notes (the Planner box's ℹ lines), made by the planner itself: n-gram and
    draft-head speculation, KV offload, Gemma-2's sliding window, an AWQ checkpoint, FP8 without
    FP8 tensor cores."""
    from console.config import EngineConfig
    from console.planner import KNOWN_SHAPES, PlanRequest, plan, shape_for
    from console.planner.gpus import GiB
    from console.ui.models.plan_view import PlanView

    llama8 = KNOWN_SHAPES["Llama-3.1-8B"]
    requests = [
        PlanRequest(llama8, gpu="h200", max_model_len=8192, speculative_method="ngram", num_speculative_tokens=4),
        PlanRequest(llama8, gpu="h200", max_model_len=8192, speculative_method="eagle", num_speculative_tokens=3),
        PlanRequest(llama8, gpu="h200", max_model_len=8192, kv_offloading_size=16.0, host_memory_bytes=64 * GiB),
        PlanRequest(shape_for("Gemma-2-9B"), gpu="h200", max_model_len=8192),
        PlanRequest(llama8, gpu="h200", max_model_len=8192, quantization="awq"),
        PlanRequest(llama8, gpu="a100-80gb", max_model_len=8192, quantization="fp8"),
    ]
    view = PlanView()
    for req in requests:
        p = plan(req)
        assert p.notes, req
        for note in p.notes:
            _no_english(_translated(note), {"eagle"})
        view.show_plan(p, EngineConfig(model="m", max_model_len=req.context))
        shown = "\n".join(line for line in view.plan_label.text().splitlines() if line.startswith("ℹ"))
        assert shown and CJK.search(shown), shown
        _no_english(shown, {"eagle"})


def test_gate_table_row_labels(zh_cn: None) -> None:
    """The Quantize dialog's comparison table: the gate's figures, a question that flipped, and
    the FP8 presets' memory won (the labels; the questions and answers are what the model was asked
    and said, shown as they are)."""
    from console.quant.evalset import Flip
    from console.quant.fp8 import MemoryWon
    from console.quant.gate import GateResult, ModelReport

    cpu = {"device": "cpu", "vllm_version": "0.32.0", "dtype": "float16"}
    ev = {"set": "quick-v2", "correct": 200, "total": 250}
    o = ModelReport("m", "/x", 10.0, 400, ["4"], 1, 1, 50.0, 3.0, accuracy=0.8, eval=ev, engine=cpu)
    q = ModelReport("q", "/y", 10.8, 200, ["5"], 1, 1, 60.0, 3.0, accuracy=0.796, eval=ev, engine=cpu)
    flip = Flip("en-1", "How many legs\n has a cat?", "4", "4", "5")
    gate = GateResult("awq", o, q, 0.15, questions=["What is 2 + 2?"], regressions=[flip])
    rows = gate.table() + MemoryWon((1, 2), (3072, 1024), (10, 20)).rows()
    labels = [label for label, _, _ in rows if label != "What is 2 + 2?"]
    assert len(labels) == 9, labels
    for label in labels:
        _no_english(_translated(label), {"How many legs has a cat"})
    assert translate_core_text(flip_label := labels[5]).startswith("✗ How many legs has a cat?"), flip_label


def test_the_server_tabs_port_message(zh_cn: None) -> None:
    from console.engine.child_server import port_taken_message

    out = _translated(port_taken_message(8123, "127.0.0.1"))
    assert "8123" in out and "127.0.0.1" in out
