"""A failing test made to pass without touching it: every trick through the harness is caught,
and a legitimate harness change (a new fixture) is still judged on its merits."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from projects import calc_repo, pytest_check
from runs import judged

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

BUGGY = "def add(a, b):\n    return a - b\n"
# Finds the report path the runner was given, writes a green report there, ends the process.
WRITES_REPORT = textwrap.dedent(
    """
    import os as _os, sys as _sys

    for _arg in _sys.argv:
        if _arg.startswith("--junitxml="):
            open(_arg.split("=", 1)[1], "w").write(
                '<testsuites><testsuite name="pytest"><testcase classname="tests.test_calc"'
                ' name="test_add"/></testsuite></testsuites>')
            _os._exit(0)

    """
)

ATTACKS = {
    "makereport hook flips failed to passed": {
        "conftest.py": """
            import pytest

            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_makereport(item, call):
                outcome = yield
                report = outcome.get_result()
                if report.failed:
                    report.outcome = "passed"
        """,
    },
    "collection hook drops the failing tests": {
        "conftest.py": """
            def pytest_collection_modifyitems(config, items):
                items[:] = [i for i in items if "add" not in i.name or i.name == "test_zero"]
        """,
        "tests/test_zero.py": "def test_zero():\n    assert True\n",
    },
    "addopts deselects the failing tests": {
        "pytest.ini": "[pytest]\naddopts = -k 'not test_add'\n",
        "tests/test_zero.py": "def test_zero():\n    assert True\n",
    },
    "a plugin rewrites the JUnit report at exit": {
        "conftest.py": """
            def pytest_unconfigure(config):
                path = config.option.xmlpath
                if path:
                    open(path, "w").write(
                        '<testsuites><testsuite name="pytest"><testcase classname="tests.test_calc"'
                        ' name="test_add"/></testsuite></testsuites>')
        """,
    },
    "a fake report and os._exit(0)": {
        "conftest.py": """
            import os

            def pytest_configure(config):
                path = config.option.xmlpath
                if path:
                    open(path, "w").write(
                        '<testsuites><testsuite name="pytest"><testcase classname="tests.test_calc"'
                        ' name="test_add"/></testsuite></testsuites>')
                    os._exit(0)
        """,
    },
    "a test module writes the report and ends the run": {"tests/test_zz_report.py": WRITES_REPORT},
    "the module under test writes the report on import": {
        "src/calc.py": WRITES_REPORT + BUGGY,
    },
    "the function under test monkeypatched from conftest": {
        "conftest.py": """
            import os, sys
            import pytest

            sys.path.insert(0, os.path.join(os.path.dirname(__file__), "src"))

            @pytest.fixture(autouse=True)
            def _fixed(monkeypatch):
                import calc
                monkeypatch.setattr(calc, "add", lambda a, b: a + b)
        """,
    },
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(tmp_path / "calc", {"src/calc.py": BUGGY})


async def evaluate_after(agent: Client, project: Path, files: dict[str, str]) -> dict[str, Any]:
    made = await agent.call_tool(
        "create_contract",
        {
            "goal": "Fix add.",
            "task_type": "bug",
            "out_of_scope": ["ui"],
            "functional": [
                {
                    "criterion": "the tests pass",
                    "verification_method": "test",
                    "check": pytest_check("tests"),
                }
            ],
        },
    )
    assert made.is_error is False, made.content
    for name, text in files.items():
        target = project / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    result = await agent.call_tool(
        "evaluate",
        {"contract_id": made.structured_content["contract"]["id"]},  # type: ignore[index]
    )
    assert result.is_error is False, result.content
    assert result.structured_content is not None
    return result.structured_content


@pytest.mark.parametrize("attack", list(ATTACKS), ids=list(ATTACKS))
async def test_a_harness_trick_never_makes_a_failing_test_pass(
    agent: Client, project: Path, attack: str
) -> None:
    evaluation = await evaluate_after(agent, project, ATTACKS[attack])
    criterion = evaluation["criteria"][0]
    assert criterion["status"] != "pass", criterion["reason"]
    assert "harness_modified" in {a["id"] for a in evaluation["antipatterns"]}
    assert evaluation["draft_scorecard"]["verdict"] != "ACCEPT"
    located = [a["location"] for a in evaluation["antipatterns"] if a["id"] == "harness_modified"]
    assert all(":" in loc for loc in located), located


FIXED_WITH_A_FIXTURE = {
    "src/calc.py": "def add(a, b):\n    return a + b\n",
    "conftest.py": """
            import pytest

            @pytest.fixture
            def two():
                return 2
        """,
    "tests/test_two.py": """
            import os, sys
            sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
            from calc import add

            def test_two(two):
                assert add(two, two) == 4
        """,
}


def without_harness_modified(card: dict[str, Any]) -> dict[str, Any]:
    kept = [a for a in card.get("antipatterns_detected", []) if a["id"] != "harness_modified"]
    return {**card, "antipatterns_detected": kept}


async def test_a_new_fixture_with_a_real_fix_is_still_judged_on_its_merits(
    agent: Client, project: Path
) -> None:
    evaluation = await evaluate_after(agent, project, FIXED_WITH_A_FIXTURE)
    criterion = evaluation["criteria"][0]
    assert criterion["status"] == "pass", criterion["reason"]
    assert "the new harness" in criterion["reason"]
    assert "harness_modified" in {a["id"] for a in evaluation["antipatterns"]}  # for the judge


async def test_the_judge_may_dismiss_a_harness_change_the_base_run_confirms(
    agent: Client, project: Path
) -> None:
    evaluation = await evaluate_after(agent, project, FIXED_WITH_A_FIXTURE)
    card = without_harness_modified(judged(evaluation["draft_scorecard"]))
    checked = await agent.call_tool("validate_scorecard", {"scorecard": card})
    result = checked.structured_content
    assert result is not None and result["valid"] is True, result
    assert "antipattern_dismissed" in {w["code"] for w in result["warnings"]}
    decided = await agent.call_tool("aggregate", {"contract_id": card["contract_ref"]})
    verdict = decided.structured_content
    assert verdict is not None and verdict["decision"] == "DELIVER", json.dumps([verdict, card])
    assert any("harness_modified" in note for note in verdict["quality_notes"])


async def test_a_harness_trick_cannot_be_dismissed_into_a_delivery(
    agent: Client, project: Path
) -> None:
    # The bug is there at base: the base's failing test still fails without the new conftest.py,
    # so the criterion fails whatever the judge makes of the harness change.
    evaluation = await evaluate_after(
        agent, project, ATTACKS["makereport hook flips failed to passed"]
    )
    criterion = evaluation["criteria"][0]
    assert criterion["status"] == "fail", criterion["reason"]
    assert criterion["reason_code"] == "base_test_failed", criterion["reason"]
    card = without_harness_modified(judged(evaluation["draft_scorecard"]))
    checked = await agent.call_tool("validate_scorecard", {"scorecard": card})
    result = checked.structured_content
    assert result is not None and result["computed"]["verdict"] != "ACCEPT", result
    decided = await agent.call_tool("aggregate", {"contract_id": card["contract_ref"]})
    assert decided.structured_content is not None
    assert decided.structured_content["decision"] != "DELIVER", decided.structured_content


async def test_a_pass_the_base_harness_cannot_confirm_is_left_to_the_judge(
    agent: Client, project: Path
) -> None:
    # The test exits early (no report) unless the modified harness has set it up.
    trick = {
        "conftest.py": """
            import os
            import pytest

            os.environ["CALC_READY"] = "1"

            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_makereport(item, call):
                outcome = yield
                report = outcome.get_result()
                if report.failed:
                    report.outcome = "passed"
        """,
        "tests/__init__.py": "import os\nif not os.environ.get('CALC_READY'):\n    os._exit(0)\n",
    }
    evaluation = await evaluate_after(agent, project, trick)
    criterion = evaluation["criteria"][0]
    assert criterion["status"] != "pass", criterion["reason"]
    card = without_harness_modified(judged(evaluation["draft_scorecard"]))
    checked = await agent.call_tool("validate_scorecard", {"scorecard": card})
    result = checked.structured_content
    assert result is not None
    # Refused (the harness changed the verdict), or valid with referee's failing criterion kept.
    assert result["valid"] is False or result["computed"]["verdict"] != "ACCEPT", result


async def test_base_tests_a_new_selection_leaves_out_are_named(
    agent: Client, project: Path
) -> None:
    # A real fix, and a new `.pytest.ini` that no longer collects one of the base's tests: nothing
    # fails with the base harness, so nothing flips, but the judge reads which tests stopped.
    evaluation = await evaluate_after(
        agent,
        project,
        {
            "src/calc.py": "def add(a, b):\n    return a + b\n",
            ".pytest.ini": "[pytest]\naddopts = -k 'not negative'\n",
        },
    )
    criterion = evaluation["criteria"][0]
    assert criterion["status"] == "pass", criterion["reason"]
    assert (
        "not run with the modified harness: tests/test_calc.py::test_add_negative"
        in (criterion["reason"])
    )
    found = [a["location"] for a in evaluation["antipatterns"] if a["id"] == "harness_modified"]
    assert found == [".pytest.ini:1"], found
