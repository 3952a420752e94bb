from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from gitrepo import make_repo

from referee.server.cli import main

CONTRACT_YAML = """\
goal: Add a health endpoint that reports the version.
task_type: feature
out_of_scope: [authentication]
evaluators: [judge]
functional:
  - criterion: GET /health answers 200 with the version
    verification_method: test
    check: {kind: tests, argv: [python, -m, pytest, -q]}
  - criterion: The version matches the package metadata
    verification_method: test
    holdout: true
    check: {kind: command, argv: [python, -c, "print(1)"]}
"""


def run(repo: Path, *args: str) -> int:
    return main(["--root", str(repo), *args])


def test_contract_create_show_export_roundtrip(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "contract.yaml"
    source.write_text(CONTRACT_YAML, encoding="utf-8")
    assert run(repo, "contract", "create", str(source)) == 0
    cid = capsys.readouterr().out.split()[1]
    assert cid.startswith("SC-add-a-health-endpoint")
    assert run(repo, "contract", "show", cid, "--view", "generator") == 0
    shown = capsys.readouterr().out
    assert "The version matches" not in shown and "GET /health" in shown
    # The default export is the generator view: safe to commit, no hold-out in it.
    safe = tmp_path / "safe.yaml"
    assert run(repo, "contract", "export", cid, "-o", str(safe)) == 0
    assert "reveals" not in capsys.readouterr().err
    text = safe.read_text(encoding="utf-8")
    assert "The version matches" not in text and "holdout" not in text
    assert len(yaml.safe_load(text)["acceptance_criteria"]["functional"]) == 1
    exported = tmp_path / "exported.yaml"
    assert run(repo, "contract", "export", cid, "--view", "evaluator", "-o", str(exported)) == 0
    assert "reveals 1 hold-out" in capsys.readouterr().err
    doc = yaml.safe_load(exported.read_text(encoding="utf-8"))
    assert doc["id"] == cid and len(doc["acceptance_criteria"]["functional"]) == 2
    # Importing the exported file into a fresh store keeps the id.
    other = tmp_path / "elsewhere"
    assert (
        main(["--root", str(repo), "--home", str(other), "contract", "create", str(exported)]) == 0
    )
    assert cid in capsys.readouterr().out


def test_contract_create_lists_every_problem_and_exits_1(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "bad.yaml"
    source.write_text(
        "goal: g\nmax_iterations: 8\nfunctional:\n  - {criterion: x, verification_method: test}\n",
        encoding="utf-8",
    )
    assert run(repo, "contract", "create", str(source)) == 1
    err = capsys.readouterr().err
    assert "/max_iterations" in err and "/functional/0/check" in err


def test_contract_create_of_a_broken_yaml_is_a_usage_error(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "broken.yaml"
    source.write_text("goal: [unclosed\n", encoding="utf-8")
    assert run(repo, "contract", "create", str(source)) == 2
    assert "not valid YAML" in capsys.readouterr().err


def test_unknown_contract_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(repo, "contract", "show", "SC-missing-20260101") == 2
    assert "SC-missing-20260101" in capsys.readouterr().err


def test_version_and_help_from_the_installed_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "referee.server.cli", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.startswith("referee ")
    helped = subprocess.run(
        [sys.executable, "-m", "referee.server.cli", "contract", "create", "--help"],
        capture_output=True,
        text=True,
    )
    assert helped.returncode == 0 and "exported contract" in helped.stdout


def test_root_may_follow_the_command(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "contract.yaml"
    source.write_text(CONTRACT_YAML, encoding="utf-8")
    assert main(["contract", "create", str(source), "--root", str(repo)]) == 0
    capsys.readouterr()
    assert main(["contract", "list", "--root", str(repo)]) == 0
    assert capsys.readouterr().out.startswith("SC-add-a-health-endpoint")


def test_a_files_repo_field_names_the_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "work"
    make_repo(root / "first")
    second = make_repo(root / "second", {"README.md": "# second\n"})
    source = root / "first" / "contract.yaml"
    # A relative `repo:` is read from the file's folder, as any path inside a file is.
    source.write_text(CONTRACT_YAML + "repo: ../second\n", encoding="utf-8")
    home = ["--root", str(root), "--home", str(tmp_path / "home")]
    assert main([*home, "contract", "create", str(source), "--json"]) == 0
    created = json.loads(capsys.readouterr().out)
    assert created["contract"]["repo"] == str(second.resolve())
    # --repo still wins over the file.
    assert main([*home, "contract", "create", str(source), "--repo", "first", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["contract"]["repo"] == str(
        (root / "first").resolve()
    )


def test_a_files_repo_outside_the_roots_is_refused_by_name(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = make_repo(tmp_path / "outside")
    source = repo / "contract.yaml"
    source.write_text(CONTRACT_YAML + f"repo: {outside}\n", encoding="utf-8")
    assert run(repo, "contract", "create", str(source)) == 1
    err = capsys.readouterr().err
    assert "/repo" in err and "path_outside_roots" in err


@pytest.mark.parametrize(
    ("option", "field"),
    [
        (["--ref", "HEAD"], "/ref"),
        (["--base", "HEAD"], "/base"),
        (["--isolation", "worktree"], "/isolation"),
    ],
)
def test_a_git_option_on_a_folder_that_is_no_repository_is_refused_by_name(
    option: list[str], field: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ref, a base or a worktree of a plain folder would be silently dropped or crash in git;
    the user is told which option needs a repository instead."""
    root = tmp_path / "plain"
    make_repo(root / "inner")  # a repository below the root does not make the root one
    source = tmp_path / "contract.yaml"
    source.write_text(CONTRACT_YAML, encoding="utf-8")
    home = ["--root", str(root), "--home", str(tmp_path / "home")]
    assert main([*home, "contract", "create", str(source), "--json"]) == 0
    cid = json.loads(capsys.readouterr().out)["contract"]["id"]
    # Invalid input, as every refused call of evaluate: exit 1 with the problems listed.
    assert main([*home, "evaluate", cid, "--scope", "task", *option]) == 1
    err = capsys.readouterr().err
    assert field in err and "not_a_repository" in err and "Traceback" not in err, err
