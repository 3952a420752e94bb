"""Mutants in every language with a parser here, through the MCP server and the CLI: in each
language's project a weak test lets the boundary's mutants survive (issues at file:line that reach
the draft scorecard and the revision brief), a strong test kills every mutant that compiles, and a
mutant that does not compile (Go, Rust, Java) is neither killed nor survived."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client
from mcp_calls import call
from mutant_projects import PROJECTS, MutantProject
from projects import SAMPLE_ENV
from runner_projects import tool_path
from runs import judged

from referee.server.cli import main as cli

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.fixture(params=PROJECTS, ids=[p.name for p in PROJECTS])
def language(request: pytest.FixtureRequest) -> MutantProject:
    wanted: MutantProject = request.param
    if missing := wanted.missing():
        pytest.skip(f"not installed: {', '.join(missing)}")
    return wanted


@pytest.fixture
def project(language: MutantProject, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATH", tool_path())  # the CLI's checks find cargo where it installs
    return language.build(tmp_path / "shop")


@pytest.fixture
def checks_env() -> dict[str, str]:
    """The checks find every toolchain (cargo where it installs)."""
    return {**SAMPLE_ENV, "PATH": tool_path()}


def contract(language: MutantProject, **kw: Any) -> dict[str, Any]:
    def criterion(name: str, argv: list[str]) -> dict[str, Any]:
        check = language.check(argv, **kw)
        return {"criterion": name, "verification_method": "test", "check": check}

    return {
        "goal": "Take a tenth off a total of 100 or more.",
        "out_of_scope": ["taxes"],
        "functional": [
            criterion("the weak test passes", language.weak),
            criterion("the strong test passes", language.strong),
        ],
    }


def boundary(language: MutantProject) -> str:
    return f"`>=` becomes `>` at {language.source}:{language.boundary}"


async def test_survivors_reach_the_brief_and_kills_are_counted_over_mcp(
    agent: Client, project: Path, language: MutantProject
) -> None:
    created = await call(agent, "create_contract", **contract(language, mutation=True))
    cid = created["contract"]["id"]
    result = await call(agent, "evaluate", contract_id=cid)
    weak, strong = (c["adequacy"]["mutation"] for c in result["criteria"])
    assert [c["status"] for c in result["criteria"]] == ["pass", "pass"], result["criteria"]
    assert weak["survived"] and weak["score"] < 1, weak
    survivor = next(i for i in result["issues"] if boundary(language) in i["description"])
    assert survivor["location"] == f"{language.source}:{language.boundary}"
    assert survivor["evidence_ids"] == [weak["evidence_id"]]
    assert (strong["survived"], strong["score"]) == ([], 1.0), strong
    assert strong["killed"] == strong["run"] >= 3
    # The survivors stay inline however large the result; the full list is in the evidence.
    assert {m["location"].rsplit(":", 1)[0] for m in weak["survived"]} == {language.source}
    if language.compiled:
        assert strong["not_compiled"] >= 1, strong
        evidence = next(e for e in result["evidence"] if e["id"] == strong["evidence_id"])
        assert "did not compile (left out of the score)" in evidence["summary"]
        assert "did not compile" in result["criteria"][1]["evidence"]
    card = judged(result["draft_scorecard"])
    assert any(boundary(language) in i["description"] for i in card["issues"])
    card["dimensions"]["design_quality"]["score"] = 1
    card["guidance"] = "Pin the discount's threshold."
    checked = await call(agent, "validate_scorecard", scorecard=card)
    assert checked["valid"] is True, checked["errors"]
    decided = await call(agent, "aggregate", contract_id=cid)
    brief = [i["description"] for i in decided["revision_brief"]["issues_to_address"]]
    assert any(boundary(language) in d for d in brief), brief


# The CLI's side is the same for every language (the MCP test above runs each one's mutants):
# the slowest builds (Maven, tsc) run over MCP alone.
CLI_LANGUAGES = [p for p in PROJECTS if p.name not in ("java", "typescript")]


@pytest.mark.parametrize(
    "language", CLI_LANGUAGES, ids=[p.name for p in CLI_LANGUAGES], indirect=True
)
def test_min_mutation_score_fails_the_weak_test_through_the_cli(
    project: Path, language: MutantProject, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "contract.yaml"
    spec.write_text(yaml.safe_dump(contract(language, min_mutation_score=0.8)), encoding="utf-8")
    assert cli(["--root", str(project), "contract", "create", str(spec)]) == 0
    cid = capsys.readouterr().out.split()[1]
    assert cli(["--root", str(project), "evaluate", cid, "--json"]) == 1
    weak, strong = json.loads(capsys.readouterr().out)["criteria"]
    assert (weak["status"], weak["reason_code"]) == ("fail", "mutation_score_low"), weak
    assert "below min_mutation_score 0.8" in weak["reason"]
    assert boundary(language) in weak["reason"]
    assert strong["status"] == "pass", strong["reason"]
    assert strong["adequacy"]["mutation"]["score"] == 1.0
    if language.compiled:
        rejected = [
            m for m in weak["adequacy"]["mutation"]["mutants"] if m["status"] == "not_compiled"
        ]
        assert rejected and all(m["note"].startswith("did not compile: ") for m in rejected)
