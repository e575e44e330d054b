"""The quality gate's task accuracy: a shipped, versioned question set scored on the engine.

Two kinds of item (``resources/eval/quick-v2.jsonl``, described in its README):

- ``regex``: a chat question answered greedily; right when the answer matches the item's regular
  expression (``7`` or ``seven``; ``巴黎``).
- ``choice``: a question with options, scored the way lm-evaluation-harness scores multiple
  choice: the log-probability the model gives each option as the continuation of the prompt
  (vLLM's prompt logprobs), highest wins. No sampling, no parsing: robust even for a 135M model.

Every request of one model is submitted at once, so the engine batches them. :func:`compare`
lists the items that went from right to wrong (and wrong to right) between two models.

Every item names the fact it asks (``fact``; quick-v2): the regex and choice forms of one
question and its English and Chinese twins share it, so the gate counts a lost fact once. An
item without one (quick-v1) is its own fact. A score records its set's name (the version), and
an old score is judged again with the set it was scored on (:func:`load_shipped_eval_set`), or
re-scored under a later version asking the same questions (:func:`rescore`).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from console.sampling import SamplingSettings
from console.paths import resources_dir
from console.engine.types import failure_text, GenerationRequest, RequestFailed
from console.jobs import Cancelled

KINDS = ("regex", "choice")
#: the set new gates are scored on; older versions stay shipped so old reports can be judged again
DEFAULT_EVAL_SET = "quick-v2"
#: New tokens a regex item may answer with: short answers are asked for (each generated token
#: costs a decode step of the whole batch: the gate runs twice per quantization); the match is searched
#: in the whole answer.
ANSWER_TOKENS = 24
REQUEST_TIMEOUT_S = 900.0
#: requests in the engine at once while scoring (see :func:`score`)
MAX_IN_FLIGHT = 32


class EvalSetError(ValueError):
    """An evaluation file that cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class EvalItem:
    id: str
    lang: str
    topic: str
    kind: str  # "regex" | "choice"
    prompt: str
    expected: str  # the right answer, for display
    pattern: str = ""  # regex items
    choices: tuple[str, ...] = ()  # choice items
    answer_index: int = -1  # choice items: index of the right option
    fact: str = ""  # the fact asked (twins share it); the item's id when the set has none

    def continuation(self, option: str) -> str:
        """The text scored after the prompt: `` Paris`` after "Answer:", ``巴黎`` after "答案："."""
        return option if self.prompt.endswith(("：", "\n")) else " " + option


@dataclass(frozen=True)
class EvalSet:
    name: str  # file stem, e.g. "quick-v1": the version is part of the name
    items: tuple[EvalItem, ...]

    def __len__(self) -> int:
        return len(self.items)

    def subset(self, ids: Iterable[str]) -> "EvalSet":
        wanted = set(ids)
        return EvalSet(self.name, tuple(i for i in self.items if i.id in wanted))

    @property
    def facts(self) -> int:
        """Distinct facts asked (as many as items in a set without facts)."""
        return len({i.fact for i in self.items})

    def lost_facts(self, lost: Iterable["Flip"]) -> list[str]:
        """The facts of the items that went from right to wrong, each once, in the set's order."""
        ids = {f.id for f in lost}
        return list(dict.fromkeys(i.fact for i in self.items if i.id in ids))


def shipped_eval_path(name: str) -> Path:
    return resources_dir() / "eval" / f"{name}.jsonl"


def default_eval_path() -> Path:
    return shipped_eval_path(DEFAULT_EVAL_SET)


def load_shipped_eval_set(name: str) -> EvalSet:
    """The shipped set a report names (``quick-v1``, ``quick-v2``): a report is judged again with
    the set it was scored on."""
    path = shipped_eval_path(name)
    if "/" in name or "\\" in name or not path.is_file():
        raise EvalSetError(
            f"the report was scored on {name!r}, which is not a shipped evaluation set: "
            "judge it with the evaluation file it was scored on"
        )
    return load_eval_set(path)


def _item(raw: dict[str, Any], where: str) -> EvalItem:
    try:
        kind = str(raw["kind"])
        common: dict[str, Any] = {
            "id": str(raw["id"]),
            "lang": str(raw.get("lang", "")),
            "topic": str(raw.get("topic", "")),
            "kind": kind,
            "prompt": str(raw["prompt"]),
            "fact": str(raw.get("fact") or raw["id"]),
        }
        if kind == "regex":
            pattern = str(raw["pattern"])
            re.compile(pattern)
            return EvalItem(**common, expected=str(raw["answer"]), pattern=pattern)
        if kind == "choice":
            choices = tuple(str(c) for c in raw["choices"])
            index = int(raw["answer"])
            if len(choices) < 2 or not 0 <= index < len(choices):
                raise ValueError(f"needs 2+ choices and an answer index among them, got {index}")
            return EvalItem(**common, expected=choices[index], choices=choices, answer_index=index)
    except (KeyError, TypeError, ValueError, re.error) as exc:
        raise EvalSetError(f"{where}: {type(exc).__name__}: {exc}") from exc
    raise EvalSetError(f"{where}: unknown kind {kind!r} (expected one of {', '.join(KINDS)})")


def load_eval_set(path: Path | None = None) -> EvalSet:
    path = Path(path) if path is not None else default_eval_path()
    if not path.is_file():
        raise EvalSetError(f"evaluation set {path} does not exist")
    items: list[EvalItem] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvalSetError(f"{path.name} line {n}: not JSON ({exc.msg})") from exc
        items.append(_item(raw, f"{path.name} line {n}"))
    ids = [i.id for i in items]
    if len(set(ids)) != len(ids):
        raise EvalSetError(f"{path.name}: item ids are not unique")
    if not items:
        raise EvalSetError(f"{path.name}: no items")
    return EvalSet(path.stem, tuple(items))


@dataclass(frozen=True)
class ItemResult:
    id: str
    correct: bool
    given: str  # the model's answer (regex) or the option it scored highest (choice)


@dataclass
class EvalScore:
    set_name: str
    results: list[ItemResult]

    @property
    def correct(self) -> int:
        return sum(r.correct for r in self.results)

    @property
    def accuracy(self) -> float:
        return self.correct / len(self.results) if self.results else 0.0

    def accuracy_by(self, items: EvalSet, key: str) -> dict[str, float]:
        """Accuracy per ``lang`` / ``topic`` / ``kind``."""
        groups: dict[str, list[bool]] = {}
        by_id = {i.id: i for i in items.items}
        for r in self.results:
            groups.setdefault(str(getattr(by_id[r.id], key)), []).append(r.correct)
        return {k: sum(v) / len(v) for k, v in sorted(groups.items())}

    def to_dict(self) -> dict[str, Any]:
        return {
            "set": self.set_name,
            "correct": self.correct,
            "total": len(self.results),
            "accuracy": self.accuracy,
            "results": [asdict(r) for r in self.results],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "EvalScore":
        return cls(str(d["set"]), [ItemResult(**r) for r in d["results"]])


@dataclass(frozen=True)
class Flip:
    """An item the two models answered differently in correctness."""

    id: str
    prompt: str
    expected: str
    before: str  # the original model's answer
    after: str  # the quantized model's answer

    def line(self) -> str:
        def one(s: str) -> str:
            return " ".join(s.split())[:80]

        return (
            f"{self.id}: {one(self.prompt)} (expected {self.expected!r}): {one(self.before)!r} -> {one(self.after)!r}"
        )


def compare(items: EvalSet, before: EvalScore, after: EvalScore) -> tuple[list[Flip], list[Flip]]:
    """(right -> wrong, wrong -> right) between two scores of the same set."""
    by_id = {i.id: i for i in items.items}
    after_by_id = {r.id: r for r in after.results}
    lost: list[Flip] = []
    won: list[Flip] = []
    for a in before.results:
        b = after_by_id.get(a.id)
        if b is None or a.correct == b.correct:
            continue
        item = by_id[a.id]
        (lost if a.correct else won).append(Flip(a.id, item.prompt, item.expected, a.given, b.given))
    return lost, won


def rescore(items: EvalSet, recorded: EvalScore) -> EvalScore:
    """A recorded score judged again by ``items``: each regex item's recorded answer against its
    pattern, each choice item's chosen option against its answer. ``items`` asks the same
    questions under the same ids (quick-v2 does quick-v1's); an item the score lacks is left out."""
    by_id = {r.id: r for r in recorded.results}
    results: list[ItemResult] = []
    for item in items.items:
        r = by_id.get(item.id)
        if r is None:
            continue
        ok = (
            re.search(item.pattern, r.given, re.IGNORECASE) is not None
            if item.kind == "regex"
            else r.given == item.expected
        )
        results.append(ItemResult(item.id, ok, r.given))
    return EvalScore(items.name, results)


def _choice_ids(tokenizer: Any, item: EvalItem, option: str) -> tuple[list[int], int]:
    """Prompt + option token ids and where the option starts (lm-eval's split: tokenize the
    whole, keep the prompt's own tokenization as the context)."""
    context = tokenizer.encode(item.prompt, add_special_tokens=True)
    whole = tokenizer.encode(item.prompt + item.continuation(option), add_special_tokens=True)
    start = len(context)
    if whole[:start] != context:  # a merge across the boundary: fall back to the common prefix
        start = next((k for k, (x, y) in enumerate(zip(whole, context)) if x != y), min(len(whole), start))
    return whole, max(1, min(start, len(whole) - 1))


def _option_logprob(event: Any, ids: list[int], start: int) -> float:
    if isinstance(event, RequestFailed) or event.prompt_logprobs is None:
        raise RuntimeError(f"the engine returned no prompt logprobs: {failure_text(event)}")
    total = 0.0
    for tok, entry in zip(ids[start:], event.prompt_logprobs[start:]):
        total += entry[tok].logprob if entry and tok in entry else -math.inf
    return total


def _submit(engine: Any, item: EvalItem) -> tuple[list[Any], list[tuple[list[int], int]]]:
    if item.kind == "regex":
        req = GenerationRequest(
            messages=[{"role": "user", "content": item.prompt}],
            stream=False,
            sampling=SamplingSettings(temperature=0.0, max_tokens=ANSWER_TOKENS),
        )
        return [engine.submit(req)], []
    splits = [_choice_ids(engine.tokenizer, item, o) for o in item.choices]
    one_token = SamplingSettings(temperature=0.0, max_tokens=1)
    return [
        engine.submit(GenerationRequest(prompt_token_ids=ids, want_prompt_logprobs=0, stream=False, sampling=one_token))
        for ids, _ in splits
    ], splits


def _result(item: EvalItem, events: list[Any], splits: list[tuple[list[int], int]]) -> ItemResult:
    if item.kind == "regex":
        ev = events[0]
        if isinstance(ev, RequestFailed):
            raise RuntimeError(f"{item.id}: the engine failed: {ev.message}")
        text = ev.text.strip()
        return ItemResult(item.id, re.search(item.pattern, text, re.IGNORECASE) is not None, text)
    lps = [_option_logprob(ev, ids, start) for ev, (ids, start) in zip(events, splits)]
    best = max(range(len(lps)), key=lambda k: lps[k])
    return ItemResult(item.id, best == item.answer_index, item.choices[best])


def score(
    engine: Any,
    items: EvalSet,
    *,
    on_progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    in_flight: int = MAX_IN_FLIGHT,
) -> EvalScore:
    """Run every item on the loaded model of ``engine`` (an InProcessEngine), ``in_flight`` requests
    at most at a time: the engine batches them, and a bounded batch keeps one engine step short
    (every prompt-logprob token costs a log-softmax over the vocabulary; 600 requests in one
    burst made a step outlast vLLM's execute_model timeout on 2 busy cores)."""
    from collections import deque

    queue: deque[tuple[EvalItem, list[Any], list[tuple[list[int], int]]]] = deque()
    results: list[ItemResult] = []
    outstanding = 0

    def settle_oldest() -> None:
        nonlocal outstanding
        item, handles, splits = queue.popleft()
        outstanding -= len(handles)
        results.append(_result(item, [h.result(REQUEST_TIMEOUT_S) for h in handles], splits))
        if on_progress is not None:
            on_progress(len(results), len(items))

    try:
        for item in items.items:
            if cancelled is not None and cancelled():
                raise Cancelled()
            while queue and outstanding >= in_flight:
                settle_oldest()
            handles, splits = _submit(engine, item)
            queue.append((item, handles, splits))
            outstanding += len(handles)
        while queue:
            settle_oldest()
    finally:
        for _item, handles, _splits in queue:
            for h in handles:
                h.cancel()
    return EvalScore(items.name, results)
