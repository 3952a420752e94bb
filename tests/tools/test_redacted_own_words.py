"""referee's own words survive the last redaction of a run (tools/evaluate/secrets.py).

The run's strings are redacted as one text, so a secret's fragment can match across the end of
one field and the start of the next. A draft card's rubric ref cut that way
(`[REDACTED:env]ATURE_BACKEND`) named no rubric, and validate refused the card.
"""

from __future__ import annotations

from referee.tools.evaluate.secrets import _OWN
from referee.tools.evidence import Redactor
from referee.tools.evidence.trees import rebuilt, strings_of


def test_a_fragment_across_two_fields_leaves_the_rubric_ref_whole() -> None:
    secret = "q7Zx" + "FEATURE_BACKEND"[:6] + "w2"  # its 8-character fragments include "FEATUR"
    tree = {"reason": "ends in q7Zx", "rubric": {"ref": "FEATURE_BACKEND", "version": "1"}}
    redactor = Redactor([secret])
    redacted = rebuilt(tree, iter(redactor.redact_all(list(strings_of(tree, _OWN)))), _OWN)
    assert redacted["rubric"]["ref"] == "FEATURE_BACKEND"
    # Without `ref` kept, the same scan cuts it: the test stands on the real matcher.
    plain = rebuilt(tree, iter(redactor.redact_all(list(strings_of(tree)))))
    assert plain["rubric"]["ref"] != "FEATURE_BACKEND"
