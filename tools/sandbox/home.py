"""The user's own files a sandboxed command must not read: the home folder's settings and
credentials (`~/.npmrc` with a registry token, `~/.ssh`, `~/.aws`, `~/.gitconfig`, an agent's
configuration) and the system's password hashes.

A command's HOME is a fresh empty folder, so no tool looks in the user's home for its settings:
only a test that goes looking by the absolute path would. Every top-level entry of the home
folder is masked, save those the command can need: one that holds a program on its PATH, a path
its argv or environment names, its tree or working folder, a tool cache or toolchain home
(cargo, rustup, Go, Maven, npm …), or the Python referee itself runs on (a project's virtualenv
is made from it). What is kept is decided per command, so a check whose interpreter lives in
`~/venvs/app` finds it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

__all__ = ["SYSTEM_SECRETS", "argv_paths", "masked_entries"]

# Read by root only on the host; a sandbox that maps its user to root could read them.
SYSTEM_SECRETS = (Path("/etc/shadow"), Path("/etc/gshadow"), Path("/etc/sudoers"))
# Toolchains and caches under the home folder, reached through variables or the toolchain's own
# launchers rather than PATH alone.
_TOOLCHAINS = frozenset(
    {".cargo", ".rustup", "go", ".m2", ".gradle", ".npm", ".cache", ".pnpm-store", ".yarn"}
    | {".nvm", ".pyenv", ".volta", ".bun", ".deno", ".sdkman", ".jdks", ".dotnet", ".local"}
)


def masked_entries(
    home: Path | None, needed: Iterable[Path], env: Mapping[str, str]
) -> Iterator[Path]:
    """The top-level entries of `home` to mask for a command that needs `needed` (its tree,
    cwd, binds) and runs with `env`."""
    if home is None or not home.is_dir() or home == Path("/"):
        return
    kept = [*needed, *_named(env), Path(sys.prefix), Path(sys.base_prefix)]
    kept += [Path(os.path.realpath(p)) for p in kept]
    try:
        entries = sorted(home.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.name in _TOOLCHAINS or entry.is_symlink():
            continue
        if any(p == entry or entry in p.parents for p in kept):
            continue
        yield entry


def _named(env: Mapping[str, str]) -> Iterator[Path]:
    """Absolute paths the environment names (PATH's folders, a toolchain's home)."""
    for value in env.values():
        for part in value.split(os.pathsep):
            if part.startswith("/"):
                yield Path(part)


def argv_paths(argv: Iterable[str]) -> Iterator[Path]:
    """Absolute paths a command line names (in a shell line too: its words)."""
    for token in argv:
        for word in token.split():
            word = word.strip("'\"").split("=", 1)[-1]
            if word.startswith("/"):
                yield Path(word)
