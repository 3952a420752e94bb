"""Alerts over the stored history.

Every comparison stays inside an evaluator's comparable segment (history.segment): nothing is
read across a change of rubric version, evaluator prompt version or evaluator model.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

from referee.tools.aggregate.history import IterationScore, Series, VersionChange, segment
from referee.tools.aggregate.records import CardRecord
from referee.tools.models.aggregate import Alert, DimensionChange

REGRESSION_FRACTION = 0.1
"""A dimension this far (as a fraction of the scale's range) below its high-water mark regressed."""
SATURATION_RUN = 3
TREND_DROPS = 3


def not_comparable_alerts(changes: Sequence[VersionChange]) -> list[Alert]:
    """One alert per evaluator whose rubric version, prompt version or model changed at this
    iteration."""
    return [
        Alert(
            kind="not_comparable",
            message=(
                f"{c.evaluator}: {'; '.join(c.changed())} between iterations {c.before.iteration}"
                f" and {c.after.iteration}; its scores from iteration {c.after.iteration} on are"
                " not compared with earlier ones (re-score the retained iterations to compare"
                " them)"
            ),
        )
        for c in changes
    ]


def _current(
    history: Sequence[CardRecord], iteration: int
) -> tuple[CardRecord, list[CardRecord]] | None:
    upto = [r for r in history if r.iteration <= iteration]
    if not upto or upto[-1].iteration != iteration:
        return None
    comparable = segment(upto)
    return comparable[-1], comparable[:-1]


def _scored_now(
    series: Series, iteration: int
) -> Iterator[tuple[str, CardRecord, list[CardRecord], str, float]]:
    """Each evaluator's dimension scores at this iteration, with its earlier comparable
    scorecards."""
    for name, history in series.items():
        found = _current(history, iteration)
        if found is None:
            continue
        now, earlier = found
        for key, score in now.dimensions.items():
            yield name, now, earlier, key, score


def regression_alerts(series: Series, iteration: int) -> list[Alert]:
    """A dimension below its high-water mark over the evaluator's earlier comparable scorecards."""
    alerts = []
    for name, now, earlier, key, score in _scored_now(series, iteration):
        marks = [(r.dimensions[key], r.iteration) for r in earlier if key in r.dimensions]
        if not marks:
            continue
        mark, at = max(marks, key=lambda m: (m[0], -m[1]))
        if mark - score > REGRESSION_FRACTION * now.scale.span + 1e-9:
            alerts.append(
                Alert(
                    kind="regression",
                    dimension=key,
                    message=(
                        f"{name}: {key} scored {score:g} at iteration {iteration}, below its"
                        f" high-water mark {mark:g} (iteration {at})"
                    ),
                )
            )
    return alerts


def saturation_alerts(series: Series, iteration: int) -> list[Alert]:
    """A dimension at the scale's maximum for SATURATION_RUN or more consecutive evaluations."""
    alerts = []
    for name, now, earlier, key, _ in _scored_now(series, iteration):
        run = _run_at_max([*earlier, now], key)
        if run >= SATURATION_RUN:
            alerts.append(
                Alert(
                    kind="saturation",
                    dimension=key,
                    message=(
                        f"{name}: {key} has been at the maximum ({now.scale.high:g}) for {run}"
                        " evaluations; the criteria no longer discriminate: ask for harder ones"
                    ),
                )
            )
    return alerts


def _run_at_max(history: Sequence[CardRecord], key: str) -> int:
    run = 0
    for record in reversed(history):
        if record.dimensions.get(key) != record.scale.high:
            break
        run += 1
    return run


def trend_alerts(scores: Sequence[IterationScore], iteration: int) -> list[Alert]:
    """TREND_DROPS consecutive drops of the iteration score, ending at this iteration."""
    tail = _consecutive_tail(scores, iteration)[-(TREND_DROPS + 1) :]
    values = [s.normalized for s in tail if s.normalized is not None]
    if len(values) < TREND_DROPS + 1 or any(
        later >= earlier for earlier, later in itertools.pairwise(values)
    ):
        return []
    path = " → ".join(f"{v:g}" for v in values)
    return [
        Alert(
            kind="trend",
            message=(
                f"the iteration score dropped {TREND_DROPS} times in a row (iterations"
                f" {tail[0].iteration}–{iteration}: {path}); more iterations are making the work"
                " worse"
            ),
        )
    ]


def _consecutive_tail(scores: Sequence[IterationScore], iteration: int) -> list[IterationScore]:
    tail: list[IterationScore] = []
    expected = iteration
    for score in reversed(scores):
        if score.iteration != expected:
            break
        tail.insert(0, score)
        expected -= 1
    return tail


def dimension_changes(series: Series, iteration: int) -> list[DimensionChange]:
    """Per evaluator, the dimensions that improved or regressed since its previous comparable
    scorecard."""
    changes = []
    for name, history in series.items():
        found = _current(history, iteration)
        if found is None or not found[1]:
            continue
        now, previous = found[0], found[1][-1]
        for key, after in now.dimensions.items():
            before = previous.dimensions.get(key)
            if before is not None and before != after:
                changes.append(
                    DimensionChange(
                        evaluator=name,
                        dimension=key,
                        from_iteration=previous.iteration,
                        to_iteration=iteration,
                        before=before,
                        after=after,
                        change="improved" if after > before else "regressed",
                    )
                )
    return changes
