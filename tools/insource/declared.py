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

from referee.tools.tampering.syntax import descendants, parse, text

__all__ = ["declared_test_modules", "may_declare", "test_files_of", "test_only"]

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
    """A `cfg` that cannot hold without `test` (`#[cfg(test)]`, `#![cfg(test)]`,
    `cfg(all(test, not(miri)))`, `cfg(any(test))`): code compiled for tests alone. The predicate
    is evaluated with `test` false and every other option unknown; it is test-only when it is
    then false whatever the others are."""
    raw = "".join(text(attribute).split())
    for prefix in ("#[cfg(", "#![cfg("):
        if raw.startswith(prefix) and raw.endswith(")]"):
            value, rest = _predicate(raw[len(prefix) : -2])
            return value is False and rest == ""
    return False


Truth = bool | None  # None: unknown


def _predicate(raw: str) -> tuple[Truth, str]:
    """The truth of the cfg predicate at the start of `raw` with `test` false, and what is left
    after it (`all(…)`, `any(…)`, `not(…)`, an option, `key = "value"`)."""
    match = re.match(r'(\w+)(="[^"]*")?', raw)
    if match is None:
        return None, "?"  # unreadable: no claim either way
    name, rest = match.group(1), raw[match.end() :]
    if match.group(2) is not None or not rest.startswith("("):
        return (False if name == "test" and match.group(2) is None else None), rest
    values, rest = _arguments(rest[1:])
    if name == "all":
        return (False if False in values else True if all(values) else None), rest
    if name == "any":
        return (
            True if True in values else False if all(v is False for v in values) else None
        ), rest
    if name == "not" and len(values) == 1:
        return (None if values[0] is None else not values[0]), rest
    return None, rest


def _arguments(raw: str) -> tuple[list[Truth], str]:
    values: list[Truth] = []
    while raw and not raw.startswith(")"):
        value, raw = _predicate(raw)
        if raw == "?":
            return [None], "?"
        values.append(value)
        raw = raw[1:] if raw.startswith(",") else raw
    return values, raw[1:]


def test_files_of(path: str, source: str) -> set[str]:
    """Every file the Rust file `path` makes test code: the files of the test-only modules it
    declares, what its test-only code `include!`s, and itself when an inner `#![cfg(test)]`
    makes the whole file test-only."""
    if "test" not in source:
        return set()
    root = parse("rust", source)
    if root is None:
        return set()
    whole = any(c.type == "inner_attribute_item" and test_only(c) for c in root.named_children)
    found = {path} if whole else set()
    if may_declare(source):
        for files in declared_test_modules(path, source).values():
            found.update(files)
    folder = PurePosixPath(path).parent
    for macro in descendants(root, frozenset({"macro_invocation"})):
        if text(macro.child_by_field_name("macro")) != "include":
            continue
        if not (whole or _in_test_module(macro)):
            continue
        literal = next(iter(descendants(macro, frozenset({"string_literal"}))), None)
        if literal is not None:
            found.add(_normal(folder / text(literal).strip('"')))
    return found


def _in_test_module(node: ts.Node) -> bool:
    """Whether `node` lies in a module or function compiled for tests alone."""
    parent = node.parent
    while parent is not None:
        if parent.type in ("mod_item", "function_item"):
            sibling = parent.prev_named_sibling
            while sibling is not None and sibling.type in ("attribute_item", "line_comment"):
                if sibling.type == "attribute_item" and test_only(sibling):
                    return True
                sibling = sibling.prev_named_sibling
        parent = parent.parent
    return False


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
