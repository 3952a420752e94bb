"""A test that prints the runner's result lines and ends the process never counts as a pass:
`go test` binaries run under referee's `-exec` wrapper and `cargo test` binaries under its target
runner, and a run their own account does not back is `runner_bypassed` (tests/runner_forgeries.py
holds the variants). Honest runs (subtests, t.Parallel, TestMain, doc tests, several targets)
pass, over MCP and through the CLI."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from gitrepo import git, make_repo
from mcp import Client
from projects import SAMPLE_ENV
from runner_forgeries import (
    CARGO_TOML,
    FORGERIES,
    GO_BUGGY,
    GO_FILE,
    GO_FIXED,
    GO_MOD,
    GO_TESTS,
    RUST_BUGGY,
    RUST_FILE,
    RUST_FIXED,
    RUST_TESTS,
    Forgery,
)
from runner_projects import tool_path
from runs import judged

from referee.server.app import build_server
from referee.server.cli import main
from referee.tools.settings import Settings

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

GO_CHECK = {"kind": "tests", "argv": ["go", "test", "./..."], "timeout_s": 300}
CARGO_CHECK = {"kind": "tests", "argv": ["cargo", "test"], "timeout_s": 300}


def _base(lang: str) -> tuple[dict[str, str], dict[str, Any]]:
    if lang == "go":
        return {"go.mod": GO_MOD, "calc.go": GO_BUGGY, "calc_test.go": GO_TESTS}, GO_CHECK
    files = {
        ".gitignore": "target/\nCargo.lock\n",
        "Cargo.toml": CARGO_TOML,
        "src/lib.rs": RUST_BUGGY,
        RUST_FILE: RUST_TESTS,
    }
    return files, CARGO_CHECK


def _repo(
    tmp_path: Path, lang: str, base: tuple[tuple[str, str], ...] = ()
) -> tuple[Path, dict[str, Any]]:
    tool = "go" if lang == "go" else "cargo"
    if shutil.which(tool, path=tool_path()) is None:
        pytest.skip(f"{tool} is not installed (scripts/setup.sh installs it)")
    files, check = _base(lang)
    return make_repo(tmp_path / f"{lang}calc", {**files, **dict(base)}), check


def _settings(root: Path) -> Settings:
    # cargo is often installed under ~/.cargo/bin, which a bare server environment lacks.
    return Settings.build([root], env={**SAMPLE_ENV, "PATH": tool_path()})


def _contract(check: dict[str, Any]) -> dict[str, Any]:
    return {
        "goal": "Fix add.",
        "task_type": "bug",
        "out_of_scope": ["ui"],
        "functional": [
            {"criterion": "the tests pass", "verification_method": "test", "check": check}
        ],
    }


def _forge(root: Path, forgery: Forgery) -> None:
    if forgery.lang == "go":
        (root / GO_FILE).write_text(forgery.code, encoding="utf-8")
    else:
        path = root / (forgery.path or RUST_FILE)
        path.write_text(path.read_text(encoding="utf-8") + forgery.code, encoding="utf-8")


async def _evaluate(agent: Client, check: dict[str, Any], change: Any) -> dict[str, Any]:
    made = await agent.call_tool("create_contract", _contract(check))
    assert made.is_error is False, made.content
    contract_id = made.structured_content["contract"]["id"]  # type: ignore[index]
    change()
    result = await agent.call_tool("evaluate", {"contract_id": contract_id})
    assert result.structured_content is not None, result.content
    return result.structured_content


def _criterion(evaluation: dict[str, Any]) -> tuple[str, str, str]:
    criterion = evaluation["criteria"][0]
    return criterion["status"], criterion["reason_code"], criterion["reason"]


def _held(forgery: Forgery, evaluation: dict[str, Any]) -> None:
    status, code, reason = _criterion(evaluation)
    assert status != "pass", reason
    if forgery.expect == "runner_bypassed":
        assert (status, code) == ("unscored", "runner_bypassed"), reason


_CASES = [
    pytest.param(f, id=f"{f.id}-{f.lang}", marks=[pytest.mark.xfail(strict=True, reason=f.xfail)])
    if f.xfail
    else pytest.param(f, id=f"{f.id}-{f.lang}")
    for f in FORGERIES
]


@pytest.mark.parametrize("forgery", _CASES)
async def test_a_forged_runner_account_is_never_a_pass(tmp_path: Path, forgery: Forgery) -> None:
    root, check = _repo(tmp_path, forgery.lang, forgery.base)
    async with Client(build_server(_settings(root))) as agent:
        evaluation = await _evaluate(agent, check, lambda: _forge(root, forgery))
    _held(forgery, evaluation)


async def _delivered(agent: Client, evaluation: dict[str, Any]) -> str:
    checked = await agent.call_tool(
        "validate_scorecard", {"scorecard": judged(evaluation["draft_scorecard"])}
    )
    assert checked.structured_content is not None and checked.structured_content["valid"], checked
    decided = await agent.call_tool(
        "aggregate", {"contract_id": evaluation["draft_scorecard"]["contract_ref"]}
    )
    assert decided.structured_content is not None, decided.content
    return str(decided.structured_content["decision"])


GO_HONEST_TESTS = {
    "calc_test.go": (
        'package calc\n\nimport (\n\t"os"\n\t"testing"\n)\n\n'
        "func TestMain(m *testing.M) { os.Exit(m.Run()) }\n\n"
        "func TestAdd(t *testing.T) {\n"
        "\tfor _, c := range []struct{ a, b, want int }{{1, 2, 3}, {2, 2, 4}} {\n"
        '\t\tc := c\n\t\tt.Run("case", func(t *testing.T) {\n\t\t\tt.Parallel()\n'
        '\t\t\tif Add(c.a, c.b) != c.want {\n\t\t\t\tt.Errorf("Add(%d, %d)", c.a, c.b)\n'
        "\t\t\t}\n\t\t})\n\t}\n}\n"
    ),
    "sub/sub.go": "package sub\n\n// Two is 2.\nfunc Two() int { return 2 }\n",
    "sub/sub_test.go": (
        'package sub\n\nimport "testing"\n\n'
        "func TestTwo(t *testing.T) {\n\tt.Parallel()\n"
        "\tif Two() != 2 {\n\t\tt.Fatal(Two())\n\t}\n}\n"
    ),
    "empty/empty.go": "package empty\n",
}
RUST_HONEST_TESTS = {
    "src/lib.rs": RUST_FIXED
    + "\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n"
    + "        assert_eq!(super::add(2, 2), 4);\n    }\n\n"
    + "}\n",
    "tests/more.rs": "#[test]\nfn adds_more() {\n    assert_eq!(calc::add(0, 0), 0);\n}\n",
}


# Edition 2024 merges doc tests into one binary that rustdoc runs under the target runner.
EDITION_2024 = (("Cargo.toml", CARGO_TOML.replace("2021", "2024")),)


@pytest.mark.parametrize(
    ("lang", "base"),
    [("go", ()), ("rust", ()), ("rust", EDITION_2024)],
    ids=["go", "rust", "rust-2024"],
)
async def test_an_honest_fix_passes_and_is_delivered(
    tmp_path: Path, lang: str, base: tuple[tuple[str, str], ...]
) -> None:
    root, check = _repo(tmp_path, lang, base)

    def fix() -> None:
        fixed = {"calc.go": GO_FIXED, **GO_HONEST_TESTS} if lang == "go" else RUST_HONEST_TESTS
        for name, text in fixed.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text, encoding="utf-8")

    async with Client(build_server(_settings(root))) as agent:
        evaluation = await _evaluate(agent, check, fix)
        status, code, reason = _criterion(evaluation)
        assert (status, code) == ("pass", "passed"), reason
        assert await _delivered(agent, evaluation) == "DELIVER"


def _cli(*argv: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, json.loads(out.getvalue())


@pytest.mark.parametrize("forgery", [f for f in FORGERIES if f.id in ("G3", "R1")], ids=str)
def test_the_cli_reports_a_forged_account_as_runner_bypassed(
    tmp_path: Path, forgery: Forgery
) -> None:
    root, check = _repo(tmp_path, forgery.lang)
    spec = tmp_path / "contract.yaml"
    spec.write_text(yaml.safe_dump(_contract(check)), encoding="utf-8")
    code, made = _cli("--root", str(root), "contract", "create", str(spec), "--json")
    assert code == 0, made
    _forge(root, forgery)
    git(root, "status")  # the forgery is an ordinary working-tree change
    code, evaluation = _cli("--root", str(root), "evaluate", made["contract"]["id"], "--json")
    assert code == 1
    _held(forgery, evaluation)
