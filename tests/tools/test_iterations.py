"""One iteration per evaluated tree, through the evaluate core: the sequence of trees, explicit
iterations that must agree, and the bound that names what aggregate delivers."""

from __future__ import annotations

from pathlib import Path

import pytest
from aggregate_cards import card, store_card, two_evaluator_contract
from projects import calc_repo, evaluated

from referee.tools.errors import InvalidInput
from referee.tools.repo import working_tree_hash
from referee.tools.store import Store, tree_iteration

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(tmp_path / "calc")


@pytest.fixture
def store(project: Path, store_url: str | None) -> Store:
    return Store(project / ".referee", url=store_url)


async def run(store: Store, project: Path, contract_id: str, **kw: object):
    return await evaluated(store, project, contract_id, **kw)


def change(project: Path, n: int) -> None:
    (project / "src" / "calc.py").write_text(f"def add(a, b):\n    return a + b  # {n}\n", "utf-8")


def problem_of(caught: pytest.ExceptionInfo[InvalidInput]) -> tuple[str, str, str]:
    [problem] = caught.value.problems
    return problem.path, problem.code, problem.message


async def test_each_new_tree_is_the_next_iteration_for_every_evaluator(
    store: Store, project: Path
) -> None:
    contract = two_evaluator_contract(store, project, holdout=False)
    seen = []
    for n, evaluator in enumerate(["judge", "radar", "judge"], start=1):
        change(project, n)
        first = await run(store, project, contract.id, evaluator=evaluator)
        other = "radar" if evaluator == "judge" else "judge"
        second = await run(store, project, contract.id, evaluator=other)
        everyone = await run(store, project, contract.id)
        seen.append((first.iteration, second.iteration, everyone.iteration))
    assert seen == [(1, 1, 1), (2, 2, 2), (3, 3, 3)]
    assert tree_iteration(store, contract.id, working_tree_hash(project)) == 3


async def test_an_explicit_iteration_must_be_the_trees(store: Store, project: Path) -> None:
    contract = two_evaluator_contract(store, project, holdout=False)
    assert (await run(store, project, contract.id, iteration=1)).iteration == 1
    with pytest.raises(InvalidInput) as caught:
        await run(store, project, contract.id, evaluator="radar", iteration=2)
    path, code, message = problem_of(caught)
    assert (path, code) == ("/iteration", "iteration_mismatch")
    assert "evaluated in iteration 1, not 2" in message
    change(project, 1)
    with pytest.raises(InvalidInput) as caught:
        await run(store, project, contract.id, iteration=3)
    path, code, message = problem_of(caught)
    assert code == "iteration_mismatch" and "starts iteration 2, not 3" in message
    assert (await run(store, project, contract.id, iteration=2)).iteration == 2


async def test_past_the_bound_evaluate_names_the_iteration_aggregate_delivers(
    store: Store, project: Path
) -> None:
    contract = two_evaluator_contract(store, project, max_iterations=2, holdout=False)
    scores = {1: 3, 2: 1}  # the first attempt was the better one
    for iteration in (1, 2):
        change(project, iteration)
        for evaluator in ("judge", "radar"):
            ev = await run(store, project, contract.id, evaluator=evaluator)
            assert ev.iteration == iteration
            binding = {
                "run_id": ev.run_id,
                "signature": ev.signature,
                "target": {"tree": ev.target.tree, "commit": ev.target.commit},
            }
            store_card(
                store, contract, card(contract, evaluator, iteration, scores[iteration], **binding)
            )
    change(project, 3)
    with pytest.raises(InvalidInput) as caught:
        await run(store, project, contract.id, evaluator="judge")
    path, code, message = problem_of(caught)
    assert (path, code) == ("/contract_id", "loop_exhausted")
    assert "all of its 2 iterations" in message and "would start iteration 3" in message
    assert "aggregate delivers iteration 1" in message
    change(project, 2)  # the last tree again: still its own iteration, nothing refused
    assert (await run(store, project, contract.id, evaluator="radar")).iteration == 2
