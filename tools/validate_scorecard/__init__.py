"""validate_scorecard: a scorecard counts only once schema, contract, arithmetic and evidence agree.

entry         validate_scorecard(), validate_and_store()
card          the scorecard as read (either format), with its rubric and evaluator
schema        JSON Schema (draft 2020-12) from the models, with precise pointers
rules         the contract's rules (criteria ids, evaluator, dimension keys, evidence texts)
arithmetic    weighted score, normalized score and verdict, against what the card states
evidence      cited ids, contradictions, staleness and signatures, against recorded runs
binding       the recorded run a scorecard rests on
deterministic what referee decided in that run: scores, issues, antipatterns (agree or lower)
strict_json   the JSON text read strictly: no NaN, no duplicate keys, bounded size and depth
codes         every code, its severity and what to do about it
"""

from referee.tools.validate_scorecard.codes import CODES
from referee.tools.validate_scorecard.context import (
    ResolvedContract,
    contract_repo,
    current_tree,
    evidence_context,
    resolve_contract,
    stored_repo,
)
from referee.tools.validate_scorecard.entry import (
    REFEREE_ANTIPATTERNS,
    EvidenceContext,
    detect_format,
    stored_computed,
    unreadable,
    validate_and_store,
    validate_scorecard,
)
from referee.tools.validate_scorecard.strict_json import (
    MAX_CARD_BYTES,
    Parsed,
    parse_json,
    read_json,
)

__all__ = [
    "CODES",
    "MAX_CARD_BYTES",
    "REFEREE_ANTIPATTERNS",
    "EvidenceContext",
    "Parsed",
    "ResolvedContract",
    "contract_repo",
    "current_tree",
    "detect_format",
    "evidence_context",
    "parse_json",
    "read_json",
    "resolve_contract",
    "stored_computed",
    "stored_repo",
    "unreadable",
    "validate_and_store",
    "validate_scorecard",
]
