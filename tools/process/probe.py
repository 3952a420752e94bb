"""Asking a tool on the host what it is (`rustc -vV`, `php -m`, `go version`), safely.

referee asks a few questions of the machine's toolchains on the host, outside the sandbox, before
a run. The evaluated tree must have no say in what answers: a program inside it is the
generator's code, and a toolchain proxy reads its settings from the folder it starts in (rustup's
`rust-toolchain.toml` names a toolchain `path` it then runs; go reads `go.mod`'s `toolchain`). So a
probe runs only a program found outside the tree, from the root folder, with the server's
environment less the variables that point a toolchain elsewhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

__all__ = ["host_program", "probe"]

# Variables a project's tooling sets to steer a toolchain (none of them is needed to ask a
# toolchain its version or modules).
_STEERING = frozenset(
    {"RUSTUP_TOOLCHAIN", "RUSTC", "RUSTC_WRAPPER", "CARGO_HOME", "GOTOOLCHAIN", "GOFLAGS"}
    | {"PHPRC", "PHP_INI_SCAN_DIR"}
)


def host_program(name: str, path: str | None, tree: Path | None = None) -> str | None:
    """The program `name` (a bare name looked up on `path`, or a path) as the host would start
    it, or None when there is none or it lies inside `tree`."""
    found = shutil.which(name, path=path) if "/" not in name else name
    if found is None:
        return None
    real = Path(os.path.realpath(found))
    if tree is not None and real.is_relative_to(os.path.realpath(tree)):
        return None
    return found


def probe(argv: Sequence[str], timeout: float = 30) -> subprocess.CompletedProcess[str] | None:
    """Run a toolchain's question from `/` (no project folder to read settings from), without
    the variables that steer toolchains; None when it cannot run or does not answer in time."""
    env = {k: v for k, v in os.environ.items() if k not in _STEERING}
    try:
        return subprocess.run(
            list(argv),
            cwd="/",
            env=env,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
