"""The last redaction of a run, before it is signed, stored and returned.

The recorder redacts each evidence item as it is recorded. What is left:
- the secrets hard-coded in the evaluated tree (the files the static secret check flagged) become
  known, so that a test printing one in disguise (an AWS key pair reversed) is redacted as well;
- every string of the evaluation (criterion reasons and test ids, findings, issues, the paths the
  checks wrote, the draft scorecard) is redacted with every secret known by then;
- evidence recorded before the last secret was learned is redacted again (`settle`).

A value the model takes only from a fixed vocabulary (an outcome, a source, a status) is
referee's own word, not text a check wrote: should a secret's fragment cut one (a secret that
reads `…l referee's…` matched across two fields), the word is put back rather than the result
refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from referee.tools.evidence import EvidenceRecorder, Redactor
from referee.tools.evidence.trees import rebuilt, strings_of
from referee.tools.graders.base import StaticRun
from referee.tools.models.evaluation import Evaluation
from referee.tools.static.model import StaticConfig
from referee.tools.text import encodable

__all__ = ["learn_tree_secrets", "redact_run"]

# referee's own identifiers and digests: text no check wrote, which a chance match of a secret's
# 8-character fragment must not corrupt. `ref` is the draft card's rubric (from the contract) and
# the git ref the caller named: the strings are scanned as one, so a fragment matching across
# the end of the field before it once cut `FEATURE_BACKEND`, and validate refused the card.
_OWN = frozenset(
    {
        "run_id",
        "contract_ref",
        "ref",
        "signature",
        "tree",
        "commit",
        "sha256",
        "evidence_ids",
        "pin",
        "prior_scorecard",
        "report",
        "prompt",
    }
)
_LARGEST = StaticConfig().max_file_bytes  # the secret check reads no larger file either


def learn_tree_secrets(redactor: Redactor, workdir: Path, static: StaticRun | None) -> None:
    """Know every secret of the files in which the static secret check found one."""
    if static is None or static.report is None:
        return
    found = [*static.report.findings, *static.baseline]
    for path in sorted({f.path for f in found if f.rule == "hardcoded_secrets"}):
        file = workdir / path
        try:
            if file.stat().st_size <= _LARGEST:
                redactor.learn_from(file.read_text(encoding="utf-8", errors="replace"))
        except OSError:  # gone since the scan: nothing to learn from
            continue


def redact_run(
    evaluation: Evaluation, recorder: EvidenceRecorder, redactor: Redactor
) -> Evaluation:
    """The evaluation with every secret known redacted; earlier evidence redacted again."""
    tree = evaluation.model_dump(mode="json", by_alias=True)
    # And every text encodable: a name or output with bytes that are not UTF-8 is escaped, not
    # refused by the model, which would blame the caller and record no run.
    clean = [encodable(text) for text in redactor.redact_all(list(strings_of(tree, _OWN)))]
    redacted = _validated(tree, rebuilt(tree, iter(clean), _OWN))
    recorder.settle()  # after the scan above: what it found counts for the evidence too
    return redacted


_VOCABULARY = frozenset({"literal_error", "enum"})


def _validated(original: Any, redacted: Any) -> Evaluation:
    try:
        return Evaluation.model_validate(redacted)
    except ValidationError as error:
        problems = error.errors()
        if not problems or any(p["type"] not in _VOCABULARY for p in problems):
            raise
        for problem in problems:
            _restore(original, redacted, problem["loc"])
        return Evaluation.model_validate(redacted)


def _restore(original: Any, redacted: Any, loc: tuple[int | str, ...]) -> None:
    """Put back the original value at `loc` (a union's tag in the path is no key of the data)."""
    steps = []
    for step in loc:
        if _holds(original, step):
            steps.append(step)
            original = original[step]
    if not steps:
        return
    for step in steps[:-1]:
        redacted = redacted[step]
    redacted[steps[-1]] = original


def _holds(node: Any, step: int | str) -> bool:
    if isinstance(node, dict):
        return step in node
    return isinstance(node, list) and isinstance(step, int) and step < len(node)
