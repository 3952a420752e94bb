"""The trees an evaluation shows at the place its checks run, besides the evaluated one.

- `base`: the base code with the change's test files (SWE-bench's test patch) and the test
  blocks of its edited source files spliced into their base versions, for fail-before/pass-after;
- `base-tests`: the evaluated code with the base's own versions of the test files the change
  edited or deleted (and their snapshots, and the base's test blocks of source files that hold
  tests), so a test the change rewrote is still checked as it was,
  and the base's harness with them: a changed selection (`python_files`, `-k`, a workspace file)
  would otherwise hide the base's tests from their own run;
- `base-only`: the base as it was, to tell which of those tests passed before the change;
- the evaluated commit itself, for a `ref` evaluated at the repository's own path.

Each is a real tree object shown over the tree at the run's root (views.py in tools/repo), so
every run differs from the others only in the tracked files that differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from referee.tools.evaluate.change_tests import change_tests
from referee.tools.evaluate.target import Workspace
from referee.tools.graders.base import ViewName, installed_dependencies
from referee.tools.insource import spliced_sources
from referee.tools.repo import (
    Entry,
    TreeView,
    blob_texts,
    commit_tree_hash,
    compose_tree,
    is_git_repo,
    tree_entry_map,
    view_of,
    write_blob,
)

__all__ = ["edited_base_tests", "evaluated_view", "named_view"]


def evaluated_view(ws: Workspace, run_root: Path, folder: Path) -> TreeView | None:
    """The evaluated commit shown at the repository's path (None when that is what is there)."""
    if run_root != ws.repo or ws.workdir == ws.repo or ws.disk_tree is None:
        return None
    return view_of(ws.repo, ws.disk_tree, ws.target.tree, folder)


def named_view(
    ws: Workspace, name: ViewName, run_root: Path, folder: Path, harness: Sequence[str] = ()
) -> TreeView | None:
    """One of the base's views, shown over the tree at `run_root` (None without a base).

    Args:
        harness: The harness files the change added, edited or deleted (`base-tests` puts the
            base's back and leaves the new ones out).
    """
    if ws.base is None or not is_git_repo(ws.repo) or ws.target.tree.startswith("dir:"):
        return None
    base = commit_tree_hash(ws.repo, ws.base)
    evaluated = ws.target.tree
    tests = change_tests(ws.repo, ws.changed, [base, evaluated])
    restored: tuple[str, ...] = ()
    moved: tuple[tuple[str, str], ...] = ()
    if name == "base":
        now = tree_entry_map(ws.repo, evaluated, tests) if tests else {}
        spliced = _spliced(ws, base, evaluated, tests)
        shown = compose_tree(ws.repo, base, {**{p: now.get(p) for p in tests}, **spliced})
    elif name == "base-tests":
        blocks, moved = _base_blocks(ws, base, evaluated, tests)
        overrides = {**_base_tests(ws, base, evaluated, tests), **blocks}
        # What holds the base's tests, put back (a test file, the tests' data or module of
        # values, a source file's test blocks); the change's new test files only leave.
        restored = tuple(sorted(p for p, entry in overrides.items() if entry is not None))
        if overrides and harness:
            at_base = tree_entry_map(ws.repo, base, list(harness))
            overrides = {**{p: at_base.get(p) for p in harness}, **overrides}
        shown = compose_tree(ws.repo, evaluated, overrides)
    else:
        shown = base
    # An installed environment in the tree (a virtualenv, node_modules) that git does not ignore
    # stays in every view: it is not the change, and the environment check watches it.
    view = view_of(ws.repo, _tree_at(ws, run_root), shown, folder, installed_dependencies(run_root))
    return replace(
        view, restored=restored, tests=tuple(tests) if name == "base" else (), moved=moved
    )


def _spliced(ws: Workspace, base: str, evaluated: str, tests: list[str]) -> dict[str, Entry]:
    """The changed source files that hold tests, as the base's code with the change's test
    blocks (tools/insource): the change's tests run at base without the fix coming along."""
    sources = [p for p in ws.changed if p not in tests]
    spliced = spliced_sources(ws.repo, base, evaluated, sources)
    if not spliced:
        return {}
    modes = tree_entry_map(ws.repo, base, list(spliced))
    return {
        p: (modes[p][0], write_blob(ws.repo, s.text.encode("utf-8"))) for p, s in spliced.items()
    }


def _base_blocks(
    ws: Workspace, base: str, evaluated: str, tests: list[str]
) -> tuple[dict[str, Entry | None], tuple[tuple[str, str], ...]]:
    """The changed source files whose test blocks (a Rust `#[cfg(test)] mod`, a vitest
    `import.meta.vitest` block) the change edited or deleted, as the evaluated code with the base's
    test blocks: a test that lives beside the code is rewritten with it in one edit, and must
    still be checked as it was. A file moved to the same module at another path (`calc.py` to
    `calc/__init__.py`) takes the blocks of the file it was (and the pairs say so). Blocks the
    change only added to are left as they are."""
    sources = [p for p in ws.changed if p not in tests]
    # Reversed: the evaluated file is the code, the base's file gives the test blocks.
    spliced = spliced_sources(ws.repo, evaluated, base, sources, moved=True)
    now = tree_entry_map(ws.repo, evaluated, list(spliced))
    texts = blob_texts(ws.repo, [now[p][1] for p in spliced if p in now])
    edited = {
        p: s
        for p, s in spliced.items()
        if p in now
        and (s.changed_tests if p.endswith(".rs") else s.text != texts.get(now[p][1], s.text))
    }
    blocks: dict[str, Entry | None] = {
        p: (now[p][0], write_blob(ws.repo, s.text.encode("utf-8"))) for p, s in edited.items()
    }
    return blocks, tuple(sorted((p, s.other) for p, s in edited.items() if s.other))


def edited_base_tests(ws: Workspace) -> list[str]:
    """The test files (and test data) that existed at base and that the change edited or
    deleted: what the `base-tests` view puts back."""
    if ws.base is None or not ws.changed or not is_git_repo(ws.repo):
        return []
    base = commit_tree_hash(ws.repo, ws.base)
    tests = change_tests(ws.repo, ws.changed, [base, ws.target.tree])
    return sorted(tree_entry_map(ws.repo, base, tests)) if tests else []


def _base_tests(
    ws: Workspace, base: str, evaluated: str, tests: list[str]
) -> dict[str, Entry | None]:
    """What the `base-tests` view changes in the evaluated tree: the base's test files back where
    the change edited or deleted them, and the change's new test files gone.

    A runner runs a session's tests in one process (or one per file, in one worker), so what a
    new test does as it runs (registers a plugin, rewrites the session's reports, replaces the
    code under test, stops the run) acts on every test that runs after it. No reading of its
    code can say it does none of that: the base's tests are checked only with the base's own test
    code, even when the change only added tests (to a new file or to a base one)."""
    if not tests:
        return {}
    before = tree_entry_map(ws.repo, base, tests)
    now = tree_entry_map(ws.repo, evaluated, tests)
    edited = sorted(p for p, entry in before.items() if now.get(p) != entry)
    new = sorted(p for p in now if p not in before)
    return {**{p: before[p] for p in edited}, **{p: None for p in new}}


def _tree_at(ws: Workspace, run_root: Path) -> str:
    """The tree that is at `run_root` before any view: the working tree at the repository's
    path, the evaluated commit in the folder it was written into."""
    if run_root == ws.repo and ws.disk_tree is not None:
        return ws.disk_tree
    return ws.target.tree
