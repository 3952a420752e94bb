"""Which Go files this machine's build takes: the file name's platform suffix and the build
constraint (`//go:build`, or the older `// +build` lines) above the package clause.

A build constraint is configuration written into a source file: `//go:build !linux` on the file
the diff shows keeps it out of every linux build, and a `calc_linux.go` beside it is then the
`Add` the tests run. The rule in tools/tampering/harness.py asks this module which files a build
here leaves out. Tags referee cannot know (a custom `-tags`) count as unset, as in a plain
`go test`.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
from functools import cache

__all__ = ["built_here", "declared_names"]

_GOOS = frozenset(
    {"aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js"}
    | {"linux", "nacl", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos"}
)
_UNIX = frozenset(
    {"aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "linux"}
    | {"netbsd", "openbsd", "solaris"}
)
_GOARCH = frozenset(
    {"386", "amd64", "amd64p32", "arm", "armbe", "arm64", "arm64be", "loong64", "mips"}
    | {"mipsle", "mips64", "mips64le", "mips64p32", "mips64p32le", "ppc", "ppc64", "ppc64le"}
    | {"riscv", "riscv64", "s390", "s390x", "sparc", "sparc64", "wasm"}
)
_MACHINES = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}
_MACHINES |= {"i386": "386", "i686": "386", "ppc64le": "ppc64le", "s390x": "s390x"}
_MACHINES |= {"riscv64": "riscv64", "armv7l": "arm"}
_TOKEN = re.compile(r"\s*(\|\||&&|!|\(|\)|[A-Za-z0-9_.]+)")
_VERSION = re.compile(r"^go1\.(\d+)$")
_GO_VERSION = re.compile(r"\bgo1\.(\d+)")
_NO_GO_MINOR = 30  # without a go command, a release tag up to go1.30 holds


@cache
def _tags() -> frozenset[str]:
    goos = "darwin" if sys.platform == "darwin" else sys.platform.rstrip("0123456789")
    goarch = _MACHINES.get(platform.machine().lower(), platform.machine().lower())
    tags = {goos, goarch, "gc"}
    if goos in _UNIX:
        tags.add("unix")
    if shutil.which("gcc") or shutil.which("cc"):
        tags.add("cgo")
    return frozenset(tags)


@cache
def _go_minor() -> int:
    """The installed go's minor version (`go1.N` holds for every N up to it). Asked from the
    root folder with the local toolchain: no go.mod or GOTOOLCHAIN of the tree has a say."""
    go = shutil.which("go")
    if go is None:
        return _NO_GO_MINOR
    env = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": ""}
    try:
        done = subprocess.run(
            [go, "version"], cwd="/", env=env, capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return _NO_GO_MINOR
    found = _GO_VERSION.search(done.stdout)
    return int(found.group(1)) if found else _NO_GO_MINOR


def built_here(path: str, text: str) -> bool | None:
    """Whether `go build` on this machine compiles the file (None: a constraint it cannot
    read, which go itself refuses)."""
    name = path.rsplit("/", 1)[-1]
    if name.startswith(("_", ".")) or not _name_holds(name):
        return False
    expression = _constraint(text)
    if expression is None:
        return True
    return _evaluate(expression)


def _name_holds(name: str) -> bool:
    parts = name.removesuffix(".go").removesuffix("_test").split("_")[1:]
    tags = _tags()
    if len(parts) >= 2 and parts[-2] in _GOOS and parts[-1] in _GOARCH:
        return parts[-2] in tags and parts[-1] in tags
    if parts and parts[-1] in _GOOS:
        return parts[-1] in tags
    if parts and parts[-1] in _GOARCH:
        return parts[-1] in tags
    return True


def _constraint(text: str) -> str | None:
    """The file's build expression: its `//go:build` line, else its `// +build` lines joined
    as go does (lines AND, spaces OR, commas AND). Only the header before `package` counts."""
    plus: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("package ") or stripped == "package":
            break
        if stripped.startswith("//go:build"):
            return stripped[len("//go:build") :].strip()
        if stripped.startswith("// +build"):
            words = stripped[len("// +build") :].split()
            plus.append(" || ".join("(" + " && ".join(w.split(",")) + ")" for w in words))
    if not plus:
        return None
    return " && ".join(f"({p})" for p in plus)


def _evaluate(expression: str) -> bool | None:
    tokens = _tokens(expression)
    if tokens is None:
        return None
    parser = _Parser(tokens, _tags())
    try:
        value = parser.either()
    except IndexError:
        return None
    return value if parser.at == len(tokens) else None


def _tokens(expression: str) -> list[str] | None:
    tokens: list[str] = []
    at = 0
    while at < len(expression):
        if expression[at:].strip() == "" or expression[at:].lstrip().startswith("//"):
            break
        match = _TOKEN.match(expression, at)
        if match is None:
            return None
        tokens.append(match.group(1))
        at = match.end()
    return tokens


class _Parser:
    """`either := both ('||' both)*; both := one ('&&' one)*; one := '!' one | '(' either ')'
    | tag`, go/build/constraint's grammar."""

    def __init__(self, tokens: list[str], tags: frozenset[str]):
        self.tokens, self.tags, self.at = tokens, tags, 0

    def either(self) -> bool:
        value = self.both()
        while self.at < len(self.tokens) and self.tokens[self.at] == "||":
            self.at += 1
            value = self.both() or value
        return value

    def both(self) -> bool:
        value = self.one()
        while self.at < len(self.tokens) and self.tokens[self.at] == "&&":
            self.at += 1
            value = self.one() and value
        return value

    def one(self) -> bool:
        token = self.tokens[self.at]
        self.at += 1
        if token == "!":
            return not self.one()
        if token == "(":
            value = self.either()
            if self.tokens[self.at] != ")":
                raise IndexError(self.at)
            self.at += 1
            return value
        if token in ("||", "&&", ")"):
            raise IndexError(self.at)
        if version := _VERSION.match(token):
            return int(version.group(1)) <= _go_minor()
        return token in self.tags


_DECLARED = re.compile(
    r"^(?:func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)|(?:type|var|const)\s+([A-Za-z_]\w*))", re.M
)


def declared_names(text: str) -> frozenset[str]:
    """The top-level functions, methods (by name), types, variables and constants a Go file
    declares on a line of their own."""
    return frozenset(a or b for a, b in _DECLARED.findall(text))
