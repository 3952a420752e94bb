"""The one way referee runs git: with a timeout, and never steered by the repository.

The evaluated repository belongs to the player, so its `.git` may hold hooks, an fsmonitor
command, an external diff, textconv or filter drivers, an include of another file that defines
them, attributes that name them, replace refs: all of which would run the player's code inside
referee's own git calls (outside any sandbox or timeout) or show other content. Every command
therefore runs against a git folder of referee's own (gitdir.py: the repository's objects, refs
and index reached as data, none of its configuration read), with a clean set of GIT_*
variables, the `-c` options below as a second line, no terminal prompt and a timeout after which
the command is killed.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path

from referee.tools.errors import RefereeError
from referee.tools.repo.gitdir import GitDirError, global_excludes_file, private_git_dir
from referee.tools.repo.root import repository_root

__all__ = [
    "GIT_TIMEOUT_S",
    "GitError",
    "GitOnEventLoop",
    "git",
    "git_bytes",
    "git_many",
    "loop_guarded",
    "safe_options",
]

GIT_TIMEOUT_S = 120.0
# A second line behind the private configuration: hooks and fsmonitor run commands on ordinary
# reads (status, diff, add); diff.external and textconv run one per diffed file; the untracked
# cache and optional locks would make read-only commands write; a pager or an editor must never
# start; no credential helper, askpass or transport may be asked for anything.
_SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.sshCommand=false",
    "diff.external=",
    "core.pager=cat",
    "core.editor=true",
    "core.askPass=",
    "credential.helper=",
    "protocol.allow=never",
    "gpg.program=false",
    "commit.gpgSign=false",
)
_SAFE_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_PAGER": "cat",
    "LC_ALL": "C",
    # A path of the tree given to git is a name, never a pattern: `*`, `?`, `[` and `:(magic)`
    # in a file's name (`git log -- 'src/:(exclude)x.py'`) would otherwise select other files.
    "GIT_LITERAL_PATHSPECS": "1",
}


class GitError(RefereeError):
    """A git command failed, timed out, or git is not installed."""


class GitOnEventLoop(RuntimeWarning):
    """A git command was started in the thread that runs an event loop."""


_LOOP_GUARDED: ContextVar[bool] = ContextVar("referee_git_loop_guarded", default=False)


@contextmanager
def loop_guarded() -> Iterator[None]:
    """Within: a git call from the thread that runs the event loop is flagged (`GitOnEventLoop`).
    The server handles every request within it (server/app.py)."""
    token = _LOOP_GUARDED.set(True)
    try:
        yield
    finally:
        _LOOP_GUARDED.reset(token)


def _off_the_loop(argv: Sequence[str]) -> None:
    """git runs in a worker thread, never in the event loop's: a git call waits for its process
    (up to its timeout, on a repository the player laid out), and in the server's loop every
    other request would wait with it. Said as a warning (an error under the test suite's
    filters), so a call site that forgot `anyio.to_thread` is found, not shipped."""
    if not _LOOP_GUARDED.get():
        return
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return  # no loop in this thread: a worker thread
    warnings.warn(
        f"git {' '.join(argv[:3])} ran in the event loop's thread", GitOnEventLoop, stacklevel=4
    )


def safe_options() -> list[str]:
    """The `-c` options every referee git command starts with."""
    return [item for pair in (*_SAFE_CONFIG, *_excludes()) for item in ("-c", pair)]


@lru_cache(maxsize=1)
def _excludes() -> tuple[str, ...]:
    found = global_excludes_file()
    return (f"core.excludesFile={found}",) if found else ()


def _repository_env(repo: Path) -> dict[str, str]:
    root = repository_root(repo)
    if root is None:
        raise GitError(f"{repo} is not inside a git work tree")
    try:
        return private_git_dir(root).env()
    except (GitDirError, OSError) as exc:
        raise GitError(f"cannot read the git data of {root}: {exc}") from exc


def _environment(repo: Path | None, extra: Mapping[str, str] | None) -> dict[str, str]:
    # GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE & co. from referee's own environment would point git
    # elsewhere; only the private folder's and what the caller passes on purpose are kept.
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    private = _repository_env(repo) if repo is not None else {}
    return {**env, **_SAFE_ENV, **private, **(extra or {})}


def _run(
    argv: Sequence[str],
    cwd: Path,
    input_data: bytes | None,
    timeout_s: float,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    _off_the_loop(argv[len(safe_options()) + 1 :])
    try:
        return subprocess.run(
            list(argv),
            cwd=cwd,
            env=_environment(cwd, env),
            input=input_data,
            stdin=None if input_data is not None else subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"{' '.join(argv[:6])}: timed out after {timeout_s:g} s") from exc
    except OSError as exc:
        raise GitError(f"git cannot run: {exc.strerror or exc}") from exc


def git_bytes(
    repo: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    input_data: bytes | None = None,
    timeout_s: float = GIT_TIMEOUT_S,
    ok_codes: tuple[int, ...] = (0,),
) -> bytes:
    """Run one git command in `repo` and return its stdout.

    Args:
        repo: The working directory of the command.
        *args: git's arguments after the safe options.
        env: Extra variables (e.g. GIT_INDEX_FILE for a throwaway index).
        input_data: Bytes for stdin; stdin is /dev/null without them.
        timeout_s: Seconds before the command is killed.

    Returns:
        The raw stdout.

    Raises:
        GitError: git is missing, exits non-zero (stderr is in the message) or times out.
    """
    argv = ["git", *safe_options(), *args]
    done = _run(argv, repo, input_data, timeout_s, env)
    if done.returncode not in ok_codes:
        detail = done.stderr.decode("utf-8", "replace").strip() or f"exit code {done.returncode}"
        raise GitError(f"git {' '.join(args[:4])}: {detail}")
    return done.stdout


def git(
    repo: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    input_data: bytes | None = None,
    timeout_s: float = GIT_TIMEOUT_S,
) -> str:
    """Run one git command in `repo` and return its stdout as text (see `git_bytes`)."""
    out = git_bytes(repo, *args, env=env, input_data=input_data, timeout_s=timeout_s)
    return out.decode("utf-8", "surrogateescape")


def git_many(
    repo: Path, *commands: Sequence[str], timeout_s: float = GIT_TIMEOUT_S
) -> list[bytes | None]:
    """Run read-only git commands side by side; each stdout, or None where the command failed."""
    for args in commands[:1]:
        _off_the_loop(args)
    options = safe_options()
    try:
        env = _environment(repo, None)
    except GitError:
        return [None for _ in commands]
    procs: list[subprocess.Popen[bytes] | None] = []
    for args in commands:
        try:
            procs.append(
                subprocess.Popen(
                    ["git", *options, *args],
                    cwd=repo,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                )
            )
        except OSError:
            procs.append(None)
    return [_collect(proc, timeout_s) for proc in procs]


def _collect(proc: subprocess.Popen[bytes] | None, timeout_s: float) -> bytes | None:
    if proc is None:
        return None
    try:
        out, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None
    return out if proc.returncode == 0 else None
