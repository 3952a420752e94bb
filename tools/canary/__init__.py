"""Canary iterations: a known defect planted in a copy of an iteration, to measure the judge.

catalogue  the defect kinds and where each can be planted (Python first)
judge      whether a judge's validated card caught the defect
"""

from referee.tools.canary.catalogue import DEFECT_KINDS, Defect, DefectKind, candidates, plantable
from referee.tools.canary.judge import CanaryOutcome, PlantedDefect, judge_card

__all__ = [
    "DEFECT_KINDS",
    "CanaryOutcome",
    "Defect",
    "DefectKind",
    "PlantedDefect",
    "candidates",
    "judge_card",
    "plantable",
]
