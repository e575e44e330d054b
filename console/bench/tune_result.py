"""What auto-tune measured: its trials, the result with the default-vs-tuned figures,
the progress line the CLI and the Bench panel show, and the tuned point saved as a preset whose
text says how it was measured. Plain data, no engine, no Qt."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from console.atomic import atomic_write_text
from console.bench.tune_goal import Goal, choose, longest_prompt_ttft_ms, tpot_ms
from console.bench.tune_cost import capture_tokens, draft_tokens
from console.schema import NOT_IN_PRESET
from console.presets import Preset, parse_preset, user_presets_dir, validate_engine_values

#: Trial statuses: measured on the whole workload; stopped by successive halving after a short
#: run; refused or crashed; never started (budget or cancel); cancelled while it was measured.
STATUSES = ("ok", "stopped", "failed", "skipped", "cancelled")


@dataclass
class Trial:
    knobs: dict[str, Any]  # engine knobs of its load, as loaded (None: vLLM's default)
    status: str
    error: str | None = None
    figures: dict[str, Any] = field(default_factory=dict)  # the whole-workload run at its best level
    seconds: float = 0.0
    label: str = ""  # "default" (vLLM's defaults), "confirmation" (the best loaded again), else ""
    load_seconds: float | None = None  # None: not loaded (already loaded, or never started)
    compile_key: str = ""  # loads with the same key share vLLM's torch.compile cache
    first_load_of_key: bool | None = None
    runs: list[dict[str, Any]] = field(default_factory=list)  # every run: rung, prompts, in flight, figures
    level: int | None = None  # requests in flight of ``figures`` (a max_num_seqs measured without a reload)
    predicted_tok_s: float | None = None  # the planner's ceiling that ordered it
    over_limits: str | None = None  # goal "many": which limit its whole-workload run broke (never chosen)

    @property
    def throughput(self) -> float:
        return float(self.figures.get("output_tokens_per_s") or 0.0)

    @property
    def p99_latency(self) -> float:
        return float((self.figures.get("e2e_s") or {}).get("p99") or float("inf"))

    @property
    def tpot_ms(self) -> float | None:
        """Median time per output token of its whole-workload run, in ms."""
        return tpot_ms(self.figures)

    def preset_knobs(self) -> dict[str, Any]:
        """The knobs to save: a batch cap measured as requests in flight becomes ``max_num_seqs``."""
        knobs = {k: v for k, v in self.knobs.items() if v is not None}
        if self.level is not None and knobs.get("max_num_seqs") and self.level < knobs["max_num_seqs"]:
            knobs["max_num_seqs"] = self.level
            if knobs.get("max_cudagraph_capture_size"):
                draft = draft_tokens(knobs.get("speculative_method"), knobs.get("num_speculative_tokens"))
                knobs["max_cudagraph_capture_size"] = min(
                    knobs["max_cudagraph_capture_size"], capture_tokens(self.level, draft)
                )
        return knobs

    def summary(self) -> str:
        knobs = ", ".join(f"{k}={v}" for k, v in self.preset_knobs().items())
        if self.label == "default":
            return "vLLM's defaults" + (f" ({knobs})" if knobs else "")
        return ("again: " if self.label == "confirmation" else "") + (knobs or "vLLM's defaults")


@dataclass
class TuneResult:
    trials: list[Trial]
    pareto: list[int]  # indices of whole-workload trials on the throughput / p99 front
    best: int | None
    cancelled: bool = False
    default: int | None = None  # the trial of vLLM's defaults
    speedup_vs_default: float | None = None  # best / default output tok/s, measured in this run
    tune_seconds: float = 0.0
    budget_s: float = 0.0
    workload: dict[str, Any] = field(default_factory=dict)
    vllm_version: str = ""
    device: str = ""
    card: str | None = None
    plan: dict[str, Any] = field(default_factory=dict)  # candidates, pruned points and why
    search: dict[str, Any] = field(default_factory=dict)  # how: successive halving, rungs, eta
    compile_cache: dict[str, Any] = field(default_factory=dict)
    started_utc: str = ""
    goal: dict[str, Any] = field(default_factory=lambda: Goal().to_dict())  # what was optimised, its limits
    #: best / default median TPOT (below 1: the chosen point answers each token faster)
    tpot_ratio_vs_default: float | None = None
    note: str = ""  # e.g. that no trial met the limits, so none was chosen
    #: each time the tune went on from a saved state: the trials it kept and the seconds spent before
    resumed: list[dict[str, Any]] = field(default_factory=list)
    #: the engine arguments the tune searched around (the model among them): what a resume must match
    base: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["trials"] = [asdict(t) for t in self.trials]
        return d

    @property
    def best_trial(self) -> Trial | None:
        return self.trials[self.best] if self.best is not None else None


def best_of(trials: list[Trial], goal: Goal | None = None) -> int | None:
    """The trial the goal chooses (default: the most output tok/s); see :func:`~console.bench.tune_goal.choose`."""
    return choose(trials, goal or Goal())


def minutes(seconds: float) -> str:
    s = max(0, round(seconds))
    return f"{s // 60}:{s % 60:02d}"


def best_line(trials: list[Trial], default: int | None, goal: Goal | None = None) -> str:
    """ "best so far: ..." with its figures and its speed-up over the default."""
    goal = goal or Goal()
    i = best_of(trials, goal)
    if i is None:
        if goal.kind == "many" and any(t.status == "ok" for t in trials):
            return f"best so far: no trial within the limits ({goal.limits_text()})"
        return "best so far: nothing measured on the whole workload yet"
    t = trials[i]
    d = trials[default] if default is not None and trials[default].status == "ok" else None
    if goal.kind == "one-user":
        tp, base_tp = t.tpot_ms, d.tpot_ms if d is not None else None
        x = f" ({tp / base_tp:.2f}x the default's)" if tp and base_tp and i != default else ""
        ttft = longest_prompt_ttft_ms(t.figures)
        lp = f", TTFT on the longest prompt {ttft:.0f} ms" if ttft is not None else ""
        return f"best so far: trial {i + 1} {t.summary()}: TPOT {tp or 0:.1f} ms{x}{lp}"
    base = d.throughput if d is not None else 0.0
    x = f" ({t.throughput / base:.2f}x the default)" if base and i != default else ""
    p99 = (t.figures.get("e2e_s") or {}).get("p99")
    lat = f", p99 e2e {p99:.2f} s" if p99 is not None else ""
    return f"best so far: trial {i + 1} {t.summary()}: {t.throughput:,.1f} out tok/s{x}{lat}"


def load_figures(trials: list[Trial]) -> dict[str, Any]:
    """The load time of every fresh load, by compile key: a first load against a later one of the same key."""
    loads = [
        {
            "trial": i + 1,
            "compile_key": t.compile_key,
            "load_seconds": round(t.load_seconds, 2),
            "first_load_of_key": t.first_load_of_key,
        }
        for i, t in enumerate(trials)
        if t.load_seconds is not None
    ]
    pairs = []
    for key in dict.fromkeys(x["compile_key"] for x in loads):
        same = [x for x in loads if x["compile_key"] == key]
        if len(same) > 1:
            pairs.append(
                {
                    "compile_key": key,
                    "first_s": same[0]["load_seconds"],
                    "later_s": [x["load_seconds"] for x in same[1:]],
                }
            )
    return {"loads": loads, "same_key_reloads": pairs}


def describe(result: TuneResult, index: int) -> str:
    """A preset's text: what was measured, on what, against what, and how."""
    t = result.trials[index]
    wl = result.workload
    when = result.started_utc or time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    d = result.trials[result.default] if result.default is not None else None
    vs = (
        f"{t.throughput / d.throughput:.2f}x vLLM's defaults measured in the same run ({d.throughput:,.0f} tok/s)"
        if d is not None and d.status == "ok" and d.throughput and index != result.default
        else "vLLM's defaults"
        if index == result.default
        else "no default measured"
    )
    p99 = (t.figures.get("e2e_s") or {}).get("p99")
    card = f" (emulating {result.card})" if result.card and result.card not in result.device else ""
    goal = Goal.from_dict(result.goal)
    lengths = "its own output lengths" if wl.get("source") in ("your prompts", "your conversations") else None
    text = (
        f"Auto-tuned {when} on {result.device}{card}, vLLM {result.vllm_version}, for the goal {goal.text()}, "
        f"on the workload '{wl.get('name')}' ({wl.get('source', 'synthetic')}, {wl.get('num_prompts')} requests, "
        f"greedy, {lengths or 'fixed output length'}): "
    )
    if goal.kind == "one-user":
        d_tp = d.tpot_ms if d is not None and d.status == "ok" else None
        ttft = longest_prompt_ttft_ms(t.figures)
        text += f"TPOT {t.tpot_ms or 0:.1f} ms at one request in flight" + (
            f" ({t.tpot_ms / d_tp:.2f}x vLLM's defaults' {d_tp:.1f} ms, measured in the same run)"
            if d_tp and t.tpot_ms and index != result.default
            else ""
        )
        text += f", TTFT on the longest prompt {ttft:.0f} ms" if ttft is not None else ""
    else:
        text += f"{t.throughput:,.0f} output tok/s, {vs}" + (f", p99 end-to-end {p99:.2f} s" if p99 is not None else "")
        if goal.kind == "many":
            p95_ttft, p95_tpot = (t.figures.get("ttft_s") or {}).get("p95"), tpot_ms(t.figures, "p95")
            text += f"; limits {goal.limits_text()}: measured p95 TTFT " + (
                f"{1000 * p95_ttft:.0f} ms" if p95_ttft is not None else "-"
            )
            text += f", p95 TPOT {p95_tpot:.1f} ms" if p95_tpot is not None else ""
    text += (
        f". Trial {index + 1} of {len(result.trials)} in a {result.tune_seconds / 60:.1f}-minute search "
        f"(planner-pruned grid, successive halving on short runs)."
    )
    if t.level is not None and t.knobs.get("max_num_seqs") and t.level < t.knobs["max_num_seqs"]:
        text += (
            f" max_num_seqs {t.level} was measured as {t.level} requests in flight on an engine loaded "
            f"with {t.knobs['max_num_seqs']}."
        )
    if t.knobs.get("speculative_method") == "ngram":
        text += " n-gram speculation copies from the prompt: it helps answers that repeat it (code edits, rewrites)."
    if t.knobs.get("quantization") == "fp8":
        text += " FP8 weights change the answers slightly: check them with 'inference-console gate' first."
    if t.knobs.get("max_cudagraph_capture_size"):
        text += " CUDA graphs are captured up to that batch only."
    return text


#: The preset goal a tune goal saves as.
PRESET_GOALS = {"throughput": "max-throughput", "one-user": "low-latency", "many": "balanced"}


def save_as_preset(
    trial: Trial,
    name: str,
    base_engine: dict[str, Any],
    *,
    description: str = "",
    gpu: str = "any",
    goal: str = "throughput",
) -> Path:
    """Save ``base_engine`` + the trial's knobs as a user preset; returns the file. ``goal``: the tune's goal kind."""

    knobs = trial.preset_knobs()
    engine = {k: v for k, v in {**base_engine, **knobs}.items() if v is not None and k not in NOT_IN_PRESET}
    for key, value in trial.knobs.items():  # a knob at vLLM's default is not written
        if value is None:
            engine.pop(key, None)
    validate_engine_values(engine, f"preset {name}")
    preset = Preset(
        name=name,
        description=description or f"auto-tuned: {knobs}",
        goal=PRESET_GOALS.get(goal, "balanced"),
        gpu=gpu,
        engine=engine,
    )
    parse_preset(
        {"name": name, "description": preset.description, "goal": preset.goal, "gpu": gpu, "engine": engine}, name
    )
    path = user_presets_dir() / f"{name}.toml"
    atomic_write_text(path, preset.to_toml())
    return path
