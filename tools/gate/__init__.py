"""The CI gate: `referee ci` judges a pull request by the base branch's contract and CI's runs.

entry    read the contract from the base branch, evaluate the head, validate the committed cards
cards    committed scorecards, read and rebound to CI's runs
summary  the Markdown summary (for $GITHUB_STEP_SUMMARY) and SARIF
"""

from referee.tools.gate.entry import (
    DEFAULT_CARDS,
    CardOutcome,
    GateError,
    GateRequest,
    GateResult,
    run_gate,
)
from referee.tools.gate.summary import gate_json, markdown, sarif

__all__ = [
    "DEFAULT_CARDS",
    "CardOutcome",
    "GateError",
    "GateRequest",
    "GateResult",
    "gate_json",
    "markdown",
    "run_gate",
    "sarif",
]
