"""The advisor: rules (data, in ``resources/advisor/rules.toml``) evaluated over the metrics
store's engine and device series, each finding saying what happened, why it matters and which
preset knob to change; :func:`planner_view` shows what the planner makes of that change.

    from console.advisor import evaluate, load_rules
    report = evaluate(store, load_rules())
    for f in report.findings: print(f.title, f.what, f.change)
"""

from console.advisor.evaluate import AdvisorContext, Finding, NotEvaluable, Report, evaluate
from console.advisor.planview import planner_view
from console.advisor.rules import Action, Rule, RuleError, RuleSet, load_rules, parse_rules, rule_texts

__all__ = [
    "Action",
    "AdvisorContext",
    "Finding",
    "NotEvaluable",
    "Report",
    "Rule",
    "RuleError",
    "RuleSet",
    "evaluate",
    "load_rules",
    "parse_rules",
    "planner_view",
    "rule_texts",
]
