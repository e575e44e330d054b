"""Advisor rules as data: ``resources/advisor/rules.toml`` (or the user's copy) parsed into
typed :class:`Rule` objects, with every number checked and every error naming the rule."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from console.paths import data_home, resources_dir

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, as a package
    import tomli as tomllib

#: The evaluator kinds rules may name, and the parameters each one needs.
KINDS: dict[str, tuple[str, ...]] = {
    "kv_saturation": ("kv_threshold",),
    "preemptions": ("min_preemptions",),
    "queue_wait": ("queued_threshold_s", "quantile", "min_requests"),
    "low_util_waiting": ("util_threshold_pct", "kv_below"),
    "long_prompt_ttft": ("ttft_threshold_s", "prefill_share", "long_prompt_tokens", "min_requests"),
    "throttle": ("reason_mask",),
    "vram_foreign": ("excess_gib",),
}
SEVERITIES = ("info", "warning", "critical")
_TEXT_KEYS = {"id", "kind", "severity", "title", "what", "what_standing", "why", "actions", "window_s"}
_ACTION_OPS = ("set", "add", "scale", "min", "max")


class RuleError(ValueError):
    """A rules file that cannot be used; the message names the file and the rule."""


@dataclass(frozen=True)
class Action:
    says: str
    set: dict[str, Any] = field(default_factory=dict)
    add: dict[str, float] = field(default_factory=dict)
    scale: dict[str, float] = field(default_factory=dict)
    min: dict[str, float] = field(default_factory=dict)
    max: dict[str, float] = field(default_factory=dict)

    def changes(self, current: dict[str, Any]) -> dict[str, Any]:
        """The knob values this action sets, given the current ones; empty when nothing changes."""
        out: dict[str, Any] = {}
        for key, value in self.set.items():
            out[key] = value
        for key, delta in self.add.items():
            out[key] = round(float(current[key]) + delta, 4) if current.get(key) is not None else None
        for key, factor in self.scale.items():
            base = current.get(key)
            if base is not None:
                scaled = base * factor
                out[key] = int(round(scaled)) if isinstance(base, int) else round(scaled, 4)
        for key, low in self.min.items():
            if out.get(key) is not None:
                out[key] = max(out[key], type(out[key])(low))
        for key, high in self.max.items():
            if out.get(key) is not None:
                out[key] = min(out[key], type(out[key])(high))
        return {k: v for k, v in out.items() if v is not None and current.get(k) != v}


@dataclass(frozen=True)
class Rule:
    id: str
    kind: str
    title: str
    what: str
    why: str
    severity: str = "warning"
    window_s: float = 0.0
    params: dict[str, float] = field(default_factory=dict)
    actions: tuple[Action, ...] = ()
    #: the wording when the evidence is a standing condition rather than finished requests
    what_standing: str = ""

    def param(self, name: str) -> float:
        return float(self.params[name])


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[Rule, ...]
    defaults: dict[str, Any]
    path: Path | None = None

    def get(self, rule_id: str) -> Rule:
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise KeyError(rule_id)

    def with_params(self, rule_id: str, **params: float) -> "RuleSet":
        """A copy with some thresholds changed (what an editor or a test does)."""
        from dataclasses import replace

        rules = tuple(
            replace(
                r,
                params={**r.params, **{k: v for k, v in params.items() if k != "window_s"}},
                window_s=float(params.get("window_s", r.window_s)),
            )
            if r.id == rule_id
            else r
            for r in self.rules
        )
        return RuleSet(rules, self.defaults, self.path)


def _action(data: dict[str, Any], where: str) -> Action:
    unknown = set(data) - {"says", *_ACTION_OPS}
    if unknown:
        raise RuleError(f"{where}: unknown action keys {sorted(unknown)}")
    if not isinstance(data.get("says"), str):
        raise RuleError(f"{where}: an action needs 'says' (what the change does, in words)")
    for op in ("add", "scale", "min", "max"):
        for k, v in data.get(op, {}).items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise RuleError(f"{where}: {op}.{k} must be a number")
    return Action(says=data["says"], **{op: dict(data.get(op, {})) for op in _ACTION_OPS})


def parse_rules(data: dict[str, Any], where: str = "rules") -> RuleSet:
    rules: list[Rule] = []
    seen: set[str] = set()
    for i, raw in enumerate(data.get("rule", [])):
        rid = raw.get("id") or f"#{i + 1}"
        here = f"{where}: rule {rid}"
        for key in ("id", "kind", "title", "what", "why"):
            if not isinstance(raw.get(key), str) or not raw[key]:
                raise RuleError(f"{here}: '{key}' is missing")
        if rid in seen:
            raise RuleError(f"{here}: the id is used twice")
        seen.add(rid)
        kind = raw["kind"]
        if kind not in KINDS:
            raise RuleError(f"{here}: kind '{kind}' is not one of {', '.join(KINDS)}")
        severity = raw.get("severity", "warning")
        if severity not in SEVERITIES:
            raise RuleError(f"{here}: severity '{severity}' is not one of {', '.join(SEVERITIES)}")
        params = {k: v for k, v in raw.items() if k not in _TEXT_KEYS}
        for k, v in params.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise RuleError(f"{here}: '{k}' must be a number, not {v!r}")
        missing = [p for p in KINDS[kind] if p not in params]
        if missing:
            raise RuleError(f"{here}: kind '{kind}' needs {', '.join(missing)}")
        window = raw.get("window_s", 0.0)
        if isinstance(window, bool) or not isinstance(window, (int, float)) or window < 0:
            raise RuleError(f"{here}: window_s must be a number of seconds >= 0")
        actions = tuple(_action(a, f"{here} action {j + 1}") for j, a in enumerate(raw.get("actions", [])))
        rules.append(
            Rule(
                id=rid,
                kind=kind,
                title=raw["title"],
                what=raw["what"],
                why=raw["why"],
                severity=severity,
                window_s=float(window),
                params=params,
                actions=actions,
                what_standing=str(raw.get("what_standing", "")),
            )
        )
    if not rules:
        raise RuleError(f"{where}: no [[rule]] tables")
    return RuleSet(tuple(rules), dict(data.get("defaults", {})))


def rule_texts(rules: RuleSet) -> list[str]:
    """Every text of ``rules`` a user reads (titles, what/why templates, action words), in file
    order without repeats: what the UI's translation catalogue carries (context "AdvisorRules")."""
    out: dict[str, None] = {}
    for rule in rules.rules:
        for text in (rule.title, rule.what, rule.what_standing, rule.why, *(a.says for a in rule.actions)):
            if text:
                out.setdefault(text, None)
    return list(out)


def default_rules_path() -> Path:
    user = data_home() / "advisor" / "rules.toml"
    return user if user.is_file() else resources_dir() / "advisor" / "rules.toml"


def load_rules(path: Path | None = None) -> RuleSet:
    path = path or default_rules_path()
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise RuleError(f"cannot read the advisor rules {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise RuleError(f"{path}: not valid TOML ({exc})") from None
    rs = parse_rules(data, str(path))
    return RuleSet(rs.rules, rs.defaults, Path(path))
