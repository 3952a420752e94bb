"""Test adequacy through the MCP server and the CLI: from evaluate alone the judge gets the
changed lines no test ran, the mutants no test killed and the flaky tests, each with file:line and
an evidence id; a flaky criterion's pass is refused."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from cart_project import FLAKY, PINNED, RUNS_BUT_ASSERTS_NOTHING, cart_repo, change
from mcp import Client
from mcp_calls import call
from projects import SAMPLE_ENV, pytest_check
from runs import judged

from referee.server.app import build_server
from referee.server.cli import main as cli
from referee.tools.settings import Settings

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

# A second changed function that no test calls: its body is what diff coverage names.
UNCALLED = "\n\ndef refund(amount):\n    return -amount\n"
# What measures the change on the interpreter these tests run on (the sample projects' own).
PYTHON_TOOL = "referee's line probes" if sys.version_info < (3, 12) else "coverage.py"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = cart_repo(tmp_path / "cart")
    change(repo, RUNS_BUT_ASSERTS_NOTHING)
    with (repo / "src" / "cart.py").open("a", encoding="utf-8") as f:
        f.write(UNCALLED)
    return repo


def contract(check: dict[str, Any]) -> dict[str, Any]:
    return {
        "goal": "Give a discount at a threshold.",
        "out_of_scope": ["refunds"],
        "functional": [
            {"criterion": "the tests pass", "verification_method": "test", "check": check}
        ],
    }


async def test_evaluate_over_mcp_names_uncovered_lines_and_surviving_mutants(
    agent: Client, project: Path
) -> None:
    created = await call(agent, "create_contract", **contract(pytest_check("tests")))
    cid = created["contract"]["id"]
    result = await call(agent, "evaluate", contract_id=cid, depth="deep")
    criterion = result["criteria"][0]
    coverage = criterion["adequacy"]["diff_coverage"]
    assert coverage["files"][0]["uncovered"] == ["13"]  # refund's body
    mutation = criterion["adequacy"]["mutation"]
    assert mutation["survived"] and mutation["score"] == 0.0
    issues = {i["description"]: i for i in result["issues"]}
    uncovered = next(i for d, i in issues.items() if d.startswith("changed lines no test"))
    assert uncovered["location"] == "src/cart.py:13"
    assert uncovered["evidence_ids"] == [coverage["evidence_id"]]
    survivor = next(i for d, i in issues.items() if "`>=` becomes `>` at src/cart.py:7" in d)
    assert survivor["location"] == "src/cart.py:7"
    assert survivor["evidence_ids"] == [mutation["evidence_id"]]
    # The judge keeps the draft's issues and asks for a revision: the brief carries them.
    card = judged(result["draft_scorecard"])
    card["dimensions"]["design_quality"]["score"] = 1
    card["guidance"] = "Pin the discount's boundary with assertions."
    checked = await call(agent, "validate_scorecard", scorecard=card)
    assert checked["valid"] is True, checked["errors"]
    decided = await call(agent, "aggregate", contract_id=cid)
    brief = [i["description"] for i in decided["revision_brief"]["issues_to_address"]]
    assert any("`>=` becomes `>` at src/cart.py:7" in d for d in brief), brief
    assert any(d.startswith("changed lines no test executed: src/cart.py:13") for d in brief)
    prompt = await agent.read_resource("prompt://evaluator")
    assert "survivor" in prompt.contents[0].text  # type: ignore[union-attr]


async def test_a_flaky_criterion_is_unscored_and_its_pass_refused_over_mcp(
    agent: Client, project: Path, tmp_path: Path
) -> None:
    (project / "tests" / "test_flaky.py").write_text(FLAKY, encoding="utf-8")
    check = pytest_check("tests", repeat=3, env={"COUNTER": str(tmp_path / "counter")})
    created = await call(agent, "create_contract", **contract(check))
    cid = created["contract"]["id"]
    result = await call(agent, "evaluate", contract_id=cid, isolation="inplace")
    criterion = result["criteria"][0]
    assert (criterion["status"], criterion["pass"]) == ("unscored", False)
    assert criterion["reason"] == "flaky: tests/test_flaky.py::test_alternates passed 2 of 3"
    flaky = next(i for i in result["issues"] if i["description"].startswith("flaky test"))
    assert flaky["location"] == "tests/test_flaky.py:6"
    assert len(flaky["evidence_ids"]) == 3
    card = result["draft_scorecard"]
    card["criteria"][0]["pass"] = True
    checked = await call(agent, "validate_scorecard", scorecard=card, contract_id=cid)
    assert checked["valid"] is False
    assert "flaky_pass" in {e["code"] for e in checked["errors"]}


def test_the_cli_fails_below_min_diff_coverage_and_prints_the_survivors(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "contract.yaml"
    check = pytest_check("tests", min_diff_coverage=90, mutation=True, max_mutants=3)
    spec.write_text(yaml.safe_dump(contract(check)), encoding="utf-8")
    assert cli(["--root", str(project), "contract", "create", str(spec)]) == 0
    cid = capsys.readouterr().out.split()[1]
    assert cli(["--root", str(project), "evaluate", cid, "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    criterion = result["criteria"][0]
    assert criterion["reason_code"] == "diff_coverage_low"
    assert "not executed: src/cart.py:13" in criterion["reason"]
    assert criterion["adequacy"]["mutation"]["run"] == 3
    assert any("the tests still pass when" in i["description"] for i in result["issues"])


async def test_a_go_file_beside_the_python_change_is_named_as_unmeasured_over_mcp(
    agent: Client, project: Path
) -> None:
    (project / "cmd").mkdir()
    (project / "cmd" / "main.go").write_text("package main\n\nfunc main() {}\n", encoding="utf-8")
    check = pytest_check("tests", min_diff_coverage=10)
    created = await call(agent, "create_contract", **contract(check))
    result = await call(agent, "evaluate", contract_id=created["contract"]["id"])
    criterion = result["criteria"][0]
    assert criterion["adequacy"]["diff_coverage"]["unmeasured"] == ["cmd/main.go"]
    assert "not measurable: cmd/main.go (go)" in criterion["reason"], criterion["reason"]


@pytest.fixture
def honest(tmp_path: Path) -> Path:
    """The cart with its discount and tests that call it at, below and above the threshold."""
    repo = cart_repo(tmp_path / "honest")
    change(repo, PINNED)
    return repo


async def test_min_diff_coverage_passes_an_honest_change_and_fails_an_uncalled_function_over_mcp(
    agent: Client, project: Path, honest: Path
) -> None:
    check = pytest_check("tests", min_diff_coverage=100)
    settings = replace(Settings.build([honest], env=dict(SAMPLE_ENV)), pace_canaries=False)
    async with Client(build_server(settings)) as other:
        created = await call(other, "create_contract", **contract(check))
        result = await call(other, "evaluate", contract_id=created["contract"]["id"])
    criterion = result["criteria"][0]
    assert (criterion["status"], criterion["reason_code"]) == ("pass", "passed"), criterion
    coverage = criterion["adequacy"]["diff_coverage"]
    assert (coverage["changed"], coverage["covered"]) == (4, 4)
    assert coverage["tool"].startswith(PYTHON_TOOL)

    created = await call(agent, "create_contract", **contract(check))
    result = await call(agent, "evaluate", contract_id=created["contract"]["id"])
    criterion = result["criteria"][0]
    assert (criterion["status"], criterion["reason_code"]) == ("fail", "diff_coverage_low")
    assert "not executed: src/cart.py:13, below min_diff_coverage 100%" in criterion["reason"]
    assert criterion["adequacy"]["diff_coverage"]["tool"].startswith(PYTHON_TOOL)


def test_the_cli_passes_an_honest_change_at_min_diff_coverage_and_fails_an_uncalled_function(
    project: Path, honest: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "contract.yaml"
    spec.write_text(yaml.safe_dump(contract(pytest_check("tests", min_diff_coverage=100))))
    for root, status in ((honest, 0), (project, 1)):
        assert cli(["--root", str(root), "contract", "create", str(spec)]) == 0
        cid = capsys.readouterr().out.split()[1]
        assert cli(["--root", str(root), "evaluate", cid, "--json"]) == status
        criterion = json.loads(capsys.readouterr().out)["criteria"][0]
        coverage = criterion["adequacy"]["diff_coverage"]
        assert coverage["tool"].startswith(PYTHON_TOOL)
        assert [f["uncovered"] for f in coverage["files"]] == ([[]] if status == 0 else [["13"]])
