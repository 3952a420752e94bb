"""aggregate: several evaluators' verdicts become DELIVER, a revision brief, an escalation or
PENDING.

entry        aggregate(), latest_brief(), decision_at_bound()
records      stored and inline scorecards as CardRecords (re-verified before they count)
rules        the decision rules, one named function each
dedupe       when two evaluators report the same issue
brief        the revision brief (merged, ordered, deferred, hold-outs removed)
holdouts     the guard: which issues would reveal a hold-out (holdout_runs: what its runs produced)
history      comparability segments, gaming indicator, iteration scores, best iteration
alerts       regression, saturation, trend, not_comparable; per-dimension changes
correlation  proxy-true correlation (recalibrate)
notes        escalation reasons and quality notes for the person running the loop
baselines    a delivered iteration's screenshots become its baselines; accepted by hand; listed
"""

from referee.tools.aggregate.baselines import accept_baselines, list_baselines
from referee.tools.aggregate.brief import hidden_checks_text
from referee.tools.aggregate.entry import aggregate, decision_at_bound, latest_brief

__all__ = [
    "accept_baselines",
    "aggregate",
    "decision_at_bound",
    "hidden_checks_text",
    "latest_brief",
    "list_baselines",
]
