"""The one way referee runs git: with a timeout, and never steered by the repository.

The evaluated repository belongs to the player, so its `.git/config` may hold hooks, an fsmonitor
command, an external diff or filter drivers that would run the player's code inside referee's own
git calls (outside any sandbox or timeout). Every command gets overriding `-c` options that switch
those off, a clean set of GIT_* variables, no terminal prompt and a timeout after which the command
is killed. Filter drivers have no global off switch, so each driver the repository configures is
neutralised by name (see `_filter_overrides`).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from referee.tools.errors import RefereeError

__all__ = ["GIT_TIMEOUT_S", "GitError", "git", "git_bytes", "git_many", "safe_options"]

GIT_TIMEOUT_S = 120.0
# Why each override: hooks and fsmonitor run commands on ordinary reads (status, diff, add);
# diff.external and textconv run one per diffed file; the untracked cache and optional locks
# would make read-only commands write into .git; a pager or an editor must never start.
_SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "diff.external=",
    "core.pager=cat",
    "core.editor=true",
    "core.askPass=",
    "credential.helper=",
    "protocol.allow=never",
)
_SAFE_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_PAGER": "cat",
    "LC_ALL": "C",
}


class GitError(RefereeError):
    """A git command failed, timed out, or git is not installed."""


def safe_options(repo: Path | None = None) -> list[str]:
    """The `-c` options every referee git command starts with (filters of `repo` included)."""
    options = [item for pair in _SAFE_CONFIG for item in ("-c", pair)]
    return options + (_filter_overrides(repo) if repo is not None else [])


def _filter_overrides(repo: Path) -> list[str]:
    # A driver named in .gitattributes runs only when .git/config defines it; redefining every
    # configured driver as a pass-through (`cat`) keeps content byte for byte as it is on disk.
    return [
        item
        for name in _filter_drivers(_config_file(repo))
        for item in (
            "-c",
            f"filter.{name}.clean=cat",
            "-c",
            f"filter.{name}.smudge=cat",
            "-c",
            f"filter.{name}.process=",
            "-c",
            f"filter.{name}.required=false",
        )
    ]


def _config_file(repo: Path) -> tuple[str, float]:
    path = _git_dir(repo) / "config"
    try:
        return str(path), path.stat().st_mtime
    except OSError:
        return str(path), 0.0


@lru_cache(maxsize=64)
def _filter_drivers(config: tuple[str, float]) -> tuple[str, ...]:
    done = _run(
        ["git", "config", "--file", config[0], "--name-only", "--get-regexp", r"^filter\."],
        Path("/"),
        None,
        10.0,
    )
    names = (
        {
            line.split(".", 1)[1].rsplit(".", 1)[0]
            for line in done.stdout.decode("utf-8", "replace").splitlines()
            if line.count(".") >= 2
        }
        if done.returncode == 0
        else set()
    )
    return tuple(sorted(names))


def _git_dir(repo: Path) -> Path:
    dotgit = repo / ".git"
    if dotgit.is_file():  # a worktree or submodule: "gitdir: <path>"
        text = dotgit.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            return (repo / text.removeprefix("gitdir:").strip()).resolve()
    return dotgit


def _environment(extra: Mapping[str, str] | None) -> dict[str, str]:
    # GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE & co. from referee's own environment would point git
    # elsewhere; only what the caller passes on purpose is kept.
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return {**env, **_SAFE_ENV, **(extra or {})}


def _run(
    argv: Sequence[str],
    cwd: Path,
    input_data: bytes | None,
    timeout_s: float,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            list(argv),
            cwd=cwd,
            env=_environment(env),
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
    argv = ["git", *safe_options(repo), *args]
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
    options = safe_options(repo)
    procs: list[subprocess.Popen[bytes] | None] = []
    for args in commands:
        try:
            procs.append(
                subprocess.Popen(
                    ["git", *options, *args],
                    cwd=repo,
                    env=_environment(None),
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
