"""`npm test`, `npm run NAME`, `pnpm test`, `yarn test` …: the package.json script is resolved to
the runner it calls, and that runner is asked for its report.

The script runs as the package manager would run it (`/bin/sh -c`, with `node_modules/.bin` of
the package and its parents on PATH, `pre`/`post` scripts around it), with the runner's segment
rewritten. The evidence records the resolved line.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from referee.tools.runners.base import Advice, Call, Plan, Runner, base_name
from referee.tools.runners.shell_line import Dispatch, plan_line

_MANAGERS = ("npm", "pnpm", "yarn", "bun")
_TEST_WORDS = {"test", "t", "tst"}
_RUN_WORDS = {"run", "run-script", "rum", "urn"}
# Subcommands of pnpm and yarn that are not script names (`pnpm NAME` runs a script otherwise).
_BUILTINS = {
    "add",
    "audit",
    "bin",
    "create",
    "dlx",
    "exec",
    "info",
    "init",
    "install",
    "i",
    "link",
    "list",
    "outdated",
    "pack",
    "publish",
    "remove",
    "up",
    "upgrade",
    "why",
    "workspace",
    "workspaces",
}
_MAX_DEPTH = 4
_PACKAGE_JSON_LIMIT = 1024 * 1024


def matches(command: Sequence[str]) -> bool:
    return _script(command) is not None


# What a package manager's word names: a script; a script, else the package's own binary
# (`pnpm vitest run` runs vitest when package.json has no `vitest` script, as `pnpm exec` does);
# or the binary (`pnpm exec vitest`).
_Kind = Literal["script", "script or binary", "binary"]


def _script(command: Sequence[str]) -> tuple[str, list[str], _Kind] | None:
    """The script (or binary) name, the arguments passed on to it, and which it names."""
    if not command or base_name(command[0]) not in _MANAGERS:
        return None
    manager, args = base_name(command[0]), list(command[1:])
    words = [i for i, a in enumerate(args) if not a.startswith("-")]
    if not words:
        return None
    first = args[words[0]]
    if first in _TEST_WORDS:
        return "test", _passed_on(args[words[0] + 1 :]), "script"
    if first in _RUN_WORDS and len(words) > 1:
        return args[words[1]], _passed_on(args[words[1] + 1 :]), "script"
    if manager in ("pnpm", "yarn", "bun") and first == "exec" and len(words) > 1:
        return args[words[1]], _passed_on(args[words[1] + 1 :]), "binary"
    if manager in ("pnpm", "yarn", "bun") and first not in _BUILTINS and first not in _RUN_WORDS:
        return first, _passed_on(args[words[0] + 1 :]), "script or binary"
    return None


def _passed_on(rest: list[str]) -> list[str]:
    return rest[1:] if rest[:1] == ["--"] else rest


def runner(dispatch: Dispatch) -> Runner:
    """The package-script runner; `dispatch` plans the command a script calls."""
    return Runner("package.json script", matches, lambda call: plan(call, dispatch))


def plan(call: Call, dispatch: Dispatch) -> Plan | Advice:
    found = _script(call.command)
    assert found is not None  # matches() said so
    name, extra, kind = found
    if call.depth >= _MAX_DEPTH:
        return Advice(call.program, f"the `{name}` script leads to scripts {_MAX_DEPTH} deep")
    scripts = _scripts(call.cwd)
    body = None if isinstance(scripts, str) else scripts.get(name)
    if kind == "binary" or (kind == "script or binary" and body is None):
        # The package's own binary, planned as the command itself: referee's runners take a
        # runner from its package's declared `bin`, never from node_modules/.bin.
        return plan_line(shlex.join([name, *extra]), call.with_command((), deeper=True), dispatch)
    if isinstance(scripts, str):
        return Advice(call.program, scripts)
    if body is None:
        return Advice(call.program, f"{call.cwd / 'package.json'} has no `{name}` script")
    line = " ".join([body, *extra])
    result = plan_line(line, call.with_command((), deeper=True), dispatch)
    if isinstance(result, Advice):
        # The runner stays None for a script that runs no known runner, so that a sibling
        # segment's own advice (a runner that could not be asked) is the one reported.
        return Advice(result.runner, f"the `{name}` script runs `{body}`: {result.hint}")
    return _around(result, name, body, scripts, call)


def _around(planned: Plan, name: str, body: str, scripts: dict[str, str], call: Call) -> Plan:
    parts = [scripts[f"pre{name}"]] if f"pre{name}" in scripts else []
    parts += [planned.argv[0]] + ([scripts[f"post{name}"]] if f"post{name}" in scripts else [])
    note = f"{call.program} {name}: package.json runs `{body}`"
    return Plan(
        runner=planned.runner,
        argv=(" && ".join(parts),),
        report=planned.report,
        env={**planned.env, "PATH": _bin_path(call)},
        shell=True,
        notes=(note, *planned.notes),
    )


def _scripts(folder: Path) -> dict[str, str] | str:
    path = folder / "package.json"
    try:
        if path.stat().st_size > _PACKAGE_JSON_LIMIT:
            return f"{path} is larger than 1 MiB; not read"
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return f"there is no package.json in {folder}"
    except (OSError, ValueError) as exc:
        return f"{path} cannot be read ({exc})"
    scripts = document.get("scripts") if isinstance(document, dict) else None
    if not isinstance(scripts, dict):
        return f"{path} has no `scripts`"
    return {str(k): v for k, v in scripts.items() if isinstance(v, str)}


def _bin_path(call: Call) -> str:
    """node_modules/.bin of the package and each parent up to the tree, then the server's PATH."""
    folders, here = [], call.cwd
    tree = call.tree.resolve()
    while True:
        folders.append(str(here / "node_modules" / ".bin"))
        if here.resolve() == tree or here.parent == here:
            break
        here = here.parent
    return os.pathsep.join([*folders, call.path or os.defpath])
