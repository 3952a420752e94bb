"""Red team: the base's tests, in their base form, against a change that breaks the code.

The variants (tests/base_form_attacks.py) break `add` and then edit the base's tests where
referee does not read them as tests, leave the base-form run without a usable account, or make
the base's and the current tests hard to match. A variant referee holds is a regression test: its
criterion is not `pass` and the agent's loop does not deliver. One that gets through is an
expected failure (strict), its reason saying why.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from base_form_attacks import VARIANTS, Variant, assert_not_delivered, param

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.mark.parametrize("variant", [param(v) for v in VARIANTS])
async def test_a_broken_change_does_not_pass_by_silencing_the_base_tests(
    variant: Variant, tmp_path: Path
) -> None:
    await assert_not_delivered(variant, tmp_path)
