"""What every grader shares: the context of one evaluation, the Grader protocol, a grade.

A grader judges one criterion's check and returns a `GradeResult`. Its `code` (a `ReasonCode`)
is what the rest of referee acts on; `reason` is the sentence a person or an agent reads. Nothing
decides by matching the reason's text.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import anyio

from referee.tools.evidence.recorder import EvidenceRecorder
from referee.tools.graders.company import Occupancy
from referee.tools.models.adequacy import TestAdequacy
from referee.tools.models.common import CriterionStatus, Depth, ReasonCode, Scope
from referee.tools.models.contract import Contract, ContractConfig, Criterion
from referee.tools.models.evaluation import TestCounts
from referee.tools.process import BackgroundProcess, Command, Launcher, Network, ProcessResult
from referee.tools.repo import TreeView
from referee.tools.settings import Settings
from referee.tools.static import StaticFinding, StaticReport
from referee.tools.tampering.harness import HarnessFile
from referee.tools.tampering.model import Tampering

if TYPE_CHECKING:
    from referee.tools.browser.baselines import Baselines
    from referee.tools.browser.pool import BrowserPool

__all__ = [
    "BaseApp",
    "BaseHarness",
    "GradeContext",
    "GradeResult",
    "Grader",
    "ServeState",
    "StaticRun",
    "expand",
    "killed_verdict",
    "unscored",
    "working_dir",
]


@dataclass
class StaticRun:
    """The static pipeline's report for the run (None when it failed), with its evidence."""

    report: StaticReport | None
    error: str | None = None
    evidence_ids: list[str] = field(default_factory=list)
    baseline: list[StaticFinding] = field(default_factory=list)
    """Task scope: findings that were there at base already (never counted, shown to the judge);
    `report.findings` holds the change's own."""


@dataclass
class BaseHarness:
    """The harness files changed since base, and how to run the tests with the base ones:
    `layer` holds their base versions, `hide` the ones base did not have."""

    files: list[HarnessFile] = field(default_factory=list)
    layer: Path | None = None
    hide: tuple[str, ...] = ()


@dataclass
class ServeState:
    """Where the served app answers, or why it does not (then every browser check is unscored).

    `evidence_ids` names the app's log, recorded once the app is stopped (its id is reserved when
    it starts, so every browser criterion can cite it); `process` is watched while checks run.
    """

    base_url: str | None
    problem: str | None = None
    code: ReasonCode = ReasonCode.SERVE_FAILED
    evidence_ids: list[str] = field(default_factory=list)
    process: BackgroundProcess | None = None
    holdout: bool = False
    """A hidden check drives the app too: what it prints is the evaluator's only."""
    network: Network | None = None
    """The private network the app runs in, which the browser joins; None: the host's."""
    network_note: str = ""
    """Why the app shares the host's network, when it does."""
    command: str = ""
    """The contract's own serve command, as reasons name it (never the sandbox's wrapper)."""
    at_base: bool = False
    """The base commit's app (an a11y `new_only` expectation's base run), not the evaluated one."""


@dataclass
class BaseApp:
    """The base commit's app, served at the contract's URL in a private network of its own, and
    a browser in that network (for a11y `new_only` expectations); or why there is none."""

    serve: ServeState | None = None
    pool: BrowserPool | None = None
    problem: str = ""
    code: ReasonCode = ReasonCode.A11Y_BASE_NOT_RUN
    left_out: tuple[str, ...] = ()
    """Paths outside git written since the contract was created, which the base app did not see."""


@dataclass
class GradeResult:
    """A criterion's outcome: `unscored` means the check could not judge (and the criterion
    fails)."""

    status: CriterionStatus
    code: ReasonCode
    reason: str
    evidence_ids: list[str] = field(default_factory=list)
    regressions: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    tests: TestCounts | None = None
    """Per-test outcomes, for a tests check that reported them."""
    adequacy: TestAdequacy | None = None
    """Diff coverage, mutants and repeats of a tests check."""
    findings: list[Tampering] = field(default_factory=list)
    """Antipatterns a run of the check found (the tests pass in the test mode only)."""
    findings_evidence: list[str] = field(default_factory=list)
    """The evidence of `findings`: the runs that found them."""

    @property
    def passed(self) -> bool:
        return self.status == "pass"


async def _no_lines() -> Mapping[str, set[int] | None]:
    return {}


async def _host_network() -> Network | str:
    return "no private network was asked for"


async def _no_base_app() -> BaseApp:
    return BaseApp(problem="this evaluation serves no base commit's app")


ViewName = Literal["base", "base-tests", "base-only"]


def anonymous_folder(scratch: Path) -> Path:
    """A new path under `scratch` (not yet made) whose name says nothing about its run.

    Reports, layers and views are seen from inside the sandbox (in argv, the environment,
    /proc/self/mountinfo): a name like `base-tests`, `mutants/AC-1/3` or `holdouts` would let code
    under test tell the base-tests run, a mutant or a hold-out from the real run and behave
    differently in each."""
    return scratch / "runs" / secrets.token_hex(8)


@dataclass
class GradeContext:
    """One evaluation's shared state, handed to every grader.

    The shared resources (static report, base worktree, served app, browser) are started on first
    use and only once, whichever grader asks first; the evaluation stops them when it ends.
    """

    contract: Contract
    repo: Path
    workdir: Path
    """Where the evaluated content is read on this machine (the repository, or a folder a
    commit was written into)."""
    scratch: Path
    recorder: EvidenceRecorder
    settings: Settings
    base: str | None
    scope_files: list[str]
    limiter: anyio.CapacityLimiter
    launcher: Launcher
    static_report: Callable[[], Awaitable[StaticRun]]
    views: Callable[[ViewName], Awaitable[TreeView | None]]
    """The other trees a tests check runs on, each shown at the repository's path: `base` (the
    base code with the change's test files), `base-tests` (the evaluated code with the base's
    versions of the test files the change edited) and `base-only` (the base as it was); None
    without a base."""
    serve: Callable[[], Awaitable[ServeState]]
    harness: Callable[[], Awaitable[BaseHarness]]
    browser_pool: Callable[[], Awaitable[BrowserPool]]
    tree: str | None = None
    """The evaluated tree's hash (task scope compares it with base)."""
    holdout_layers: Mapping[str, Path] = field(default_factory=dict)
    depth: Depth = "standard"
    scope: Scope = "task"
    changed_lines: Callable[[], Awaitable[Mapping[str, set[int] | None]]] = field(default=_no_lines)
    """Task scope: the changed lines of each changed file since base (None: a new file)."""
    network: Callable[[], Awaitable[Network | str]] = field(default=_host_network)
    """The served app's private network, made once (or why it shares the host's)."""
    config: ContractConfig | None = None
    """The rubric and allowlist stored with the contract (None: a contract stored without)."""
    measured: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """The changed sources every run of a criterion measures (its own, repeats, base forms,
    mutants): the same instrumentation in each, so that no run can be told from another by it."""
    suite_runs: dict[str, Any] = field(default_factory=dict)
    """Runs of a tests check shared by the criteria that ask for the very same run (see
    graders/tests.py `run_suite`): keyed by what decides the run, each an `anyio` task's result."""
    bytecode: tuple[str, ...] = ()
    """The tree's `__pycache__` folders every sandboxed command runs without (evaluate/run.py)."""
    cold_bytecode: bool = False
    """Installed bytecode was written after the contract: every command compiles afresh."""
    run_root: Path | None = None
    """Where commands run (default `workdir`): the repository's own path in the sandbox."""
    view: TreeView | None = None
    """The evaluated commit shown at `run_root` (a `ref` evaluated in the sandbox)."""
    fresh: Path | None = None
    """The changed files dated after everything in the tree (evaluate/times.py), laid over every
    run of the evaluated tree: no build output the player dated is up to date for them."""
    stamp: float | None = None
    """The one time every file laid into a run carries (evaluate/times.py): a mutant's too."""
    fresh_disk: Path | None = None
    """The changed files as the tree on disk holds them, dated `stamp`: under the base's views
    (`fresh` itself, unless a commit other than the working tree's is evaluated)."""
    baselines: Baselines | None = None
    """The store's screenshot baselines (None: screenshot expectations are not judged)."""
    base_app: Callable[[], Awaitable[BaseApp]] = field(default=_no_base_app)
    """The base commit's app and a browser that reaches it, started once on first use."""
    slot: Callable[[], AbstractAsyncContextManager[None]] = field(default=nullcontext)
    """The server's one slot for a command of the generator's (evaluate/phases.py): held by
    every `run`, so no two commands of any of its evaluations overlap."""
    occupancy: Occupancy = field(default_factory=Occupancy)
    """referee's own work running now (static pipeline, readers, recording): every command waits
    until none runs (graders/company.py)."""
    created: float | None = None
    """When the contract was created (POSIX time): files outside git written since are the
    generator's. None: the tree's environment is the runner's own (`trusted_environment`)."""
    hidden_phase: bool | None = None
    """Which phase of the evaluation this context runs (evaluate/phases.py): the hold-out checks
    (True), everything else (False); None: one phase for all (the served app is a hold-out run
    whenever a hidden browser check exists)."""

    @property
    def root(self) -> Path:
        return self.run_root or self.workdir

    def is_holdout(self, criterion_id: str | None) -> bool:
        """Whether a criterion's runs are hold-out runs (their products: the evaluator's only)."""
        return criterion_id is not None and any(
            c.holdout for c in self.contract.all_criteria() if c.id == criterion_id
        )

    @property
    def serves_holdout(self) -> bool:
        """Whether a hold-out browser check drives the served app: the app, the generator's code,
        sees what the hidden check does, so its run is a hold-out run as well. In phases, the
        hidden phase's app is (it alone serves hidden checks) and the visible phase's is not."""
        if self.hidden_phase is not None:
            return self.hidden_phase
        return any(
            c.holdout and c.check is not None and c.check.kind == "browser"
            for c in self.contract.all_criteria()
        )

    def layers_for(self, criterion_id: str) -> tuple[Path, ...]:
        """The folders laid over the tree for one criterion's commands: its hold-out files."""
        layer = self.holdout_layers.get(criterion_id)
        return (layer,) if layer is not None else ()

    def env_for(self, declared: Mapping[str, str]) -> dict[str, str]:
        """A check's extra variables, `${NAME}` taken from the server's environment."""
        return {k: expand(v, self.settings.env) for k, v in declared.items()}

    def raw_paths(self, label: str) -> tuple[Path, Path]:
        """Fresh files for a command's raw output, outside the evaluated tree.

        Named by chance, not by `label`: the command can read their paths (/proc/1/fd/1, its
        first process's output inside the sandbox), and a name like `AC-1-base.stdout` would
        let a test fail only in the base run."""
        del label  # kept in the signature: callers name the run they make files for
        name = anonymous_folder(self.scratch).name
        return self.scratch / f"{name}.stdout", self.scratch / f"{name}.stderr"

    def command(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        label: str,
        timeout_s: float = 600,
        env: Mapping[str, str] | None = None,
        shell: bool = False,
        tree: Path | None = None,
        writable: tuple[Path, ...] = (),
        network: bool = False,
        export: tuple[tuple[str, str | None], ...] = (),
        export_to: Path | None = None,
        layers: tuple[Path, ...] = (),
        hide: tuple[str, ...] = (),
        view: TreeView | None = None,
        own_writes: bool = True,
        criterion_id: str | None = None,
        holdout: bool = False,
        memory_mb: int | None = None,
        enter_network: tuple[str, ...] = (),
    ) -> Command:
        """A command on the evaluated code (or on the tree `view` shows in its place); its raw
        output goes to the run's scratch folder.

        `criterion_id` names the criterion it runs for: a hold-out criterion's command is a
        hold-out run, whatever else it is (its own check, a repeat, a mutant, the base harness).
        `holdout` makes any command one (the served app a hidden check drives). `memory_mb` is
        the check's own limit; without one the server's applies.
        """
        stdout, stderr = self.raw_paths(label)
        root = tree or self.root
        env = {**_activated(argv, cwd, self.settings.env.get("PATH")), **(env or {})}
        shown = view or self.view
        if shown is not None:
            layers = (*layers, *((shown.layer,) if shown.layer else ()))
            hide = (*hide, *shown.hide)
        # Under every view (a layer listed first wins): what a view takes from the tree on disk
        # (the change's tests in the base's view) carries the one stamp too, as in the
        # evaluated tree's runs, so no test tells the runs apart by its files' times.
        under = self.fresh if shown is None or shown is self.view else self.fresh_disk
        if root == self.root and under is not None:
            layers = (*layers, under)
        if root == self.root and not self.cold_bytecode:
            hide = (*hide, *self.bytecode)
        elif not self.launcher.keeps_writes:
            # Another tree (the perturbed copy), or installed bytecode written during the work:
            # with a prefix of its own, none of the tree's bytecode is read. The sandbox's /tmp
            # is its own and empty; outside it the host launcher gives every
            # command a fresh prefix of its own (process/launch.py).
            env = {"PYTHONPYCACHEPREFIX": "/tmp/referee-pycache", **(env or {})}
        return Command(
            argv=tuple(argv),
            cwd=cwd,
            tree=root,
            timeout_s=timeout_s,
            stdout_path=stdout,
            stderr_path=stderr,
            env=dict(env or {}),
            shell=shell,
            readonly=self._dependencies(root),
            writable=writable,
            network=network,
            export=export,
            export_to=export_to,
            layers=layers,
            hide=hide,
            own_writes=own_writes and view is None,
            holdout=holdout or self.is_holdout(criterion_id),
            memory_mb=memory_mb if memory_mb is not None else self.settings.memory_mb,
            enter_network=enter_network,
        )

    def report_dir(self, label: str) -> Path:
        """A fresh folder for one command's reports: the only place outside its tree that the
        command may write, so no check can rewrite another check's report.

        Named by chance, not by `label`: the path reaches the command's argv and environment, and
        a name like `AC-1-base-tests` would tell code under test which run it is in."""
        del label  # kept in the signature: callers name the run they make a folder for
        folder = anonymous_folder(self.scratch)
        folder.mkdir(parents=True)
        return folder

    def _dependencies(self, root: Path) -> tuple[tuple[Path, Path], ...]:
        """The repository's installed dependencies, shown read-only in another tree (a base
        checkout, a worktree of `ref`, the perturbed copy) that lacks them, so every run uses the
        same toolchain."""
        if root.resolve() == self.repo.resolve():
            return ()
        found = installed_dependencies(self.repo)
        return tuple(
            ((self.repo / r).resolve(), root / r)
            for r in found
            if not (root / r).exists() and not (root / r).is_symlink()
        )

    async def run(self, command: Command) -> ProcessResult:
        """Run a command to completion: one at a time in the evaluation (the limiter) and in the
        server (the slot), once none of referee's own work runs beside it."""
        async with self.limiter:
            await self.occupancy.quiet()
            async with self.slot():
                return await self.launcher.run(command)

    def background(self, command: Command) -> AbstractAsyncContextManager[BackgroundProcess]:
        """Start a long-running command (the served app); stopped when the block ends."""
        return self.launcher.background(command)


class Grader(Protocol):
    """Judges one criterion's check; one module per check kind implements it."""

    async def __call__(self, ctx: GradeContext, criterion: Criterion) -> GradeResult: ...


# Folders of installed dependencies that git ignores, so a checkout of another commit lacks them.
_DEPENDENCY_DIRS = frozenset({"node_modules", ".venv", "venv", ".tox", "vendor"})


def installed_dependencies(tree: Path, depth: int = 2) -> list[str]:
    """Tree-relative folders of installed dependencies, at most `depth` levels down."""
    found: list[str] = []
    level = [Path(".")]
    for _ in range(depth):
        deeper: list[Path] = []
        for rel in level:
            try:
                entries = list(os.scandir(tree / rel))
            except OSError:
                continue
            for entry in entries:
                if entry.name in _DEPENDENCY_DIRS and _leads_to_folder(entry):
                    # A symlink counts: node_modules linked to a shared install is common.
                    found.append((rel / entry.name).as_posix())
                elif entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
                    deeper.append(rel / entry.name)
        level = deeper
    return sorted(found)


def _leads_to_folder(entry: os.DirEntry[str]) -> bool:
    # A link that loops (ELOOP) or leads nowhere is a name of the tree's, not an error.
    try:
        return entry.is_dir()
    except OSError:
        return False


_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand(value: str, source: Mapping[str, str]) -> str:
    """Replace `${NAME}` with the server environment's value (empty when unset).

    Secrets stay out of contracts this way: the contract names the variable, the server holds it.
    """
    return _REFERENCE.sub(lambda m: source.get(m.group(1), ""), value)


def unscored(code: ReasonCode, reason: str, evidence_ids: list[str] | None = None) -> GradeResult:
    """A grade for a check that could not judge (runner missing, timeout, no report …)."""
    return GradeResult(status="unscored", code=code, reason=reason, evidence_ids=evidence_ids or [])


def working_dir(ctx: GradeContext, cwd: str | None, root: Path | None = None) -> Path | None:
    """The check's cwd inside the evaluated tree, or None when it escapes the tree."""
    top = (root or ctx.root).resolve()
    target = (top / (cwd or ".")).resolve()
    return target if target == top or top in target.parents else None


def killed_verdict(result: ProcessResult) -> GradeResult | None:
    """The grade of a command referee killed (over its memory limit, its sandbox held still)."""
    if result.killed is None:
        return None
    return unscored(
        ReasonCode(result.killed.code),
        f"killed after {result.duration_s:.1f} s: {result.killed.message}",
    )


def _activated(argv: Sequence[str], cwd: Path, path: str | None) -> dict[str, str]:
    """A virtualenv's interpreter named by a check (`.venv/bin/python -m pytest`) runs as in an
    activated environment: its `bin` first on PATH, so the project's own console scripts and
    tools that its tests start are the environment's, not the machine's."""
    if not argv or "/" not in argv[0]:
        return {}
    program = Path(argv[0]) if Path(argv[0]).is_absolute() else cwd / argv[0]
    folder = program.parent
    if folder.name != "bin" or not (folder.parent / "pyvenv.cfg").is_file():
        return {}
    return {
        "PATH": os.pathsep.join(p for p in (str(folder), path or os.defpath) if p),
        "VIRTUAL_ENV": str(folder.parent),
    }
