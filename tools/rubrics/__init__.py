"""Rubrics: loading (built-in and a repository's own), checking, and their arithmetic.

load        RubricSet, load_rubrics: the built-ins plus `.referee/rubrics/*.yaml` (as committed)
check       the semantic rules a rubric file must meet (weights sum to 1.0, examples add up)
arithmetic  weighted and normalized scores, the verdict rule, health bands, rubric selection
"""

from referee.tools.rubrics.arithmetic import (
    compute_weighted,
    final_verdict,
    health_band,
    level_key,
    normalized,
    select_rubric,
    verdict_for,
    verdict_of_values,
)
from referee.tools.rubrics.check import WEIGHT_TOLERANCE
from referee.tools.rubrics.load import (
    USER_RUBRIC_DIR,
    RubricError,
    RubricSet,
    builtin_rubrics,
    load_rubric_file,
    load_rubric_text,
    load_rubrics,
    rubrics_at,
)

__all__ = [
    "USER_RUBRIC_DIR",
    "WEIGHT_TOLERANCE",
    "RubricError",
    "RubricSet",
    "builtin_rubrics",
    "compute_weighted",
    "final_verdict",
    "health_band",
    "level_key",
    "load_rubric_file",
    "load_rubric_text",
    "load_rubrics",
    "normalized",
    "rubrics_at",
    "select_rubric",
    "verdict_for",
    "verdict_of_values",
]
