"""How a command of the evaluated project is started: one `Command`, one `Launcher`.

Graders describe what to run (`Command`) and hand it to the evaluation's launcher, so where and how
it runs (on the host, or in a sandbox) is decided in one place and never by a grader.
"""

from __future__ import annotations

import shutil
import socket
import tempfile
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from referee.tools.process.run import (
    BackgroundProcess,
    ProcessResult,
    background_process,
    run_process,
)
from referee.tools.process.watch import Limits

__all__ = ["Command", "HostLauncher", "Launcher", "Network"]


@dataclass(frozen=True)
class Command:
    """One command to run on the evaluated code.

    Attributes:
        argv: Program and arguments (with `shell`, pieces of one shell command line).
        cwd: The working directory, inside `tree`.
        tree: The root of the tree the command works on (the evaluated tree, a base worktree …).
        timeout_s: Seconds before the whole process tree is stopped (ignored in the background).
        stdout_path: File that receives stdout.
        stderr_path: File that receives stderr.
        env: Variables on top of the environment the launcher gives every command.
        shell: Run through `/bin/sh -c`.
        network: The command may reach the network (a sandbox denies it otherwise).
        writable: Folders outside `tree` the command may write (its own report folder).
        readonly: Folders shown read-only inside `tree`, as (source, target): the working
            tree's installed dependencies (node_modules, a virtualenv) in a base checkout.
        layers: Folders laid over `tree` (their files win): hold-out tests, a base harness.
        hide: Tree-relative files the command sees as absent (harness files new since base).
        export: (tree-relative path, folder name or None): writes under the path (only inside
            folders of that name, when one is given) are copied to `export_to` after the run:
            reports a runner insists on writing inside the tree (Surefire, a named `junit`).
        export_to: Where exported writes go (a folder of referee's own).
        own_writes: What the command writes counts as the evaluated tree's writes (False for
            runs of another tree shown at its path: the base, the base's tests, a mutant).
        holdout: A hold-out criterion's run. Everything it produces belongs to the evaluator
            view only: the sandbox keeps its writes apart from the tree's (tree_changed), and
            without a sandbox it runs in a scratch copy, so that it leaves nothing in the
            generator's tree.
        memory_mb: The most memory the command's processes may hold together (MiB); None: no
            limit. Above it the command is killed (`ProcessResult.killed`).
        enter_network: The argv prefix that puts the command into the evaluation's private
            network (`Network.enter`); empty: the network the launcher gives every command.
    """

    argv: tuple[str, ...]
    cwd: Path
    tree: Path
    timeout_s: float
    stdout_path: Path
    stderr_path: Path
    env: Mapping[str, str] = field(default_factory=dict)
    shell: bool = False
    network: bool = False
    writable: tuple[Path, ...] = ()
    readonly: tuple[tuple[Path, Path], ...] = ()
    layers: tuple[Path, ...] = ()
    hide: tuple[str, ...] = ()
    export: tuple[tuple[str, str | None], ...] = ()
    export_to: Path | None = None
    own_writes: bool = True
    holdout: bool = False
    memory_mb: int | None = None
    enter_network: tuple[str, ...] = ()


class Network(Protocol):
    """A private network namespace that a served app and the browser share."""

    @property
    def enter(self) -> tuple[str, ...]:
        """The argv prefix that runs a program inside it."""
        ...

    def connect(
        self,
        address: tuple[str, int],
        timeout: float | None = None,
        source_address: tuple[str, int] | None = None,
    ) -> socket.socket:
        """`socket.create_connection` from inside it (blocking)."""
        ...

    def wrapper(self, executable: str, folder: Path) -> Path:
        """A script in `folder` that runs `executable` inside it."""
        ...


class Launcher(Protocol):
    """Runs commands of the evaluated project, to completion or in the background.

    `keeps_writes` says whether what a command writes into its tree stays there afterwards (on the
    host) or vanishes with the command (the sandbox's overlay); in the second case the paths of a
    command's `export` are copied to its `export_to`.
    """

    keeps_writes: bool

    async def run(self, command: Command) -> ProcessResult: ...

    def background(self, command: Command) -> AbstractAsyncContextManager[BackgroundProcess]: ...

    def private_network(self) -> AbstractAsyncContextManager[Network | str]:
        """A private network for the duration of a block, or why there is none (a sentence)."""
        ...


class HostLauncher:
    """Runs commands directly on this machine, in their own process group (no sandbox).

    Without an overlay, a command with `layers` or `hide`, and every hold-out run, runs in a
    scratch copy of its tree with the layers laid over it (the real tree is never written),
    deleted afterwards.
    """

    keeps_writes = True

    async def run(self, command: Command) -> ProcessResult:
        with _materialised(command) as actual, tempfile.TemporaryDirectory() as pycache:
            _link_dependencies(actual)
            result = await run_process(
                actual.argv,
                cwd=actual.cwd,
                timeout_s=actual.timeout_s,
                stdout_path=actual.stdout_path,
                stderr_path=actual.stderr_path,
                # A fresh bytecode cache: a planted __pycache__ is never read (see profile.py).
                env={"PYTHONPYCACHEPREFIX": pycache, **actual.env},
                shell=actual.shell,
                limits=_limits(actual),
            )
        return replace(result, cwd=command.cwd)

    def background(self, command: Command) -> AbstractAsyncContextManager[BackgroundProcess]:
        _link_dependencies(command)
        return background_process(
            command.argv,
            cwd=command.cwd,
            stdout_path=command.stdout_path,
            stderr_path=command.stderr_path,
            env=command.env,
            shell=command.shell,
            limits=_limits(command),
        )

    def private_network(self) -> AbstractAsyncContextManager[Network | str]:
        return _no_network(
            "no sandbox: the served app and the browser share this machine's network"
        )


@asynccontextmanager
async def _no_network(reason: str) -> AsyncIterator[Network | str]:
    yield reason


def _limits(command: Command) -> Limits | None:
    return Limits(memory_mb=command.memory_mb) if command.memory_mb is not None else None


_NOT_COPIED = ("node_modules", ".venv", "venv", ".tox", ".git", ".referee", "target", "__pycache__")


@contextmanager
def _materialised(command: Command) -> Iterator[Command]:
    # A hold-out run never writes the generator's tree, even one whose tests live in it: whatever
    # it wrote (file names that spell the hold-out) would be there for the generator to read.
    if not command.layers and not command.hide and not command.holdout:
        yield command
        return
    scratch = Path(tempfile.mkdtemp(prefix="referee-copy-"))
    try:
        copy = scratch / command.tree.name
        shutil.copytree(
            command.tree, copy, symlinks=True, ignore=shutil.ignore_patterns(*_NOT_COPIED)
        )
        for name in ("node_modules", ".venv", "venv"):  # the same toolchain, not copied
            if (command.tree / name).is_dir() and not (copy / name).exists():
                (copy / name).symlink_to(command.tree / name, target_is_directory=True)
        for layer in command.layers:
            shutil.copytree(layer, copy, symlinks=True, dirs_exist_ok=True)
        for rel in command.hide:
            (copy / rel).unlink(missing_ok=True)
        cwd = copy / command.cwd.relative_to(command.tree)
        readonly = tuple(
            (s, copy / t.relative_to(command.tree))
            for s, t in command.readonly
            if t.is_relative_to(command.tree)
        )
        yield replace(command, tree=copy, cwd=cwd, readonly=readonly, layers=(), hide=())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _link_dependencies(command: Command) -> None:
    # Without a sandbox nothing can be bound read-only; a symlink into a base checkout (a folder
    # of referee's own) is the next best thing. An existing target is never replaced.
    for source, target in command.readonly:
        if source.is_dir() and not target.exists() and not target.is_symlink():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source, target_is_directory=True)
