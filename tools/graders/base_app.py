"""The base commit's app, for `a11y` expectations with `new_only`: served, then driven by the
same check.

A `new_only` expectation counts only the violations the base did not have, so its check (the
contract's `browser_setup`, the check's url and steps) also runs on the base commit's app. That
app is the base's tracked files shown at the repository's own path (the `base-only` view, as for
the base run of a tests check) over the working tree's untracked and ignored files, served with
the contract's own `serve` at the same URL, in a private network of its own (the evaluated app
holds the port in the other), and driven by a browser launched into that network. It is started
once per evaluation, on first use, and stopped when the evaluation ends.

Nothing the change commits reaches the base run: its files are the base commit's, the files a
`set_input_files` step chooses are the base's versions of them, and what the evaluated app writes
stays in its own sandbox. What both runs read alike is what every run reads: the ignored files on
disk (docs/browser.md says what that means for the comparison).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from referee.tools.environment.written import Written, written_since
from referee.tools.errors import RefereeError
from referee.tools.graders.base import BaseApp, GradeContext, ServeState, anonymous_folder
from referee.tools.graders.serve import exit_problem, gone_code, private_network, start_serve
from referee.tools.models.browser import (
    A11yExpect,
    BrowserCheck,
    ScreenshotExpect,
    SetInputFilesStep,
)
from referee.tools.models.common import ReasonCode
from referee.tools.models.contract import Criterion
from referee.tools.process import Network
from referee.tools.repo import GitError, TreeView, commit_tree_hash, tree_files, write_tree
from referee.tools.text import counted

if TYPE_CHECKING:
    from referee.tools.browser.outcome import BrowserOutcome
    from referee.tools.browser.pool import BrowserPool

__all__ = ["BaseRun", "compares_with_base", "run_at_base", "start_base_app"]

PoolIn = Callable[[Network], Awaitable["BrowserPool"]]


def compares_with_base(check: BrowserCheck) -> bool:
    """Whether the check has an a11y expectation that counts only what the base did not have."""
    return any(isinstance(e, A11yExpect) and e.new_only for e in check.expect)


async def start_base_app(
    ctx: GradeContext,
    stack: AsyncExitStack,
    view: Callable[[], Awaitable[TreeView | None]],
    pool_in: PoolIn,
) -> BaseApp:
    """Serve the base commit's app in a private network of its own, with a browser in it.

    Args:
        ctx: The evaluation's context.
        stack: Stops the app and closes the browser when the evaluation ends.
        view: The base as it was, shown at the repository's path (None without a base).
        pool_in: A browser pool launched into a network (entered on `stack`).
    """
    if ctx.base is None:
        return BaseApp(
            problem="the contract has no base commit to compare with", code=ReasonCode.NO_BASE
        )
    shown = await view()
    if shown is None:
        return BaseApp(problem="the repository cannot show the base commit's files")
    written = await anyio.to_thread.run_sync(_written, ctx, shown)
    if written.problem:
        return BaseApp(problem=written.problem)
    shown = replace(shown, hide=(*shown.hide, *written.paths))
    network = await private_network(ctx, stack)
    if isinstance(network, str):
        # The evaluated app holds the URL's port in the network it shares with this machine.
        return BaseApp(
            problem="the base commit's app needs a private network of its own to answer at the"
            f" same URL as the evaluated app, and there is none: {network}"
        )
    pool = await pool_in(network)

    async def launch() -> None:
        from playwright.async_api import Error as PlaywrightError

        # A browser that cannot start is reported by the base check itself, with its reason.
        with suppress(RefereeError, PlaywrightError):
            await pool.browser()

    async with anyio.create_task_group() as group:
        group.start_soon(launch)
        served = await start_serve(ctx, stack, view=shown, network=network)
    if served.problem:
        return BaseApp(served, pool, served.problem, _code(served), written.paths)
    return BaseApp(served, pool, left_out=written.paths)


def _written(ctx: GradeContext, view: TreeView) -> Written:
    """The files outside git written since the contract was created, which the base app must
    not read (tools/environment/written.py); nothing when the environment is the runner's own."""
    if ctx.created is None or ctx.base is None:
        return Written()
    known = {*tree_files(ctx.repo, commit_tree_hash(ctx.repo, ctx.base)), *view.hide}
    known |= {*(tree_files(ctx.repo, ctx.tree) if ctx.tree else []), *ctx.bytecode}
    for folder in (ctx.settings.home, ctx.settings.key_file.parent, ctx.settings.holdout_base):
        with suppress(ValueError):  # referee's own folders, masked in every sandbox
            known.add(folder.resolve().relative_to(ctx.root.resolve()).as_posix())
    return written_since(ctx.root, known, ctx.created)


def _code(served: ServeState) -> ReasonCode:
    killed = served.process.killed if served.process is not None else None
    return gone_code(served) if killed is not None else ReasonCode.A11Y_BASE_NOT_RUN


@dataclass
class BaseRun:
    """The check as it ran on the base commit's app, or why it could not be compared."""

    outcome: BrowserOutcome | None = None
    problem: str = ""
    code: ReasonCode = ReasonCode.A11Y_BASE_NOT_RUN
    evidence_ids: list[str] = field(default_factory=list)
    """The base app's log (the run's own evidence is recorded by the browser grader)."""
    left_out: tuple[str, ...] = ()
    """Paths outside git written since the contract was created, which the base app did not see."""

    @property
    def note(self) -> str:
        """What the comparison should say about the files left out ("" when none were)."""
        if not self.left_out:
            return ""
        shown = ", ".join(self.left_out[:3]) + (" …" if len(self.left_out) > 3 else "")
        return (
            f"the base run left out {counted(len(self.left_out), 'path')} outside git written"
            f" since the contract was created ({shown})"
        )


async def run_at_base(ctx: GradeContext, criterion: Criterion, check: BrowserCheck) -> BaseRun:
    """The check (its a11y expectations' part) run on the base commit's app."""
    from referee.tools.browser.check import run_browser_check

    app = await ctx.base_app()
    ids = list(app.serve.evidence_ids) if app.serve else []
    if app.problem or app.serve is None or app.pool is None:
        return BaseRun(problem=app.problem, code=app.code, evidence_ids=ids, left_out=app.left_out)
    serve = app.serve

    async def serving() -> str | None:
        gone = await exit_problem(serve)
        return f"the base commit's app is gone: {gone}" if gone else None

    outcome = await run_browser_check(
        app.pool,
        for_base(check),
        base_url=serve.base_url,
        artifacts_dir=ctx.scratch,
        name=f"{criterion.id}-base",
        repo_root=await _chosen_files(ctx, check),
        allow_hosts=ctx.settings.allow_hosts,
        setup=ctx.contract.browser_setup,
        gate=serving,
        traced_retry=False,
    )
    problem = base_problem(outcome, check)
    code = ReasonCode.A11Y_BASE_NOT_RUN
    if problem and (gone := await exit_problem(serve, settle=True)):
        problem, code = f"the base commit's app is gone: {gone}", _code(serve)
    return BaseRun(outcome, problem, code, ids, app.left_out)


def for_base(check: BrowserCheck) -> BrowserCheck:
    """The check as the base run drives it: its expectations up to the last `new_only` a11y one
    (what comes before may wait for the page, as it does now), without screenshots (no baseline
    there), each a11y expectation counting all it finds (the base's findings are what is kept)."""
    last = max(i for i, e in enumerate(check.expect) if isinstance(e, A11yExpect) and e.new_only)
    kept = [
        e.model_copy(update={"new_only": False}) if isinstance(e, A11yExpect) else e
        for e in check.expect[: last + 1]
        if not isinstance(e, ScreenshotExpect)
    ]
    return check.model_copy(update={"expect": kept})


def base_problem(outcome: BrowserOutcome, check: BrowserCheck) -> str:
    """Why the base run gives nothing to compare with ("" when it does): it could not run, a
    step failed, the page was missing, or axe did not run for a `new_only` expectation."""
    from referee.tools.browser.expectations import axe_scope

    if outcome.status == "unscored" or not outcome.ran:
        return f"the check could not run on it: {outcome.reason}"
    if failed := next((s for s in outcome.steps if not s.ok), None):
        error = failed.error.strip().splitlines()[0] if failed.error.strip() else "failed"
        return f"on it, {failed.label} ({failed.action} {failed.target}) failed: {error}"
    if missing := next((r for r in outcome.failed_requests if r.resource_type == "document"), None):
        said = f"answered {missing.status}" if missing.status else f"failed ({missing.failure})"
        return f"on it, the page {missing.url} {said}"
    for number, exp in enumerate(check.expect, 1):
        if isinstance(exp, A11yExpect) and exp.new_only and axe_scope(exp) not in outcome.axe_runs:
            seen = next((e for e in outcome.expectations if e.number == number), None)
            why = seen.detail if seen is not None else "it was not reached"
            return f"axe did not run on it for expectation {number}: {why}"
    return ""


async def _chosen_files(ctx: GradeContext, check: BrowserCheck) -> Path:
    """Where the base run's `set_input_files` steps take their files from: the base's versions
    of them (a folder of those only), never the working tree's."""
    steps = [*ctx.contract.browser_setup, *check.steps]
    names = sorted({f for s in steps if isinstance(s, SetInputFilesStep) for f in s.files})
    folder = anonymous_folder(ctx.scratch)
    folder.mkdir(parents=True)
    if names and ctx.base is not None:
        base = ctx.base

        def write() -> None:
            with suppress(GitError):  # a file the base lacks fails its step there, with its name
                write_tree(ctx.repo, commit_tree_hash(ctx.repo, base), folder, names)

        await anyio.to_thread.run_sync(write)
    return folder
