"""The JS runner a check names, run from its own package, never from `node_modules/.bin`.

`node_modules/.bin/vitest` is a link any change (or a tool it runs) can replace with a script that
prints a passing run and writes a passing report; git ignores it, so the tree hash does not see
it. referee runs the runner the package declares instead: `node <package>/<its "bin" entry>`,
with the `node` of the server's PATH (a `node` planted in `.bin` is not picked up either). The
package's own files are the environment, checked by tools/environment.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from referee.tools.runners.base import Call, base_name

__all__ = ["runner_argv", "runner_program"]

_LIMIT = 1024 * 1024


_PACKAGE_RUNNERS = {"npx", "bunx"}
_EXEC = {"pnpm": ("exec", "dlx"), "yarn": ("exec", "dlx"), "npm": ("exec", "x"), "bun": ("x",)}


def runner_argv(call: Call, package: str, args: tuple[str, ...]) -> tuple[str, ...]:
    """The whole argv: the runner from its package with `args`, behind the command's prefix
    less any `npx`/`pnpm exec`/… (which would look the program up in `.bin` again)."""
    words = runner_program(call, package)
    if words == (call.command[0],):
        return call.argv((*words, *args))
    return (*_without_package_runner(call.prefix), *words, *args)


def _without_package_runner(prefix: tuple[str, ...]) -> tuple[str, ...]:
    for at, token in enumerate(prefix):
        name = base_name(token)
        following = prefix[at + 1] if at + 1 < len(prefix) else ""
        if name in _PACKAGE_RUNNERS or following in _EXEC.get(name, ()):
            return prefix[:at]
    return prefix


def runner_program(call: Call, package: str) -> tuple[str, ...]:
    """The argv words that start the runner: `node /…/node_modules/<package>/<bin>` when the
    command names the runner by its bare name or its `.bin` link, else the command's own."""
    program = call.command[0]
    if "/" in program and "/node_modules/.bin/" not in f"/{program}":
        return (program,)
    name = base_name(program)
    script = _declared_bin(call, package, name)
    node = shutil.which("node", path=call.path) if script else None
    return (node, str(script)) if node and script else (program,)


def _declared_bin(call: Call, package: str, name: str) -> Path | None:
    tree = call.tree.resolve()
    here = call.cwd.resolve()
    while True:
        found = _bin_of(here / "node_modules" / package, name)
        if found is not None:
            return found
        if here == tree or tree not in here.parents:
            return None
        here = here.parent


def _bin_of(folder: Path, name: str) -> Path | None:
    manifest = folder / "package.json"
    try:
        if manifest.stat().st_size > _LIMIT:
            return None
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    declared = data.get("bin") if isinstance(data, dict) else None
    entry = declared.get(name) if isinstance(declared, dict) else declared
    if not isinstance(entry, str):
        return None
    target = (folder / entry).resolve()
    root = folder.resolve()
    return target if target.is_file() and root in target.parents else None
