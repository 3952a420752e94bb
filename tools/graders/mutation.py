"""The mutation stage: mutants of the changed lines run against one criterion's tests.

Each mutant is one changed file with one small bug (see `referee.tools.adequacy.mutants`), laid
over the evaluated tree in the sandbox's overlay as a hold-out is; the check's own command runs
on it, one mutant at a time (a test that sensed another run beside it must not kill every mutant),
each with a timeout derived from the unmutated run. The unmutated suite runs once more among
them, at a place drawn for the stage: tests that no longer pass make no score (every mutant runs
after the unmutated run, so a test that changes its mind with time, or counts its runs, would
kill them all). A
mutant survives when the suite still passes: the tests execute that line but would not notice it
being wrong. A mutant that makes the suite fail, crash or hang is killed. The whole stage is one
evidence item, which every surviving mutant's issue cites.

In a compiled language every mutant run rebuilds what the mutant changed (through the check's own
command: go's build cache, cargo's and Maven's incremental builds do the rest). A mutant the
compiler refuses is `not_compiled`: no test judged it, so it is neither killed nor survived and
stays out of the score, its first compiler error kept as the reason.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import anyio.to_thread

from referee.tools.adequacy import Lines, MutantSpec, generate, read_source, spread
from referee.tools.graders.base import GradeContext, GradeResult, anonymous_folder
from referee.tools.graders.fail_to_pass import SuiteRun
from referee.tools.graders.suite import Launch, SuiteCall, launch_suite
from referee.tools.models.adequacy import Mutant, MutantStatus, Mutation
from referee.tools.models.checks import TestsCheck
from referee.tools.runners import Plan
from referee.tools.runners.builds import build_failure, got_to_tests
from referee.tools.text import shown

__all__ = ["describe", "mutant_timeout", "run_mutants"]

_KILLERS_SHOWN = 3


def mutant_timeout(check: TestsCheck, baseline_s: float) -> float:
    """Three times the unmutated run plus slack for a loaded machine, within the check's own."""
    return min(check.timeout_s, 3 * baseline_s + 10)


async def run_mutants(
    ctx: GradeContext,
    criterion_id: str,
    check: TestsCheck,
    baseline: SuiteRun,
    targets: Mapping[str, Lines],
) -> Mutation:
    """Generate, run and record the mutants of `targets` for one criterion."""
    found: dict[str, list[MutantSpec]] = {}
    for rel, lines in targets.items():
        source = read_source(ctx.workdir, rel)
        if source is not None:
            found[rel] = generate(rel, source, lines)
    chosen = spread(found, check.max_mutants)
    generated = sum(len(v) for v in found.values())
    if not chosen:
        return Mutation(note="no mutable expression on the changed lines the tests executed")
    timeout = mutant_timeout(check, baseline.duration_s)
    started = time.monotonic()
    # The unmutated suite runs once more among the mutants, at a place drawn now and never
    # shown before the verdict: after the first run, so that a test that changes its mind with
    # time fails there too, and where no test can count its way to it.
    again = secrets.randbelow(len(chosen) + 1)
    void: str | None = None
    done: list[Mutant] = []
    for index in range(len(chosen) + 1):
        if index == again:
            void = await _unmutated_again(ctx, criterion_id, check)
        if index < len(chosen):
            done.append(await _run_one(ctx, criterion_id, check, chosen[index], index, timeout))
    place = f"before mutant {again + 1}" if again < len(chosen) else "after the last mutant"
    rerun = f"{'failed' if void else 'passed':12} the unmutated suite, run again {place}"
    killed = sum(m.status in ("killed", "timeout") for m in done)
    survived = [m for m in done if m.status == "survived"]
    judged = killed + len(survived)
    mutation = Mutation(
        score=round(killed / judged, 3) if judged and not void else None,
        generated=generated,
        run=judged,
        killed=killed,
        not_compiled=sum(m.status == "not_compiled" for m in done),
        survived=survived,
        mutants=done,
        timeout_s=round(timeout, 1),
        duration_s=round(time.monotonic() - started, 2),
        note=void or (_unjudged(done) if not judged else ""),
    )
    mutation.evidence_id = await anyio.to_thread.run_sync(
        _record, ctx, criterion_id, check, mutation, rerun
    )
    return mutation


async def _unmutated_again(ctx: GradeContext, criterion_id: str, check: TestsCheck) -> str | None:
    """Why no mutant's outcome counts, when the unmutated tests, run again among the mutants,
    no longer pass. Every mutant runs after the unmutated run: a test that expects one thing
    before a deadline and another after it (or counts its runs) would "kill" every mutant."""
    label = f"{criterion_id}-unmutated-again"
    launched = await launch_suite(ctx, SuiteCall(check, label, criterion_id))
    found = _outcome(launched)
    if found.status == "survived":
        return None
    failing = f" ({', '.join(found.killers)})" if found.killers else ""
    return (
        f"no score: the unmutated tests passed before the mutants ran and not among them"
        f"{failing}; tests whose outcome depends on when they run tell nothing about the mutants"
    )


async def _run_one(
    ctx: GradeContext,
    criterion_id: str,
    check: TestsCheck,
    spec: MutantSpec,
    index: int,
    timeout: float,
) -> Mutant:
    layer = anonymous_folder(ctx.scratch)
    source = read_source(ctx.workdir, spec.path) or b""
    target = layer / spec.path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(spec.apply(source))
    if ctx.stamp is not None:  # dated as the evaluated tree's changed files are (evaluate/times.py)
        os.utime(target, (ctx.stamp, ctx.stamp))
    label = f"{criterion_id}-mutant-{index + 1}"
    call = SuiteCall(check, label, criterion_id, layers=(layer,), timeout_s=timeout)
    launched = await launch_suite(ctx, call)
    found = _outcome(launched)
    if isinstance(launched, Launch) and found.status in ("killed", "timeout"):
        found = await anyio.to_thread.run_sync(_unbuilt, launched, found, ctx.root, timeout)
    return Mutant(
        location=shown(spec.location),
        original=spec.original,
        replacement=spec.replacement,
        operator=spec.operator,
        status=found.status,
        duration_s=round(found.duration_s, 2),
        killed_by=found.killers,
        note=found.note,
    )


@dataclass(frozen=True)
class _Outcome:
    status: MutantStatus
    duration_s: float = 0.0
    killers: list[str] = field(default_factory=list)
    note: str = ""


def _outcome(launched: Launch | GradeResult) -> _Outcome:
    if isinstance(launched, GradeResult):
        return _Outcome("not_run")
    duration = launched.result.duration_s
    if launched.result.killed is not None and launched.result.killed.code == "sandbox_stopped":
        # The tests stopped their own sandbox: nothing was decided about the mutant.
        return _Outcome("not_run", duration)
    if launched.result.timed_out or launched.result.killed is not None:
        return _Outcome("timeout", duration)
    if launched.verdict.status == "pass":
        return _Outcome("survived", duration)
    failing = [t.name for t in launched.read.outcomes if t.outcome in ("failed", "error")]
    return _Outcome("killed", duration, failing[:_KILLERS_SHOWN])


def _unbuilt(launched: Launch, found: _Outcome, root: Path, timeout: float) -> _Outcome:
    """A failed run that stopped at the build: the compiler refused the mutant, or the rebuild
    outlasted the mutant's timeout before any test started (a loaded machine, not a kill)."""
    logs = (launched.result.stdout_path, launched.result.stderr_path)
    if found.status == "killed" and (why := build_failure(launched.read.outcomes, logs, root)):
        return _Outcome("not_compiled", found.duration_s, note=why)
    planned = launched.planned
    if (
        launched.result.timed_out
        and isinstance(planned, Plan)
        and got_to_tests(planned.runner, logs) is False
    ):
        note = f"the rebuild did not finish within the mutant's timeout ({timeout:g} s)"
        return _Outcome("not_run", found.duration_s, note=note)
    return found


def _unjudged(done: list[Mutant]) -> str:
    """Why no mutant has a verdict: the compiler refused them all, or none could run."""
    refused = [m for m in done if m.status == "not_compiled"]
    if refused:
        return f"no mutant built: all {len(refused)} were refused ({refused[0].note})"
    notes = [m.note for m in done if m.note]
    return "no mutant could be run" + (f" ({notes[0]})" if notes else "")


def describe(mutant: Mutant) -> str:
    """`` `<` becomes `<=` at cart.py:42 `` (a removal says so)."""
    if mutant.replacement in ("", "pass", ";"):
        return f"`{mutant.original.strip()}` is removed at {mutant.location}"
    return f"`{mutant.original}` becomes `{mutant.replacement}` at {mutant.location}"


def _count(mutation: Mutation, status: MutantStatus) -> int:
    return sum(m.status == status for m in mutation.mutants)


def _record(
    ctx: GradeContext, criterion_id: str, check: TestsCheck, mutation: Mutation, rerun: str
) -> str:
    lines = [
        f"{m.status:12} {m.location:28} {m.operator:13} {describe(m)}"
        + (f"  (killed by {', '.join(m.killed_by)})" if m.killed_by else "")
        + (f"  ({m.note})" if m.note else "")
        + f"  [{m.duration_s:.1f} s]"
        for m in mutation.mutants
    ] + [rerun]
    survived = len(mutation.survived)
    score = f"{mutation.score:.2f}" if mutation.score is not None else "none"
    summary = (
        f"mutation score {score}: {mutation.killed} of {mutation.run} mutants of the"
        f" changed lines killed"
        + (f", {survived} survived" if survived else "")
        + (
            f", {mutation.not_compiled} did not compile (left out of the score)"
            if mutation.not_compiled
            else ""
        )
        + (f", {unrun} not run" if (unrun := _count(mutation, "not_run")) else "")
        + f" ({mutation.generated} possible, each within {mutation.timeout_s} s)"
        + (f"; {mutation.note}" if mutation.note else "")
    )
    item = ctx.recorder.record(
        tool="mutation",
        summary=summary,
        command=f"{mutation.run} mutants of the changed lines, each against: "
        + " ".join(check.argv),
        stdout="\n".join(lines),
        exit_code=1 if survived or mutation.score is None else 0,
        duration_s=mutation.duration_s,
        criterion_id=criterion_id,
        details={"mutants": [m.model_dump(mode="json") for m in mutation.mutants]},
    )
    return item.id
