"""`referee aggregate`, `referee calibrate` and `referee calibration`: output and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aggregate_cards import card, issue, store_card, two_evaluator_contract
from runs import bound

from referee.server.cli import main
from referee.tools.models import Contract
from referee.tools.repo import working_tree_hash
from referee.tools.store import Store, scorecards_for


@pytest.fixture
def store(repo: Path) -> Store:
    return Store(repo / ".referee")


@pytest.fixture
def contract(store: Store, repo: Path) -> Contract:
    return two_evaluator_contract(store, repo, max_iterations=2)


def run(repo: Path, *args: str) -> int:
    return main(["--root", str(repo), *args])


def test_deliver_exits_0(
    repo: Path, store: Store, contract: Contract, capsys: pytest.CaptureFixture[str]
) -> None:
    store_card(store, contract, card(contract, "judge", 1, 3))
    store_card(store, contract, card(contract, "radar", 1, 2))
    assert run(repo, "aggregate", contract.id) == 0
    out = capsys.readouterr().out
    assert f"{contract.id}  iteration 1: DELIVER" in out and "judge ACCEPT · radar ACCEPT" in out


def test_revise_exits_1_and_prints_the_brief_in_order(
    repo: Path, store: Store, contract: Contract, capsys: pytest.CaptureFixture[str]
) -> None:
    store_card(
        store,
        contract,
        card(
            contract,
            "judge",
            1,
            {"craft": 1},
            issues=[
                issue("LOW", "Rename the helper", "app/util.py:3"),
                issue("MEDIUM", "Error message reveals whether the user exists", "app/login.py:30"),
                issue("CRITICAL", "Session id is predictable", "app/session.py:5"),
            ],
        ),
    )
    store_card(store, contract, card(contract, "radar", 1, 3))
    assert run(repo, "aggregate", contract.id) == 1
    out = capsys.readouterr().out
    assert (
        out.index("[CRITICAL] Session id")
        < out.index("[MEDIUM] Error message")
        < out.index("deferred")
    )
    assert "revision brief (iteration 1 → 2)" in out and "[LOW] Rename the helper" in out


def test_escalate_exits_3(
    repo: Path, store: Store, contract: Contract, capsys: pytest.CaptureFixture[str]
) -> None:
    store_card(store, contract, card(contract, "judge", 1, {"security": 0}))
    store_card(store, contract, card(contract, "radar", 1, 3))
    assert run(repo, "aggregate", contract.id) == 3
    assert "judge returned BLOCK" in capsys.readouterr().out


def test_pending_exits_4_and_json_output_is_the_full_result(
    repo: Path, store: Store, contract: Contract, capsys: pytest.CaptureFixture[str]
) -> None:
    store_card(store, contract, card(contract, "judge", 1, 3))
    assert run(repo, "aggregate", contract.id, "--json") == 4
    data = json.loads(capsys.readouterr().out)
    assert data["decision"] == "PENDING" and data["missing_evaluators"] == ["radar"]


def test_at_the_bound_the_best_iteration_is_delivered_with_exit_0(
    repo: Path, store: Store, contract: Contract, capsys: pytest.CaptureFixture[str]
) -> None:
    for iteration, judge in [(1, 3), (2, {"craft": 1, "security": 1})]:
        store_card(store, contract, card(contract, "judge", iteration, judge))
        store_card(store, contract, card(contract, "radar", iteration, {"craft": 1}))
    assert run(repo, "aggregate", contract.id, "--iteration", "2") == 0
    assert "deliver iteration 1" in capsys.readouterr().out


def test_inline_scorecards_file_is_used_not_stored(
    repo: Path, store: Store, contract: Contract, tmp_path: Path
) -> None:
    path = tmp_path / "cards.json"
    now = {"target": {"tree": working_tree_hash(repo)}}
    cards = [bound(store, contract, card(contract, e, 1, 3, **now)) for e in ("judge", "radar")]
    path.write_text(json.dumps(cards), encoding="utf-8")
    assert run(repo, "aggregate", contract.id, "--scorecards", str(path)) == 0
    assert scorecards_for(store, contract.id) == []


@pytest.mark.parametrize("content", ["not json", "[]", None])
def test_usage_errors_exit_2(
    repo: Path,
    contract: Contract,
    tmp_path: Path,
    content: str | None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "cards.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert run(repo, "aggregate", contract.id, "--scorecards", str(path)) == 2
    assert "error:" in capsys.readouterr().err


def test_an_invalid_inline_scorecard_or_unknown_contract_exits_2(
    repo: Path, contract: Contract, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = card(contract, "radar", 1, 3)
    del bad["provider"]
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    assert run(repo, "aggregate", contract.id, "--scorecards", str(path)) == 2
    assert "/scorecards/0/provider" in capsys.readouterr().err
    assert run(repo, "aggregate", "SC-nothing-20260101") == 2
    with pytest.raises(SystemExit) as caught:  # the model's bound, said by the parser
        run(repo, "aggregate", contract.id, "--iteration", "0")
    assert caught.value.code == 2


def test_calibrate_and_report(
    repo: Path, store: Store, contract: Contract, capsys: pytest.CaptureFixture[str]
) -> None:
    ident = store_card(store, contract, card(contract, "judge", 1, {"craft": 1}))
    assert run(repo, "calibrate", str(ident), "accept", "--note", "generated code") == 0
    assert "human ACCEPT, judge REVISE (disagrees)" in capsys.readouterr().out
    assert run(repo, "calibration", contract.id) == 0
    out = capsys.readouterr().out
    assert (
        "overall: 1 verdict, agreement 0%" in out
        and f"prompt {contract.evaluator_prompt_version}" in out
    )
    assert run(repo, "calibration", "--json") == 0
    assert json.loads(capsys.readouterr().out)["overall"]["count"] == 1
    assert run(repo, "calibrate", "9999", "ACCEPT") == 2


def test_hand_made_scorecards_never_deliver_against_an_exported_contract(
    repo: Path, tmp_path: Path, store: Store, contract: Contract, capsys: pytest.CaptureFixture[str]
) -> None:
    exported = tmp_path / "contract.yaml"
    assert run(repo, "contract", "export", contract.id, "-o", str(exported)) == 0
    files = []
    for name, score in (("judge", 3), ("radar", 3)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(card(contract, name, 1, score)), encoding="utf-8")
        files.append(str(path))
    fresh = tmp_path / "ci-home"
    assert (
        main(
            [
                "--root",
                str(repo),
                "--home",
                str(fresh),
                "aggregate",
                str(exported),
                "--scorecards",
                *files,
            ]
        )
        == 2
    )
    captured = capsys.readouterr()
    assert "DELIVER" not in captured.out and "run_required" in captured.err
