"""Pins: every evaluated tree kept under refs/referee/<contract>/<iteration>, and restored from
there, through the cores with real repositories."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cli_runs import write_files
from gitrepo import git
from projects import SAMPLE_ENV, calc_repo, contract_for

from referee.tools.checkout import checkout, drop_contract_pins
from referee.tools.errors import InvalidInput
from referee.tools.evaluate.entry import EvaluateDeps, EvaluateInput, evaluate
from referee.tools.repo import (
    RestoreRefused,
    pin_tree,
    pins,
    restore_tree,
    start_branch,
    working_tree_hash,
)
from referee.tools.settings import Settings
from referee.tools.store import Store

pytestmark = pytest.mark.anyio

WHEN = datetime(2026, 3, 25, 12, 0, tzinfo=UTC)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(tmp_path / "calc")


@pytest.fixture
def store(project: Path) -> Store:
    return Store(project / ".referee")


def pin_now(repo: Path, iteration: int) -> str:
    tree = working_tree_hash(repo)
    pin_tree(repo, "SC-x-20260325", iteration, tree, git(repo, "rev-parse", "HEAD"), WHEN)
    return tree


async def test_evaluate_pins_the_evaluated_tree_so_gc_keeps_it(store: Store, project: Path) -> None:
    contract = contract_for(
        store, project, {"criterion": "reads well", "verification_method": "manual"}
    )
    write_files(project, {"src/new.py": "VALUE = 41\n"})  # untracked: part of the evaluated tree
    deps = EvaluateDeps(
        store=store,
        settings=Settings.build([project], env=dict(SAMPLE_ENV)),
        now=lambda: WHEN,
    )
    result = await evaluate(EvaluateInput(contract_id=contract.id), deps)
    ref = f"refs/referee/{contract.id}/1"
    assert result.pin == ref
    assert git(project, "rev-parse", f"{ref}^{{tree}}") == result.target.tree
    assert git(project, "rev-parse", f"{ref}^") == git(project, "rev-parse", "HEAD")
    write_files(project, {"src/new.py": None})
    git(project, "gc", "-q", "--prune=now")
    assert git(project, "show", f"{ref}:src/new.py") == "VALUE = 41"


def test_a_pinned_tree_is_written_back_byte_for_byte(project: Path) -> None:
    write_files(project, {"src/calc.py": "def add(a, b):\n    return b + a\n", "docs/a.txt": "a\n"})
    os.symlink("calc.py", project / "src" / "link.py")
    (project / "run.sh").write_text("#!/bin/sh\necho hi\n", encoding="utf-8")
    (project / "run.sh").chmod(0o755)
    wanted = pin_now(project, 1)
    write_files(project, {"src/calc.py": "broken", "docs/a.txt": None, "extra/b.txt": "b\n"})
    (project / "run.sh").chmod(0o644)
    pin_now(project, 2)

    done = restore_tree(project, wanted, {p.tree for p in pins(project, "SC-x-20260325")}, False)
    assert working_tree_hash(project) == wanted
    assert (project / "src" / "calc.py").read_text(encoding="utf-8").endswith("b + a\n")
    assert os.readlink(project / "src" / "link.py") == "calc.py"
    assert os.access(project / "run.sh", os.X_OK)
    assert not (project / "extra").exists()  # its only file is gone, and so is the folder
    assert "extra/b.txt" in done.deleted and "docs/a.txt" in done.written


def test_restoring_refuses_work_that_no_pin_keeps_unless_forced(project: Path) -> None:
    wanted = pin_now(project, 1)
    write_files(project, {"src/calc.py": "work in progress\n"})
    safe = {wanted}
    with pytest.raises(RestoreRefused, match="--force"):
        restore_tree(project, wanted, safe, False)
    assert (project / "src" / "calc.py").read_text(encoding="utf-8") == "work in progress\n"
    restore_tree(project, wanted, safe, True)
    assert working_tree_hash(project) == wanted


def test_ignored_files_are_never_touched(project: Path) -> None:
    write_files(project, {"src/calc.py": "v1\n"})
    first = pin_now(project, 1)
    write_files(project, {"src/calc.py": "v2\n"})
    pin_now(project, 2)
    (project / "src" / "__pycache__").mkdir()
    (project / "src" / "__pycache__" / "calc.pyc").write_bytes(b"\0cache")
    restore_tree(project, first, {p.tree for p in pins(project, "SC-x-20260325")}, False)
    assert (project / "src" / "__pycache__" / "calc.pyc").read_bytes() == b"\0cache"


def test_a_symlinked_folder_is_not_followed_out_of_the_repository(
    project: Path, tmp_path: Path
) -> None:
    write_files(project, {"lib/x.txt": "inside\n"})
    wanted = pin_now(project, 1)
    outside = tmp_path / "outside"
    outside.mkdir()
    write_files(project, {"lib/x.txt": None})
    (project / "lib").rmdir()
    os.symlink(outside, project / "lib")
    # The symlink `lib` is not in the pinned tree: it is deleted before `lib/x.txt` is written.
    restore_tree(project, wanted, set(), True)
    assert not (project / "lib").is_symlink() and list(outside.iterdir()) == []
    assert (project / "lib" / "x.txt").read_text(encoding="utf-8") == "inside\n"


def test_a_branch_starts_at_the_pin_and_an_existing_one_is_refused(project: Path) -> None:
    write_files(project, {"src/calc.py": "v1\n"})
    tree = pin_now(project, 1)
    pin = pins(project, "SC-x-20260325")[0]
    start_branch(project, "restored", pin)
    assert git(project, "rev-parse", "restored^{tree}") == tree
    with pytest.raises(RestoreRefused, match="restored"):
        start_branch(project, "restored", pin)
    with pytest.raises(RestoreRefused, match="not a valid branch name"):
        start_branch(project, "bad..name", pin)


def test_checkout_names_what_is_pinned_when_nothing_was_delivered(
    store: Store, project: Path
) -> None:
    contract = contract_for(
        store, project, {"criterion": "reads well", "verification_method": "manual"}
    )
    tree = working_tree_hash(project)
    pin_tree(project, contract.id, 1, tree, None, WHEN)
    with pytest.raises(InvalidInput) as no_delivery:
        checkout(store, contract.id)
    assert no_delivery.value.problems[0].code == "no_delivered_iteration"
    assert "pinned: 1" in no_delivery.value.problems[0].message
    with pytest.raises(InvalidInput) as missing:
        checkout(store, contract.id, iteration=4)
    assert missing.value.problems[0].code == "not_pinned"
    # No stored run evaluated that tree: a pin is restored only when the store recorded its tree.
    with pytest.raises(InvalidInput) as unrecorded:
        checkout(store, contract.id, iteration=1)
    assert unrecorded.value.problems[0].code == "pin_mismatch"
    assert tree in unrecorded.value.problems[0].message
    assert drop_contract_pins(store, contract.id).dropped == [1]
    assert pins(project, contract.id) == []
