"""Small selections over report data shared by the sections: latest iteration, active scorecards,
runs."""

from __future__ import annotations

from statistics import fmean

from referee.tools.models.evaluation import Evaluation
from referee.tools.report.data import ReportData, ScorecardEntry


def iterations(data: ReportData) -> list[int]:
    """Every iteration with a run or a scorecard, ascending."""
    return sorted({r.iteration for r in data.runs} | {c.iteration for c in data.scorecards})


def latest_iteration(data: ReportData) -> int | None:
    """The highest iteration with a run or a scorecard, None when nothing is stored."""
    found = iterations(data)
    return found[-1] if found else None


def active(
    data: ReportData, variant: str = "original", iteration: int | None = None
) -> list[ScorecardEntry]:
    """Scorecards still in force (not replaced), of one variant, optionally of one iteration."""
    return [
        c
        for c in data.scorecards
        if c.active and c.variant == variant and (iteration is None or c.iteration == iteration)
    ]


def latest_cards(data: ReportData) -> dict[str, ScorecardEntry]:
    """Each evaluator's most recent scorecard in force (original variant)."""
    latest: dict[str, ScorecardEntry] = {}
    for card in active(data):
        if card.evaluator not in latest or card.iteration >= latest[card.evaluator].iteration:
            latest[card.evaluator] = card
    return latest


def runs_at(data: ReportData, iteration: int | None) -> list[Evaluation]:
    """The runs of one iteration, oldest first."""
    return [r for r in data.runs if r.iteration == iteration]


def latest_run(data: ReportData) -> Evaluation | None:
    """The most recently stored run, None when there is none."""
    return data.runs[-1] if data.runs else None


def evaluators(data: ReportData) -> list[str]:
    """The contract's evaluators, then any other name that stored a scorecard."""
    names = list(data.contract.evaluators)
    return names + sorted({c.evaluator for c in data.scorecards} - set(names))


def scale_max(data: ReportData) -> float:
    """The top of the rubric's scale (3 for 0–3 rubrics, 1 for unit ones; 3 when the rubric is
    unknown)."""
    return data.rubric.scale.max if data.rubric else 3.0


def mean(values: list[float]) -> float | None:
    """The mean rounded to 4 decimals, None for no values."""
    return round(fmean(values), 4) if values else None


def card_normalized(card: ScorecardEntry) -> float | None:
    """A scorecard's 0–100 score: its stored normalized score, else weighted / scale × 100."""
    if card.normalized is not None:
        return card.normalized
    if card.weighted_score is None or not card.scale_max:
        return None
    return round(card.weighted_score / card.scale_max * 100, 2)


def evidence_tools(run: Evaluation | None) -> dict[str, str]:
    """Evidence id → tool for one run."""
    return {e.id: e.tool for e in run.evidence} if run else {}


def clip(text: str, limit: int = 160) -> str:
    """One line of at most `limit` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
