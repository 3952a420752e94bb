"""Verdicts that hold on real changes, as an agent and a person see them: over MCP and on the CLI.

A bug fix next to old debt with its regression test and a trivial test, the iteration sequence of
two evaluators to the bound, an inline what-if aggregate, one failing test among many, and a
describe-heavy JS library.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gitrepo import git, make_repo
from mcp import Client
from projects import SAMPLE_ENV, apply_bugfix, bugfix_criteria, bugfix_repo, calc_repo, pytest_check

from referee.server.app import build_server
from referee.server.cli import main
from referee.tools.settings import Settings

pytestmark = pytest.mark.anyio


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The repository of the `client` fixture's server: a bug at base next to old debt."""
    return bugfix_repo(tmp_path / "calc")


async def call(agent: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await agent.call_tool(tool, args)
    assert result.is_error is False, result.content
    assert result.structured_content is not None
    return result.structured_content


async def contract_id(agent: Client, **fields: Any) -> str:
    request = {"goal": "Keep adding.", "out_of_scope": ["ui"], **fields}
    created = await call(agent, "create_contract", request)
    return str(created["contract"]["id"])


async def refused(agent: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await agent.call_tool(tool, args)
    assert result.is_error is True, result.structured_content
    problem: dict[str, Any] = result.structured_content["problems"][0]  # type: ignore[index]
    return problem


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def green(check: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"criterion": "the tests pass", "verification_method": "test", "check": check, **fields}


@pytest.mark.slow
async def test_a_bug_fix_next_to_old_debt_over_mcp(client: Client, repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "commit", "-q", "--allow-empty", "-m", "later work")  # HEAD is not the base
    cid = await contract_id(
        client, task_type="bug", functional=bugfix_criteria(), base_commit=base[:10]
    )
    contract = await call(client, "get_contract", {"contract_id": cid, "view": "evaluator"})
    assert contract["base_commit"] == base
    apply_bugfix(repo, trivial=True)

    ev = await call(client, "evaluate", {"contract_id": cid})

    reasons = {c["id"]: (c["status"], c["reason"]) for c in ev["criteria"]}
    assert reasons["AC-F-001"][0] == "pass"
    regression = "1 test fails at base and passes now: tests/test_calc.py::test_add_negative"
    assert regression in reasons["AC-F-001"][1]
    assert reasons["AC-F-002"][0] == "fail"
    assert reasons["AC-F-002"][1].startswith("passes at base too")
    assert reasons["AC-F-003"][0] == "pass"  # the old long function predates the change
    assert ev["findings"] == []
    assert ev["baseline_findings"]["by_rule"] == {"function_length": 1}
    assert ev["dimensions"]["craft"]["score"] == 3
    assert not any("function_length" in i["description"] for i in ev["issues"])
    assert ev["target"]["base"] == base


async def _trivially_proven(client: Client, repo: Path, test: str | None = None) -> dict[str, Any]:
    """The evaluation of the fix whose only proof is tests/test_zero.py (`test`, else a trivial
    test), must_fail_at_base."""
    cid = await contract_id(client, task_type="bug", functional=[bugfix_criteria()[1]])
    apply_bugfix(repo, trivial=True)
    if test is not None:
        (repo / "tests" / "test_zero.py").write_text(test, encoding="utf-8")
    return await call(client, "evaluate", {"contract_id": cid})


@pytest.mark.slow
async def test_a_fix_proven_by_nothing_or_breaking_a_test_is_correctness_0(
    client: Client, repo: Path
) -> None:
    # The BUG_FIX rubric's level 0, as the draft derives it: the only regression test passes at
    # base too, however many tests pass now.
    ev = await _trivially_proven(client, repo)
    correctness = ev["dimensions"]["correctness"]
    assert correctness["score"] == 0, correctness
    assert "no test fails at base" in correctness["evidence"]
    assert (
        ev["verdict"] in (None, "BLOCK")
        or ev["draft_scorecard"]["dimensions"]["correctness"]["score"] == 0
    )
    # A fix that breaks a test that passed at base: level 0 too, even with the regression proven.
    cid = await contract_id(client, task_type="bug", functional=[bugfix_criteria()[0]])
    (repo / "src" / "calc.py").write_text(
        "def add(a, b):\n    return a + b if b < 0 else a + b + (a == 1)\n", encoding="utf-8"
    )
    ev = await call(client, "evaluate", {"contract_id": cid})
    correctness = ev["dimensions"]["correctness"]
    assert correctness["score"] == 0, (correctness, ev["criteria"])
    assert "tests that passed at base fail now" in correctness["evidence"]
    assert "tests/test_calc.py::test_add" in correctness["evidence"]


# A test that proves nothing, failing only where it can tell the base run: by the name of the
# file its sandbox's first process writes to.
TELLS_THE_BASE_RUN = """import os


def test_zero():
    names = [os.readlink(p) for p in ("/proc/1/fd/1", "/proc/1/fd/2") if os.path.islink(p)]
    assert not any("-base" in n for n in names), names
"""


@pytest.mark.slow
async def test_a_test_cannot_fail_at_base_by_telling_the_base_run_apart(
    client: Client, repo: Path
) -> None:
    criterion = (await _trivially_proven(client, repo, TELLS_THE_BASE_RUN))["criteria"][0]
    assert criterion["reason_code"] == "passes_at_base", criterion["reason"]


async def test_create_contract_names_a_base_that_is_no_commit(client: Client) -> None:
    problem = await refused(
        client,
        "create_contract",
        {"goal": "Fix it.", "functional": bugfix_criteria(), "base_commit": "no-such-branch"},
    )
    assert problem["path"] == "/base_commit" and problem["code"] == "unknown_ref"
    assert "no-such-branch" in problem["message"]


@pytest.mark.slow
async def test_iterations_agree_for_every_evaluator_up_to_the_bound(
    client: Client, repo: Path
) -> None:
    cid = await contract_id(
        client,
        max_iterations=2,
        functional=[
            green(pytest_check("tests/test_calc.py"), evaluator="tests"),
            {"criterion": "reads well", "verification_method": "manual", "evaluator": "ux"},
        ],
    )
    everyone = await call(client, "evaluate", {"contract_id": cid})
    ux = await call(client, "evaluate", {"contract_id": cid, "evaluator": "ux"})
    tests = await call(client, "evaluate", {"contract_id": cid, "evaluator": "tests"})
    assert [everyone["iteration"], ux["iteration"], tests["iteration"]] == [1, 1, 1]
    assert everyone["target"]["tree"] == ux["target"]["tree"] == tests["target"]["tree"]

    mismatch = await refused(client, "evaluate", {"contract_id": cid, "iteration": 2})
    assert mismatch["code"] == "iteration_mismatch" and mismatch["path"] == "/iteration"
    assert "iteration 1, not 2" in mismatch["message"]

    apply_bugfix(repo)
    second = await call(client, "evaluate", {"contract_id": cid, "evaluator": "ux"})
    assert second["iteration"] == 2
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n", "utf-8")
    exhausted = await refused(client, "evaluate", {"contract_id": cid, "evaluator": "tests"})
    assert exhausted["code"] == "loop_exhausted" and exhausted["path"] == "/contract_id"
    assert "all of its 2 iterations" in exhausted["message"]
    assert "aggregate of iteration 2 waits for" in exhausted["message"]
    # The server keeps serving: the previous tree is still iteration 2.
    apply_bugfix(repo)
    again = await call(client, "evaluate", {"contract_id": cid, "evaluator": "tests"})
    assert again["iteration"] == 2


def complete(draft: dict[str, Any], score: int) -> dict[str, Any]:
    card = {k: v for k, v in draft.items() if k not in ("verdict", "weighted_score")}
    card["provider"] = "scripted"
    for dim in card["dimensions"].values():
        if dim["score"] is None:
            dim["score"], dim["evidence"] = score, "read src/calc.py by hand"
    card["guidance"] = "Fix the failing test."
    return card


async def test_one_failing_test_among_many_asks_for_a_revision_not_an_escalation(
    tmp_path: Path,
) -> None:
    repo = calc_repo(tmp_path / "many")
    many = "".join(
        f"\n\ndef test_add_{i}():\n    assert add({i}, 1) == {i + 1}\n" for i in range(60)
    )
    suite = repo / "tests" / "test_calc.py"
    suite.write_text(suite.read_text("utf-8") + many + "\n\ndef test_odd():\n    assert 0\n")
    async with Client(build_server(Settings.build([repo], env=dict(SAMPLE_ENV)))) as agent:
        cid = await contract_id(agent, task_type="bug", functional=[green(pytest_check("tests"))])
        ev = await call(agent, "evaluate", {"contract_id": cid})
        assert ev["criteria"][0]["tests"] == {"passed": 62, "failed": 1, "errors": 0, "skipped": 0}
        assert ev["dimensions"]["correctness"]["score"] == 1
        assert ev["dimensions"]["functionality"]["score"] == 1
        checked = await call(
            agent, "validate_scorecard", {"scorecard": complete(ev["draft_scorecard"], 2)}
        )
        assert checked["valid"] is True, checked["errors"]
        assert checked["computed"]["verdict"] == "REVISE"
        decided = await call(agent, "aggregate", {"contract_id": cid})
        assert decided["decision"] == "REVISE" and decided["revision_brief"] is not None


async def test_an_inline_what_if_never_feeds_the_brief_or_the_report(tmp_path: Path) -> None:
    repo = calc_repo(tmp_path / "whatif")
    (repo / "tests" / "test_more.py").write_text("def test_odd():\n    assert 0\n", "utf-8")
    async with Client(build_server(Settings.build([repo], env=dict(SAMPLE_ENV)))) as agent:
        cid = await contract_id(agent, functional=[green(pytest_check())])
        ev = await call(agent, "evaluate", {"contract_id": cid})
        what_if = await call(
            agent,
            "aggregate",
            {"contract_id": cid, "scorecards": [complete(ev["draft_scorecard"], 2)]},
        )
        assert what_if["decision"] == "REVISE" and what_if["revision_brief"]
        assert any("not stored" in n for n in what_if["quality_notes"])
        prompt = await agent.get_prompt("generator_brief", {"contract_id": cid})
        text = prompt.messages[0].content.text  # type: ignore[union-attr]
        assert "## Revision brief" not in text and "test_odd" not in text
        report = (await agent.read_resource(f"report://{cid}")).contents[0].text  # type: ignore[union-attr]
        # The run's own failure is on the page (What failed); the what-if's decision and brief not.
        assert "REVISE" not in report and "revision brief" not in report.lower()
        assert "no aggregate stored" in report and "test_odd" in report.split("## Findings")[0]
        stored = await call(agent, "aggregate", {"contract_id": cid})
        assert stored["decision"] == "PENDING"


@pytest.mark.slow
def test_the_cli_shows_the_bug_fix_verdicts_and_refuses_past_the_bound(
    tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = {
        "goal": "Fix adding negative numbers.",
        "task_type": "bug",
        "repo": str(repo),
        "out_of_scope": ["anything else"],
        "max_iterations": 1,
        "functional": bugfix_criteria(),
    }
    (tmp_path / "contract.json").write_text(json.dumps(spec), "utf-8")
    root = ("--root", str(repo))
    code, out, err = cli(capsys, *root, "contract", "create", str(tmp_path / "contract.json"))
    assert code == 0, err
    cid = out.split()[1]
    apply_bugfix(repo, trivial=True)

    code, out, _ = cli(capsys, *root, "evaluate", cid, "--json")
    ev = json.loads(out)
    assert code == 1  # the trivial test's criterion fails
    assert [c["status"] for c in ev["criteria"]] == ["pass", "fail", "pass"]
    assert ev["baseline_findings"]["total"] == 1

    code, _, err = cli(capsys, *root, "evaluate", cid, "--iteration", "2")
    assert code == 1 and "iteration_mismatch" in err and "/iteration" in err
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n", "utf-8")
    code, _, err = cli(capsys, *root, "evaluate", cid)
    assert code == 1 and "loop_exhausted" in err and "all of its 1 iteration;" in err


async def test_a_describe_heavy_js_library_at_project_scope(tmp_path: Path) -> None:
    expectations = "\n".join(f"    assert.equal(pm('a{i}')('a{i}'), true);" for i in range(60))
    others = "\n".join(f"      assert.ok(!pm('b{i * i}')('c{i}'));" for i in range(60))
    spec = (
        "const assert = require('assert');\nconst pm = require('../lib/picomatch');\n"
        "describe('picomatch', () => {\n"
        f"  it('matches', () => {{\n{expectations}\n  }});\n"
        f"  describe('options', function () {{\n    it('reads', () => {{\n{others}\n"
        "    });\n  });\n});\n"
    )
    fixtures = 'module.exports = { user: "a", password: "peanuts" };\n'
    library = make_repo(
        tmp_path / "pm",
        {
            "lib/picomatch.js": "module.exports = (glob) => (s) => s === glob;\n",
            "lib/types.d.ts": "export declare function pm(glob: string): boolean;\n",
            "index.js": "'use strict';\nmodule.exports = require('./lib/picomatch');\n",
            "test/api.picomatch.js": spec,
            "test/fixtures/users.js": fixtures,
            "README.md": "# pm\n",
            "LICENSE": "MIT\n",
        },
    )
    async with Client(build_server(Settings.build([library], env=dict(SAMPLE_ENV)))) as agent:
        cid = await contract_id(
            agent,
            quality=[
                {
                    "criterion": f"no {rule}",
                    "verification_method": "static",
                    "check": {"kind": "static", "rule": rule},
                }
                for rule in ("function_length", "test_existence")
            ],
        )
        ev = await call(agent, "evaluate", {"contract_id": cid, "scope": "project"})
    assert [c["status"] for c in ev["criteria"]] == ["pass", "pass"]
    assert [(f["rule"], f["severity"]) for f in ev["findings"]] == [("hardcoded_secrets", "LOW")]
    health = ev["project_health"]["dimensions"]
    assert health["security"]["score"] == 1.0
    static = next(e for e in ev["evidence"] if e["tool"] == "static")
    assert "in 5 files" in static["summary"]  # README.md and LICENSE are no source files
