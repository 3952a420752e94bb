"""A team store as a team uses it: several clones and CI jobs on one PostgreSQL database, through
the CLI and the MCP server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from gitrepo import git, make_repo
from holdout_attacks import HOLDOUT_PATH, SECRET_TEST, holdout_contract
from mcp import Client
from mcp_calls import call
from postgres import Cluster
from projects import SAMPLE_ENV, calc_repo, commit_all, stored_text
from runs import judged

from referee.server.app import build_server
from referee.server.cli import main
from referee.tools.settings import Settings
from referee.tools.store import Store, runs_for

pytestmark = pytest.mark.slow

TEAM_KEY = "the team's key, a CI secret of 32+ chars"

CONTRACT = """\
goal: Keep the calculator adding.
task_type: feature
out_of_scope: [subtraction]
evaluators: [judge]
max_iterations: 5
functional:
  - criterion: the tests pass
    verification_method: test
    check: {kind: tests, argv: [python, -m, pytest, -q, tests]}
"""


@pytest.fixture
def team(monkeypatch: pytest.MonkeyPatch, postgres_url: str) -> str:
    monkeypatch.setenv("REFEREE_KEY", TEAM_KEY)
    monkeypatch.setenv("REFEREE_STORE_URL", postgres_url)
    return postgres_url


def clone(origin: Path, where: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(origin), str(where)], check=True)
    git(where, "config", "user.email", "dev@example.com")
    git(where, "config", "user.name", "dev")
    return where


def create(repo: Path, folder: Path, capsys: pytest.CaptureFixture[str]) -> str:
    source = folder / "contract.yaml"
    source.write_text(CONTRACT, encoding="utf-8")
    assert main(["--root", str(repo), "contract", "create", str(source)]) == 0
    return capsys.readouterr().out.split()[1]


def test_a_contract_created_in_one_clone_evaluates_in_another(
    team: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = calc_repo(tmp_path / "alice" / "calc")
    second = clone(first, tmp_path / "bob" / "calc")
    cid = create(first, tmp_path, capsys)
    assert main(["--root", str(second), "evaluate", cid, "--json"]) == 0
    ran = json.loads(capsys.readouterr().out)
    assert ran["iteration"] == 1
    store = Store(second / ".referee", url=team)
    [run] = runs_for(store, cid)
    assert Path(run.evaluation.target.repo) == second.resolve()  # bob's clone, not alice's path
    store.close()
    # A repository of another history is not a clone of it, whatever its path.
    other = make_repo(tmp_path / "carol" / "calc", {"src/calc.py": "def add(a, b): ...\n"})
    assert main(["--root", str(other), "evaluate", cid]) == 1
    assert "path_outside_roots" in capsys.readouterr().err


def test_a_card_from_another_clone_is_judged_against_that_clone(
    team: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """validate and aggregate read the tree of the clone that holds the contract's history under
    the server's roots, as evaluate does, not the path the contract was created at (which, on
    another machine, is missing or someone else's work in progress)."""
    alice = calc_repo(tmp_path / "alice" / "calc")
    bob = clone(alice, tmp_path / "bob" / "calc")
    cid = create(alice, tmp_path, capsys)
    with (alice / "src" / "calc.py").open("a", encoding="utf-8") as out:
        out.write("\n# alice keeps working\n")  # her tree is no longer the one bob evaluated
    assert main(["--root", str(bob), "evaluate", cid, "--json"]) == 0
    draft = json.loads(capsys.readouterr().out)["draft_scorecard"]
    card = tmp_path / "bob-card.json"
    card.write_text(json.dumps(judged(draft)), encoding="utf-8")
    assert main(["--root", str(bob), "validate", str(card), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["valid"] is True
    assert main(["--root", str(bob), "aggregate", cid, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["decision"] == "DELIVER"

    async def through_mcp() -> tuple[dict[str, Any], dict[str, Any]]:
        settings = Settings.build([bob], env={**SAMPLE_ENV, **os.environ})
        async with Client(build_server(settings)) as agent:
            checked = await call(agent, "validate_scorecard", scorecard=judged(draft))
            return checked, await call(agent, "aggregate", contract_id=cid)

    checked, decided = anyio.run(through_mcp)
    assert checked["valid"] is True and decided["decision"] == "DELIVER"
    # Bob's own tree moving on does make his card stale.
    with (bob / "src" / "calc.py").open("a", encoding="utf-8") as out:
        out.write("\n# bob edits after judging\n")
    assert main(["--root", str(bob), "validate", str(card), "--json"]) == 1
    assert "stale" in capsys.readouterr().out


def test_eight_writers_at_once_lose_no_row_and_agree_on_iterations(
    team: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    origin = calc_repo(tmp_path / "origin")
    cid = create(origin, tmp_path, capsys)
    clones = [clone(origin, tmp_path / f"job{n}") for n in range(6)]
    for n, repo in enumerate(clones[3:]):  # three jobs see a change of their own: new trees
        (repo / "src" / "calc.py").write_text(
            f"def add(a, b):\n    return a + b  # job {n}\n", encoding="utf-8"
        )
        commit_all(repo, f"job {n}")
    env = {**os.environ, "REFEREE_KEY": TEAM_KEY, "REFEREE_STORE_URL": team}
    cli = [sys.executable, "-m", "referee.server.cli"]
    jobs = [
        subprocess.Popen(
            [*cli, "--root", str(repo), "evaluate", cid, "--json", "--isolation", "worktree"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for repo in clones
    ]

    async def through_mcp(repo: Path) -> dict[str, object]:
        env = {**SAMPLE_ENV, "REFEREE_KEY": TEAM_KEY}
        settings = replace(Settings.build([repo], env=env), store_url=team)
        async with Client(build_server(settings)) as agent:
            return await call(agent, "evaluate", contract_id=cid, isolation="worktree")

    async def two_agents() -> list[dict[str, object]]:
        found: list[dict[str, object]] = []

        async def one(repo: Path) -> None:
            found.append(await through_mcp(repo))

        async with anyio.create_task_group() as group:
            for repo in (clones[0], clones[3]):
                group.start_soon(one, repo)
        return found

    agents = anyio.run(two_agents)
    results = []
    for job in jobs:
        out, err = job.communicate(timeout=600)
        assert job.returncode == 0, err
        results.append(json.loads(out))
    store = Store(origin / ".referee", url=team)
    runs = runs_for(store, cid)
    store.close()
    assert len(runs) == len(jobs) + len(agents)  # no run lost
    by_tree: dict[str, set[int]] = {}
    for run in runs:
        by_tree.setdefault(run.evaluation.target.tree, set()).add(run.evaluation.iteration)
    # One iteration per tree, a different one for each tree: 1 for the common tree, 2..4 for the
    # three changed ones, in whatever order the jobs reached the store.
    assert all(len(found) == 1 for found in by_tree.values())
    assert sorted(min(found) for found in by_tree.values()) == [1, 2, 3, 4]


GATE_CONTRACT = ".referee/contracts/calc.yaml"
SUB = "\ndef sub(a, b):\n    return a - b\n"
SUB_TEST = (
    "import os, sys\n"
    "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))\n"
    "from calc import sub\n\n"
    "def test_sub():\n    assert sub(5, 3) == 2\n"
)


def scored(draft: dict[str, Any], score: int) -> dict[str, Any]:
    """A judge's card for the draft, every dimension the draft left open scored `score`."""
    open_ = {name for name, dim in draft["dimensions"].items() if dim.get("score") is None}
    card = judged(draft)
    for name in open_:
        card["dimensions"][name]["score"] = score
    if score < 3:
        card["guidance"] = "Split the module into one function per operation and test each one."
    return card


def alice_iterates(repo: Path, tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Alice, on her machine and the team store: the contract on main, then two iterations of the
    change, the first scored high (stored in the team store), the second low (committed)."""
    source = tmp / "contract-source.yaml"
    source.write_text(CONTRACT.replace("tests]}", "tests]}\n"), encoding="utf-8")
    assert main(["--root", str(repo), "contract", "create", str(source)]) == 0
    cid = capsys.readouterr().out.split()[1]
    (repo / GATE_CONTRACT).parent.mkdir(parents=True)
    assert (
        main(["--root", str(repo), "contract", "export", cid, "-o", str(repo / GATE_CONTRACT)]) == 0
    )
    commit_all(repo, "the contract")
    git(repo, "checkout", "-q", "-b", "feature")
    with (repo / "src" / "calc.py").open("a", encoding="utf-8") as out:
        out.write(SUB)
    (repo / "tests" / "test_sub.py").write_text(SUB_TEST, encoding="utf-8")
    commit_all(repo, "sub")
    first = tmp / "first.json"
    for iteration, score, card in ((1, 3, first), (2, 0, repo / ".referee/scorecards/judge.json")):
        if iteration == 2:
            with (repo / "src" / "calc.py").open("a", encoding="utf-8") as out:
                out.write("\n# the second attempt\n")
            commit_all(repo, "second attempt")
        capsys.readouterr()
        assert main(["--root", str(repo), "evaluate", cid, "--json"]) == 0
        draft = json.loads(capsys.readouterr().out)["draft_scorecard"]
        assert draft["iteration"] == iteration
        card.parent.mkdir(parents=True, exist_ok=True)
        card.write_text(json.dumps(scored(draft, score)), encoding="utf-8")
        if iteration == 1:  # into the team's history
            assert main(["--root", str(repo), "validate", str(first)]) == 0, capsys.readouterr()
    git(repo, "add", "-f", ".referee/scorecards")
    commit_all(repo, "the second attempt's scorecard")


def ci(repo: Path, tmp: Path, capsys: pytest.CaptureFixture[str], *store: str) -> str:
    summary = tmp / "summary.md"
    summary.unlink(missing_ok=True)
    args = ["--root", str(repo), "--home", str(tmp / "ci-home"), "ci", *store]
    capsys.readouterr()
    main([*args, "--contract-ref", f"origin/main:{GATE_CONTRACT}", "--summary", str(summary)])
    return summary.read_text(encoding="utf-8")


def test_the_gate_on_the_team_store_alerts_on_a_regression_only_the_shared_history_shows(
    team: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = calc_repo(tmp_path / "alice" / "calc")
    alice_iterates(alice, tmp_path, capsys)
    runner = clone(alice, tmp_path / "ci" / "calc")  # CI's checkout of the pull request
    git(runner, "checkout", "-q", "feature")
    monkeypatch.delenv("REFEREE_STORE_URL")
    alone = ci(runner, tmp_path, capsys)  # a store of the gate's own: no history
    assert "## referee:" in alone and "regression" not in alone
    shared = ci(runner, tmp_path, capsys, "--store", team)
    assert "### Alerts from the history" in shared, shared
    assert "**regression**" in shared and "iteration 2" in shared
    assert team not in shared and "127.0.0.1" not in shared  # the URL stays out of the summary


def test_eight_validators_and_aggregators_at_once_keep_one_active_card_and_every_row(
    team: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from referee.tools.store import scorecards_for
    from referee.tools.store.aggregates import aggregates_for

    repo = calc_repo(tmp_path / "calc")
    cid = create(repo, tmp_path, capsys)
    assert main(["--root", str(repo), "evaluate", cid, "--json"]) == 0
    draft = json.loads(capsys.readouterr().out)["draft_scorecard"]
    card = tmp_path / "card.json"
    card.write_text(json.dumps(judged(draft)), encoding="utf-8")
    env = {**os.environ, "REFEREE_KEY": TEAM_KEY, "REFEREE_STORE_URL": team}
    cli = [sys.executable, "-m", "referee.server.cli", "--root", str(repo)]
    # validate: the card is valid (0); aggregate: a decision, whichever it is (DELIVER 0,
    # REVISE 1). Anything else, PENDING (4) for a lost card included, fails here with its stderr.
    for command, verdicts in ((["validate", str(card)], (0,)), (["aggregate", cid], (0, 1))):
        writers = [
            subprocess.Popen(
                [*cli, *command], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            for _ in range(8)
        ]
        # Every writer is waited for (and its pipes closed) before any is judged.
        ended = [(w, *w.communicate(timeout=600)) for w in writers]
        for writer, out, err in ended:
            assert writer.returncode in verdicts, (command, writer.returncode, out, err)
    store = Store(repo / ".referee", url=team)
    cards = scorecards_for(store, cid, history=True)
    aggregates = aggregates_for(store, cid)
    store.close()
    assert len(cards) == 8 and len(aggregates) == 8  # no row lost
    # Each card replaced the one before it: a single chain, one card active at the end.
    active = [c for c in cards if c.superseded_by is None]
    assert len(active) == 1
    successors = sorted(c.superseded_by for c in cards if c.superseded_by is not None)
    assert successors == sorted(c.id for c in cards)[1:]


async def _calls_while_the_database_is_closed(
    settings: Settings, database: str, admin: Any
) -> None:
    async with Client(build_server(settings)) as agent:
        assert (await agent.call_tool("get_contract", {"contract_id": "SC-none-20260101"})).is_error
        admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS false')
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
            (database,),
        )
        refused = await agent.call_tool("get_contract", {"contract_id": "SC-none-20260101"})
        assert refused.is_error and "store_unavailable" in str(refused.content)
        assert "nothing of this call was stored" in str(refused.content)
        admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
        again = await agent.call_tool("get_contract", {"contract_id": "SC-none-20260101"})
        assert again.is_error and "unknown_contract" in str(again.content)  # served again


def test_a_database_that_goes_away_is_a_tool_error_and_the_server_keeps_serving(
    team: str, postgres: Cluster, repo: Path
) -> None:
    settings = replace(
        Settings.build([repo], env={**SAMPLE_ENV, "REFEREE_KEY": TEAM_KEY}), store_url=team
    )
    with postgres.admin() as admin:
        anyio.run(_calls_while_the_database_is_closed, settings, team.rsplit("/", 1)[1], admin)


def settings_at(repo: Path, url: str) -> Settings:
    """An MCP server's settings at `repo` on the team store (its own home and vault)."""
    return replace(
        Settings.build([repo], env={**SAMPLE_ENV, "REFEREE_KEY": TEAM_KEY}), store_url=url
    )


def evaluated(capsys: pytest.CaptureFixture[str], repo: Path, cid: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["--root", str(repo), "evaluate", cid, "--json"]) == 0, capsys.readouterr().err
    found: dict[str, Any] = json.loads(capsys.readouterr().out)
    return found


def test_a_hold_out_added_from_one_clone_runs_in_another_and_its_evidence_is_read_there(
    team: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alice = calc_repo(tmp_path / "alice" / "calc")
    bob = clone(alice, tmp_path / "bob" / "calc")
    carol = clone(alice, tmp_path / "carol" / "calc")
    spec = tmp_path / "contract.yaml"
    spec.write_text(yaml.safe_dump({**holdout_contract(), "evaluators": ["judge"]}), "utf-8")
    assert main(["--root", str(alice), "contract", "create", str(spec)]) == 0
    cid = capsys.readouterr().out.split()[1]
    (alice / HOLDOUT_PATH).write_text(SECRET_TEST, encoding="utf-8")
    assert main(["--root", str(alice), "holdout", "add", cid, str(alice / HOLDOUT_PATH)]) == 0
    assert not (alice / HOLDOUT_PATH).exists()  # moved out of her tree, into the team's store
    first = evaluated(capsys, alice, cid)
    held = first["criteria"][1]["evidence_ids"][0]
    assert [c["status"] for c in first["criteria"]] == ["pass", "pass"]
    # Alice's machine goes away: her .referee/ (run artifacts) and her vault with it.
    shutil.rmtree(alice / ".referee")
    shutil.rmtree(Settings.build([alice]).vault_root)
    # Bob's clone never had the hold-out file; it runs there, for its criterion only.
    ran = evaluated(capsys, bob, cid)
    assert [c["status"] for c in ran["criteria"]] == ["pass", "pass"], ran["criteria"]
    assert not (bob / HOLDOUT_PATH).exists()
    assert "test_adds_large_numbers_exactly" not in stored_text(bob / ".referee")
    # Alice's run's evidence, read from Bob's machine: the CLI's export and evidence://.
    assert main(["--root", str(bob), "evidence", "export", first["run_id"]]) == 0
    pack = {i["id"]: i for i in json.loads(capsys.readouterr().out)["items"]}
    assert "2 passed" in pack[held]["stdout"]

    async def through_mcp() -> tuple[dict[str, Any], str]:
        async with Client(build_server(settings_at(carol, team))) as agent:
            again = await call(agent, "evaluate", contract_id=cid)
            read = await agent.read_resource(f"evidence://{first['run_id']}/{held}")
            view = await call(agent, "get_contract", contract_id=cid, view="generator")
        assert HOLDOUT_PATH not in json.dumps(view) and "exactly" not in json.dumps(view)
        return again, json.loads(read.contents[0].text)["stdout"]

    again, log = anyio.run(through_mcp)
    assert [c["status"] for c in again["criteria"]] == ["pass", "pass"], again["criteria"]
    assert "2 passed" in log
    assert not (carol / HOLDOUT_PATH).exists()
