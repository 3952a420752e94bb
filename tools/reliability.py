"""Evaluate the evaluator: each judge's canary recall, stability and agreement with humans.

A judge is an evaluator with one prompt version and one model (as its cards state them): a tuning
step changes the prompt, an upgrade the model, and either can change what the judge misses.

- **Canary recall** (docs/reliability.md): of the canaries it judged whose defect referee's own
  evidence did not already show, the share it caught; by defect kind too.
- **Stability**: the same tree judged twice on two runs by the same judge (a re-judge). Every
  criterion's pass and every dimension's score of the two cards is compared; the rate is the share
  that agree, per criterion and dimension as well, and the verdicts' agreement beside it.
- **Human agreement**: the calibration log's pairs, per judge.

A judge whose recall is below the threshold (settings: `min_canary_recall`, 0.8 unless set) over
at least `MIN_CASES` canaries is flagged, as aggregate flags a correctness score that stops
following the tests (`recalibrate`).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from referee.tools.models.reliability import (
    CanaryRecall,
    HumanAgreement,
    JudgeReliability,
    Rate,
    Stability,
)
from referee.tools.store import Store, StoredScorecard, contract_ids, scorecards_for
from referee.tools.store.canaries import StoredCanary, canaries_for

__all__ = ["MIN_CASES", "HumanPair", "Judge", "judge_of", "reliability"]

MIN_CASES = 3
UNSTATED = "(unstated)"


class Judge(NamedTuple):
    evaluator: str
    prompt_version: str
    model: str


class HumanPair(NamedTuple):
    judge: Judge
    evaluator_verdict: str
    human_verdict: str


def judge_of(evaluator: str, body: Mapping[str, Any], computed: Mapping[str, Any]) -> Judge:
    def stated(key: str) -> str:
        value = body.get(key, computed.get(key))
        return value if isinstance(value, str) and value else UNSTATED

    return Judge(evaluator, stated("evaluator_prompt_version"), stated("evaluator_model"))


def reliability(
    store: Store,
    contract_id: str | None,
    humans: Sequence[HumanPair],
    kappa: Mapping[Judge, float | None],
    min_recall: float,
) -> list[JudgeReliability]:
    """Every judge with at least one case, with the cases each figure rests on."""
    recall = _recall(canaries_for(store, contract_id))
    stability = _stability(_cards(store, contract_id))
    human = _human(humans, kappa)
    judges = sorted(set(recall) | set(stability) | set(human))
    return [
        JudgeReliability(
            evaluator=j.evaluator,
            evaluator_prompt_version=j.prompt_version,
            evaluator_model=j.model,
            canary=recall.get(j),
            stability=stability.get(j),
            human=human.get(j),
            flagged=_flag(recall.get(j), min_recall),
        )
        for j in judges
    ]


def _rate(hits: int, cases: int) -> Rate:
    return Rate(cases=cases, hits=hits, rate=round(hits / cases, 3) if cases else None)


def _flag(recall: CanaryRecall | None, minimum: float) -> str | None:
    if recall is None or recall.rate is None or recall.cases < MIN_CASES:
        return None
    if recall.rate >= minimum:
        return None
    return (
        f"canary recall {recall.rate:.0%} over {recall.cases} canaries is below {minimum:.0%}:"
        " this judge misses planted defects; recalibrate its prompt or add a second evaluator"
    )


def _recall(canaries: Iterable[StoredCanary]) -> dict[Judge, CanaryRecall]:
    judged: dict[Judge, list[tuple[str, bool, bool]]] = defaultdict(list)
    for c in canaries:
        if c.outcome is None:
            continue
        o = c.outcome
        judge = judge_of(str(o.get("evaluator") or c.evaluator or ""), o, {})
        judged[judge].append((str(c.defect["kind"]), bool(o["evidence_caught"]), bool(o["caught"])))
    found = {}
    for judge, cases in judged.items():
        measured = [(kind, caught) for kind, by_evidence, caught in cases if not by_evidence]
        kinds = sorted({kind for kind, _ in measured})
        found[judge] = CanaryRecall(
            **_rate(sum(c for _, c in measured), len(measured)).model_dump(),
            by_kind={
                k: _rate(
                    sum(c for kk, c in measured if kk == k), sum(kk == k for kk, _ in measured)
                )
                for k in kinds
            },
            evidence_caught=len(cases) - len(measured),
        )
    return found


def _cards(store: Store, contract_id: str | None) -> list[StoredScorecard]:
    ids = [contract_id] if contract_id else contract_ids(store)
    return [s for cid in ids for s in scorecards_for(store, cid, history=True)]


def _tree(card: StoredScorecard) -> str | None:
    target = card.body.get("target")
    tree = target.get("tree") if isinstance(target, dict) else None
    return tree if isinstance(tree, str) else None


def _rejudged(cards: Sequence[StoredScorecard]) -> dict[Judge, list[tuple[StoredScorecard, ...]]]:
    """Pairs of cards on the same tree by the same judge, each on a run of its own (a card
    resubmitted for the same run is a correction, not a second judgement)."""
    groups: dict[tuple[Judge, str, str], list[StoredScorecard]] = defaultdict(list)
    for card in cards:
        tree = _tree(card)
        if tree is not None and card.run_id is not None:
            judge = judge_of(card.evaluator, card.body, card.computed)
            groups[(judge, card.contract_id, tree)].append(card)
    pairs: dict[Judge, list[tuple[StoredScorecard, ...]]] = defaultdict(list)
    for (judge, _, _), group in groups.items():
        last = {}
        for card in group:  # the last card of each run: its final judgement
            last[card.run_id] = card
        runs = sorted(last.values(), key=lambda c: c.id)
        pairs[judge] += list(itertools.pairwise(runs))
    return pairs


def _stability(cards: Sequence[StoredScorecard]) -> dict[Judge, Stability]:
    found = {}
    for judge, pairs in _rejudged(cards).items():
        if not pairs:
            continue
        criteria: dict[str, list[bool]] = defaultdict(list)
        dimensions: dict[str, list[bool]] = defaultdict(list)
        verdicts = []
        for first, second in pairs:
            for key, same in _compared(_passes(first), _passes(second)):
                criteria[key].append(same)
            for key, same in _compared(_scores(first), _scores(second)):
                dimensions[key].append(same)
            verdicts.append(first.computed.get("verdict") == second.computed.get("verdict"))
        every = [s for v in (*criteria.values(), *dimensions.values()) for s in v]
        found[judge] = Stability(
            **_rate(sum(every), len(every)).model_dump(),
            pairs=len(pairs),
            verdict=_rate(sum(verdicts), len(verdicts)),
            criteria={k: _rate(sum(v), len(v)) for k, v in sorted(criteria.items())},
            dimensions={k: _rate(sum(v), len(v)) for k, v in sorted(dimensions.items())},
        )
    return found


def _passes(card: StoredScorecard) -> dict[str, object]:
    items = card.body.get("criteria")
    rows = items if isinstance(items, list) else []
    return {str(c["id"]): c.get("pass") for c in rows if isinstance(c, dict) and "id" in c}


def _scores(card: StoredScorecard) -> dict[str, object]:
    dims = card.computed.get("dimensions")
    return dict(dims) if isinstance(dims, dict) else {}


def _compared(a: Mapping[str, object], b: Mapping[str, object]) -> list[tuple[str, bool]]:
    return [(key, a[key] == b[key]) for key in sorted(set(a) & set(b))]


def _human(
    pairs: Sequence[HumanPair], kappa: Mapping[Judge, float | None]
) -> dict[Judge, HumanAgreement]:
    grouped: dict[Judge, list[bool]] = defaultdict(list)
    for p in pairs:
        grouped[p.judge].append(p.evaluator_verdict == p.human_verdict)
    return {
        j: HumanAgreement(**_rate(sum(v), len(v)).model_dump(), kappa=kappa.get(j))
        for j, v in grouped.items()
    }
