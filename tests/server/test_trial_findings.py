"""Wrong verdicts found by using referee on real projects (the trial branch), each reduced to a
small synthetic project that mirrors the real one's layout. Each test states what referee should
say and is marked xfail(strict) until referee says it."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from edits import agent_for, bugfix_contract, calc_contract, py_check, python_project
from gitrepo import make_repo
from holdout_attacks import holdout_contract
from mcp import Client
from mcp_calls import call, judged_criterion
from projects import (
    SAMPLE_ENV,
    apply_bugfix,
    bugfix_criteria,
    bugfix_repo,
    calc_repo,
    commit_all,
    pytest_check,
)
from runner_projects import JS_CACHE, tool_path

from referee.server.app import build_server
from referee.server.cli import main
from referee.tools.settings import Settings

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def test_an_honest_fix_evaluated_at_project_scope_still_proves_fail_before(
    tmp_path: Path,
) -> None:
    # theskumar/python-dotenv bca6644 (strip a UTF-8 BOM): `--scope project` on the honest fix said
    # "2 tests passing now did not run at base … nothing shows the tests fail without the change".
    repo = bugfix_repo(tmp_path / "calc")
    apply_bugfix(repo)
    async with agent_for(repo) as agent:
        cid = await bugfix_contract(agent, bugfix_criteria()[:1])
        task = await call(agent, "evaluate", contract_id=cid)
        assert task["criteria"][0]["status"] == "pass", task["criteria"]
        whole = await call(agent, "evaluate", contract_id=cid, scope="project")
    criterion = whole["criteria"][0]
    assert criterion["status"] == "pass", criterion
    assert "tests/test_calc.py::test_add_negative" in criterion["reason"], criterion


LIVENESS = (
    "import os\n\n\ndef alive(pid):\n    try:\n        os.kill(pid, 0)\n"
    "    except OSError:\n        return False\n    return True\n"
)
LIVENESS_TEST = (
    "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))\n"
    "from lockpid import alive\n\n\ndef test_the_running_process_is_alive():\n"
    "    assert alive(os.getpid())\n"
)


async def test_a_liveness_probe_of_the_own_pid_is_no_bypass(tmp_path: Path) -> None:
    # tox-dev/filelock f093ee0: SoftFileLock._is_process_alive (src/filelock/_soft.py:121) calls
    # os.kill(pid, 0) on the pid in the lock file, its own; every honest run was unscored with
    # "test code signalled its own process (src/filelock/_soft.py:121 os.kill 3)".
    repo = python_project(tmp_path, {"tests/test_lockpid.py": LIVENESS_TEST})
    (repo / "lockpid.py").write_text(LIVENESS, encoding="utf-8")
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, py_check())
        result = await call(agent, "evaluate", contract_id=cid, scope="project")
    criterion = result["criteria"][0]
    assert criterion["status"] == "pass", criterion


VITEST_CART = "export function total(prices) {\n  return prices.reduce((a, b) => a + b, 0);\n}\n"
VITEST_CART_TEST = (
    "import { test, expect } from 'vitest';\nimport { total } from '../src/cart.js';\n"
    "test('total', () => { expect(total([1, 2])).toBe(3); });\n"
    "test('total of nothing', () => { expect(total([])).toBe(0); });\n"
)


@pytest.mark.skipif(not JS_CACHE.is_dir(), reason="vitest is not installed in .cache/js-runners")
async def test_a_failing_vitest_run_still_reports_its_diff_coverage(tmp_path: Path) -> None:
    # unjs/defu 11ba022 (ignore inherited enumerable keys): a wrong fix under `npx vitest run`
    # showed no diff coverage at all, while a failing pytest run (python-dotenv) shows it.
    repo = make_repo(
        tmp_path / "cart",
        {
            "package.json": '{"name": "cart", "version": "1.0.0", "type": "module"}\n',
            ".gitignore": "node_modules\n",
            "src/cart.js": VITEST_CART,
            "test/cart.test.js": VITEST_CART_TEST,
        },
    )
    (repo / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
    # A wrong change: its line runs, and the empty cart now totals -1.
    (repo / "src" / "cart.js").write_text(
        VITEST_CART.replace("  return", "  if (prices.length === 0) return -1;\n  return"),
        encoding="utf-8",
    )
    check = {"kind": "tests", "argv": ["npx", "vitest", "run"], "min_diff_coverage": 80}
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, check)
        result = await call(agent, "evaluate", contract_id=cid)
    criterion = result["criteria"][0]
    assert criterion["status"] == "fail", criterion
    found = (criterion.get("adequacy") or {}).get("diff_coverage")
    assert found and [f["path"] for f in found["files"]] == ["src/cart.js"], criterion


# An edition-2015 crate (no `edition` key) whose code uses the `try!` macro: tree-sitter-rust
# reads `try` as the 2018 keyword, so the file parses with an ERROR node far from its tests.
CRATE_2015 = '[package]\nname = "calc"\nversion = "0.1.0"\n\n[dependencies]\n'
TRY_BUGGY = (
    "use std::fmt;\n\npub struct Shown(pub i32);\n\n"
    "impl fmt::Display for Shown {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
    '        try!(write!(f, "{}", self.0));\n        Ok(())\n    }\n}\n\n'
    "pub fn add(a: i32, b: i32) -> i32 {\n    if b < 0 { a - b } else { a + b }\n}\n"
)
TRY_FIXED = TRY_BUGGY.replace("if b < 0 { a - b } else { a + b }", "a + b")
TRY_TESTS = (
    "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
    "    #[test]\n    fn adds() {\n        assert_eq!(add(1, 2), 3);\n    }\n}\n"
)
TRY_NEW_TESTS = TRY_TESTS.replace(
    "\n}\n",
    "\n\n    #[test]\n    fn adds_negative() {\n        assert_eq!(add(1, -1), 0);\n    }\n}\n",
)


@pytest.mark.skipif(shutil.which("cargo", path=tool_path()) is None, reason="needs cargo")
async def test_an_edition_2015_crate_using_try_gets_its_test_module_spliced(
    tmp_path: Path,
) -> None:
    # rust-lang/rustc-demangle 78501e1 (no panics on fuzzed symbols; `try!` in src/lib.rs):
    # the honest fix was unscored with "14 tests live in source files the change edited …
    # put the new tests in a test file", the splice never tried.
    repo = make_repo(
        tmp_path / "calc",
        {"Cargo.toml": CRATE_2015, "src/lib.rs": TRY_BUGGY + TRY_TESTS, ".gitignore": "/target\n"},
    )
    (repo / "src" / "lib.rs").write_text(TRY_FIXED + TRY_NEW_TESTS, encoding="utf-8")
    env = {**SAMPLE_ENV, "PATH": tool_path()}
    settings = replace(Settings.build([repo], env=env), pace_canaries=False)
    check = {"kind": "tests", "argv": ["cargo", "test"], "must_fail_at_base": True}
    async with Client(build_server(settings)) as agent:
        criterion = await judged_criterion(
            agent, check, "Adding a negative adds it.", task_type="bug"
        )
    assert criterion["status"] == "pass", criterion
    assert "src/lib.rs::tests::adds_negative" in criterion["reason"], criterion


def _cli(capsys: pytest.CaptureFixture[str], repo: Path, *args: str) -> str:
    capsys.readouterr()
    main(["--root", str(repo), *args])
    return capsys.readouterr().out


def test_the_report_shows_the_checks_command_for_every_run_of_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # iamkun/dayjs 8fda602b (tests only): `referee report RUN` listed E5 as `/usr/bin/node
    # node_modules/jest/bin/jest.js --json --outputFile=$TMPDIR/referee-run-…/jest.json`.
    repo = bugfix_repo(tmp_path / "calc")
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    edited = (repo / "tests" / "test_calc.py").read_text(encoding="utf-8")
    edited = edited.replace(
        "    assert add(1, 2) == 3\n", "    assert add(1, 2) == 3\n    assert add(1, -1) == 0\n"
    )
    (repo / "tests" / "test_calc.py").write_text(edited, encoding="utf-8")
    source = tmp_path / "contract.yaml"
    source.write_text(
        yaml.safe_dump(
            {
                "goal": "Fix adding a negative number.",
                "task_type": "bug",
                "out_of_scope": ["other operations"],
                "functional": bugfix_criteria()[:1],
            }
        ),
        encoding="utf-8",
    )
    made = json.loads(
        _cli(capsys, repo, "contract", "create", str(source), "--repo", str(repo), "--json")
    )
    result = json.loads(_cli(capsys, repo, "evaluate", made["contract"]["id"], "--json"))
    assert result["criteria"][0]["status"] == "pass", result["criteria"]
    runs = [e for e in result["evidence"] if e["tool"] == "tests"]
    # the base code (before and after the run now), now, the base's own test file over the fix
    assert len(runs) == 4, runs
    report = _cli(capsys, repo, "report", result["run_id"])
    rows = [line for line in report.splitlines() if line.startswith(f"| {result['run_id']} | E")]
    assert len(rows) >= 3, report
    assert not any("$TMPDIR" in row or "referee_coverage" in row for row in rows), rows


async def test_a_check_naming_a_test_file_the_change_lacks_says_which(tmp_path: Path) -> None:
    # tox-dev/filelock f093ee0 (the fix without its new test file): the criterion names
    # tests/test_lifetime_validation.py; the reason was "fails now: no test ran (exit code 4);
    # zero tests never pass", pytest's "ERROR: file or directory not found: …" only in a log.
    repo = python_project(tmp_path)
    check = {**py_check(), "argv": [*py_check()["argv"], "tests/test_validation.py"]}
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, check)
        result = await call(agent, "evaluate", contract_id=cid, scope="project")
    criterion = result["criteria"][0]
    assert criterion["status"] == "fail", criterion
    assert "tests/test_validation.py" in criterion["reason"], criterion


SRC_BUG = "def add(a, b):\n    return a - b if b < 0 else a + b\n"
SRC_FIX = "def add(a, b):\n    return a + b\n"
SRC_TESTS = (
    "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
    "def test_add_negative():\n    assert add(1, -1) == 0\n"
)


async def test_tests_importing_an_installed_copy_are_told_apart_from_a_failing_fix(
    tmp_path: Path,
) -> None:
    # theskumar/python-dotenv bca6644 with `argv: [python, -m, pytest]` (the README's form):
    # `python` was the interpreter on PATH, where python-dotenv is installed, not the project's
    # .venv; the honest BOM fix "fails now" naming the new tests, and diff coverage said
    # "not executed: src/dotenv/parser.py:71", nothing naming the copy in site-packages.
    repo = make_repo(
        tmp_path / "calc",
        {"src/calc/__init__.py": SRC_BUG, "tests/test_calc.py": SRC_TESTS, ".gitignore": "*.pyc\n"},
    )
    installed = tmp_path / "site-packages"
    (installed / "calc").mkdir(parents=True)
    (installed / "calc" / "__init__.py").write_text(SRC_BUG, encoding="utf-8")
    (repo / "src" / "calc" / "__init__.py").write_text(SRC_FIX, encoding="utf-8")
    check = {**py_check(), "env": {"PYTHONPATH": str(installed)}}
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, check)
        result = await call(agent, "evaluate", contract_id=cid)
    criterion = result["criteria"][0]
    assert criterion["status"] != "pass", criterion  # the installed copy still has the bug
    assert str(installed) in criterion["reason"] or "site-packages" in criterion["reason"], (
        criterion
    )


async def test_a_pass_of_an_installed_copy_in_the_trees_virtualenv_is_no_pass(
    tmp_path: Path,
) -> None:
    # `pip install .` (not -e) into the tree's own .venv: the tests pass against the copy, and the
    # change to src/ is never run. Inside the tree, but not the tree's own file.
    repo = make_repo(
        tmp_path / "calc",
        {
            "src/calc/__init__.py": SRC_FIX,
            "tests/test_calc.py": SRC_TESTS,
            ".gitignore": "*.pyc\n.venv/\n",
        },
    )
    installed = repo / ".venv" / "lib" / "site-packages"
    (installed / "calc").mkdir(parents=True)
    (installed / "calc" / "__init__.py").write_text(SRC_FIX, encoding="utf-8")
    check = {**py_check(), "env": {"PYTHONPATH": str(installed)}}
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, check)
        result = await call(agent, "evaluate", contract_id=cid)
    criterion = result["criteria"][0]
    assert criterion["status"] == "unscored", criterion
    assert criterion["reason_code"] == "imported_elsewhere", criterion
    assert ".venv/lib/site-packages/calc/__init__.py" in criterion["reason"], criterion


async def test_the_trees_own_import_is_no_finding(tmp_path: Path) -> None:
    # The usual src layout through PYTHONPATH=src: nothing is said.
    repo = make_repo(
        tmp_path / "calc",
        {"src/calc/__init__.py": SRC_FIX, "tests/test_calc.py": SRC_TESTS, ".gitignore": "*.pyc\n"},
    )
    check = {**py_check(), "env": {"PYTHONPATH": "src"}}
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, check)
        result = await call(agent, "evaluate", contract_id=cid)
    criterion = result["criteria"][0]
    assert criterion["status"] == "pass", criterion
    assert "imported" not in criterion["reason"], criterion


PNPM_PACKAGE = (
    '{"name": "cart", "version": "1.0.0", "type": "module", "packageManager": "pnpm@10.33.0",'
    ' "scripts": {"dev": "vitest", "test": "pnpm vitest run"}}\n'
)
PNPM_SHIM = (
    "#!/bin/sh\n# pnpm NAME runs the script NAME, else the package's own binary NAME (pnpm exec)\n"
    'exec "$PWD/node_modules/.bin/$@"\n'
)


@pytest.mark.skipif(not JS_CACHE.is_dir(), reason="vitest is not installed in .cache/js-runners")
async def test_pnpm_running_a_package_binary_is_the_runner_it_names(tmp_path: Path) -> None:
    # unjs/defu (packageManager pnpm@10.33.0; `"test": "pnpm lint && … && pnpm vitest run"`):
    # `pnpm vitest run` and `npm test` were unscored with "… has no `vitest` script", and the
    # real failure (sh: pnpm: not found, exit 127) was never quoted.
    repo = make_repo(
        tmp_path / "cart",
        {
            "package.json": PNPM_PACKAGE,
            ".gitignore": "node_modules\n",
            "src/cart.js": VITEST_CART,
            "test/cart.test.js": VITEST_CART_TEST,
        },
    )
    (repo / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
    shims = tmp_path / "bin"
    shims.mkdir()
    (shims / "pnpm").write_text(PNPM_SHIM, encoding="utf-8")
    (shims / "pnpm").chmod(0o755)
    env = {**os.environ, "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}"}
    check = {"kind": "tests", "argv": ["pnpm", "vitest", "run"]}
    async with Client(build_server(Settings.build([repo], env=env))) as agent:
        cid = await calc_contract(agent, check)
        result = await call(agent, "evaluate", contract_id=cid, scope="project")
    criterion = result["criteria"][0]
    assert criterion["status"] == "pass", criterion


GO_VERSION = (
    "package version\n\ntype Version struct{ n int }\n\n"
    "func (v *Version) Compare(o *Version) int { return v.n - o.n }\n\n"
    "func (v *Version) Equal(o *Version) bool { return v.Compare(o) == 0 }\n"
)
GO_TESTS = (
    'package version\n\nimport "testing"\n\n'
    "func TestEqual(t *testing.T) {\n\tif !(&Version{1}).Equal(&Version{1}) {\n"
    '\t\tt.Fatal("1 != 1")\n\t}\n}\n\n'
    "func TestEqualNil(t *testing.T) {\n\tif (&Version{1}).Equal(nil) {\n"
    '\t\tt.Fatal("1 == nil")\n\t}\n}\n'
    + "".join(f"\nfunc TestLater{i}(t *testing.T) {{}}\n" for i in range(5))
)


@pytest.mark.skipif(shutil.which("go", path=tool_path()) is None, reason="needs go")
async def test_a_panicking_go_test_says_the_rest_of_its_package_never_ran(tmp_path: Path) -> None:
    # hashicorp/go-version a604335 (the nil check's test without the fix): "fails now: 8 passed,
    # 1 failed …", correctness "8/9 of its tests pass", in a package of 20 tests; the nil
    # pointer panic and the 11 tests it kept from running were nowhere in the result.
    repo = make_repo(
        tmp_path / "version",
        {
            "go.mod": "module example.com/version\n\ngo 1.19\n",
            "version.go": GO_VERSION,
            "version_test.go": GO_TESTS,
        },
    )
    env = {**SAMPLE_ENV, "PATH": tool_path()}
    check = {"kind": "tests", "argv": ["go", "test", "./..."]}
    async with Client(build_server(Settings.build([repo], env=env))) as agent:
        cid = await calc_contract(agent, check)
        result = await call(agent, "evaluate", contract_id=cid, scope="project")
    criterion = result["criteria"][0]
    assert criterion["status"] == "fail", criterion
    assert "panic" in criterion["reason"], criterion


PARAM_TESTS = (
    "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))\n"
    "import pytest\nfrom calc import add\n\n\n"
    "@pytest.mark.parametrize('a, b, total', [(1, 2, 3), pytest.param(1, -1, 2, id='negative')])\n"
    "def test_add(a, b, total):\n    assert add(a, b) == total\n"
)


async def test_expected_changes_glob_covers_every_parametrized_id(tmp_path: Path) -> None:
    # vdurmont/semver4j e7a12ac changes what two existing tests expect (NpmSemverTest#test[80]);
    # docs/evaluate.md says expected_changes takes ids or globs where `*` matches any characters,
    # but a glob over a parametrized id (`…::test_add[*]`) never matches.
    repo = python_project(tmp_path, {"tests/test_calc.py": PARAM_TESTS})
    (repo / "calc.py").write_text(
        "def add(a, b):\n    return a - b if b < 0 else a + b\n", encoding="utf-8"
    )
    commit_all(repo, "adding a negative number subtracts it, and the tests say so")
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    edited = PARAM_TESTS.replace("pytest.param(1, -1, 2,", "pytest.param(1, -1, 0,")
    (repo / "tests" / "test_calc.py").write_text(edited, encoding="utf-8")
    check = {**py_check(), "expected_changes": ["tests/test_calc.py::test_add[*]"]}
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, check)
        result = await call(agent, "evaluate", contract_id=cid)
    criterion = result["criteria"][0]
    assert criterion["status"] == "pass", criterion


async def test_a_base_form_failure_is_not_reported_as_failing_now(tmp_path: Path) -> None:
    # vdurmont/semver4j e7a12ac (it changes what NpmSemverTest#test[80] expects): the criterion
    # said "2 tests passed at base and fail now in their base form", the issues said
    # "regression: com.vdurmont.semver4j.NpmSemverTest#test[80] passed at base and fails now",
    # though the test passes now.
    repo = python_project(tmp_path, {"tests/test_calc.py": PARAM_TESTS})
    (repo / "calc.py").write_text(
        "def add(a, b):\n    return a - b if b < 0 else a + b\n", encoding="utf-8"
    )
    commit_all(repo, "adding a negative number subtracts it, and the tests say so")
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    edited = PARAM_TESTS.replace("pytest.param(1, -1, 2,", "pytest.param(1, -1, 0,")
    (repo / "tests" / "test_calc.py").write_text(edited, encoding="utf-8")
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, py_check())
        result = await call(agent, "evaluate", contract_id=cid)
    criterion = result["criteria"][0]
    assert (criterion["status"], criterion["reason_code"]) == ("fail", "base_test_failed")
    said = [str(i.get("description", i)) for i in result["issues"]]
    assert not any("test_add[negative] passed at base and fails now" in s for s in said), said


async def test_a_diff_coverage_minimum_is_never_a_silent_pass_at_project_scope(
    tmp_path: Path,
) -> None:
    # vdurmont/semver4j e7a12ac under `mvn test` with min_diff_coverage 80 (Java: nothing
    # measures it): unscored at task scope as documented, but PASS with `--scope project`.
    repo = python_project(tmp_path)
    (repo / "calc.py").write_text(
        "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
        encoding="utf-8",
    )
    check = {**py_check(), "min_diff_coverage": 80}
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, check)
        task = await call(agent, "evaluate", contract_id=cid)
        assert task["criteria"][0]["reason_code"] == "diff_coverage_low", task["criteria"]
        whole = await call(agent, "evaluate", contract_id=cid, scope="project")
    criterion = whole["criteria"][0]
    assert criterion["status"] != "pass", criterion


def test_a_holdout_from_outside_can_be_laid_at_the_tree_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # hashicorp/go-version: Go tests live beside the code, at the module's root; a hidden
    # nil_test.go kept outside the repository could not be added: `--to .` and `--to ./` are
    # bad_tree_path, `--to ""` outside_repository ("say where it lies in the tree with `to`").
    repo = calc_repo(tmp_path / "calc")
    outside = tmp_path / "vaulted" / "test_root_secret.py"
    outside.parent.mkdir()
    outside.write_text("def test_secret():\n    assert True\n", encoding="utf-8")
    spec = tmp_path / "contract.yaml"
    spec.write_text(
        yaml.safe_dump(holdout_contract(pytest_check("test_root_secret.py"))), encoding="utf-8"
    )
    assert main(["--root", str(repo), "contract", "create", str(spec)]) == 0
    cid = capsys.readouterr().out.split()[1]
    code = main(["--root", str(repo), "holdout", "add", cid, str(outside), "--to", "."])
    said = capsys.readouterr()
    assert code == 0, said.err
    assert "stored test_root_secret.py" in said.out, said.out


DESCRIBED = (
    "import { describe, it, expect } from 'vitest';\nimport { total } from '../src/cart.js';\n\n"
    "describe('total', () => {\n  it('adds', () => {\n    expect(total([1, 2])).toBe(3);\n  });\n"
    "});\n"
)
DESCRIBED_GROWN = DESCRIBED.replace(
    "\n});\n",
    "\n\n  it('adds nothing', () => {\n    expect(total([])).toBe(0);\n  });\n});\n",
)


@pytest.mark.skipif(not JS_CACHE.is_dir(), reason="vitest is not installed in .cache/js-runners")
async def test_an_it_added_inside_a_describe_still_runs_the_base_form(tmp_path: Path) -> None:
    # unjs/defu 11ba022 adds one `it` inside `describe("defu", …)`. The suite runs three times:
    # now, the base code, and the base's test file over the fix. The third costs a run even for
    # a file whose base tests are untouched: the new `it` runs in the same worker as the base's
    # tests and could act on them as it runs, which no reading of it rules out.
    repo = make_repo(
        tmp_path / "cart",
        {
            "package.json": '{"name": "cart", "version": "1.0.0", "type": "module"}\n',
            ".gitignore": "node_modules\n",
            "src/cart.js": VITEST_CART.replace("0);", "0) || -1;"),
            "test/cart.test.js": DESCRIBED,
        },
    )
    (repo / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
    (repo / "src" / "cart.js").write_text(VITEST_CART, encoding="utf-8")
    (repo / "test" / "cart.test.js").write_text(DESCRIBED_GROWN, encoding="utf-8")
    check = {"kind": "tests", "argv": ["npx", "vitest", "run"], "must_fail_at_base": True}
    async with agent_for(repo) as agent:
        cid = await bugfix_contract(
            agent, [{"criterion": "empty carts", "verification_method": "test", "check": check}]
        )
        result = await call(agent, "evaluate", contract_id=cid)
    assert result["criteria"][0]["status"] == "pass", result["criteria"]
    runs = sorted(e["summary"][:18] for e in result["evidence"] if e["tool"] == "tests")
    # now (2 tests), the base's tests alone over the fix (1 test), the base code (the new test
    # fails there, before and after the run now)
    assert runs == [
        "1 passed, 0 failed",
        "1 passed, 1 failed",
        "1 passed, 1 failed",
        "2 passed, 0 failed",
    ], runs


async def test_a_script_whose_program_is_missing_says_so(tmp_path: Path) -> None:
    # fastify/deepmerge bc2075c^ (`"test:unit": "tap"`, tap not installed): "it ran (exit code
    # 127, 2.1 s), but gave no per-test outcomes: … make the runner write a JUnit XML report";
    # defu's `npm test` (pnpm missing) likewise: stderr said `sh: 1: tap: not found`.
    repo = make_repo(
        tmp_path / "merge",
        {
            "package.json": '{"name": "merge", "scripts": {"test:unit": "tap"}}\n',
            "index.js": "module.exports = (a, b) => ({ ...a, ...b })\n",
            "test/merge.test.js": "require('tap').pass('merges')\n",
        },
    )
    check = {"kind": "tests", "argv": ["npm", "run", "test:unit"]}
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, check)
        result = await call(agent, "evaluate", contract_id=cid, scope="project")
    criterion = result["criteria"][0]
    assert criterion["status"] == "unscored", criterion
    assert "not found" in criterion["reason"], criterion
