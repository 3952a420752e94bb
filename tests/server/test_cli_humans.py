"""The CLI for people and scripts: a signed draft on disk, cut lists that say how much is left,
PROJECT_HEALTH on project scope, --json everywhere, quiet on a closed pipe, a light start."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from gitrepo import git
from projects import apply_bugfix, bugfix_repo, calc_repo, command_check, commit_all, pytest_check

from referee.server.cli import build_parser, main

ROOT_OPTIONS = ("--root", "--home", "--json", "-h", "--help")


def leaf_parsers(
    parser: argparse.ArgumentParser, path: str = ""
) -> dict[str, argparse.ArgumentParser]:
    found = {}
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return {path: parser}
    for name, sub in subs[0].choices.items():
        found.update(leaf_parsers(sub, f"{path} {name}".strip()))
    return found


def test_every_command_but_the_server_has_a_json_mode() -> None:
    commands = leaf_parsers(build_parser())
    assert {"checkout", "gc", "evaluate", "init", "doctor", "contract list"} <= set(commands)
    missing = [
        name
        for name, parser in commands.items()
        if name != "serve" and "--json" not in parser._option_string_actions
    ]
    assert missing == []


def test_building_the_parser_imports_none_of_the_heavy_libraries() -> None:
    code = (
        "import sys\n"
        "from referee.server.cli import build_parser\n"
        "build_parser().format_help()\n"
        "heavy = ('mcp', 'pydantic', 'playwright', 'jsonschema', 'git', 'anyio', 'yaml')\n"
        "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in heavy}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def contract_file(folder: Path, *criteria: dict[str, object]) -> Path:
    path = folder / "contract-request.yaml"
    request = {
        "goal": "Keep the calculator working.",
        "out_of_scope": ["ui"],
        "functional": list(criteria),
    }
    path.write_text(yaml.safe_dump(request), encoding="utf-8")
    return path


def judge_by_hand(draft: Path, card: dict[str, Any]) -> None:
    """A person's completion of the signed draft: the open dimensions scored, the manual criterion
    passed, written back to the file."""
    card["provider"] = "person"
    for dim in card["dimensions"].values():
        if dim["score"] is None:
            dim["score"], dim["evidence"] = 2, "read by hand"
    card["criteria"][0].update({"pass": True, "evidence": "read src/calc.py"})
    draft.write_text(json.dumps(card), encoding="utf-8")


def created(repo: Path, capsys: pytest.CaptureFixture[str], *criteria: dict[str, object]) -> str:
    request = contract_file(repo.parent, *criteria)
    assert main(["--root", str(repo), "contract", "create", str(request), "--json"]) == 0
    return str(json.loads(capsys.readouterr().out)["contract"]["id"])


def test_evaluate_writes_the_signed_draft_that_then_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = calc_repo(tmp_path / "calc")
    cid = created(repo, capsys, {"criterion": "reads well", "verification_method": "manual"})
    draft = tmp_path / "out" / "card.json"
    assert main(["--root", str(repo), "evaluate", cid, "--draft", str(draft)]) == 0
    printed = capsys.readouterr()
    assert "signed draft" in printed.err and "verdict" in printed.out
    card = json.loads(draft.read_text(encoding="utf-8"))
    assert card["contract_ref"] == cid and card["run_id"] and card["signature"]
    judge_by_hand(draft, card)
    assert main(["--root", str(repo), "validate", str(draft)]) == 0


def test_cut_lists_say_how_many_more_and_project_scope_prints_the_band(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = calc_repo(tmp_path / "calc")
    cid = created(
        repo,
        capsys,
        *(
            {
                "criterion": f"step {n}",
                "verification_method": "test",
                "check": command_check("raise SystemExit(1)"),
            }
            for n in range(12)
        ),
    )
    assert main(["--root", str(repo), "evaluate", cid, "--scope", "project"]) == 1
    out = capsys.readouterr().out
    assert "… 2 more issues" in out
    assert "PROJECT_HEALTH: " in out and any(
        band in out for band in ("STRONG", "ADEQUATE", "NEEDS_WORK", "CRITICAL")
    )


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written, as after `| head -0`
    try:
        done = subprocess.run(
            [sys.executable, "-m", "referee.server.cli", "--version"],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(write)
    assert done.stderr == "" and done.returncode == 141


def test_a_card_of_a_ref_run_is_judged_against_that_ref_and_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = calc_repo(tmp_path / "calc")
    cid = created(repo, capsys, {"criterion": "reads well", "verification_method": "manual"})
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "notes.md").write_text("feature work\n", encoding="utf-8")
    commit_all(repo, "feature work")
    git(repo, "checkout", "-q", "main")
    # The working tree is main's; the evaluated content is the branch's.
    (repo / "scratch.txt").write_text("not committed anywhere\n", encoding="utf-8")
    draft = tmp_path / "out" / "card.json"
    assert (
        main(["--root", str(repo), "evaluate", cid, "--ref", "feature", "--draft", str(draft)]) == 0
    )
    capsys.readouterr()
    card = json.loads(draft.read_text(encoding="utf-8"))
    judge_by_hand(draft, card)
    assert main(["--root", str(repo), "validate", str(draft), "--no-store"]) == 0, (
        capsys.readouterr()
    )
    capsys.readouterr()
    # The branch moves on: the card is stale, and the message names the ref to evaluate again.
    git(repo, "checkout", "-q", "feature")
    (repo / "notes.md").write_text("more feature work\n", encoding="utf-8")
    commit_all(repo, "more")
    git(repo, "checkout", "-q", "main")
    assert main(["--root", str(repo), "validate", str(draft), "--no-store"]) == 1
    out = capsys.readouterr().out
    assert "[stale]" in out and "feature is now at tree" in out
    assert "evaluate --ref feature again" in out and "current tree" not in out


def test_the_evaluate_text_shows_diff_coverage_and_the_mutation_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = bugfix_repo(tmp_path / "calc")
    check = pytest_check("tests/test_calc.py", mutation=True, max_mutants=2)
    cid = created(
        repo, capsys, {"criterion": "adds", "verification_method": "test", "check": check}
    )
    apply_bugfix(repo)
    main(["--root", str(repo), "evaluate", cid])
    out = capsys.readouterr().out
    assert "diff coverage 100% (" in out and "changed lines" in out, out
    assert "mutation score " in out and "mutants killed" in out, out


def test_mutation_asked_for_with_nothing_to_mutate_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = calc_repo(tmp_path / "calc")
    check = pytest_check("tests", mutation=True)
    cid = created(
        repo, capsys, {"criterion": "adds", "verification_method": "test", "check": check}
    )
    (repo / "README.md").write_text("# calc\n\nAdds numbers.\n", encoding="utf-8")
    main(["--root", str(repo), "evaluate", cid, "--json"])
    criterion = json.loads(capsys.readouterr().out)["criteria"][0]
    note = criterion["adequacy"]["mutation"]["note"]
    assert "no mutants" in note and "no source file" in note, note
    assert "mutation: no mutants" in criterion["evidence"]


def test_doctor_names_the_team_store_without_its_password(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["--root", str(repo), "--store", "postgresql://ci:hunter2@db.example/team", "doctor"])
    out = capsys.readouterr().out
    assert "postgresql://ci:***@db.example/team" in out and "hunter2" not in out
