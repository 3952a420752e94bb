"""Fail before, pass after, with SWE-bench's semantics.

The base run executes the *current* tests on the *base* code: the base's tracked files with the
test files changed since base, shown at the repository's own path (evaluate/views.py), as
SWE-bench applies its test patch. The criterion
passes only when tests that pass now failed or errored there (FAIL_TO_PASS); a test that could not
even be collected at base (its file failed to import the base code) counts as errored. A base run
that could not execute proves nothing and leaves the criterion `unscored`. Tests that passed at
base and fail now are regressions (PASS_TO_PASS broken), named first.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from referee.tools.adequacy import Instrumented
from referee.tools.graders.base import GradeResult
from referee.tools.insource import Spliced, holds, out_of_line, read_base_build
from referee.tools.models.common import ReasonCode
from referee.tools.models.evidence import TestOutcome
from referee.tools.static.paths import is_test_path
from referee.tools.text import agrees, counted

__all__ = ["SuiteRun", "bracketed", "judge_fail_to_pass", "test_patch"]

_FAILING = ("failed", "error")
_NAMES_SHOWN = 5


@dataclass
class SuiteRun:
    """One run of a test suite: its verdict, per-test outcomes and evidence id."""

    verdict: GradeResult
    outcomes: list[TestOutcome] = field(default_factory=list)
    evidence_id: str | None = None
    duration_s: float = 0.0
    coverage: Instrumented | None = None
    """How the run was measured for diff coverage (where its data is), when it was."""


def test_patch(changed: Iterable[str]) -> list[str]:
    """The changed files a base run takes from the working tree: tests, test helpers and fixtures
    (by path). Nothing else: a source file laid over the base would carry the fix with it."""
    return sorted(p for p in changed if is_test_path(p))


@dataclass(frozen=True)
class _Proof:
    """What the two runs show, test by test."""

    fail_to_pass: list[str]
    passed_at_base: list[str]
    not_run_at_base: list[str]
    broken_at_base: list[str]
    """Failures at base that are no test of the current run: collection or import errors."""


def _proof(before: SuiteRun, now: SuiteRun) -> _Proof:
    now_names = {t.name for t in now.outcomes}
    at_base = {t.name: t.outcome for t in before.outcomes}
    broken = [t.name for t in before.outcomes if t.outcome in _FAILING and t.name not in now_names]
    passing = [t.name for t in now.outcomes if t.outcome == "passed"]
    absent = [n for n in passing if n not in at_base]
    failed = [n for n in passing if at_base.get(n) in _FAILING]
    return _Proof(
        fail_to_pass=failed + (absent if broken else []),
        passed_at_base=[n for n in passing if at_base.get(n) == "passed"],
        not_run_at_base=[] if broken else absent,
        broken_at_base=broken,
    )


def regressions(before: SuiteRun, now: SuiteRun) -> list[str]:
    """Tests that passed at base and fail now (PASS_TO_PASS broken)."""
    passed_before = {t.name for t in before.outcomes if t.outcome == "passed"}
    return sorted(t.name for t in now.outcomes if t.outcome in _FAILING and t.name in passed_before)


def bracketed(first: SuiteRun, last: SuiteRun) -> tuple[SuiteRun, list[str]]:
    """A bug fix's two base runs, as one: a test fails at base only if it failed in both, and a
    run that could not judge decides. Where they lie around the current run is drawn (graders/
    tests.py), so a test that tells runs apart by time or by count, and guesses, fails in the
    current run or passes in one of the base runs. Also returns the tests whose outcome at base
    differed between the two."""
    ids = list(dict.fromkeys([*first.verdict.evidence_ids, *last.verdict.evidence_ids]))
    if first.verdict.status == "unscored":
        return SuiteRun(replace(first.verdict, evidence_ids=ids), first.outcomes), []
    passed = {t.name: t for t in first.outcomes if t.outcome == "passed"}
    outcomes = [t if t.outcome == "passed" else passed.get(t.name, t) for t in last.outcomes]
    seen = {t.name for t in last.outcomes}
    outcomes += [t for name, t in passed.items() if name not in seen]
    passed_last = {t.name for t in last.outcomes if t.outcome == "passed"}
    both = seen & {t.name for t in first.outcomes}
    differ = sorted(n for n in both if (n in passed) != (n in passed_last))
    verdict = replace(last.verdict, evidence_ids=ids)
    return SuiteRun(verdict, outcomes, last.evidence_id, last.duration_s, last.coverage), differ


def judge_fail_to_pass(
    now: SuiteRun,
    before: SuiteRun,
    touched: Collection[str] = (),
    sources: Collection[str] = (),
    spliced: Mapping[str, Spliced] | None = None,
) -> GradeResult:
    """The criterion's verdict from the run now and the run of the current tests at base.

    Args:
        touched: The test files the change added or edited (a collection error at base in any
            other file says the base run is broken, not that the tests fail without the fix).
        sources: The source files the change edited. Tests that live in them (a Rust
            `#[cfg(test)]` module, a doctest, an in-source vitest block) ran at base in the
            base's version, so they are compared with nothing: neither a regression nor a proof.
        spliced: The source files whose test blocks the base run had in their current version
            (tools/insource): their tests are compared as a test file's are.
    """
    ids = [*now.verdict.evidence_ids, *before.verdict.evidence_ids]
    spliced = spliced or {}
    build = read_base_build(before.outcomes, now.outcomes, spliced, touched)
    before = SuiteRun(
        before.verdict, build.outcomes, before.evidence_id, before.duration_s, before.coverage
    )
    in_source = sorted(
        {
            t.name
            for t in [*now.outcomes, *before.outcomes]
            if _in(t.name, sources)
            and not any(holds(p, s, t.name) for p, s in spliced.items())
            and not any(out_of_line(p, spliced.get(p), t.name, touched) for p in sources)
        }
    )
    now, before = _without(now, in_source), _without(before, in_source)
    broken = regressions(before, now)

    def grade(status: str, code: ReasonCode, reason: str) -> GradeResult:
        return GradeResult(
            status=status,  # type: ignore[arg-type]  # one of pass · fail · unscored
            code=code,
            reason=reason,
            evidence_ids=ids,
            regressions=broken,
            tests=now.verdict.tests,
        )

    lead = f"regressions (passed at base, fail now): {_names(broken)}; " if broken else ""
    if now.verdict.status == "unscored":
        return grade("unscored", now.verdict.code, lead + now.verdict.reason)
    if before.verdict.status == "unscored":
        return grade(
            "unscored",
            ReasonCode.BASE_NOT_RUN,
            "the current tests could not run on the base code, so nothing shows they fail without"
            f" the change: {before.verdict.reason}",
        )
    if now.verdict.status != "pass":
        return grade("fail", ReasonCode.FAILS_NOW, f"{lead}fails now: {now.verdict.reason}")
    unloaded = build.broken or _unloaded_at_base(before, now, touched)
    if unloaded:
        return grade("unscored", ReasonCode.BASE_NOT_RUN, unloaded)
    proof = _proof(before, now)
    if proof.fail_to_pass:
        note = f"; at base, {_names(build.caused)} did not compile" if build.caused else ""
        note += f"; {_in_source_note(in_source)}" if in_source else ""
        return grade("pass", ReasonCode.PASSED, _passed_text(proof, now, before) + note)
    skipped = sorted(
        t.name for t in now.outcomes if t.outcome == "skipped" and _in(t.name, touched)
    )
    if skipped:
        # The change's own tests did not run now (a skip mark, a focus elsewhere in their file):
        # they prove nothing either way, and "passes at base too" would blame the wrong thing.
        return grade(
            "fail",
            ReasonCode.NEW_TESTS_SKIPPED,
            f"the change's tests are skipped now: {_names(skipped)} (this run:"
            f" {now.verdict.reason}); no test fails at base and passes now, so nothing shows the"
            " fix works: remove the skip or focus, or run them",
        )
    if in_source:
        return grade(
            "unscored",
            ReasonCode.BASE_NOT_RUN,
            f"{_in_source_note(in_source)}, and no test outside them fails at base: nothing shows"
            " the tests fail without the change (put the new tests in a test file, such as"
            " Rust's tests/, or judge the fix by reading it)",
        )
    if proof.not_run_at_base:
        return grade(
            "fail",
            ReasonCode.NOT_RUN_AT_BASE,
            f"{counted(len(proof.not_run_at_base), 'test')} passing now did not run at base"
            f" ({_names(proof.not_run_at_base)}) and none failed there ({before.verdict.reason}):"
            " nothing shows the tests fail without the change",
        )
    return grade(
        "fail",
        ReasonCode.PASSES_AT_BASE,
        f"passes at base too ({before.verdict.reason}): the tests do not exercise the fix",
    )


def _in(name: str, sources: Collection[str]) -> bool:
    return any(name.startswith(p + sep) for p in sources for sep in _ID_SEPARATORS)


_ID_SEPARATORS = ("::", " - ", " > ", " ")


def _without(run: SuiteRun, names: Collection[str]) -> SuiteRun:
    if not names:
        return run
    kept = [t for t in run.outcomes if t.name not in names]
    return SuiteRun(run.verdict, kept, run.evidence_id, run.duration_s, run.coverage)


def _in_source_note(names: Sequence[str]) -> str:
    return (
        f"{counted(len(names), 'test')} {agrees(len(names), 'lives', 'live')} in source files"
        f" the change edited ({_names(names)}); the"
        " base run has the base's version of those files, so they are not compared"
    )


def _unloaded_at_base(before: SuiteRun, now: SuiteRun, touched: Collection[str]) -> str | None:
    """Why the base run's collection errors prove nothing, or None when they may.

    A test file the change's tests touch may fail to load at base (it imports what the fix adds):
    that is a failure before. One they do not touch failing there, or every file failing with one
    error, says the base run itself is broken (an install that points elsewhere, a generated file
    it lacks), and every test of those files would otherwise count as failing before the fix.
    """
    now_names = {t.name for t in now.outcomes}
    broken = [t for t in before.outcomes if t.outcome in _FAILING and t.name not in now_names]
    if not broken:
        return None
    untouched = [t for t in broken if _file_like(t.name) and not _touched(t.name, touched)]
    if not untouched:
        return None
    firsts = {_first_line(t.message) for t in broken}
    if len(broken) > 1 and len(firsts) == 1 and next(iter(firsts)):
        error = next(iter(firsts))
        return (
            f"at base, every one of {len(broken)} test files failed to load with the same error"
            f" ({error}){_likely_cause(error)}: nothing shows the tests fail without the change"
        )
    message = _first_line(untouched[0].message)
    return (
        f"at base, {_names([t.name for t in untouched])} could not be collected although the"
        f" change's tests do not touch {'it' if len(untouched) == 1 else 'them'}"
        f"{f' ({message})' if message else ''}{_likely_cause(message)}: the base run is broken,"
        " so nothing shows the tests fail without the change"
    )


_FILE_SUFFIX = (".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx", ".php", ".rb")


def _file_like(name: str) -> bool:
    return name.split("::")[0].endswith(_FILE_SUFFIX)


def _touched(name: str, touched: Collection[str]) -> bool:
    path = name.split("::")[0]
    return any(path == p or path.endswith("/" + p) or p.endswith("/" + path) for p in touched)


def _first_line(message: str) -> str:
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    # pytest ends a collection error with the exception line (`E   ModuleNotFoundError: …`).
    errors = [line for line in lines if line.startswith("E ")]
    chosen = errors[-1][1:].strip() if errors else (lines[-1] if lines else "")
    return chosen[:240]


def _likely_cause(error: str) -> str:
    if "ModuleNotFoundError" in error or "ImportError" in error or "Cannot find module" in error:
        return (
            "; likely an install that points at another checkout (an editable install's .pth),"
            " or a generated or ignored file the base run does not have"
        )
    return ""


def _passed_text(proof: _Proof, now: SuiteRun, before: SuiteRun) -> str:
    n = len(proof.fail_to_pass)
    text = (
        f"{counted(n, 'test')} {agrees(n, 'fails', 'fail')} at base and"
        f" {agrees(n, 'passes', 'pass')} now: {_names(proof.fail_to_pass)}"
    )
    files = [b for b in proof.broken_at_base if _file_like(b)]
    if files:
        text += f" (at base: {_names(files)} could not be collected)"
    # A package that failed as a whole (a Go test binary that panicked, a build that broke) ran
    # none of its tests after the failure: they count as failing at base, and its reader says why.
    said = {t.name: _first_line(t.message) for t in before.outcomes}
    for package in [b for b in proof.broken_at_base if not _file_like(b)][:_NAMES_SHOWN]:
        why = f": {said[package]}" if said.get(package) else ""
        text += f" (at base, {package} failed as a whole{why}; its tests that did not run count)"
    if proof.passed_at_base:
        text += f"; {len(proof.passed_at_base)} passed at base too"
    return f"{text} ({now.verdict.reason})"


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(names[:_NAMES_SHOWN])
    return shown + (f" and {len(names) - _NAMES_SHOWN} more" if len(names) > _NAMES_SHOWN else "")
