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
from functools import cache, lru_cache

import tree_sitter as ts

from referee.tools.static.langs import parser

__all__ = ["built_here", "declared_names"]

# go/build's known systems; `wasip1` joined in go1.21 (before, `calc_wasip1.go` is built here).
_GOOS = frozenset(
    {"aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js"}
    | {"linux", "nacl", "netbsd", "openbsd", "plan9", "solaris", "windows", "zos"}
)
_GOOS_SINCE = {"wasip1": 21}
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
# A tag is letters (any script), digits, `_` and `.`.
_TOKEN = re.compile(r"\s*(\|\||&&|!|\(|\)|[\w.]+)")
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


def _systems() -> frozenset[str]:
    return _GOOS | {s for s, minor in _GOOS_SINCE.items() if _go_minor() >= minor}


def built_here(path: str, text: str) -> bool | None:
    """Whether `go build` on this machine compiles the file (None: a constraint it cannot
    read, which go itself refuses; the rule takes that for left out)."""
    name = path.rsplit("/", 1)[-1]
    if name.startswith(("_", ".")) or not _name_holds(name):
        return False
    expression = _constraint(text)
    if expression is None:
        return True
    return _evaluate(expression)


def _name_holds(name: str) -> bool:
    # As go/build reads a name: up to its first dot (`calc_windows.v2.go` is for windows).
    parts = name.split(".", 1)[0].removesuffix("_test").split("_")[1:]
    tags, systems = _tags(), _systems()
    if len(parts) >= 2 and parts[-2] in systems and parts[-1] in _GOARCH:
        return parts[-2] in tags and parts[-1] in tags
    if parts and parts[-1] in systems:
        return parts[-1] in tags
    if parts and parts[-1] in _GOARCH:
        return parts[-1] in tags
    return True


def _constraint(text: str) -> str | None:
    """The file's build expression: its `//go:build` line, else its `// +build` lines joined
    as go does (lines AND, spaces OR, commas AND). Only the header counts: what comes before
    the first line that is neither blank nor a comment (a `/* … */` block is skipped whole,
    a byte-order mark too)."""
    plus: list[str] = []
    for comment in _header_comments(text.removeprefix("\ufeff")):
        if comment.startswith("//go:build") and comment[10:11] in ("", " ", "\t"):
            return comment[len("//go:build") :].strip()
        if comment.startswith("// +build") and comment[9:10] in ("", " ", "\t"):
            words = comment[len("// +build") :].split()
            plus.append(" || ".join("(" + " && ".join(w.split(",")) + ")" for w in words))
    if not plus:
        return None
    return " && ".join(f"({p})" for p in plus)


def _header_comments(text: str) -> list[str]:
    """The line comments of the file's header, each stripped."""
    found: list[str] = []
    at, size = 0, len(text)
    while at < size:
        if text[at].isspace():
            at += 1
        elif text.startswith("//", at):
            end = text.find("\n", at)
            end = size if end < 0 else end
            found.append(text[at:end].strip())
            at = end
        elif text.startswith("/*", at):
            end = text.find("*/", at + 2)
            if end < 0:
                break
            at = end + 2
        else:
            break
    return found


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


_MAX_SOURCE = 2 * 1024 * 1024
_SPECS = frozenset({"var_spec", "const_spec", "type_spec", "type_alias"})


@lru_cache(maxsize=256)  # the rule asks again for each file the change leaves out
def declared_names(text: str) -> frozenset[str]:
    """The package-level names a Go file declares: functions, types, variables and constants
    (grouped or not), and methods as `Type.Method`."""
    data = text.encode("utf-8", "replace")
    if len(data) > _MAX_SOURCE:
        return frozenset()
    root = parser("go").parse(data).root_node
    names: set[str] = set()
    for node in root.children:
        if node.type == "function_declaration":
            names.add(_text(node.child_by_field_name("name")))
        elif node.type == "method_declaration":
            receiver = node.child_by_field_name("receiver")
            owner = _first(receiver, "type_identifier")
            names.add(f"{owner}.{_text(node.child_by_field_name('name'))}")
        elif node.type in ("var_declaration", "const_declaration", "type_declaration"):
            for spec in _below(node, _SPECS):
                names.update(_text(n) for n in spec.children_by_field_name("name") if n.is_named)
    names.discard("")
    names.discard("_")
    return frozenset(names)


def _below(node: ts.Node, types: frozenset[str]) -> list[ts.Node]:
    found: list[ts.Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in types:
            found.append(current)
        else:
            stack.extend(reversed(current.children))
    return found


def _first(node: ts.Node | None, kind: str) -> str:
    found = _below(node, frozenset({kind})) if node is not None else []
    return _text(found[0]) if found else ""


def _text(node: ts.Node | None) -> str:
    return "" if node is None or node.text is None else node.text.decode("utf-8", "replace")
