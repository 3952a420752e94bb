"""Red team, round 4: the hold-out phase and the base form, attacked once more.

The variants live in tests/redteam_round4.py. A variant referee holds is a regression test; one
that gets through is a strict expected failure whose reason names where and why.

- Hold-outs: the code under test reads the hidden test during its run and tries to get it into
  what the generator is handed (the brief, the generator_brief prompt, its contract view):
  through a later run (the next evaluation, the perturbed and repeated runs), or through a judge
  that copies from the evaluator view what the aggregate guard lets pass.
- Base form: `add` returns a - b, and the base's tests are kept from failing in a way
  `_skipped_base_tests` and the base-tests view do not read (a skip under another id, an xfail, a
  session ended early, a result that equals anything, test blocks the in-source splice misses).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from base_form_attacks import Variant, assert_not_delivered, param
from holdout_attacks import HOLDOUT_PATH, completed, generator_side, holdout_contract
from mcp import Client
from mcp_calls import call
from projects import SAMPLE_ENV, calc_repo, pytest_check
from redteam_round4 import ANSWER, BASE_VARIANTS, GUESSES, HOLDOUT_VARIANTS, HoldoutVariant

from referee.server.app import build_server
from referee.tools.sandbox import sandbox_support
from referee.tools.settings import Settings

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SECRET = "10**20"  # in the hidden test, nowhere in the generator's view but among its guesses
_VISIBLE = ("test_calc.py", "test_received.py")


def _holdout_param(variant: HoldoutVariant) -> object:
    marks: list[pytest.MarkDecorator] = []
    if not sandbox_support().available:
        marks.append(pytest.mark.skip(reason="no sandbox here"))
    if variant.gets_through is not None:
        marks.append(
            pytest.mark.xfail(strict=True, raises=AssertionError, reason=variant.gets_through)
        )
    return pytest.param(variant, id=variant.id, marks=marks)


def _contract(variant: HoldoutVariant) -> dict[str, Any]:
    contract = holdout_contract()
    visible = contract["functional"][0]["check"]
    visible.update(pytest_check("tests", timeout_s=120))
    if variant.repeat > 1:
        visible["repeat"] = variant.repeat
    contract["functional"][1]["check"]["timeout_s"] = 60
    return contract


async def _hidden_output(agent: Client, evaluation: dict[str, Any]) -> str:
    [hidden] = [c for c in evaluation["criteria"] if c["holdout"]]
    texts = []
    for ident in hidden["evidence_ids"]:
        read = await agent.read_resource(f"evidence://{evaluation['run_id']}/{ident}")
        item = json.loads(read.contents[0].text)  # type: ignore[union-attr]
        texts += [item["stdout"], item["stderr"], *(t["message"] for t in item["tests"])]
    return "\n".join(texts)


def _issue(variant: HoldoutVariant, said: str, written: list[str]) -> dict[str, Any] | None:
    """What the judge copies from the hidden run's evidence into its card."""
    if variant.quote == "line":
        line = next(g for g in GUESSES if g in said)
        return {"severity": "HIGH", "description": f"the checks print '{line}'"}
    if variant.quote == "location":
        found = re.search(r"calc\.py:(\d+)", said)
        assert found is not None, said
        return {
            "severity": "HIGH",
            "description": "add() raises ArithmeticError for some inputs",
            "location": f"src/calc.py:{found[1]}",
        }
    if variant.quote == "path":
        paths = sorted(p for p in written if p.startswith("src/guess_"))
        assert paths, written
        return {"severity": "MEDIUM", "description": f"running the checks wrote {', '.join(paths)}"}
    if variant.quote == "short":
        assert "10**20, 1" in said, said
        return {"severity": "HIGH", "description": "add() is inexact for (10**20, 1)"}
    return None


def _answer_line(calc: str) -> int:
    """The calc.py line that raises when the hidden test holds the answer (RAISES_AT_A_LINE)."""
    lines = calc.splitlines()
    at = next(n for n, line in enumerate(lines, 1) if f"GUESSES[{ANSWER}] in HIDDEN" in line)
    return at + 1


@pytest.mark.parametrize("variant", [_holdout_param(v) for v in HOLDOUT_VARIANTS])
async def test_what_a_hidden_run_reads_does_not_reach_the_generator(
    variant: HoldoutVariant, tmp_path: Path
) -> None:
    project = calc_repo(tmp_path / "calc", dict(variant.visible))
    settings = Settings.build([project], env=dict(SAMPLE_ENV))
    async with Client(build_server(settings)) as agent:
        made = await call(agent, "create_contract", **_contract(variant))
        cid = str(made["contract"]["id"])
        await call(
            agent,
            "add_holdout_files",
            contract_id=cid,
            files=[{"path": HOLDOUT_PATH, "content": _secret_test()}],
        )
        (project / "src" / "calc.py").write_text(variant.calc, encoding="utf-8")
        for _ in range(variant.evaluations):
            evaluation = await call(agent, "evaluate", contract_id=cid, depth=variant.depth)
        assert evaluation["sandbox"] == "bubblewrap"
        visible = evaluation["criteria"][0]
        said = await _hidden_output(agent, evaluation)
        card = completed(evaluation["draft_scorecard"])
        issue = _issue(variant, said, evaluation["tree_changed"]["holdout_paths"])
        if issue is not None:
            card["issues"] = [*card["issues"], issue]
        checked = await call(agent, "validate_scorecard", scorecard=card)
        assert checked["valid"] is True, checked["errors"]
        decided = await call(agent, "aggregate", contract_id=cid)
        seen = await generator_side(agent, cid, decided)
    # No visible run received the hidden test (its failing ids would carry it).
    assert SECRET not in json.dumps(visible), visible
    assert SECRET not in seen
    assert "10**20, 1" not in seen
    if variant.quote == "path":
        assert f"guess_{ANSWER}.txt" not in seen
    if variant.quote == "location":
        assert f"calc.py:{_answer_line(variant.calc)}" not in seen
    # The count is the generator's only word of the hold-outs: here the code adds right (a + b)
    # unless it chooses otherwise, so a failed hidden check is a bit the code chose to send.
    if variant.id == "holdout-failed-count-carries-a-bit-the-code-chose":
        assert decided["revision_brief"]["hidden_checks_failed"] == 0, decided["revision_brief"]


def _secret_test() -> str:
    from holdout_attacks import SECRET_TEST

    return SECRET_TEST


# --- the base form ----------------------------------------------------------------------------


@pytest.mark.parametrize("variant", [param(v) for v in BASE_VARIANTS])
async def test_a_broken_add_does_not_pass_with_the_base_tests_kept_quiet(
    variant: Variant, tmp_path: Path
) -> None:
    await assert_not_delivered(variant, tmp_path)
