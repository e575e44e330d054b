"""Auto-tune: find the engine knobs that run the user's workload fastest on their card,
within a time budget, and measure vLLM's defaults in the same run to say by how much.

``tune(engine, base, grid, workload, budget_s=..., task=...)``:

1. The planner folds, prunes and ranks the grid before anything loads (:mod:`console.bench.tune_plan`).
2. vLLM's defaults for the grid's knobs (on this card: the user's model and context kept) are
   measured first, on every rung; the engine already loaded is reused when it is that config.
3. Then one load per candidate, the planner's best guess first and afterwards the untried
   neighbours (one knob changed) of the best measured so far, those of a compile key loaded
   before first (a cheaper load): measure, change one knob, measure again. Successive halving on
   each load: a short run (``1/eta`` of the prompts) first; only a
   point in the top ``1/eta`` of the short runs so far goes on to the whole workload, on the same
   load. A short run of fewer than ``MIN_PRUNE_REQUESTS`` requests stops nothing: one request's
   time per token is noise (a 3-prompt workload's short run is its first prompt alone); nor does
   one whose remaining runs cost less than half the trial's load (:mod:`console.bench.tune_cost`: a GPU
   compile outweighs them, and a stopped trial has no whole-workload figures). Knobs
   vLLM changes without a reload are changed without one: lower ``max_num_seqs``
   values of the grid are measured as requests in flight on the load with the highest. (What else
   vLLM 0.26-0.32 changes on a loaded engine is per request or per run: sampling, the arrival
   rate, a prefix-cache reset before each run, LoRA adapters. Scheduler limits, KV dtype,
   quantization, the memory fraction and CUDA graphs are fixed when the engine is built.)
4. No load starts unless the budget still holds it: its load (the slowest load of a compile key
   loaded before for such a point, else the slowest first load; :mod:`console.bench.tune_cost`)
   and a trial's runs, as measured so far; a point of a compiled key may still fit where a new
   compile does not. Cancel stops between runs and keeps every measured trial.
5. On the GPU each load captures CUDA graphs only up to the batch the workload runs, with its
   speculative draft tokens (``max_cudagraph_capture_size``; vLLM refuses a speculative load whose
   limit is below one decode step), and every load of the same compile key reads the graph vLLM
   compiled for the first from its torch.compile cache (the same cache dir for every trial); each
   trial records its load time and whether it was the first load of its key, and with
   ``confirm_best`` the best is loaded again at the end (its second load, and a re-measure).
6. ``resume``: a tune saved after each of its trials goes on where it stopped, keeping what it
   measured (:mod:`console.bench.tune_resume`).

The result names its workload, the vLLM version and the card, and records ``speedup_vs_default``
and ``tune_seconds`` beside the trials (:mod:`console.bench.tune_result`).
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable

from console.bench.tune_goal import Goal, tpot_ms
from console.bench.tune_plan import (
    Candidate,
    head,
    rung_sizes,
    Pruned,
    TunePlan,
    WorkloadShape,
    default_grid,
    plan_tune,
    workload_shape,
)
from console.bench.tune_result import (
    Trial,
    TuneResult,
    best_line,
    best_of,
    describe,
    load_figures,
    minutes,
    save_as_preset,
)
from console.bench.tune_cost import capture_limit, cheap_to_finish, compile_key, need_for_a_trial
from console.bench.tune_resume import KEPT, ResumeMismatch, mismatch, plain, rung_scores
from console.bench.workload import Workload
from console.config import EngineConfig
from console.engine.interface import Loader, require_loader
from console.jobs import Cancelled, TaskState
from console.metrics.timings import pareto_front
from console.bench.figures import planner_device
from console.bench.runner import run_console
from console.engine.in_process import resolve_device
from console.engine.types import EngineState
from console.vllm_compat import compile_cache_root

#: measure(engine, workload, max_concurrency) -> the runner's figures
Measure = Callable[[Any, Workload, "int | None"], dict[str, Any]]
OnTrial = Callable[[TuneResult], None]


def default_measure(engine: Any, workload: Workload, max_concurrency: int | None = None) -> dict[str, Any]:
    return run_console(engine, workload, max_concurrency=max_concurrency)


def _tps(figures: dict[str, Any]) -> float:
    return float(figures.get("output_tokens_per_s") or 0.0)


#: The fewest requests a short run needs before it may stop a trial.
MIN_PRUNE_REQUESTS = 2


class _Search:
    def __init__(
        self,
        engine: Loader,
        base: EngineConfig,
        plan: TunePlan,
        workload: Workload,
        ws: WorkloadShape,
        keys: list[str],
        *,
        budget_s: float,
        task: TaskState,
        measure: Measure,
        eta: int,
        device: str,
        load_timeout_s: float,
        on_trial: OnTrial | None,
        goal: Goal,
    ) -> None:
        self.engine, self.base, self.plan, self.workload, self.ws = engine, base, plan, workload, ws
        self.keys, self.budget_s, self.task, self.measure, self.eta = keys, budget_s, task, measure, eta
        self.device, self.load_timeout_s, self.on_trial = device, load_timeout_s, on_trial
        self.goal = goal
        self.rungs = rung_sizes(workload.num_prompts, eta)
        self.rung_scores: list[list[float]] = [[] for _ in self.rungs]
        self.trials: list[Trial] = []
        self.t0 = time.monotonic()
        self.cancelled = False
        self.vllm_version = ""
        self.seen_keys: set[str] = set()
        self.default: int | None = None
        self.prior_seconds = 0.0  # spent by the tune this one resumes
        self.resumed: list[dict[str, Any]] = []
        self.started_utc = ""

    def resume(self, prior: TuneResult) -> None:
        """Go on from ``prior`` (:mod:`console.bench.tune_resume`): its measured trials kept as they
        were, the halving's scores and the compile keys loaded rebuilt from them."""
        self.trials = [t for t in prior.trials if t.status in KEPT]
        self.default = next((i for i, t in enumerate(self.trials) if t.label == "default"), None)
        self.rung_scores = rung_scores(self.trials, self.goal, len(self.rungs))
        self.seen_keys = {t.compile_key for t in self.trials if t.compile_key}
        self.vllm_version = prior.vllm_version
        self.prior_seconds = prior.tune_seconds
        self.started_utc = prior.started_utc
        self.resumed = [*prior.resumed, {"trials_kept": len(self.trials), "after_s": prior.tune_seconds}]

    # -- time ---------------------------------------------------------------------------------
    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def left(self) -> float:
        return self.budget_s - self.elapsed()

    def need_for_a_trial(self, key: str | None = None) -> float:
        return need_for_a_trial(self.trials, self.seen_keys, key)

    def key_of(self, c: Candidate) -> str:
        return compile_key(self.config_of(self.with_capture(c)), self.device)

    def say(self, what: str) -> None:
        line = f"{what} | {best_line(self.trials, self.default, self.goal)} | {minutes(self.left())} of the budget left"
        self.task.report("tune", min(1.0, self.elapsed() / self.budget_s) if self.budget_s > 0 else None, line)

    # -- one trial ------------------------------------------------------------------------------
    def config_of(self, knobs: dict[str, Any]) -> EngineConfig:
        return self.base.replace(**{k: None for k in self.keys}).replace(**knobs)

    def load(self, trial: Trial, config: EngineConfig, name: str) -> None:
        status = self.engine.status
        if status.state == EngineState.READY and status.info is not None and self.engine.requested_config == config:
            self.vllm_version = self.vllm_version or status.info.vllm_version  # already loaded: no load spent
            return
        trial.compile_key = compile_key(config, self.device)
        trial.first_load_of_key = trial.compile_key not in self.seen_keys
        t = time.monotonic()
        info = self.engine.load(config, name).result(self.load_timeout_s)
        trial.load_seconds = time.monotonic() - t
        self.seen_keys.add(trial.compile_key)
        if info is not None:  # a stand-in engine's load may answer None
            self.vllm_version = info.vllm_version or self.vllm_version

    def in_flight(self, level: int) -> int | None:
        """A level at the workload's own concurrency runs as the workload says (no extra cap)."""
        return self.ws.max_concurrency if level >= self.ws.concurrency else level

    def run(self, trial: Trial, rung: int, level: int) -> dict[str, Any]:
        sub = head(self.workload, self.rungs[rung])
        t = time.monotonic()
        figures = self.measure(self.engine, sub, self.in_flight(level))
        trial.runs.append(
            {
                "rung": rung,
                "prompts": sub.num_prompts,
                "in_flight": level,
                "seconds": round(time.monotonic() - t, 3),
                "output_tokens_per_s": figures.get("output_tokens_per_s"),
                "e2e_p99_s": (figures.get("e2e_s") or {}).get("p99"),
                "ttft_p99_s": (figures.get("ttft_s") or {}).get("p99"),
                "ttft_p95_s": (figures.get("ttft_s") or {}).get("p95"),
                "tpot_p50_ms": tpot_ms(figures),
                "tpot_p95_ms": tpot_ms(figures, "p95"),
                "preemptions": (figures.get("engine") or {}).get("preemptions"),
            }
        )
        return figures

    def promotable(self, rung: int, score: float) -> tuple[bool, float]:
        if self.rungs[rung] < MIN_PRUNE_REQUESTS:
            return True, 0.0
        scores = sorted(self.rung_scores[rung], reverse=True)
        threshold = scores[max(1, math.ceil(len(scores) / self.eta)) - 1]
        return score >= threshold, threshold

    def measure_trial(self, trial: Trial, levels: list[int], name: str) -> None:
        t0 = time.monotonic()
        self.trials.append(trial)
        try:
            self.load(trial, self.config_of(trial.knobs), name)
            last = len(self.rungs) - 1
            for rung in range(len(self.rungs)):
                best: tuple[float, int, dict[str, Any]] | None = None
                for j, level in enumerate(levels if rung == last else levels[:1]):
                    if j and (self.task.cancelled or self.left() <= 0):
                        break  # lower levels are extras: not past the budget
                    self.say(
                        f"trial {len(self.trials)}: {trial.summary()}, {self.rungs[rung]} requests, {level} in flight"
                    )
                    figures = self.run(trial, rung, level)
                    score = self.goal.score(figures)
                    if best is None or (score, _tps(figures)) > (best[0], _tps(best[2])):
                        best = (score, level, figures)
                    if self.task.cancelled and rung < last:
                        raise Cancelled()
                assert best is not None
                self.rung_scores[rung].append(best[0])
                if rung == last:
                    trial.status, trial.level, trial.figures = "ok", best[1], best[2]
                    trial.over_limits = self.goal.over_limits(best[2])
                    break
                # the default and the confirmation run every rung (the short run warms the engine up)
                ok, threshold = (True, 0.0) if trial.label else self.promotable(rung, best[0])
                if not ok and not cheap_to_finish(trial, self.rungs, rung):
                    trial.status = "stopped"
                    over = self.goal.over_limits(best[2])
                    trial.error = (
                        f"stopped after the short run on {self.rungs[rung]} requests: {over}"
                        if over
                        else f"stopped after the short run: {self.goal.score_text(best[2])} on {self.rungs[rung]} "
                        f"requests, not in the top 1/{self.eta} of the short runs so far"
                    )
                    break
        except Cancelled:
            self.cancelled = True
            trial.status, trial.error = "cancelled", f"cancelled after {len(trial.runs)} run(s)"
        except Exception as exc:  # refused config, OOM, engine died: record and go on
            trial.status, trial.error = "failed", str(exc) or type(exc).__name__
        trial.seconds = time.monotonic() - t0
        if self.task.cancelled:
            self.cancelled = True
        if self.on_trial is not None:
            self.on_trial(self.result())

    # -- the search -------------------------------------------------------------------------------
    def next_candidate(self, remaining: list[Candidate]) -> Candidate:
        """The planner's best guess first; then the best-ranked untried neighbour (one knob
        changed) of the best point measured so far, else the best-ranked untried point."""
        i = best_of(self.trials, self.goal)
        if i is not None and self.trials[i].label != "default":
            best = self.trials[i].knobs
            near = [
                c
                for c in remaining
                if sum(
                    c.knobs.get(k) != best.get(k)
                    for k in set(c.knobs) | set(best)
                    if k not in ("max_cudagraph_capture_size",)
                )
                == 1
            ]
            if near:  # equally near: one whose compile key is loaded already first (a cheaper load)
                return min(near, key=lambda c: self.key_of(c) not in self.seen_keys)
        return remaining[0]

    def skip(self, candidates: list[Candidate], why: str) -> None:
        for c in candidates:
            self.trials.append(Trial(self.with_capture(c), "skipped", why, predicted_tok_s=c.predicted_tok_s))

    def with_capture(self, c: Candidate) -> dict[str, Any]:
        knobs = dict(c.knobs)
        if (
            self.device == "cuda"
            and not knobs.get("enforce_eager", self.base.enforce_eager)
            and "max_cudagraph_capture_size" not in self.keys
            and self.base.max_cudagraph_capture_size is None
        ):
            knobs["max_cudagraph_capture_size"] = capture_limit(self.config_of(knobs), c.levels[0])
        return knobs

    def search(self, confirm_best: bool) -> None:
        if self.default is None:  # a resumed tune keeps the defaults it measured
            default = Trial(
                {k: v for k, v in self.plan.default_knobs.items() if v is not None}, "skipped", label="default"
            )
            self.default = len(self.trials)
            self.measure_trial(default, [self.ws.concurrency], "tune-default")
        tried = [t.knobs for t in self.trials if t.label != "default"]  # resumed: points measured before
        remaining = [c for c in self.plan.candidates if self.with_capture(c) not in tried]
        while remaining and not (self.cancelled or self.task.cancelled):
            i = best_of(self.trials, self.goal)
            keep = 0.0  # with confirm_best, a load of the best so far kept for the confirmation
            if confirm_best and i not in (None, self.default):
                keep = self.need_for_a_trial(self.trials[i].compile_key or None)
            need = {id(c): self.need_for_a_trial(self.key_of(c)) for c in remaining}
            affordable = [c for c in remaining if need[id(c)] + keep <= self.left()]
            if not affordable:
                least = min(need.values())
                self.skip(
                    remaining, f"time budget used up (a trial needs ~{least:.0f} s, {max(0.0, self.left()):.0f} s left)"
                )
                remaining = []
                break
            c = self.next_candidate(affordable)
            remaining.remove(c)
            self.say(f"trial {len(self.trials) + 1}: loading {Trial(self.with_capture(c), '').summary()}")
            self.measure_trial(
                Trial(self.with_capture(c), "skipped", predicted_tok_s=c.predicted_tok_s),
                c.levels,
                f"tune-{len(self.trials) + 1}",
            )
        if self.cancelled or self.task.cancelled:
            self.cancelled = True
            self.skip(remaining, "cancelled")
            return
        i = best_of(self.trials, self.goal)
        if (
            confirm_best
            and i is not None
            and i != self.default
            and self.need_for_a_trial(self.trials[i].compile_key or None) <= self.left()
        ):
            t = self.trials[i]  # loaded again: its second load, and its figures measured twice
            if any(x.label == "confirmation" and x.knobs == t.knobs for x in self.trials):
                return  # confirmed before this tune was resumed
            again = Trial(dict(t.knobs), "skipped", label="confirmation", predicted_tok_s=t.predicted_tok_s)
            self.say(f"confirming trial {i + 1}: loading it again")
            self.measure_trial(again, [t.level or self.ws.concurrency], "tune-confirm")

    def result(self) -> TuneResult:
        trials = self.trials
        ok = [i for i, t in enumerate(trials) if t.status == "ok" and t.label != "confirmation"]
        front = [ok[j] for j in pareto_front([(trials[i].throughput, trials[i].p99_latency) for i in ok])]
        best = best_of(trials, self.goal)
        d = trials[self.default] if self.default is not None and self.default < len(trials) else None
        speedup = (
            trials[best].throughput / d.throughput
            if best is not None and d and d.status == "ok" and d.throughput
            else None
        )
        best_tpot, default_tpot = (trials[best].tpot_ms if best is not None else None), (d.tpot_ms if d else None)
        note = ""
        if best is None and self.goal.kind == "many" and ok:
            note = f"no trial kept the limits ({self.goal.limits_text()}): none chosen"
        confirmations = [
            {
                "trial": i + 1,
                "output_tokens_per_s": t.throughput,
                "of_best": t.throughput / trials[best].throughput
                if best is not None and trials[best].throughput
                else None,
                "load_seconds": t.load_seconds,
            }
            for i, t in enumerate(trials)
            if t.label == "confirmation" and t.status == "ok"
        ]
        return TuneResult(
            trials=list(trials),
            pareto=front,
            best=best,
            cancelled=self.cancelled,
            default=self.default,
            speedup_vs_default=speedup,
            tune_seconds=round(self.prior_seconds + self.elapsed(), 1),
            budget_s=self.budget_s,
            workload={"name": self.workload.name, "source": self.workload.source, **self.ws.to_dict()},
            vllm_version=self.vllm_version,
            device=self.device,
            card=self.plan.card,
            plan=self.plan.to_dict(),
            search={
                "method": "successive halving on short runs, one load per point, planner-ranked",
                "eta": self.eta,
                "rung_prompts": self.rungs,
                "confirmation": confirmations,
            },
            compile_cache={"dir": compile_cache_root(), **load_figures(trials)},
            started_utc=self.started_utc
            or time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(time.time() - self.elapsed())),
            goal=self.goal.to_dict(),
            tpot_ratio_vs_default=best_tpot / default_tpot if best_tpot and default_tpot else None,
            note=note,
            resumed=list(self.resumed),
            base=plain(dict(self.base.engine_kwargs())),
        )


def tune(
    engine: Any,
    base: EngineConfig,
    grid: dict[str, list[Any]] | list[dict[str, Any]],
    workload: Workload,
    *,
    budget_s: float = 600.0,
    task: TaskState | None = None,
    measure: Measure = default_measure,
    card: Any = None,
    device_bytes: int | None = None,
    eta: int = 3,
    max_concurrency: int | None = None,
    confirm_best: bool = False,
    load_timeout_s: float = 900.0,
    on_trial: OnTrial | None = None,
    goal: Goal | None = None,
    pruned: list[Pruned] | None = None,
    resume: TuneResult | None = None,
) -> TuneResult:
    """Search ``grid`` around ``base`` on ``workload`` (see the module's text). ``card``: the
    planner's profile name of the card (default: the device's own; ``device_bytes`` with a bigger
    device emulates it); a grid's memory fractions are fractions of that card. ``goal``: what to
    optimise (:mod:`console.bench.tune_goal`; default throughput; one user runs one request in
    flight); ``pruned``: what the caller left out of the grid, and why (reported with the plan's);
    ``resume``: a saved tune of the same goal and workload to go on from (:mod:`console.bench.tune_resume`;
    :class:`~console.bench.tune_resume.ResumeMismatch` when it is another's)."""

    engine = require_loader(engine, "Auto-tune")  # before any trial: a remote server would ignore the knobs
    task = task or TaskState()
    device = resolve_device(base)
    if card is None:
        card = planner_device(device)
    goal = goal or Goal()
    ws = workload_shape(workload, goal.in_flight or max_concurrency)
    plan = plan_tune(base, grid, ws, device=device, card=card, device_bytes=device_bytes)
    plan.pruned[:0] = pruned or []
    if goal.kind == "one-user":  # the planner's ceilings do not see speculation: try it first
        plan.candidates.sort(key=lambda c: not c.knobs.get("speculative_method"))
    keys = sorted({k for p in (grid if isinstance(grid, list) else [grid]) for k in p})
    s = _Search(
        engine,
        base,
        plan,
        workload,
        ws,
        keys,
        budget_s=budget_s,
        task=task,
        measure=measure,
        eta=eta,
        device=device,
        load_timeout_s=load_timeout_s,
        on_trial=on_trial,
        goal=goal,
    )
    if resume is not None:
        shape = {"name": workload.name, "num_prompts": workload.num_prompts}
        why = mismatch(resume, dict(base.engine_kwargs()), goal, shape, device, plan.card)
        if why:
            raise ResumeMismatch(f"cannot go on from that tune: {why}")
        s.resume(resume)
    s.search(confirm_best)
    result = s.result()
    task.report(
        "tune",
        1.0,
        f"{sum(t.status == 'ok' for t in result.trials)} of {len(result.trials)} trials "
        f"measured in {minutes(result.tune_seconds)}; {best_line(result.trials, result.default, goal)}",
    )
    return result


__all__ = [
    "Goal",
    "Measure",
    "Trial",
    "TuneResult",
    "default_grid",
    "default_measure",
    "describe",
    "head",
    "rung_sizes",
    "save_as_preset",
    "tune",
]
