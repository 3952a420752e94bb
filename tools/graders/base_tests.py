"""The generator's tests are claims: the base's own tests, in their base form, still decide.

A change can turn a failing test green without touching the code: rewrite its expected value to
the broken result, wrap it in an expected failure (`xfail`, `test.fails`, `should_panic`), record
the broken output in its snapshot, delete it. Every one of those edits a test file that existed at
base. So a tests check whose change edited (or deleted) such files also runs with the base's
versions of them over the evaluated code (`base-tests`), and a test that fails there but not in
the generator's version is checked against the base as it was (`base-only`): when it passed
there, the change broke what it tested, however its copy was edited, and the criterion fails
(`base_test_failed`). A contract that changes what a test checks says so up front with the
check's `expected_changes`; nothing the generator writes can.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Callable
from dataclasses import replace

from referee.tools.graders.base import GradeResult
from referee.tools.graders.fail_to_pass import SuiteRun
from referee.tools.models.checks import TestsCheck
from referee.tools.models.common import CriterionStatus, ReasonCode
from referee.tools.models.evidence import TestOutcome
from referee.tools.text import agrees, counted

__all__ = [
    "as_moved",
    "edited_tests_verdict",
    "shown_names",
    "silenced_tests",
    "silenced_verdict",
    "suspects",
]

_FAILING = ("failed", "error")
# A run that ended as a test run ends: every test it holds has its result.
_WHOLE = (ReasonCode.PASSED, ReasonCode.TESTS_FAILED)
_SHOWN = 5


def suspects(now: SuiteRun, form: SuiteRun) -> list[str]:
    """Tests that fail in their base form but do not fail in the generator's version."""
    failing_now = {t.name for t in now.outcomes if t.outcome in _FAILING}
    return sorted(
        t.name for t in form.outcomes if t.outcome in _FAILING and t.name not in failing_now
    )


def silenced_tests(skipped: set[str], before: list[TestOutcome], expected: list[str]) -> list[str]:
    """Tests skipped now that passed in the base as it was, and the contract does not expect to
    change."""
    passed = {t.name for t in before if t.outcome == "passed"}
    found = skipped & passed
    for name in skipped - passed:
        # A whole module skipped as it loads (`raise SkipTest` at import) is one skip named by
        # the module: every base test of it is silenced.
        found |= {n for n in passed if any(n.startswith(p) for p in _module_prefixes(name))}
    return sorted(n for n in found if not _expected(n, expected))


def silenced_verdict(
    now: GradeResult, skipped: set[str], before: SuiteRun, check: TestsCheck
) -> GradeResult:
    """A passing run's verdict once the base as it was (`before`) has run: a test that passed
    there and is `skipped` now fails the criterion, unless the contract expects it."""
    silenced = silenced_tests(skipped, before.outcomes, check.expected_changes)
    if not silenced:
        return now
    return _graded(
        now,
        "fail",
        ReasonCode.BASE_TEST_FAILED,
        f"{counted(len(silenced), 'test')} passed at base and"
        f" {agrees(len(silenced), 'is', 'are')} skipped now: {_names(silenced)}; a skip the base"
        " did not have hides what the test checked (list a test in the check's expected_changes"
        " if the contract changes it)",
        [*now.evidence_ids, *before.verdict.evidence_ids],
    )


def _module_prefixes(name: str) -> tuple[str, ...]:
    """The test id prefixes a skip named by a module or file covers (`tests.test_calc`,
    `tests/test_calc.py`)."""
    path = name.replace(".", "/") + ".py" if "/" not in name and "::" not in name else name
    return tuple(f"{p}{sep}" for p in {name, path} for sep in ("::", " > ", " - "))


async def edited_tests_verdict(
    now: GradeResult,
    check: TestsCheck,
    form: SuiteRun,
    names: list[str],
    base_only: Callable[[], Awaitable[SuiteRun]],
    restored: bool = True,
) -> GradeResult:
    """The criterion's verdict once the base's versions of the edited tests have run.

    `restored`: the base-tests run put back test files the change edited (it may only have left
    out new ones, such as a conftest.py: what those change is the harness check's to judge).

    Args:
        now: The verdict of the evaluated tree's own run.
        check: The check (for `expected_changes`).
        form: The run of the base's versions of the edited test files on the evaluated code.
        names: `suspects(now, form)`.
        base_only: Runs the base as it was (called only when there are suspects).
    """
    ids = [*now.evidence_ids, *form.verdict.evidence_ids]
    if form.verdict.code == ReasonCode.RUNNER_BYPASSED:
        return replace(form.verdict, evidence_ids=list(dict.fromkeys(ids)))
    if now.status == "pass" and form.verdict.code not in _WHOLE:
        # The base form did not run to its end (timed out, crashed, killed, ran no test, exited
        # without a reason its tests give): a test it never reached has no result, so no suspect,
        # and the code under test can choose to stop it just before a test that would fail.
        if (not restored or not form.outcomes) and not (await base_only()).outcomes:
            # The base as it was has no test this check runs (a check of a new test file, a new
            # folder of tests) and either only the change's new test files were left out, or the
            # base form found no test either: there is no base test to hide.
            return replace(now, evidence_ids=list(dict.fromkeys(ids)))
        return _unconfirmed(
            now,
            "the base's versions of the test files this change edited did not run to their end"
            f" on it ({form.verdict.reason}), so",
            ids,
        )
    if not names or now.status == "unscored":
        # The base form's run is the criterion's evidence too: it ran for it.
        return replace(now, evidence_ids=list(dict.fromkeys(ids)))
    before = await base_only()
    ids += before.verdict.evidence_ids
    if not before.outcomes:
        # Tests fail in their base form and the base as it was gave no account to tell a broken
        # behaviour from one that never worked (it timed out, crashed, or wrote no report): the
        # edited copies' pass is not confirmed, so it is no pass.
        return _unconfirmed(
            now,
            f"{counted(len(names), 'test')} of the base's fail in their base form on this change"
            f" ({_names(names)}) and the base as it was gave no result to compare with"
            f" ({before.verdict.reason});",
            ids,
        )
    passed = {t.name for t in before.outcomes if t.outcome == "passed"}
    broken = [n for n in names if n in passed]
    allowed = [n for n in broken if _expected(n, check.expected_changes)]
    broken = [n for n in broken if n not in allowed]
    failing = {t.name for t in before.outcomes if t.outcome in _FAILING}
    # A test that failed at base and still fails on the evaluated code in the base-tests run
    # passes only because of what the change wrote into the tests: its edited copy, or its new
    # test files (a new file that replaces the code under test for the whole session, marks every
    # test as expected to fail, or swaps what the test imports). Test code the change adds may
    # add tests; it may not change how the base's own tests end.
    unfixed = [n for n in names if n in failing and not _expected(n, check.expected_changes)]
    if not broken and unfixed:
        return _unfixed(now, form, unfixed, ids, restored)
    lost = _lost(form, before, names, check.expected_changes)
    if not broken and lost:
        why = _first_error(form, names[0]) or names[0]
        return _unconfirmed(
            now,
            f"{counted(len(lost), 'test')} that passed at base never ran in their base form, which"
            f" could not be collected or built against this change ({why}):"
            f" {_names(lost)};",
            ids,
            " (list the tests in the check's expected_changes if the contract changes what they"
            " use)",
        )
    if not broken:
        note = f"; base form changed as the contract expects: {_names(allowed)}" if allowed else ""
        return _graded(now, now.status, now.code, now.reason + note, ids)
    first = _first_error(form, broken[0])
    detail = f" ({first})" if first else ""
    said = (
        f"{counted(len(broken), 'test')} passed at base and {agrees(len(broken), 'fails', 'fail')}"
    )
    if restored:
        said += (
            f" now in their base form, which the change edited: {_names(broken)}{detail}; the"
            " edited copies pass, the behaviour they checked is broken"
        )
    else:
        said += (
            f" now without the change's new test files: {_names(broken)}{detail}; they pass only"
            " in a run with those files, whose tests ran in the same session and acted on them"
        )
    return _graded(
        now,
        "fail",
        ReasonCode.BASE_TEST_FAILED,
        said + " (list a test in the check's expected_changes if the contract changes it)",
        ids,
    )


def _unfixed(
    now: GradeResult, form: SuiteRun, names: list[str], ids: list[str], restored: bool
) -> GradeResult:
    """Tests that failed at base and still fail in their base form, or without the change's new
    test files: only the change's edited copies pass (their expected values rewritten to what the
    code returns, say), or only a run with its new test files."""
    first = _first_error(form, names[0])
    detail = f" ({first})" if first else ""
    failed = (
        f"{counted(len(names), 'test')} failed at base and still"
        f" {agrees(len(names), 'fails', 'fail')}"
    )
    if restored:
        said = (
            f" in their base form, which the change edited: {_names(names)}{detail}; only the"
            " edited copies pass, so the change made them pass by editing them, not by fixing"
            " what they check"
        )
    else:
        said = (
            f" on this change without its new test files: {_names(names)}{detail}; they pass"
            " only in a run with those files, which acted on them (a test the change adds may"
            " not change how the base's tests end)"
        )
    return _graded(
        now,
        "fail",
        ReasonCode.BASE_TEST_FAILED,
        failed + said + " (list a test in the check's expected_changes if the contract changes it)",
        ids,
    )


def _lost(form: SuiteRun, before: SuiteRun, names: list[str], expected: list[str]) -> list[str]:
    """Tests that passed at base and are absent from the base-form run, when that run failed on
    something that is no test (a collection or build error): the edit made them unrunnable."""
    ran = {t.name for t in form.outcomes}
    if not any(n not in {t.name for t in before.outcomes} for n in names):
        return []
    return sorted(
        t.name
        for t in before.outcomes
        if t.outcome == "passed" and t.name not in ran and not _expected(t.name, expected)
    )


def _first_error(form: SuiteRun, name: str) -> str:
    """`name: the first line of its message` in the base-form run ("" when it has none); a
    doctest's failure is quoted by what it expected and got, not by its source context."""
    message = next((t.message for t in form.outcomes if t.name == name), "")
    lines = [line.strip() for line in message.strip().splitlines()]
    if "Expected:" in lines and "Got:" in lines:
        expected, got = lines.index("Expected:"), lines.index("Got:")
        want = " ".join(lines[expected + 1 : got]).strip()
        seen = " ".join(lines[got + 1 : got + 3]).strip()
        return f"{name}: expected {want[:90]!s}, got {seen[:90]!s}"
    return f"{name}: {lines[0][:200]}" if lines else ""


def _expected(name: str, patterns: list[str]) -> bool:
    # Test ids hold brackets (`test_add[negative]`), so only `*` is special here (any
    # characters), as the docs say: fnmatch would read `[…]` as a character class.
    return any(name == p or _id_glob(p).fullmatch(name) for p in patterns)


@functools.lru_cache(maxsize=256)
def _id_glob(pattern: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")), re.DOTALL)


def _graded(
    now: GradeResult,
    status: CriterionStatus,
    code: ReasonCode,
    reason: str,
    ids: list[str],
) -> GradeResult:
    return replace(
        now,
        status=status,
        code=code,
        reason=reason,
        evidence_ids=list(dict.fromkeys(ids)),
    )


def _unconfirmed(now: GradeResult, why: str, ids: list[str], hint: str = "") -> GradeResult:
    """Unscored: the base-form runs could not show that the edits hide no failure."""
    reason = f"{why} nothing shows the edits hide no failure{hint}"
    return _graded(now, "unscored", ReasonCode.BASE_TESTS_NOT_RUN, reason, ids)


def _names(names: list[str]) -> str:
    """The first few names, and how many more there are."""
    shown = ", ".join(names[:_SHOWN])
    return shown + (f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else "")


shown_names = _names  # the reasons of tests.py name tests alike


def as_moved(run: SuiteRun, moved: tuple[tuple[str, str], ...]) -> SuiteRun:
    """The base's run with its tests named as the evaluated tree names them, where the change
    moved a source file holding tests to another path of the same module (`calc.py` to
    `calc/__init__.py`): a runner names those tests by the file (pytest's `calc::calc.add`
    becomes `calc.__init__::calc.add`), and a test that passed at base must still be known as
    that test when the base's version of it fails on the moved code."""
    if not moved:
        return run
    # A top-level file's stem is also its module name: the module's spelling is the one kept
    # (a runner that names tests by path writes the suffix too).
    pairs = list(
        {
            old: new
            for now, was in moved
            for old, new in zip(_spellings(was), _spellings(now), strict=True)
        }.items()
    )
    pairs.sort(key=lambda pair: -len(pair[0]))  # `calc.__init__` before `calc`
    outcomes = [t.model_copy(update={"name": _renamed(t.name, pairs)}) for t in run.outcomes]
    return replace(run, outcomes=outcomes)


def _spellings(path: str) -> tuple[str, str, str]:
    """How test names spell a file: its path, its path without the suffix, its module name."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    return path, stem, stem.replace("/", ".")


_ENDS = ("::", " ", ">", "/", "#")


def _renamed(name: str, pairs: list[tuple[str, str]]) -> str:
    for old, new in pairs:
        rest = name[len(old) :]
        if name.startswith(old) and (not rest or rest.startswith(_ENDS)):
            return new + rest
    return name
