"""The mutation stage: mutants of the changed lines run against one criterion's tests.

Each mutant is one changed file with one small bug (see `referee.tools.adequacy.mutants`), laid
over the evaluated tree in the sandbox's overlay as a hold-out is; the check's own command runs
on it, up to `max_concurrency` at a time, each with a timeout derived from the unmutated run. A
mutant survives when the suite still passes: the tests execute that line but would not notice it
being wrong. A mutant that makes the suite fail, crash or hang is killed. The whole stage is one
evidence item, which every surviving mutant's issue cites.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import anyio

from referee.tools.adequacy import Lines, MutantSpec, generate, read_source, spread
from referee.tools.graders.base import GradeContext, GradeResult, anonymous_folder
from referee.tools.graders.fail_to_pass import SuiteRun
from referee.tools.graders.suite import Launch, SuiteCall, launch_suite
from referee.tools.models.adequacy import Mutant, MutantStatus, Mutation
from referee.tools.models.checks import TestsCheck
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
    mutants: list[Mutant | None] = [None] * len(chosen)

    async def one(index: int, spec: MutantSpec) -> None:
        mutants[index] = await _run_one(ctx, criterion_id, check, spec, index, timeout)

    async with anyio.create_task_group() as group:
        for index, spec in enumerate(chosen):
            group.start_soon(one, index, spec)
    done = [m for m in mutants if m is not None]
    killed = sum(m.status in ("killed", "timeout") for m in done)
    mutation = Mutation(
        score=round(killed / len(done), 3) if done else None,
        generated=generated,
        run=len(done),
        killed=killed,
        survived=[m for m in done if m.status == "survived"],
        mutants=done,
        timeout_s=round(timeout, 1),
        duration_s=round(time.monotonic() - started, 2),
    )
    mutation.evidence_id = await anyio.to_thread.run_sync(
        _record, ctx, criterion_id, check, mutation
    )
    return mutation


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
    label = f"{criterion_id}-mutant-{index + 1}"
    call = SuiteCall(check, label, criterion_id, layers=(layer,), timeout_s=timeout)
    launched = await launch_suite(ctx, call)
    status, killers, duration = _outcome(launched)
    return Mutant(
        location=shown(spec.location),
        original=spec.original,
        replacement=spec.replacement,
        operator=spec.operator,
        status=status,
        duration_s=round(duration, 2),
        killed_by=killers,
    )


def _outcome(launched: Launch | GradeResult) -> tuple[MutantStatus, list[str], float]:
    if isinstance(launched, GradeResult):
        return "not_run", [], 0.0
    duration = launched.result.duration_s
    if launched.result.killed is not None and launched.result.killed.code == "sandbox_stopped":
        # The tests stopped their own sandbox: nothing was decided about the mutant.
        return "not_run", [], duration
    if launched.result.timed_out or launched.result.killed is not None:
        return "timeout", [], duration
    if launched.verdict.status == "pass":
        return "survived", [], duration
    failing = [t.name for t in launched.read.outcomes if t.outcome in ("failed", "error")]
    return "killed", failing[:_KILLERS_SHOWN], duration


def describe(mutant: Mutant) -> str:
    """`` `<` becomes `<=` at cart.py:42 `` (a removal says so)."""
    if mutant.replacement in ("", "pass"):
        return f"`{mutant.original.strip()}` is removed at {mutant.location}"
    return f"`{mutant.original}` becomes `{mutant.replacement}` at {mutant.location}"


def _record(ctx: GradeContext, criterion_id: str, check: TestsCheck, mutation: Mutation) -> str:
    lines = [
        f"{m.status:8} {m.location:28} {m.operator:13} {describe(m)}"
        + (f"  (killed by {', '.join(m.killed_by)})" if m.killed_by else "")
        + f"  [{m.duration_s:.1f} s]"
        for m in mutation.mutants
    ]
    survived = len(mutation.survived)
    summary = (
        f"mutation score {mutation.score:.2f}: {mutation.killed} of {mutation.run} mutants of the"
        f" changed lines killed"
        + (f", {survived} survived" if survived else "")
        + f" ({mutation.generated} possible, each within {mutation.timeout_s} s)"
    )
    item = ctx.recorder.record(
        tool="mutation",
        summary=summary,
        command=f"{mutation.run} mutants of the changed lines, each against: "
        + " ".join(check.argv),
        stdout="\n".join(lines),
        exit_code=1 if survived else 0,
        duration_s=mutation.duration_s,
        criterion_id=criterion_id,
        details={"mutants": [m.model_dump(mode="json") for m in mutation.mutants]},
    )
    return item.id
