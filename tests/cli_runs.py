"""Driving referee's CLI in-process over a throwaway repository: commit a base, create a contract,
apply a change, evaluate (the red-team and round tests that go through the CLI share it)."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from gitrepo import make_repo
from runner_projects import JS_CACHE

from referee.server.cli import main

__all__ = ["PYTEST", "Files", "cli", "evaluated", "write_files"]

PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
Files = dict[str, "str | bytes | None"]


def cli(*argv: str) -> tuple[int, dict[str, Any]]:
    """referee's CLI, in-process: its exit code and its JSON output (`{"error": …}` with what it
    wrote to stderr when it printed nothing: a refusal)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    text = out.getvalue()
    return code, json.loads(text) if text.strip() else {"error": err.getvalue()}


def write_files(root: Path, files: Files) -> None:
    """Write each file (None deletes it; bytes for a binary file)."""
    for path, body in files.items():
        target = root / path
        if body is None:
            target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            target.write_bytes(body)
        else:
            target.write_text(body, encoding="utf-8")


def evaluated(
    tmp_path: Path,
    base: dict[str, str],
    change: Files,
    argv: list[str] | None = None,
    *,
    before: Files | None = None,
    after: Callable[[Path], None] | None = None,
    node_modules: bool = False,
    prepare: Callable[[Path], None] | None = None,
    check_fields: dict[str, Any] | None = None,
    options: tuple[str, ...] = (),
) -> tuple[int, dict[str, Any]]:
    """Commit `base`, write `before` (untracked, before the contract) and run `prepare` on the
    tree (the honest state of the machine), create the contract, apply `change`, run `after` on
    the tree (the generator's doing), and evaluate through the CLI (with `options`)."""
    root = tmp_path / "repo"
    root.mkdir()
    if node_modules:
        (root / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
    make_repo(root, base)
    write_files(root, before or {})
    if prepare is not None:
        prepare(root)
    check = {"kind": "tests", "argv": argv or PYTEST, **(check_fields or {})}
    criterion = {"criterion": "the tests pass", "verification_method": "test", "check": check}
    contract = {"goal": "Keep add right.", "out_of_scope": ["ui"], "functional": [criterion]}
    spec = tmp_path / "contract.yaml"
    spec.write_text(yaml.safe_dump(contract), encoding="utf-8")
    code, made = cli("--root", str(root), "contract", "create", str(spec), "--json")
    assert code == 0, made
    write_files(root, change)
    if after is not None:
        after(root)
    return cli("--root", str(root), "evaluate", made["contract"]["id"], "--json", *options)
