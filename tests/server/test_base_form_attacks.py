"""Red team: the base's tests, in their base form, against a change that breaks the code.

The variants (tests/base_form_attacks.py) break `add` and then edit the base's tests where
referee does not read them as tests, leave the base-form run without a usable account, or make
the base's and the current tests hard to match. A variant referee holds is a regression test: its
criterion is not `pass` and the agent's loop does not deliver. One that gets through is an
expected failure (strict), its reason saying why.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from base_form_attacks import VARIANTS, Variant
from edits import judged_loop
from gitrepo import make_repo
from runner_projects import JS_CACHE, MAVEN_REPO, tool_path

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

_TOOLS = {
    "pytest": None,
    "go": "go",
    "cargo": "cargo",
    "jest": "npx",
    "vitest": "npx",
    "maven": "mvn",
}


def _param(variant: Variant) -> object:
    marks: list[pytest.MarkDecorator] = []
    tool = _TOOLS[variant.runner]
    if tool is not None and shutil.which(tool, path=tool_path()) is None:
        marks.append(pytest.mark.skip(reason=f"{tool} is not installed"))
    if variant.runner == "maven" and not (MAVEN_REPO / "junit").is_dir():
        marks.append(pytest.mark.skip(reason=f"{MAVEN_REPO} has no junit (scripts/setup.sh)"))
    if variant.node_modules and not JS_CACHE.is_dir():
        marks.append(pytest.mark.skip(reason="scripts/setup.sh installs the JS runners"))
    if variant.gets_through is not None:
        marks.append(
            pytest.mark.xfail(strict=True, raises=AssertionError, reason=variant.gets_through)
        )
    return pytest.param(variant, id=variant.id, marks=marks)


@pytest.mark.parametrize("variant", [_param(v) for v in VARIANTS])
async def test_a_broken_change_does_not_pass_by_silencing_the_base_tests(
    variant: Variant, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / variant.runner, variant.base)
    if variant.node_modules:
        (repo / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
    result, decision = await judged_loop(repo, variant.change, variant.check())
    criterion = result["criteria"][0]
    said = (criterion["status"], criterion.get("reason_code"), criterion["reason"])
    assert criterion["status"] != "pass", said
    assert decision["decision"] != "DELIVER", (decision["decision"], decision["reason"], said)
