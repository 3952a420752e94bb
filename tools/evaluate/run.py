"""Running every check of one evaluation: criteria through their graders, the static pipeline,
tamper detection and (at depth `deep`) the perturbed copy, within each phase.

The hold-out checks run in a phase of their own, after every visible run has ended (phases.py):
first the visible checks, the static pipeline, tamper detection and the perturbed reruns of the
visible tests, then the hidden checks and the perturbed reruns of the hidden tests. Within a
phase the browser checks come last, once no command of the generator's runs any more.

The generator's commands run one at a time (beside referee's own static pipeline and readers);
shared resources (the static report, the base worktree, the served app, the browser) start on
first use, once; the served app, its network and its browser belong to a phase and stop with it,
the rest when the run ends.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

import anyio

from referee.tools.claims.run import run_claims
from referee.tools.environment import (
    bytecode_after,
    environment_findings,
    interpreter_environments,
)
from referee.tools.evaluate.harness import base_harness, record_harness
from referee.tools.evaluate.phases import PhaseGate
from referee.tools.evaluate.static import run_static
from referee.tools.evaluate.target import Workspace
from referee.tools.evaluate.times import dated, fresh_stamp, fresh_times
from referee.tools.evaluate.views import evaluated_view, named_view
from referee.tools.evidence.recorder import EvidenceRecorder
from referee.tools.graders import (
    GRADERS,
    BaseHarness,
    GradeContext,
    GradeResult,
    ServeState,
    StaticRun,
    private_network,
    run_suite,
    start_serve,
)
from referee.tools.graders.base import BaseApp, ViewName, anonymous_folder
from referee.tools.graders.base_app import start_base_app
from referee.tools.holdouts import HoldoutSource
from referee.tools.models.checks import CommandCheck, TestsCheck
from referee.tools.models.common import Depth, Scope
from referee.tools.models.contract import Contract, ContractConfig, Criterion
from referee.tools.models.evaluation import Perturbation, TreeChanged
from referee.tools.perturbation import PerturbedCopy, copy_perturbed
from referee.tools.process import HostLauncher, Launcher, Network
from referee.tools.repo import (
    BadObject,
    TreeView,
    changed_lines,
    is_git_repo,
    list_files,
    tree_files,
)
from referee.tools.settings import Settings
from referee.tools.static import list_files as static_files
from referee.tools.tampering import Tampering, run_tampering
from referee.tools.text import counted

if TYPE_CHECKING:
    from referee.tools.browser.baselines import Baselines
    from referee.tools.browser.pool import BrowserPool

__all__ = ["Outcomes", "Progress", "RunPlan", "run_checks"]

Progress = Callable[[float, float | None, str], Awaitable[None]]
T = TypeVar("T")


@dataclass
class Outcomes:
    """Everything the checks of one evaluation found."""

    results: dict[str, GradeResult] = field(default_factory=dict)
    static: StaticRun | None = None
    tampering: list[Tampering] = field(default_factory=list)
    tampering_ids: list[str] = field(default_factory=list)
    tree_changed: TreeChanged = field(default_factory=TreeChanged)
    perturbation: Perturbation | None = None


@dataclass(frozen=True)
class RunPlan:
    """What one run executes, and with what."""

    contract: Contract
    criteria: list[Criterion]
    workspace: Workspace
    recorder: EvidenceRecorder
    settings: Settings
    home: Path
    scope: Scope
    depth: Depth
    launcher: Launcher = field(default_factory=HostLauncher)
    browser_pool: BrowserPool | None = None
    on_progress: Progress | None = None
    holdouts: HoldoutSource | None = None
    config: ContractConfig | None = None
    baselines: Baselines | None = None
    phases: PhaseGate = field(default_factory=PhaseGate)
    """Orders this run's phases with the other evaluations of the server (phases.py)."""


class _Once(Generic[T]):
    """Compute an async value once, however many tasks ask for it."""

    def __init__(self, compute: Callable[[], Awaitable[T]]) -> None:
        self._compute, self._lock = compute, anyio.Lock()
        self._value: T | None = None
        self._done = False

    async def get(self) -> T:
        async with self._lock:
            if not self._done:
                self._value, self._done = await self._compute(), True
        return self._value  # type: ignore[return-value]  # set above before _done


async def run_checks(plan: RunPlan) -> Outcomes:
    """Run every check of the plan, the visible ones first and the hold-outs once they have all
    ended, and return what they found."""
    outcomes = Outcomes()
    tick = _ticker(plan)
    hidden = [c for c in plan.criteria if c.check is not None and c.holdout]
    visible = [c for c in plan.criteria if c.check is not None and c not in hidden]
    perturbed: _Perturbed | None = None
    with tempfile.TemporaryDirectory(prefix="referee-run-") as scratch:
        shared = await _shared(plan, Path(scratch))
        async with plan.phases.visible(), _context(plan, shared, hidden_phase=False) as ctx:

            async def perturb() -> None:
                nonlocal perturbed
                if plan.depth == "deep" and plan.workspace.changed:
                    perturbed = await _perturbed(ctx, plan)
                    await perturbed.rerun(ctx, outcomes, hidden=False)

            await _run_phase(ctx, plan, outcomes, tick, visible, pipeline=True, then=perturb)
        # Every visible run has ended here, and the served app, its network and its browser with
        # them: nothing the generator can read is alive while a hold-out runs.
        if hidden or (perturbed is not None and perturbed.hidden_tests):
            async with plan.phases.hidden(), _context(plan, shared, hidden_phase=True) as ctx:

                async def perturb_hidden() -> None:
                    if perturbed is not None:
                        await perturbed.rerun(ctx, outcomes, hidden=True)

                await _run_phase(
                    ctx, plan, outcomes, tick, hidden, pipeline=False, then=perturb_hidden
                )
        if perturbed is not None:
            outcomes.perturbation = perturbed.result()
    for criterion in plan.criteria:
        if criterion.check is None:
            await tick(criterion.id)
    return outcomes


def _ticker(plan: RunPlan) -> Callable[[str], Awaitable[None]]:
    total, done = len(plan.criteria) + 2, 0

    async def tick(what: str) -> None:
        nonlocal done
        done += 1
        if plan.on_progress:
            await plan.on_progress(done, total, what)

    return tick


async def _run_phase(
    ctx: GradeContext,
    plan: RunPlan,
    outcomes: Outcomes,
    tick: Callable[[str], Awaitable[None]],
    criteria: list[Criterion],
    *,
    pipeline: bool,
    then: Callable[[], Awaitable[None]],
) -> None:
    """One phase's checks: every run of a command first, beside each other (their commands one
    at a time: the limiter) and, with `pipeline`, beside the static pipeline, tamper detection
    and the environment check; then `then` (the perturbed reruns); the browser checks last.

    The served app starts on a browser check's first use and lives until the phase ends: none of
    the generator's commands runs beside it, since two of its runs alive at once could tell
    each other apart (a lock on a shared file) and the commands are compared with the base's
    runs, made without the app."""
    browsing = [c for c in criteria if c.check is not None and c.check.kind == "browser"]
    with _refused_on_bad_objects():
        async with anyio.create_task_group() as group:
            if pipeline:
                group.start_soon(_static_task, ctx, outcomes, tick)
                group.start_soon(_tamper_task, ctx, plan, outcomes, tick)
                group.start_soon(_environment_task, ctx, plan, outcomes)
            for criterion in criteria:
                if criterion not in browsing:
                    group.start_soon(_grade_task, ctx, criterion, outcomes, tick)
    await then()
    await ctx.occupancy.quiet()  # the served app starts once referee's own work has ended too
    with _refused_on_bad_objects():
        async with anyio.create_task_group() as group:
            for criterion in browsing:
                group.start_soon(_grade_task, ctx, criterion, outcomes, tick)


@contextmanager
def _refused_on_bad_objects() -> Iterator[None]:
    """A rewritten object that any check meets refuses the evaluation as a whole (BadObject, in
    tools/repo/objects.py): the checks run side by side, so it comes in a group, next to the
    cancellations it caused."""
    try:
        yield
    except BaseExceptionGroup as group:
        matched, _ = group.split(BadObject)
        if matched is None:
            raise
        raise _first(matched) from None


def _first(group: BaseExceptionGroup[BadObject]) -> BadObject:
    found = group.exceptions[0]
    return found if isinstance(found, BadObject) else _first(found)


@dataclass
class _Shared:
    """What both phases of a run share: nothing in it runs the generator's code after it is made
    (views and the base harness are folders of referee's; the static report is read once)."""

    scratch: Path
    views: dict[ViewName, _Once[TreeView | None]]
    harness: _Once[BaseHarness]
    static: _Once[StaticRun] | None
    changed_lines: _Once[dict[str, set[int] | None]]
    holdout_layers: dict[str, Path]
    bytecode: tuple[str, ...]
    cold_bytecode: bool
    view: TreeView | None
    fresh: Path | None = None
    """The changed files dated after everything in the tree (times.py), for every run at the
    repository's path (the tree on disk, or a commit of `ref` shown over it, whose stale build
    output on disk is read the same). Only in the sandbox, where a layer is an overlay's:
    without one, a command with a layer runs in a copy of the tree."""
    fresh_disk: Path | None = None
    stamp: float = 0.0
    """The one time every file laid into a run carries (evaluate/times.py)."""


async def _shared(plan: RunPlan, scratch: Path) -> _Shared:
    ws = plan.workspace
    run_root = ws.run_root(plan.launcher)

    async def harness() -> BaseHarness:
        if plan.scope != "task" or ws.base is None:
            return BaseHarness()
        folder = anonymous_folder(scratch)
        return await anyio.to_thread.run_sync(base_harness, ws, folder, _anchor(plan))

    harnessed = _Once(harness)

    def view(name: ViewName) -> _Once[TreeView | None]:
        # Named by chance: a layer's source path can be read inside the sandbox
        # (/proc/self/mountinfo), and `base-tests` would tell the code which run it is in.
        folder = anonymous_folder(scratch)

        async def make() -> TreeView | None:
            # The base's tests run as the base selected them: with its harness too.
            files = (await harnessed.get()).files if name == "base-tests" else []
            return await anyio.to_thread.run_sync(
                named_view, ws, name, run_root, folder, [h.path for h in files]
            )

        return _Once(make)

    stamp = await anyio.to_thread.run_sync(fresh_stamp, tuple({ws.workdir, ws.repo}))
    shared = _Shared(
        scratch=scratch,
        views={name: view(name) for name in ("base", "base-tests", "base-only")},
        harness=harnessed,
        static=None,
        changed_lines=_Once(lambda: _changed_lines(ws, plan.scope)),
        holdout_layers=_holdout_layers(plan, scratch),
        bytecode=await anyio.to_thread.run_sync(_bytecode_folders, plan, ws, run_root),
        cold_bytecode=await anyio.to_thread.run_sync(_bytecode_written, plan, run_root),
        view=await anyio.to_thread.run_sync(
            evaluated_view, ws, run_root, anonymous_folder(scratch)
        ),
        stamp=stamp,
    )
    if not plan.launcher.keeps_writes and run_root == ws.repo:
        shared.fresh = await anyio.to_thread.run_sync(
            fresh_times, ws.workdir, ws.changed, anonymous_folder(scratch), stamp
        )
        shared.fresh_disk = (
            shared.fresh
            if ws.workdir == ws.repo
            else await anyio.to_thread.run_sync(
                fresh_times, ws.repo, ws.changed, anonymous_folder(scratch), stamp
            )
        )
    # Every view is composed before the first command runs: composing writes git objects into
    # the repository's store, which every run sees, and one that appeared between two runs
    # would tell the later one from the earlier. Each layer's files carry the one stamp.
    layers = [v for v in [shared.view, *[await v.get() for v in shared.views.values()]] if v]
    for layer in [*(v.layer for v in layers if v.layer), *shared.holdout_layers.values()]:
        await anyio.to_thread.run_sync(dated, layer, stamp)
    return shared


@asynccontextmanager
async def _context(
    plan: RunPlan, shared: _Shared, *, hidden_phase: bool
) -> AsyncIterator[GradeContext]:
    """One phase's context: the shared folders and reports, and a served app, network and
    browser of its own, stopped when the phase ends."""
    ws = plan.workspace
    async with AsyncExitStack() as stack:

        async def shown(name: ViewName) -> TreeView | None:
            return await shared.views[name].get()

        async def serve() -> ServeState:
            return await start_serve(ctx, stack)

        async def browser() -> BrowserPool:
            # The browser joins the served app's private network, when it has one; else the
            # server's shared Chromium serves (the host's network).
            made = await ctx.network() if plan.contract.serve else None
            network = made if made is not None and not isinstance(made, str) else None
            if network is None and plan.browser_pool is not None:
                return plan.browser_pool
            return await _pool_in(plan, stack, network)

        async def base_app() -> BaseApp:
            async def base_view() -> TreeView | None:
                return await shown("base-only")

            async def pool_in(network: Network) -> BrowserPool:
                return await _pool_in(plan, stack, network)

            return await start_base_app(ctx, stack, base_view, pool_in)

        async def static() -> StaticRun:
            # No command runs beside the analysers (graders/company.py), whoever asks first.
            with ctx.occupancy.joined():
                return await run_static(ctx, plan.scope, plan.home)

        if shared.static is None:
            shared.static = _Once(static)
        ctx = GradeContext(
            holdout_layers=shared.holdout_layers,
            contract=plan.contract,
            repo=ws.repo,
            workdir=ws.workdir,
            scratch=shared.scratch,
            recorder=plan.recorder,
            settings=plan.settings,
            base=ws.base,
            scope_files=await anyio.to_thread.run_sync(_files_on_disk, plan, ws),
            # One command of the generator's at a time: two alive at once could tell each other
            # apart (a lock on a file every sandbox shows at the same inode, the machine's load),
            # and a test that takes a lock first and passes, or fails when it sees another run,
            # would pass now and fail at base, or kill every mutant run beside another.
            limiter=anyio.CapacityLimiter(1),
            slot=plan.phases.command,
            launcher=plan.launcher,
            static_report=shared.static.get,
            views=shown,
            serve=_Once(serve).get,
            harness=shared.harness.get,
            browser_pool=_Once(browser).get,
            tree=ws.target.tree,
            depth=plan.depth,
            scope=plan.scope,
            changed_lines=shared.changed_lines.get,
            config=plan.config,
            run_root=ws.run_root(plan.launcher),
            bytecode=shared.bytecode,
            cold_bytecode=shared.cold_bytecode,
            view=shared.view,
            fresh=shared.fresh,
            fresh_disk=shared.fresh_disk,
            stamp=shared.stamp,
            network=_Once(lambda: private_network(ctx, stack)).get,
            baselines=plan.baselines,
            base_app=_Once(base_app).get,
            created=None if plan.settings.trusted_environment else _created(plan),
            hidden_phase=hidden_phase,
        )
        yield ctx


async def _pool_in(plan: RunPlan, stack: AsyncExitStack, network: Network | None) -> BrowserPool:
    """A browser pool launched into `network` (the host's when None), closed with `stack`."""
    from referee.tools.browser.pool import BrowserPool  # Playwright only when needed

    if network is not None and plan.browser_pool is not None:
        pool = plan.browser_pool.joined(network)
    else:
        pool = BrowserPool(
            env=plan.settings.env, allow_hosts=plan.settings.allow_hosts, network=network
        )
    return await stack.enter_async_context(pool)


async def _changed_lines(ws: Workspace, scope: Scope) -> dict[str, set[int] | None]:
    if scope == "strategic" or ws.base is None or not ws.target.tree:
        return {}
    return await anyio.to_thread.run_sync(changed_lines, ws.repo, ws.base, ws.target.tree)


def _holdout_layers(plan: RunPlan, folder: Path) -> dict[str, Path]:
    """Each hold-out criterion's files, copied out of the vault for this run only."""
    if plan.holdouts is None:
        return {}
    layers = {}
    for criterion in plan.criteria:
        if criterion.holdout and criterion.check is not None:
            layer = plan.holdouts.lay(plan.contract.id, criterion.id, anonymous_folder(folder))
            if layer is not None:
                layers[criterion.id] = layer
    return layers


def _bytecode_folders(plan: RunPlan, ws: Workspace, run_root: Path) -> tuple[str, ...]:
    """The tree's `__pycache__` folders beside its Python sources, which a sandboxed run does not
    see: Python compiles those sources afresh, so a planted .pyc whose header matches a broken
    source is never imported. Installed packages (a virtualenv, in the tree or not) keep their
    bytecode and stay warm. (Outside the sandbox every run gets a fresh PYTHONPYCACHEPREFIX.)"""
    if plan.launcher.keeps_writes or not is_git_repo(ws.repo):
        return ()
    tree = ws.disk_tree if run_root == ws.repo and ws.disk_tree else ws.target.tree
    folders = {posixpath.dirname(p) for p in tree_files(ws.repo, tree) if p.endswith(".py")}
    found = [posixpath.join(f, "__pycache__") for f in sorted(folders)]
    return tuple(p for p in found if (run_root / p).is_dir())


def _bytecode_written(plan: RunPlan, run_root: Path) -> bool:
    """Whether an installed environment of the tree holds bytecode written after the contract:
    then every run compiles afresh (a fresh PYTHONPYCACHEPREFIX), so none of it is imported."""
    anchor = _anchor(plan)
    if anchor is None or plan.launcher.keeps_writes:
        return False  # (outside the sandbox every run has a fresh prefix already)
    return bytecode_after(run_root, anchor) is not None


def _files_on_disk(plan: RunPlan, ws: Workspace) -> list[str]:
    return [f for f in _scope_files(plan, ws) if (ws.workdir / f).is_file()]


def _scope_files(plan: RunPlan, ws: Workspace) -> list[str]:
    """Task scope: the files changed since base; project scope (and outside git): every file.
    (`scope.in_scope` tells the judge what the task is about; it hides nothing from the checks.)"""
    # The repository's, not the workdir's: a commit written out into a folder (`ref`, a canary)
    # is still the change since base.
    if not is_git_repo(ws.repo):
        return static_files(ws.workdir, "project", None)
    if plan.scope == "task":
        return ws.changed
    return list_files(ws.workdir)


async def _static_task(
    ctx: GradeContext, outcomes: Outcomes, tick: Callable[[str], Awaitable[None]]
) -> None:
    outcomes.static = await ctx.static_report()
    await tick("static pipeline")


async def _tamper_task(
    ctx: GradeContext, plan: RunPlan, outcomes: Outcomes, tick: Callable[[str], Awaitable[None]]
) -> None:
    ws = plan.workspace
    if plan.scope == "task" and ws.base:
        with ctx.occupancy.joined():  # no command runs beside the readers (graders/company.py)
            found, ids = await _tampering(ctx, plan)
        outcomes.tampering += found
        outcomes.tampering_ids += ids
    await tick("test tampering")


async def _tampering(ctx: GradeContext, plan: RunPlan) -> tuple[list[Tampering], list[str]]:
    """Tamper detection, the test-claims readers and the base harness's findings."""
    ws = plan.workspace
    assert ws.base is not None
    found, ids = await run_tampering(ws.repo, ws.workdir, ws.base, ws.changed, plan.recorder)
    suspicions, more = await run_claims(
        ws.repo, ws.workdir, ws.base, ws.target.tree, ws.changed, plan.recorder
    )
    found, ids = [*found, *suspicions], [*ids, *more]
    harness = [h.finding for h in (await ctx.harness()).files]
    if harness:
        ids.append(record_harness(plan.recorder, harness, ws.base))
    return [*found, *harness], ids


async def _environment_task(ctx: GradeContext, plan: RunPlan, outcomes: Outcomes) -> None:
    """What the tree holds outside git and every run uses: changed installed environments and
    compiled modules standing for sources (tools/environment)."""
    ws = plan.workspace
    anchor = None if plan.settings.trusted_environment else _created(plan)
    tracked = tree_files(ws.repo, ws.target.tree) if is_git_repo(ws.repo) else []
    outside = interpreter_environments(
        [c.check.argv for c in plan.criteria if isinstance(c.check, (TestsCheck, CommandCheck))],
        ctx.root,
        plan.settings.env.get("PATH", os.environ.get("PATH")),
    )
    found = await anyio.to_thread.run_sync(
        environment_findings, ctx.root, tracked, anchor, ws.changed, outside
    )
    if not found:
        return
    item = plan.recorder.record(
        tool="environment",
        command="compare the installed environments with the contract's creation",
        stdout="\n".join(f"{t.location} [{t.kind}] {t.message}" for t in found),
        exit_code=1,
        summary=f"{counted(len(found), 'change')} outside git that the checks ran with",
    )
    outcomes.tampering += found
    outcomes.tampering_ids.append(item.id)


def _anchor(plan: RunPlan) -> float | None:
    """Files outside git written before this are the environment's (`referee ci` trusts the
    environment its own job installed: all of it)."""
    return float("inf") if plan.settings.trusted_environment else _created(plan)


def _created(plan: RunPlan) -> float | None:
    """When the contract was written: to the nanosecond where its configuration says, else the
    second its `created_at` names (the end of it: nothing written in that second is blamed)."""
    if plan.config is not None and plan.config.created is not None:
        return plan.config.created
    try:
        stamp = plan.contract.created_at.replace("Z", "+00:00")
        return datetime.fromisoformat(stamp).timestamp() + 1.0
    except ValueError:
        return None


async def _grade_task(
    ctx: GradeContext,
    criterion: Criterion,
    outcomes: Outcomes,
    tick: Callable[[str], Awaitable[None]],
) -> None:
    assert criterion.check is not None  # only checked criteria are scheduled
    result = outcomes.results[criterion.id] = await GRADERS[criterion.check.kind](ctx, criterion)
    if result.findings:
        outcomes.tampering += result.findings
        outcomes.tampering_ids += [i for i in result.findings_evidence if i]
    await tick(criterion.id)


@dataclass
class _Perturbed:
    """Anti-gaming: a semantically equal copy of the changed files, whose semantics are checked
    by re-running the tests checks with the perturbed files laid over the tree (at the tree's own
    path): the visible tests in the visible phase, the hidden ones in the hidden phase."""

    copy: PerturbedCopy
    layer: Path
    tests: list[Criterion]
    ids: list[str] = field(default_factory=list)
    kept: bool | None = None

    @property
    def hidden_tests(self) -> list[Criterion]:
        return [c for c in self.tests if c.holdout]

    async def rerun(self, ctx: GradeContext, outcomes: Outcomes, *, hidden: bool) -> None:
        tests = [c for c in self.tests if c.holdout == hidden]
        if tests:
            same = await _same_outcomes(ctx, tests, self.layer, outcomes, self.ids)
            self.kept = same and self.kept is not False

    def result(self) -> Perturbation:
        perturbation = self.copy.perturbation(self.kept)
        perturbation.evidence_ids = self.ids
        return perturbation


async def _perturbed(ctx: GradeContext, plan: RunPlan) -> _Perturbed:
    copy = await copy_perturbed(
        plan.workspace.workdir, plan.workspace.changed, plan.recorder.artifacts_dir / "perturbed"
    )
    layer = await anyio.to_thread.run_sync(
        _layer_of, copy.dest, copy.perturbed, anonymous_folder(ctx.scratch)
    )
    tests = [c for c in plan.criteria if isinstance(c.check, TestsCheck)]
    return _Perturbed(copy, layer, tests)


def _layer_of(copy: Path, paths: list[str], folder: Path) -> Path:
    """A folder holding only the perturbed files, to lay over the tree."""
    for rel in paths:
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(copy / rel, target, follow_symlinks=False)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


async def _same_outcomes(
    ctx: GradeContext, tests: list[Criterion], layer: Path, outcomes: Outcomes, ids: list[str]
) -> bool:
    """Run the tests checks with the perturbed files: semantics hold when each ends as before."""
    same = True
    for criterion in tests:
        assert isinstance(criterion.check, TestsCheck)
        run = await run_suite(
            ctx,
            criterion.check,
            label=f"{criterion.id}-perturbed",
            criterion_id=criterion.id,
            layers=(layer,),
        )
        if run.evidence_id:
            ids.append(run.evidence_id)
        before = outcomes.results.get(criterion.id)
        same = same and run.verdict.status == (before.status if before else "pass")
    return same
