"""How a command of the evaluated project is started: one `Command`, one `Launcher`.

Graders describe what to run (`Command`) and hand it to the evaluation's launcher, so where and how
it runs (on the host, or in a sandbox) is decided in one place and never by a grader.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from referee.tools.process.run import (
    BackgroundProcess,
    ProcessResult,
    background_process,
    run_process,
)

__all__ = ["Command", "HostLauncher", "Launcher"]


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
        export: (tree-relative path, folder name or None): writes under the path (only inside
            folders of that name, when one is given) are copied to `export_to` after the run:
            reports a runner insists on writing inside the tree (Surefire, a named `junit`).
        export_to: Where exported writes go (a folder of referee's own).
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
    export: tuple[tuple[str, str | None], ...] = ()
    export_to: Path | None = None


class Launcher(Protocol):
    """Runs commands of the evaluated project, to completion or in the background.

    `keeps_writes` says whether what a command writes into its tree stays there afterwards (on the
    host) or vanishes with the command (the sandbox's overlay); in the second case the paths of a
    command's `export` are copied to its `export_to`.
    """

    keeps_writes: bool

    async def run(self, command: Command) -> ProcessResult: ...

    def background(self, command: Command) -> AbstractAsyncContextManager[BackgroundProcess]: ...


class HostLauncher:
    """Runs commands directly on this machine, in their own process group (no sandbox)."""

    keeps_writes = True

    async def run(self, command: Command) -> ProcessResult:
        _link_dependencies(command)
        return await run_process(
            command.argv,
            cwd=command.cwd,
            timeout_s=command.timeout_s,
            stdout_path=command.stdout_path,
            stderr_path=command.stderr_path,
            env=command.env,
            shell=command.shell,
        )

    def background(self, command: Command) -> AbstractAsyncContextManager[BackgroundProcess]:
        _link_dependencies(command)
        return background_process(
            command.argv,
            cwd=command.cwd,
            stdout_path=command.stdout_path,
            stderr_path=command.stderr_path,
            env=command.env,
            shell=command.shell,
        )


def _link_dependencies(command: Command) -> None:
    # Without a sandbox nothing can be bound read-only; a symlink into a base checkout (a folder
    # of referee's own) is the next best thing. An existing target is never replaced.
    for source, target in command.readonly:
        if source.is_dir() and not target.exists() and not target.is_symlink():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source, target_is_directory=True)
