"""Where the runner starts in a command: behind `uv run`, `npx`, `pnpm exec`, `env A=B` …

The prefix is kept as the user wrote it; only the runner's own arguments are rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from referee.tools.runners.base import base_name

__all__ = ["python_module", "split_wrappers"]

_RUN_WRAPPERS = {"uv", "poetry", "pipenv", "pdm", "rye", "hatch"}  # `<wrapper> run <command>`
_RUN_VALUE_OPTIONS = {  # options of `uv run` & co. that take the next token as their value
    "--with",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "--extra",
    "--group",
    "--only-group",
    "--no-group",
    "--package",
    "--directory",
    "--project",
    "--env-file",
    "--index",
    "-e",
    "--env",
}
_NPX_VALUE_OPTIONS = {"-p", "--package", "-c", "--call", "--workspace", "-w"}
_EXEC_WRAPPERS = {"pnpm": ("exec", "dlx"), "yarn": ("exec", "dlx"), "npm": ("exec", "x")}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"python(\d+(\.\d+)?)?$")
_PYTHON_VALUE_OPTIONS = {"-W", "-X", "-Q"}


def split_wrappers(argv: Sequence[str]) -> int:
    """Index of the runner's program in `argv`, past any wrappers (0 without one)."""
    start, seen = 0, -1
    while start != seen and start < len(argv):
        seen = start
        start = _past_one(argv, start)
    return start


def _past_one(argv: Sequence[str], at: int) -> int:
    program = base_name(argv[at])
    rest = argv[at + 1 :]
    if program in _RUN_WRAPPERS and rest[:1] == ["run"]:
        return _past_options(argv, at + 2, _RUN_VALUE_OPTIONS)
    if program in ("npx", "bunx"):
        return _past_options(argv, at + 1, _NPX_VALUE_OPTIONS)
    if program in _EXEC_WRAPPERS and rest[:1] and rest[0] in _EXEC_WRAPPERS[program]:
        return _past_options(argv, at + 2, _NPX_VALUE_OPTIONS)
    if _ASSIGNMENT.match(argv[at]):  # `NODE_ENV=test jest` in a shell line or script
        return at + 1
    if program in ("env", "cross-env"):
        index = at + 1
        while index < len(argv) and (_ASSIGNMENT.match(argv[index]) or argv[index] == "-"):
            index += 1
        return index
    return at


def _past_options(argv: Sequence[str], index: int, valued: set[str]) -> int:
    while index < len(argv) and argv[index].startswith("-"):
        if argv[index] == "--":
            return index + 1
        index += 2 if argv[index] in valued else 1
    return index


def python_module(command: Sequence[str]) -> int | None:
    """For `python [options] -m MODULE …`, the index of MODULE; else None."""
    found = _python_target(command)
    return found[1] if found and found[0] == "-m" else None


def python_script(command: Sequence[str]) -> int | None:
    """For `python [options] SCRIPT …`, the index of SCRIPT; else None."""
    found = _python_target(command)
    return found[1] if found and found[0] == "script" else None


def _python_target(command: Sequence[str]) -> tuple[str, int] | None:
    """What a python command runs after its options: ("-m", index of the module), ("script",
    index of the file); None for `-c`, bare options, or a program that is not python."""
    if not command or not _PYTHON.fullmatch(base_name(command[0])):
        return None
    index = 1
    while index < len(command):
        token = command[index]
        if token == "-m":
            return ("-m", index + 1) if index + 1 < len(command) else None
        if token == "-c" or token == "-":
            return None
        if not token.startswith("-"):
            return "script", index
        index += 2 if token in _PYTHON_VALUE_OPTIONS else 1
    return None
    index = 1
    while index < len(command):
        token = command[index]
        if token == "-m":
            return index + 1 if index + 1 < len(command) else None
        if not token.startswith("-") or token == "-c":
            return None
        index += 2 if token in _PYTHON_VALUE_OPTIONS else 1
    return None
