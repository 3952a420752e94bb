"""Each way to tamper with a test is found, and each ordinary edit finds nothing.

The cases (tests/tampering_variants.py) came from trying to get past the readers: they stay as
regression tests. The ones still open are strict xfails, so a fix shows as a failure to remove.
"""

from __future__ import annotations

import pytest
from tampering_variants import CASES

from referee.tools.tampering import detect

# Not read yet, and why: each needs more than a name (a binding, a helper's body, data flow).
OPEN = {
    "H2": "a group the run may exclude",
}


def _param(case: tuple[str, ...]) -> object:
    marks = [pytest.mark.xfail(strict=True, reason=OPEN[case[0]])] if case[0] in OPEN else []
    return pytest.param(*case, id=f"{case[0]}-{case[2]}", marks=marks)


@pytest.mark.parametrize(
    ("case", "lang", "spelling", "path", "before", "after", "tamper"), [_param(c) for c in CASES]
)
def test_each_variant(
    case: str, lang: str, spelling: str, path: str, before: str, after: str, tamper: bool
) -> None:
    found = detect([path], lambda p: before, lambda p: after)
    if tamper:
        assert found, f"{case} ({lang}): {spelling} is not found"
    else:
        assert found == [], f"{case} ({lang}): {spelling} is taken for tampering: {found}"
