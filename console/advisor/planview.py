"""The planner's view of an advisor change: the same plan before and after the knobs move, so
the user sees what the change does to the KV cache and concurrency before reloading."""

from __future__ import annotations

import dataclasses
from typing import Any

from console.planner import PlanRequest, plan

_PLAN_FIELDS = {f.name for f in dataclasses.fields(PlanRequest)}


def _summary(p: Any) -> dict[str, Any]:
    return {
        "verdict": p.verdict,
        "kv_tokens": int(p.kv_tokens),
        "kv_budget_gib": round(p.kv_budget_bytes / 1024**3, 3),
        "max_concurrency": round(float(p.max_concurrency), 2),
        "problems": list(p.problems),
    }


def planner_view(change: dict[str, Any], request: PlanRequest) -> dict[str, Any]:
    """``{"before", "after", "not_modelled"}``: plan summaries for ``request`` and for it with
    ``change`` applied; knobs the planner has no field for are listed, not dropped silently."""
    modelled = {k: v for k, v in change.items() if k in _PLAN_FIELDS}
    after = request.with_changes(**modelled)
    if "max_num_seqs" in modelled:  # the planner sizes concurrency from the users it is asked to serve
        after = after.with_changes(concurrency=min(after.concurrency, int(modelled["max_num_seqs"])))
    return {
        "before": _summary(plan(request)),
        "after": _summary(plan(after)),
        "changed": modelled,
        "not_modelled": sorted(set(change) - set(modelled)),
    }
