"""The parts of `aggregate`: records, decision rules, the revision brief, history and alerts.

    records      stored and inline scorecards as CardRecords
    rules        the decision rules, one named function each
    dedupe       when two evaluators report the same issue
    brief        the revision brief (merged, ordered, deferred, hold-outs removed)
    history      comparability segments, gaming indicator, iteration scores, best iteration
    alerts       regression, saturation, trend, not_comparable; per-dimension changes
    correlation  proxy-true correlation (recalibrate)
    notes        escalation reasons and quality notes for the person running the loop
"""

from .rules import RULES, Ruling, Situation, decide

__all__ = ["RULES", "Ruling", "Situation", "decide"]
