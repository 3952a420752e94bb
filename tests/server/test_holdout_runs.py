"""Nothing of a hold-out's run reaches the generator: what it wrote, printed, exited with or how
long it took stays in the evaluator view; the generator hears only how many hidden checks failed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from holdout_attacks import (
    HOLDOUT_PATH,
    NAME_CHANNELS,
    RUN_CHANNELS,
    SECRET_TEST,
    chunks,
    completed,
    generator_side,
    holdout_contract,
    leaky_calc,
    with_holdout,
    written_by,
)
from mcp import Client
from mcp_calls import call
from projects import calc_repo, command_check, pytest_check

from referee.server.app import build_server
from referee.server.cli import main as cli
from referee.tools.settings import Settings

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(tmp_path / "calc")


@pytest.mark.parametrize("channel", sorted(NAME_CHANNELS))
async def test_names_written_by_the_holdouts_run_stay_in_the_evaluator_view(
    agent: Client, project: Path, channel: str
) -> None:
    cid = await with_holdout(agent)
    (project / "src" / "calc.py").write_text(leaky_calc(NAME_CHANNELS[channel]))
    evaluation = await call(agent, "evaluate", contract_id=cid)
    assert evaluation["sandbox"] == "bubblewrap"
    status = {c["id"]: c["status"] for c in evaluation["criteria"]}
    assert status == {"AC-F-001": "pass", "AC-F-002": "fail"}, evaluation["criteria"]
    written = written_by(channel)
    # The evaluator sees every name the hold-out's run wrote, apart from what the tree reports.
    assert sorted(evaluation["tree_changed"]["holdout_paths"]) == sorted(written)
    assert evaluation["tree_changed"] == {
        "changed": False,
        "paths": [],
        "holdout_paths": evaluation["tree_changed"]["holdout_paths"],
    }
    draft = evaluation["draft_scorecard"]
    # The code lists the tests' folder to find the hidden file: code that reads the tests' files
    # is code_detects_tests, named at the generator's own line (nothing hidden in it).
    found = [a["id"] for a in evaluation["antipatterns"]]
    assert set(found) == {"code_detects_tests"}, evaluation["antipatterns"]
    assert [a["id"] for a in draft["antipatterns_detected"]] == found
    assert HOLDOUT_PATH.rsplit("/", 1)[-1] not in json.dumps(evaluation["antipatterns"])
    card = completed(draft)
    # A judge that copies a new name from the evaluator view: withheld like referee's own report.
    # (A tracked file's name is the generator's own: only that the hold-out wrote it is hidden.)
    copied = [f"tests wrote {p}" for p in written[-1:] if p != "tests/test_calc.py"]
    card["issues"] = [*card["issues"], *({"severity": "LOW", "description": c} for c in copied)]
    checked = await call(agent, "validate_scorecard", scorecard=card)
    assert checked["valid"] is True, checked["errors"]
    decided = await call(agent, "aggregate", contract_id=cid)
    assert decided["decision"] == "REVISE"
    assert [leak["description"] for leak in decided["holdout_leaks"]] == copied
    assert decided["revision_brief"]["hidden_checks_failed"] == 1
    seen = await generator_side(agent, cid, decided) + json.dumps(draft["issues"])
    own = (project / "src" / "calc.py").read_text()  # a name the generator wrote is no leak
    for path in written:
        for part in (path, *(p for p in path.split("/") if len(p) > 8)):
            assert part in own or part not in seen, part
    for word in ("test_adds_large", "secret_exact", "tree_modified", "wrote into"):
        assert word not in seen, word
    assert "1 hidden check failed" in seen
    assert SECRET_TEST not in seen


async def test_what_an_ordinary_run_writes_is_still_reported(agent: Client, project: Path) -> None:
    cid = await with_holdout(agent)
    (project / "tests" / "test_calc.py").write_text(
        (project / "tests" / "test_calc.py").read_text()
        + "\n\ndef test_writes():\n    open(os.path.join(os.path.dirname(__file__), 'out.txt'),"
        " 'w').write('x')\n"
    )
    (project / "src" / "calc.py").write_text(leaky_calc(NAME_CHANNELS["root"]))
    evaluation = await call(agent, "evaluate", contract_id=cid)
    assert evaluation["tree_changed"]["changed"] is True
    assert evaluation["tree_changed"]["paths"] == ["tests/out.txt"]
    assert evaluation["tree_changed"]["holdout_paths"] == written_by("root")
    card = completed(evaluation["draft_scorecard"])
    checked = await call(agent, "validate_scorecard", scorecard=card)
    assert checked["valid"] is True, checked["errors"]
    decided = await call(agent, "aggregate", contract_id=cid)
    brief = json.dumps(decided["revision_brief"])
    assert "tests/out.txt" in brief and "leak000" not in brief


def _quote(channel: str, item: dict[str, Any], reason: str) -> str:
    """What a judge might copy from the evaluator view into an issue, per channel."""
    said = item["stdout"] + item["stderr"]
    failed = [t for t in item["tests"] if t["outcome"] == "failed"]
    if channel == "stdout":
        return next(line for line in said.splitlines() if "seen:" in line and "10**20" in line)
    if channel == "stderr":
        found = chunks(SECRET_TEST)[0]
        assert found in said
        return found
    if channel in ("exit code", "duration"):
        return reason[:48]
    if channel == "test ids":
        return str(failed[0]["name"])
    if channel == "its source":
        assert "10**21" not in said
        return next(line.strip() for line in SECRET_TEST.splitlines() if "10**21" in line)
    return str(failed[0]["message"]).splitlines()[0]


CHECKS = {"duration": pytest_check(HOLDOUT_PATH, timeout_s=3)}


@pytest.mark.parametrize("channel", sorted(RUN_CHANNELS))
async def test_an_issue_that_repeats_the_holdouts_run_is_withheld_from_the_brief(
    agent: Client, project: Path, channel: str
) -> None:
    cid = await with_holdout(agent, CHECKS.get(channel))
    (project / "src" / "calc.py").write_text(leaky_calc(during=RUN_CHANNELS[channel]))
    evaluation = await call(agent, "evaluate", contract_id=cid)
    hidden = evaluation["criteria"][1]
    assert hidden["id"] == "AC-F-002" and hidden["status"] != "pass", hidden
    read = await agent.read_resource(
        f"evidence://{evaluation['run_id']}/{hidden['evidence_ids'][0]}"
    )
    item = json.loads(read.contents[0].text)  # type: ignore[union-attr]
    quote = _quote(channel, item, hidden["reason"])
    # Nothing referee itself hands on carries it: the draft's issues say nothing of the hold-out.
    draft = evaluation["draft_scorecard"]
    assert quote not in json.dumps(draft["issues"]) + json.dumps(draft["antipatterns_detected"])
    card = completed(draft)
    card["issues"] = [
        {"severity": "HIGH", "description": "add() goes through float", "location": "src/calc.py"},
        {"severity": "HIGH", "description": f"the checks show: {quote}"},
    ]
    checked = await call(agent, "validate_scorecard", scorecard=card)
    assert checked["valid"] is True, checked["errors"]
    decided = await call(agent, "aggregate", contract_id=cid)
    seen = await generator_side(agent, cid, decided)
    assert "add() goes through float" in seen  # the judge's own finding still reaches it
    assert quote not in seen and "the checks show" not in seen
    assert str(hidden["evidence_ids"][0]) not in json.dumps(decided["revision_brief"])
    assert decided["revision_brief"]["hidden_checks_failed"] == 1
    assert [leak["description"] for leak in decided["holdout_leaks"]] == [
        f"the checks show: {quote}"
    ]


def run(repo: Path, *args: str) -> int:
    return cli(["--root", str(repo), *args])


def test_through_the_cli_the_evaluator_sees_the_holdouts_writes_and_the_brief_only_a_count(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec, secret = tmp_path / "contract.yaml", tmp_path / "held" / "test_secret_exact.py"
    spec.write_text(yaml.safe_dump(holdout_contract()), encoding="utf-8")
    secret.parent.mkdir()
    secret.write_text(SECRET_TEST, encoding="utf-8")
    assert run(project, "contract", "create", str(spec)) == 0
    cid = capsys.readouterr().out.split()[1]
    assert run(project, "holdout", "add", cid, str(secret), "--to", "tests") == 0
    (project / "src" / "calc.py").write_text(leaky_calc(NAME_CHANNELS["subfolder"]))
    capsys.readouterr()
    assert run(project, "evaluate", cid) == 1
    printed = capsys.readouterr().out
    written = written_by("subfolder")
    # `referee evaluate` prints the evaluator view: the names are there, marked as such.
    assert "written by hold-out runs (evaluator view, never for the generator)" in printed
    assert all(p in printed for p in written) and "tree changed by the checks" not in printed
    assert run(project, "evaluate", cid, "--json") == 1
    evaluation = json.loads(capsys.readouterr().out)
    card = tmp_path / "card.json"
    card.write_text(json.dumps(completed(evaluation["draft_scorecard"])), encoding="utf-8")
    assert run(project, "validate", str(card)) == 0
    capsys.readouterr()
    assert run(project, "aggregate", cid) == 1  # REVISE
    said = capsys.readouterr().out
    assert "1 hidden check failed" in said
    assert run(project, "aggregate", cid, "--json") == 1
    brief = json.loads(capsys.readouterr().out)["revision_brief"]
    assert brief["hidden_checks_failed"] == 1
    for text in (said, json.dumps(brief)):
        assert not any(p in text or p.rsplit("/", 1)[1] in text for p in written)
        assert "notes/deep" not in text and "test_adds" not in text
    assert run(project, "report", evaluation["run_id"]) == 0
    report = capsys.readouterr().out
    hidden = evaluation["criteria"][1]["evidence_ids"][0]
    assert hidden in report  # the report is the evaluator's: its hold-out evidence is listed


# A hidden command check carries its test in its own command line: the code reads it there.
ARGV_SPY = """
import base64, os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
with open("/proc/self/cmdline", "rb") as _f:
    _line = _f.read().replace(b"\\0", b" ").decode()
if "10**20" in _line:
    _code = base64.b32encode(_line.encode()).decode().rstrip("=")
    open(os.path.join(ROOT, "argv-" + _code[:100]), "a").close()


def add(a, b):
    return int(float(a) + float(b))
"""
HIDDEN_COMMAND = command_check(
    "import sys; sys.path.insert(0, 'src'); from calc import add;"
    " assert add(10**20, 1) == 10**20 + 1"
)


@pytest.mark.parametrize("isolation", ["sandbox", "inplace"])
async def test_a_hidden_commands_own_command_line_never_reaches_the_generators_tree_or_brief(
    project: Path, isolation: str
) -> None:
    async with Client(build_server(Settings.build([project]))) as agent:
        made = await call(agent, "create_contract", **holdout_contract(HIDDEN_COMMAND))
        cid = made["contract"]["id"]
        (project / "src" / "calc.py").write_text(ARGV_SPY)
        evaluation = await call(agent, "evaluate", contract_id=cid, isolation=isolation)
        assert evaluation["criteria"][1]["status"] == "fail", evaluation["criteria"]
        await call(agent, "validate_scorecard", scorecard=completed(evaluation["draft_scorecard"]))
        decided = await call(agent, "aggregate", contract_id=cid)
        seen = await generator_side(agent, cid, decided)
    hidden = evaluation["tree_changed"]["holdout_paths"]
    # In the sandbox the evaluator sees the name; without one the run had a copy of its own.
    assert [p[:5] for p in hidden] == (["argv-"] if isolation == "sandbox" else [])
    assert evaluation["tree_changed"]["changed"] is False
    assert not list(project.glob("argv-*"))  # nothing left for the generator to read
    assert "argv-" not in seen and "10**20" not in seen
    assert decided["revision_brief"]["hidden_checks_failed"] == 1


async def test_a_flood_of_names_from_a_holdout_run_keeps_the_result_within_its_budget(
    agent: Client, project: Path
) -> None:
    cid = await with_holdout(agent)
    flood = "    for i in range(400):\n        touch('flood', f'{i:04d}-' + 'x' * 200)"
    (project / "src" / "calc.py").write_text(leaky_calc(flood))
    result = await agent.call_tool("evaluate", {"contract_id": cid})
    evaluation = result.structured_content
    assert result.is_error is False and evaluation is not None
    assert len(json.dumps(evaluation).encode()) <= Settings.build([project]).result_budget
    assert 0 < len(evaluation["tree_changed"]["holdout_paths"]) <= 20
    assert any(o.startswith("tree_changed:") for o in evaluation["omitted"])
