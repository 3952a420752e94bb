"""must_fail_at_base with SWE-bench's semantics, on real repositories built in tmp_path: the
current tests laid over the base code, FAIL_TO_PASS per test, PASS_TO_PASS regressions first, and
a base that cannot run left unscored."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from gitrepo import make_repo
from projects import BUG_HEADER, PY, commit_all, contract_for, evaluated, pytest_check
from runner_projects import JS_CACHE

from referee.tools.models.common import ReasonCode
from referee.tools.store import Store, load_run

pytestmark = pytest.mark.anyio

BUGGY = "def add(a, b):\n    return a - b if b < 0 else a + b\n"
FIXED = "def add(a, b):\n    return a + b\n"
HEADER = BUG_HEADER  # the tests import src/ without an install
OLD_TESTS = HEADER + "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
REGRESSION = "\ndef test_add_negative():\n    assert add(1, -1) == 0\n"
TRIVIAL = HEADER + "from calc import add\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A bug at base: adding a negative number subtracts it."""
    return make_repo(
        tmp_path / "calc",
        {"src/calc.py": BUGGY, "tests/test_calc.py": OLD_TESTS, ".gitignore": "__pycache__/\n"},
    )


@pytest.fixture
def store(project: Path) -> Store:
    return Store(project / ".referee")


async def judge(
    store: Store, project: Path, *argv: str, isolation: str = "sandbox", **check: object
):
    return await judge_check(
        store, project, pytest_check(*argv, must_fail_at_base=True, **check), isolation=isolation
    )


async def judge_check(
    store: Store, project: Path, check: dict[str, object], isolation: str = "sandbox", **env: str
):
    contract = contract_for(
        store,
        project,
        {
            "criterion": "the fix is proven by its regression test",
            "verification_method": "test",
            "check": check,
        },
        task_type="bug",
    )
    result = await evaluated(store, project, contract.id, env=env, isolation=isolation)
    return result, result.criteria[0]


def _base_run(store: Store, run_id: str, ids: list[str]) -> Any:
    """The criterion's run on the base code: made before the run now and after it, each with a
    failing test in its report (the criterion's other runs, now and the base's own tests, pass)."""
    evidence = load_run(store, run_id).evidence
    failing = [evidence[i] for i in ids if any(t.outcome == "failed" for t in evidence[i].tests)]
    assert len(failing) == 2, [evidence[i].summary for i in ids]
    assert {t.name: t.outcome for t in failing[0].tests} == {
        t.name: t.outcome for t in failing[1].tests
    }
    return failing[0]


def write(project: Path, path: str, text: str) -> None:
    (project / path).parent.mkdir(parents=True, exist_ok=True)
    (project / path).write_text(text, encoding="utf-8")


async def test_a_fix_whose_new_regression_test_fails_at_base_passes(
    store: Store, project: Path
) -> None:
    write(project, "src/calc.py", FIXED)
    write(project, "tests/test_calc.py", OLD_TESTS + REGRESSION)
    result, crit = await judge(store, project, "tests")
    assert crit.status == "pass", crit.reason
    assert "1 test fails at base and passes now: tests/test_calc.py::test_add_negative" in (
        crit.reason
    )
    assert "1 passed at base too" in crit.reason
    # The base run ran the *current* test file: the new test is in its report, failing.
    base = _base_run(store, result.run_id, crit.evidence_ids)
    outcomes = {t.name: t.outcome for t in base.tests}
    assert outcomes == {
        "tests/test_calc.py::test_add": "passed",
        "tests/test_calc.py::test_add_negative": "failed",
    }


async def test_a_new_test_that_passes_at_base_too_fails_the_criterion(
    store: Store, project: Path
) -> None:
    write(project, "src/calc.py", FIXED)
    write(project, "tests/test_zero.py", TRIVIAL)  # pytest exits 4 at base without the overlay
    _, crit = await judge(store, project, "tests/test_zero.py")
    assert crit.status == "fail" and crit.reason_code == ReasonCode.PASSES_AT_BASE
    assert crit.reason.startswith("passes at base too (1 passed")
    assert "do not exercise the fix" in crit.reason


async def test_a_test_whose_import_fails_at_base_counts_as_failing_there(
    store: Store, project: Path
) -> None:
    write(project, "src/calc.py", FIXED + "\n\ndef sub(a, b):\n    return a - b\n")
    write(
        project,
        "tests/test_sub.py",
        HEADER + "from calc import sub\n\ndef test_sub():\n    assert sub(3, 1) == 2\n",
    )
    _, crit = await judge(store, project, "tests/test_sub.py")
    assert crit.status == "pass", crit.reason
    assert "tests/test_sub.py::test_sub" in crit.reason
    assert "tests/test_sub.py could not be collected" in crit.reason


async def test_a_new_test_id_and_a_broken_old_test_report_the_regression_first(
    store: Store, project: Path
) -> None:
    write(project, "src/calc.py", "def add(a, b):\n    return a + b if b < 0 else 0\n")
    write(project, "tests/test_calc.py", OLD_TESTS + REGRESSION)
    result, crit = await judge(
        store, project, "tests/test_calc.py::test_add", "tests/test_calc.py::test_add_negative"
    )
    assert crit.status == "fail" and crit.reason_code == ReasonCode.FAILS_NOW
    assert crit.regressions == ["tests/test_calc.py::test_add"]
    assert crit.reason.startswith(
        "regressions (passed at base, fail now): tests/test_calc.py::test_add; fails now:"
    )
    assert result.issues[0].severity == "HIGH"
    assert result.issues[0].description == (
        "regression: tests/test_calc.py::test_add passed at base and fails now"
    )


async def test_a_base_that_cannot_run_is_unscored_never_passed(store: Store, project: Path) -> None:
    # At base the module under test kills the interpreter on import: pytest dies before it writes
    # a report. The test does fail there, but nothing shows it. (A broken pytest.ini would do the
    # same, but removing it is a harness change, judged first as harness_unverified.)
    write(project, "src/calc.py", "import os\nos._exit(3)\n")
    commit_all(project, "a module that cannot be imported at base")
    write(project, "src/calc.py", FIXED)
    write(project, "tests/test_calc.py", OLD_TESTS + REGRESSION)
    result, crit = await judge(store, project, "tests")
    assert crit.status == "unscored" and crit.pass_ is False
    assert crit.reason_code == ReasonCode.BASE_NOT_RUN
    assert "could not run on the base code" in crit.reason and "no usable report" in crit.reason
    assert result.dimensions["correctness"].score is None  # an unscored check lowers nothing


@pytest.mark.parametrize("isolation", ["sandbox", "inplace"])
async def test_the_base_run_sees_the_working_trees_installed_dependencies(
    store: Store, project: Path, isolation: str
) -> None:
    # An in-repo virtualenv's packages, ignored by git: the base checkout has none of its own.
    write(project, ".gitignore", "__pycache__/\n.venv/\n")
    commit_all(project, "ignore the virtualenv")
    site = ".venv/lib/site-packages"
    write(project, f"{site}/sign.py", "def sign(x):\n    return (x > 0) - (x < 0)\n")
    write(project, "src/calc.py", FIXED)
    header = (
        HEADER + f"sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '{site}'))\n"
    )
    write(
        project,
        "tests/test_sign.py",
        header + "from sign import sign\nfrom calc import add\n\n"
        "def test_sign_of_a_negative_sum():\n    assert sign(add(1, -2)) == -1\n",
    )
    result, crit = await judge(store, project, "tests/test_sign.py", isolation=isolation)
    assert result.sandbox == ("bubblewrap" if isolation == "sandbox" else "none")
    # At base the test ran and failed on the bug (add(1, -2) == 3), not on a missing module.
    assert crit.status == "pass", crit.reason
    assert "could not be collected" not in crit.reason


async def test_a_runner_missing_at_base_only_is_unscored(store: Store, project: Path) -> None:
    write(project, "runner.py", "import sys, pytest\nsys.exit(pytest.main(sys.argv[1:]))\n")
    write(project, "src/calc.py", FIXED)
    write(project, "tests/test_calc.py", OLD_TESTS + REGRESSION)
    check = {
        "kind": "tests",
        "argv": [PY, "runner.py", "--junitxml=report.xml", "tests"],
        "junit": "report.xml",
        "must_fail_at_base": True,
    }
    _, crit = await judge_check(store, project, check)
    assert crit.status == "unscored" and crit.reason_code == ReasonCode.BASE_NOT_RUN


@pytest.mark.slow
@pytest.mark.skipif(not JS_CACHE.is_dir(), reason=f"{JS_CACHE} missing (scripts/setup.sh)")
async def test_a_js_base_checkout_without_node_modules_still_runs_vitest(tmp_path: Path) -> None:
    # node_modules is ignored by git and, as often, a symlink to a shared install: the base
    # checkout has none, and `npx vitest` could not even start there.
    head = "import { describe, test, expect } from 'vitest';\nimport { add } from './calc.js';\n\n"
    old = head + "describe('add', () => {\n  test('adds', () => { expect(add(1, 2)).toBe(3); });\n"
    project = make_repo(
        tmp_path / "js",
        {
            "package.json": '{"name": "calc", "private": true, "type": "module"}\n',
            ".gitignore": "node_modules\n",
            "calc.js": "export const add = (a, b) => (b < 0 ? a - b : a + b);\n",
            "calc.test.js": old + "});\n",
        },
    )
    (project / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
    store = Store(project / ".referee")
    write(project, "calc.js", "export const add = (a, b) => a + b;\n")
    negative = "  test('adds a negative', () => { expect(add(1, -1)).toBe(0); });\n"
    write(project, "calc.test.js", old + negative + "});\n")
    check = {
        "kind": "tests",
        "argv": ["npx", "vitest"],
        "must_fail_at_base": True,
        "timeout_s": 120,  # without its node_modules, npx waits for a download
    }
    result, _ = await judge_check(store, project, check, PATH=os.environ["PATH"])
    crit = result.criteria[0]
    assert crit.status == "pass", crit.reason
    assert "calc.test.js > add > adds a negative" in crit.reason
    base = _base_run(store, result.run_id, crit.evidence_ids)
    assert base.details["runner"] == "vitest" and len(base.tests) == 2


@pytest.mark.parametrize(
    "skipped",
    [
        "\n@pytest.mark.skip(reason='later')\ndef test_add_negative():\n"
        "    assert add(1, -1) == 0\n",
        "\ndef test_add_negative():\n    pytest.skip('flaky on CI')\n    assert add(1, -1) == 0\n",
        "\n@pytest.mark.skipif(True, reason='x')\ndef test_add_negative():\n"
        "    assert add(1, -1) == 0\n",
    ],
    ids=["mark", "call", "skipif"],
)
async def test_a_fix_whose_new_tests_are_skipped_says_so(
    store: Store, project: Path, skipped: str
) -> None:
    write(project, "src/calc.py", FIXED)
    write(project, "tests/test_calc.py", "import pytest\n" + OLD_TESTS + skipped)
    _, crit = await judge(store, project, "tests")
    assert crit.status == "fail" and crit.reason_code == ReasonCode.NEW_TESTS_SKIPPED, crit.reason
    assert "tests/test_calc.py::test_add_negative" in crit.reason
    assert "1 passed" in crit.reason and "1 skipped" in crit.reason  # one run's counts, quoted


@pytest.mark.slow
@pytest.mark.skipif(not JS_CACHE.is_dir(), reason=f"{JS_CACHE} missing (scripts/setup.sh)")
@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "  test('adds', ",
            "  test.skip('adds a negative', () => { expect(add(1, -1)).toBe(0); });\n",
        ),
        # Focused elsewhere in the file: the new test never runs.
        (
            "  test.only('adds', ",
            "  test('adds a negative', () => { expect(add(1, -1)).toBe(0); });\n",
        ),
    ],
    ids=["skip", "focus"],
)
async def test_a_js_fix_whose_new_test_is_skipped_or_focused_away_says_so(
    tmp_path: Path, old: str, new: str
) -> None:
    head = "import { describe, test, expect } from 'vitest';\nimport { add } from './calc.js';\n\n"
    body = "describe('add', () => {\n  test('adds', () => { expect(add(1, 2)).toBe(3); });\n"
    project = make_repo(
        tmp_path / "js",
        {
            "package.json": '{"name": "calc", "private": true, "type": "module"}\n',
            ".gitignore": "node_modules\n",
            "calc.js": "export const add = (a, b) => (b < 0 ? a - b : a + b);\n",
            "calc.test.js": head + body + "});\n",
        },
    )
    (project / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
    store = Store(project / ".referee")
    write(project, "calc.js", "export const add = (a, b) => a + b;\n")
    write(project, "calc.test.js", head + body.replace("  test('adds', ", old) + new + "});\n")
    check = {"kind": "tests", "argv": ["npx", "vitest"], "must_fail_at_base": True}
    result, _ = await judge_check(store, project, check, PATH=os.environ["PATH"])
    crit = result.criteria[0]
    assert crit.reason_code == ReasonCode.NEW_TESTS_SKIPPED, crit.reason
    assert "calc.test.js > add > adds a negative" in crit.reason
