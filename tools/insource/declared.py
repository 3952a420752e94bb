"""Rust test modules whose code lives in a file of its own: the file is test code.

`#[cfg(test)] mod tests;` compiles `src/tests.rs` (or `src/tests/mod.rs`) for tests alone, and
`#[cfg(test)] #[path = "checks.rs"] mod tests;` compiles `src/checks.rs` the same way, whatever
its name says. Such a file is the tests' as much as a `tests/` folder is: a change that edits it
edits tests, and the base's version of it must still pass (evaluate/change_tests.py). The path
rules are the Rust reference's: a `#[path]` outside inline modules is relative to the declaring
file's folder; otherwise a module's file sits in the folder of the module that declares it (a
crate root's or a `mod.rs`'s own folder, `src/a/` for `src/a.rs`), below any inline modules.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

import tree_sitter as ts

from referee.tools.tampering.syntax import parse, text

__all__ = ["declared_test_modules", "may_declare", "test_only"]

# A quick look before parsing: a file without both has no such declaration.
_CFG = re.compile(r"cfg\s*\(")
_BODILESS = re.compile(r"\bmod\s+\w+\s*;")
_PATH = re.compile(r'^#\[\s*path\s*=\s*"([^"]+)"\s*\]$', re.S)
_ROOTS = ("lib.rs", "main.rs", "mod.rs")


def may_declare(source: str) -> bool:
    return bool(_CFG.search(source) and _BODILESS.search(source))


def declared_test_modules(path: str, source: str) -> dict[str, tuple[str, ...]]:
    """Each module `path` declares without a body and compiles for tests alone, by its module
    path within the file (`tests`, `ops::tests`): the files it can live in (repo-relative)."""
    if not may_declare(source):
        return {}
    root = parse("rust", source)
    if root is None:
        return {}
    here = PurePosixPath(path)
    # Where the file's own child modules live: a crate root's and a mod.rs's folder, else the
    # folder named after the file.
    own = here.parent if _mod_rs(here) else here.with_suffix("")
    return _walk(root, here.parent, own, "", inline=False)


def test_only(attribute: ts.Node) -> bool:
    """`#[cfg(test)]`, or a `cfg(all(…))` that requires `test`: code compiled for tests alone."""
    raw = "".join(text(attribute).split())
    if raw == "#[cfg(test)]":
        return True
    if not raw.startswith("#[cfg(all(") or "not(" in raw:
        return False
    inner = raw[len("#[cfg(all(") : -len("))]")]
    return "test" in inner.split(",")


def _mod_rs(path: PurePosixPath) -> bool:
    return path.name in _ROOTS or path.parent.name == "bin"


def _walk(
    node: ts.Node, folder: PurePosixPath, own: PurePosixPath, prefix: str, inline: bool
) -> dict[str, tuple[str, ...]]:
    found: dict[str, tuple[str, ...]] = {}
    attributes: list[ts.Node] = []
    for child in node.children:
        if child.type == "attribute_item":
            attributes.append(child)
            continue
        if child.type in ("line_comment", "block_comment"):
            continue
        if child.type == "mod_item":
            name = text(child.child_by_field_name("name"))
            body = child.child_by_field_name("body")
            if body is not None:
                found.update(_walk(body, folder, own / name, f"{prefix}{name}::", inline=True))
            elif any(test_only(a) for a in attributes):
                found[prefix + name] = _files(attributes, folder, own, name, inline)
        attributes = []
    return found


def _files(
    attributes: list[ts.Node], folder: PurePosixPath, own: PurePosixPath, name: str, inline: bool
) -> tuple[str, ...]:
    for attribute in attributes:
        match = _PATH.match(text(attribute).strip())
        if match:
            # Outside inline modules `#[path]` is relative to the declaring file's folder; inside
            # them, to the folder the inline modules stand for.
            return (_normal((own if inline else folder) / match.group(1)),)
    return (_normal(own / f"{name}.rs"), _normal(own / name / "mod.rs"))


def _normal(path: PurePosixPath) -> str:
    """`a/./b/../c.rs` as `a/c.rs`: a `#[path]` may climb out of its folder."""
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)
