"""Nothing of a hold-out's run reaches the generator: what it wrote, printed, exited with or how
long it took stays in the evaluator view; the generator hears only how many hidden checks failed."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from holdout_attacks import (
    NAME_CHANNELS,
    SECRET_TEST,
    completed,
    generator_side,
    leaky_calc,
    with_holdout,
    written_by,
)
from mcp import Client
from mcp_calls import call
from projects import calc_repo

from referee.server.app import build_server
from referee.tools.settings import Settings

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(tmp_path / "calc")


@pytest.fixture
async def agent(project: Path) -> AsyncIterator[Client]:
    async with Client(build_server(Settings.build([project]))) as client:
        yield client


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
    assert draft["antipatterns_detected"] == [] and evaluation["antipatterns"] == []
    checked = await call(agent, "validate_scorecard", scorecard=completed(draft))
    assert checked["valid"] is True, checked["errors"]
    decided = await call(agent, "aggregate", contract_id=cid)
    assert decided["decision"] == "REVISE"
    assert decided["revision_brief"]["hidden_checks_failed"] == 1
    seen = await generator_side(agent, cid, decided) + json.dumps(draft["issues"])
    for path in written:
        for part in (path, *(p for p in path.split("/") if len(p) > 8)):
            assert part not in seen, part
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
