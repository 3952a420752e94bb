"""Do the tests cover and pin the change? Diff coverage from the criterion's own run, mutants of
the changed lines, and flaky tests across repeats, on real repositories built in tmp_path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cart_project import (
    CHANGED,
    FLAKY,
    PINNED,
    RUNS_BUT_ASSERTS_NOTHING,
    TOTAL_ONLY,
    cart_repo,
    change,
)
from gitrepo import make_repo
from projects import PY, contract_for, evaluated, pytest_check
from runner_projects import JS_CACHE

from referee.tools.adequacy import Lines, generate, ranges, spread
from referee.tools.adequacy import coverage_shim as shim_module
from referee.tools.adequacy.instrument import Instrumented, measure
from referee.tools.evaluate.adequacy import adequacy_text
from referee.tools.evaluate.compact import compact
from referee.tools.models import Evaluation
from referee.tools.models.adequacy import TestAdequacy
from referee.tools.report import render_markdown, run_report
from referee.tools.store import Store

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return cart_repo(tmp_path / "cart")


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store")


async def run(store: Store, project: Path, check: dict[str, Any], **kw: Any) -> Evaluation:
    criterion = {"criterion": "the tests pass", "verification_method": "test", "check": check}
    contract = contract_for(store, project, criterion)
    return await evaluated(store, project, contract.id, **kw)


async def test_a_change_no_test_executes_has_its_lines_named(store: Store, project: Path) -> None:
    change(project, TOTAL_ONLY)
    result = await run(store, project, pytest_check("tests"))
    criterion = result.criteria[0]
    assert criterion.status == "pass"  # no minimum: coverage informs, it does not fail
    assert criterion.adequacy and criterion.adequacy.diff_coverage
    found = criterion.adequacy.diff_coverage
    assert found.tool.startswith(
        "referee's line probes" if sys.version_info < (3, 12) else "coverage.py"
    )
    # `def discount` ran (the module was imported); its body never did.
    assert [(f.path, f.uncovered) for f in found.files] == [("src/cart.py", ["7-9"])]
    assert (found.changed, found.covered, found.percent) == (4, 1, 25.0)
    assert found.evidence_id in criterion.evidence_ids
    issue = next(i for i in result.issues if "no test executed" in i.description)
    assert issue.location == "src/cart.py:7"
    assert "src/cart.py:7-9" in issue.description
    assert issue.evidence_ids == [found.evidence_id]
    assert not result.tree_changed.changed  # the data file lives outside the tree
    page = render_markdown(run_report(store, result.run_id))
    assert (
        f"| src/cart.py | 25% (1/4 changed lines); not executed: 7-9 | {found.evidence_id} |"
        in (page)
    )


async def test_below_min_diff_coverage_fails_naming_the_uncovered_lines(
    store: Store, project: Path
) -> None:
    change(project, TOTAL_ONLY)
    result = await run(store, project, pytest_check("tests", min_diff_coverage=80))
    criterion = result.criteria[0]
    assert (criterion.status, criterion.reason_code) == ("fail", "diff_coverage_low")
    assert "src/cart.py:7-9" in criterion.reason
    assert "below min_diff_coverage 80%" in criterion.reason


@pytest.mark.parametrize(
    "line",
    [
        f"{PY} -c 'print(1)' && {PY} -m pytest -q tests",
        f"mkdir -p build && {PY} -m pytest -q tests && echo done",
    ],
)
async def test_min_diff_coverage_on_an_and_line_measures_the_runners_segment(
    store: Store, project: Path, line: str
) -> None:
    change(project, TOTAL_ONLY)
    check = {"kind": "tests", "argv": [line], "shell": True, "min_diff_coverage": 80}
    result = await run(store, project, check)
    criterion = result.criteria[0]
    assert (criterion.status, criterion.reason_code) == ("fail", "diff_coverage_low"), criterion
    assert "src/cart.py:7-9" in criterion.reason
    assert criterion.adequacy and criterion.adequacy.diff_coverage
    assert criterion.adequacy.diff_coverage.percent == 25.0


@pytest.mark.slow
async def test_a_test_that_asserts_nothing_leaves_surviving_mutants(
    store: Store, project: Path
) -> None:
    change(project, RUNS_BUT_ASSERTS_NOTHING)
    result = await run(store, project, pytest_check("tests", mutation=True))
    criterion = result.criteria[0]
    assert criterion.status == "pass"
    adequacy = criterion.adequacy
    assert adequacy and adequacy.diff_coverage and adequacy.diff_coverage.percent == 100.0
    mutation = adequacy.mutation
    assert mutation and mutation.run >= 4 and mutation.score == 0.0
    assert {m.location for m in mutation.survived} >= {"src/cart.py:7", "src/cart.py:8"}
    assert mutation.evidence_id in criterion.evidence_ids
    issue = next(i for i in result.issues if "`>=` becomes `>` at src/cart.py:7" in i.description)
    assert issue.description.startswith("the tests still pass when")
    assert issue.location == "src/cart.py:7" and issue.evidence_ids == [mutation.evidence_id]
    evidence = next(e for e in result.evidence if e.id == mutation.evidence_id)
    assert evidence.tool == "mutation"
    draft = result.draft_scorecard
    assert "mutation score 0 (0/" in draft.criteria[0].evidence
    assert any("`>=` becomes `>` at src/cart.py:7" in i.description for i in draft.issues)
    page = render_markdown(run_report(store, result.run_id))
    small = compact(result, 1)  # the budget cuts the full mutant list first, never the survivors
    cut = small.criteria[0].adequacy.mutation  # type: ignore[union-attr]
    assert cut and cut.mutants == [] and cut.survived == mutation.survived
    # Inside a code span the operator is shown as written (a renderer would show `&gt;` literally).
    assert "| surviving mutant | src/cart.py:7 | the tests still pass when `>=` becomes" in page


@pytest.mark.slow
async def test_a_well_pinned_change_kills_every_mutant(store: Store, project: Path) -> None:
    change(project, PINNED)
    result = await run(store, project, pytest_check("tests"), depth="deep")
    mutation = result.criteria[0].adequacy.mutation  # type: ignore[union-attr]
    assert mutation and mutation.run >= 5 and mutation.survived == [], mutation
    assert mutation.score == 1.0
    assert all(m.killed_by for m in mutation.mutants if m.status == "killed")
    assert not [i for i in result.issues if "still pass" in i.description]


async def test_below_min_mutation_score_fails_naming_each_survivor(
    store: Store, project: Path
) -> None:
    change(project, RUNS_BUT_ASSERTS_NOTHING)
    check = pytest_check("tests", min_mutation_score=0.8, max_mutants=4)
    result = await run(store, project, check)
    criterion = result.criteria[0]
    assert (criterion.status, criterion.reason_code) == ("fail", "mutation_score_low"), criterion
    assert "below min_mutation_score 0.8" in criterion.reason
    assert "the tests still pass when: `" in criterion.reason and "src/cart.py:" in criterion.reason


@pytest.mark.slow
async def test_min_mutation_score_is_met_by_a_pinned_change(store: Store, project: Path) -> None:
    change(project, PINNED)
    check = pytest_check("tests", min_mutation_score=0.8, max_mutants=4)
    criterion = (await run(store, project, check)).criteria[0]
    assert criterion.status == "pass", criterion.reason
    assert criterion.adequacy and criterion.adequacy.mutation
    assert criterion.adequacy.mutation.score == 1.0


async def test_min_mutation_score_with_no_source_change_is_unscored(
    store: Store, project: Path
) -> None:
    (project / "README.md").write_text("# cart\n\nNotes.\n", encoding="utf-8")
    check = pytest_check("tests", min_mutation_score=0.5)
    criterion = (await run(store, project, check)).criteria[0]
    assert (criterion.status, criterion.reason_code) == ("unscored", "mutation_score_low")
    assert "no mutants" in criterion.reason, criterion.reason


@pytest.mark.slow
async def test_a_flaky_test_makes_the_criterion_unscored_never_passed(
    store: Store, project: Path, tmp_path: Path
) -> None:
    # inplace: the counter file outside the tree survives from one run to the next (a sandbox
    # gives every run a fresh /tmp).
    (project / "tests" / "test_flaky.py").write_text(FLAKY, encoding="utf-8")
    check = pytest_check("tests", repeat=3, env={"COUNTER": str(tmp_path / "counter")})
    result = await run(store, project, check, isolation="inplace")
    criterion = result.criteria[0]
    assert (criterion.status, criterion.pass_, criterion.reason_code) == (
        "unscored",
        False,
        "flaky",
    )
    assert criterion.reason == "flaky: tests/test_flaky.py::test_alternates passed 2 of 3"
    assert criterion.adequacy and criterion.adequacy.repeats == 3
    assert [(f.test, f.passed, f.runs) for f in criterion.adequacy.flaky] == [
        ("tests/test_flaky.py::test_alternates", 2, 3)
    ]
    assert len(criterion.evidence_ids) == 3
    assert result.draft_scorecard.criteria[0].pass_ is False


async def test_repeats_that_agree_pass_and_say_so(store: Store, project: Path) -> None:
    result = await run(store, project, pytest_check("tests", repeat=2))
    criterion = result.criteria[0]
    assert criterion.status == "pass" and criterion.reason.endswith("the same in 2 runs")
    assert len(criterion.evidence_ids) == 2


def test_mutants_are_spread_over_the_changed_lines() -> None:
    source = CHANGED.encode()
    found = generate("src/cart.py", source, Lines({7, 8, 9}))
    assert {m.operator for m in found} >= {"boundary", "arithmetic", "constant", "return value"}
    chosen = spread({"src/cart.py": found}, 3)
    assert [m.line for m in chosen] == [7, 8, 9]
    for m in found:  # every mutant still compiles and keeps every line where it was
        mutated = m.apply(source).decode()
        compile(mutated, "cart.py", "exec")
        assert mutated.count("\n") == CHANGED.count("\n")


def test_uncovered_ranges_are_not_split_by_comments() -> None:
    assert ranges({5, 7, 12}, {5, 7, 9, 12}) == ["5-7", "12"]


JS_BASE = "function total(prices) {\n  return prices.reduce((a, b) => a + b, 0);\n}\n"
JS_CHANGED = JS_BASE + (
    "\nfunction discount(amount, threshold) {\n  // ten percent off\n"
    "  if (amount >= threshold) {\n    return amount * 0.9;\n  }\n  return amount;\n}\n"
    "\nmodule.exports = { total, discount };\n"
)
JS_TEST = (
    "const test = require('node:test');\nconst assert = require('node:assert');\n"
    "const { total } = require('../src/cart.js');\n"
    "test('total', () => { assert.strictEqual(total([1, 2]), 3); });\n"
)


async def test_node_runs_are_measured_with_v8_coverage(store: Store, tmp_path: Path) -> None:
    project = make_repo(
        tmp_path / "jscart",
        {"src/cart.js": JS_BASE + "\nmodule.exports = { total };\n", "test/cart.test.js": JS_TEST},
    )
    (project / "src" / "cart.js").write_text(JS_CHANGED, encoding="utf-8")
    check = {"kind": "tests", "argv": ["node", "--test"], "min_diff_coverage": 50}
    result = await run(store, project, check)
    criterion = result.criteria[0]
    found = criterion.adequacy.diff_coverage if criterion.adequacy else None
    assert found and found.tool.startswith("V8")
    # discount (lines 5-11) never ran, as c8 reports it: a function V8 never entered is
    # uncovered from its first line; the comment and the lone braces are no statements.
    assert [(f.path, f.uncovered) for f in found.files] == [("src/cart.js", ["5-10"])]
    assert (found.changed, found.covered) == (5, 1)  # the export line ran
    assert (criterion.status, criterion.reason_code) == ("fail", "diff_coverage_low")
    assert "not executed: src/cart.js:5-10" in criterion.reason


JEST_TEST = "const { total } = require('../src/cart.js');\n"
JEST_TEST += "test('total', () => { expect(total([1, 2])).toBe(3); });\n"


@pytest.mark.skipif(not JS_CACHE.is_dir(), reason="jest is not installed in .cache/js-runners")
async def test_jest_runs_are_measured_with_its_own_coverage(store: Store, tmp_path: Path) -> None:
    project = make_repo(
        tmp_path / "jestcart",
        {
            "src/cart.js": JS_BASE + "\nmodule.exports = { total };\n",
            "test/cart.test.js": JEST_TEST,
            "package.json": '{"name": "cart", "version": "1.0.0"}\n',
            ".gitignore": "node_modules\n",
        },
    )
    (project / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
    (project / "src" / "cart.js").write_text(JS_CHANGED, encoding="utf-8")
    result = await run(store, project, {"kind": "tests", "argv": ["npx", "jest"]})
    criterion = result.criteria[0]
    assert criterion.status == "pass", criterion.reason
    found = criterion.adequacy.diff_coverage if criterion.adequacy else None
    assert found and found.tool.startswith("jest")
    # istanbul maps statements, not declarations: discount's three statements never ran.
    assert [(f.path, f.uncovered) for f in found.files] == [("src/cart.js", ["7-10"])]
    assert not result.tree_changed.changed  # the coverage folder is referee's, outside the tree


def vitest_project(path: Path, files: dict[str, str]) -> Path:
    """A committed ES-module project with the shared vitest install as its node_modules."""
    project = make_repo(
        path,
        {
            "package.json": '{"name": "cart", "version": "1.0.0", "type": "module"}\n',
            ".gitignore": "node_modules\n",
            **files,
        },
    )
    (project / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
    return project


VITEST_TEST = "import { test, expect } from 'vitest';\nimport { total } from '../src/cart.js';\n"
VITEST_TEST += "test('total', () => { expect(total([1, 2])).toBe(3); });\n"


@pytest.mark.skipif(not JS_CACHE.is_dir(), reason="vitest is not installed in .cache/js-runners")
async def test_vitest_runs_are_measured_with_the_projects_coverage_provider(
    store: Store, tmp_path: Path
) -> None:
    esm = JS_BASE.replace("function total", "export function total")
    project = vitest_project(
        tmp_path / "vitestcart",
        {
            "src/cart.js": esm,
            "test/cart.test.js": VITEST_TEST,
            # A project threshold would fail the run referee measures: it is switched off.
            "vitest.config.js": (
                "export default { test: { coverage: { thresholds: { lines: 100 } } } };\n"
            ),
        },
    )
    changed = JS_CHANGED.replace("function ", "export function ").replace(
        "\nmodule.exports = { total, discount };\n", ""
    )
    (project / "src" / "cart.js").write_text(changed, encoding="utf-8")
    result = await run(store, project, {"kind": "tests", "argv": ["npx", "vitest", "run"]})
    criterion = result.criteria[0]
    assert criterion.status == "pass", criterion.reason
    found = criterion.adequacy.diff_coverage if criterion.adequacy else None
    assert found and found.tool == "vitest coverage", criterion.adequacy
    (measured,) = found.files
    # V8 through vitest counts the discount function's lines, its comment included.
    uncovered = {n for r in measured.uncovered for n in _lines_of(r)}
    assert measured.path == "src/cart.js" and {7, 8, 9, 10} <= uncovered and 1 not in uncovered
    assert not result.tree_changed.changed  # the coverage folder is referee's, outside the tree


TS_BASE = (
    "export function total(prices: number[]): number {\n"
    "  return prices.reduce((a, b) => a + b, 0);\n}\n"
)
TS_CHANGED = TS_BASE + (
    "\nexport function discount(amount: number, threshold: number): number {\n"
    "  if (amount >= threshold) {\n    return amount * 0.9;\n  }\n  return amount;\n}\n"
)


@pytest.mark.skipif(not JS_CACHE.is_dir(), reason="vitest is not installed in .cache/js-runners")
async def test_typescript_under_vitest_is_measured_and_held_to_its_minimum(
    store: Store, tmp_path: Path
) -> None:
    test = VITEST_TEST.replace("'../src/cart.js'", "'../src/cart'")
    project = vitest_project(
        tmp_path / "tscart", {"src/cart.ts": TS_BASE, "test/cart.test.ts": test}
    )
    (project / "src" / "cart.ts").write_text(TS_CHANGED, encoding="utf-8")
    check = {"kind": "tests", "argv": ["npx", "vitest", "run"], "min_diff_coverage": 80}
    result = await run(store, project, check)
    criterion = result.criteria[0]
    # discount() is new and no test calls it: below the minimum, never a silent pass.
    assert (criterion.status, criterion.reason_code) == ("fail", "diff_coverage_low"), criterion
    found = criterion.adequacy.diff_coverage if criterion.adequacy else None
    assert found and [f.path for f in found.files] == ["src/cart.ts"]
    assert "src/cart.ts:" in criterion.reason


async def test_a_change_in_a_language_no_tool_measures_is_never_a_silent_pass(
    store: Store, project: Path
) -> None:
    (project / "tools").mkdir()
    (project / "tools" / "count.go").write_text(
        "package tools\n\nfunc Count(n int) int {\n\treturn n + 1\n}\n", encoding="utf-8"
    )
    (project / "tools" / "count.rs").write_text("pub fn count() {}\n", encoding="utf-8")
    result = await run(store, project, pytest_check("tests", min_diff_coverage=80))
    criterion = result.criteria[0]
    assert (criterion.status, criterion.reason_code) == ("unscored", "diff_coverage_low")
    # pytest does not run Go: go test would measure it; Rust has no tool here, named as such.
    assert "tools/count.go (go), tools/count.rs (rust)" in criterion.reason, criterion.reason
    assert "Go: go test" in criterion.reason
    assert "no coverage tool for rust here (cargo-llvm-cov would measure it)" in criterion.reason


async def test_files_the_runs_tool_does_not_measure_are_named_beside_the_percent(
    store: Store, project: Path
) -> None:
    change(project, PINNED)
    (project / "tools").mkdir()
    (project / "tools" / "count.go").write_text("package tools\n", encoding="utf-8")
    result = await run(store, project, pytest_check("tests", min_diff_coverage=80))
    criterion = result.criteria[0]
    assert criterion.status == "pass", criterion.reason
    assert "of the measured files only (not measurable: tools/count.go (go))" in criterion.reason
    assert criterion.adequacy and criterion.adequacy.diff_coverage
    assert criterion.adequacy.diff_coverage.unmeasured == ["tools/count.go"]


def _lines_of(span: str) -> range:
    start, _, end = span.partition("-")
    return range(int(start), int(end or start) + 1)


def test_an_interpreter_referee_coverage_cannot_run_on_still_runs_the_tests(tmp_path: Path) -> None:
    # As on a Python older than referee's coverage.py (3.12+) or its line probes (before 3.12)
    # support: importing them is a SyntaxError. The tests run as the check wrote them; diff
    # coverage says why nothing was measured.
    reports = tmp_path / "reports"
    fallback = reports / "pylib" / "coverage"
    fallback.mkdir(parents=True)
    (fallback / "__init__.py").write_text("match = := 1\n", encoding="utf-8")
    (reports / shim_module.PROBES).write_text("match = := 1\n", encoding="utf-8")
    shim = reports / "referee_coverage.py"
    shim.write_text((Path(shim_module.__file__)).read_text(encoding="utf-8"), encoding="utf-8")
    rcfile = reports / "coveragerc"
    rcfile.write_text(f"[run]\ndata_file = {reports / 'coverage.data'}\n", encoding="utf-8")
    script = tmp_path / "suite.py"
    script.write_text("import sys\nprint('ran', sys.argv[1:])\nsys.exit(3)\n", encoding="utf-8")
    # -S: no site-packages, so no coverage.py but the broken fallback's.
    done = subprocess.run(
        [sys.executable, "-S", str(shim), str(rcfile), str(reports / "pylib"), str(script), "x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3 and "ran ['x']" in done.stdout, done
    instrumented = Instrumented(
        plan=None,  # type: ignore[arg-type]  # measure reads only the data and the sources
        data=reports / "coverage.data",
        kind="coverage.py",
        sources=("src/cart.py",),
    )
    found = measure(instrumented, tmp_path, {"src/cart.py": {1}})
    assert found is not None and found.percent is None and found.unmeasured == ["src/cart.py"]
    tool = "referee's line probes" if sys.version_info < (3, 12) else "coverage.py"
    assert f"cannot run {tool}: SyntaxError" in found.note, found.note
    assert "diff coverage: not measured (Python" in adequacy_text(TestAdequacy(diff_coverage=found))
