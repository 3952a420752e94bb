"""Which test ids of a run belong to a spliced block, so the base and current runs compare them.

A Rust test's id is its target and libtest's path (`src/lib.rs::tests::name`); a module file's
tests run in its crate's target (`src/lib.rs::parse::tests::name` for `src/parse.rs`). Doc tests
(`src/lib.rs - item`) sit in the file's doc comments, which stay the base's: they are compared
only when the change left every doc comment of the file as it was. An in-source vitest
file's tests (`src/sum.ts > adds`) all live in its blocks.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import PurePosixPath

from referee.tools.insource.splice import Spliced

__all__ = ["edited", "holds", "in_declared_file", "in_module_file", "out_of_line"]

_CRATE_ROOTS = ("lib.rs", "main.rs")
_SEPARATORS = ("::", " - ", " > ", " ")


def holds(path: str, spliced: Spliced, name: str) -> bool:
    """Whether the test `name` of a run lives in one of the spliced blocks of `path`."""
    if not path.endswith(".rs"):
        return any(name.startswith(path + sep) for sep in _SEPARATORS)
    if " - " in name:  # a doc test: `src/lib.rs - item`, or `src/parse.rs - parse::item`
        return spliced.docs_unchanged and name.startswith(path + " - ")
    target, sep, tail = name.partition("::")
    if not sep or not _same_crate(path, target):
        return False
    inner = _module_path(path)
    return any(tail.startswith(f"{inner}{module}::") for module in spliced.modules)


def edited(path: str, spliced: Spliced, name: str) -> bool:
    """Whether the test `name` of a run is one the change added to or edited in the spliced
    blocks of `path` (Rust; an in-source vitest block counts every test of it)."""
    if not holds(path, spliced, name):
        return False
    if not path.endswith(".rs"):
        return True
    tail = name.partition("::")[2].removeprefix(_module_path(path))
    return tail in spliced.changed_tests


def in_module_file(path: str, name: str) -> bool:
    """Whether the Rust test `name` is one of the module file `path` (`src/tests.rs`): libtest
    names it by its crate root (`src/lib.rs::tests::name`)."""
    target, sep, tail = name.partition("::")
    inner = _module_path(path)
    return (
        path.endswith(".rs")
        and bool(sep and inner)
        and _same_crate(path, target)
        and tail.startswith(inner)
    )


def in_declared_file(path: str, declaring: str, spliced: Spliced, name: str) -> bool:
    """Whether the Rust test `name` lives in the file `path` that `declaring` declares as a
    test module of its own (`#[cfg(test)] #[path = "unit_tests.rs"] mod tests;`)."""
    modules = [m for m, files in spliced.declared if path in files]
    target, sep, tail = name.partition("::")
    if not modules or not sep or not _same_crate(declaring, target):
        return False
    inner = _module_path(declaring)
    return any(tail.startswith(f"{inner}{module}::") for module in modules)


def out_of_line(path: str, spliced: Spliced | None, name: str, files: Collection[str]) -> bool:
    """Whether the Rust test `name`, whose id names the crate of `path`, lives in one of the test
    `files` that `path` only declares (`#[cfg(test)] mod tests;` in `src/lib.rs`, the tests in
    `src/tests.rs`): its tests are a test file's, though libtest names them by the crate root."""
    if not path.endswith(".rs"):
        return False
    target, sep, tail = name.partition("::")
    inner = _module_path(path)
    if not sep or not _same_crate(path, target) or not tail.startswith(inner):
        return False
    module, sep, _ = tail[len(inner) :].partition("::")
    if not sep or (spliced is not None and module in spliced.modules):
        return False  # a function of the file itself, or an inline `mod tests { … }` of it
    root = PurePosixPath(path)
    folder = root.parent if not inner or root.name == "mod.rs" else root.with_suffix("")
    return any(f in files for f in (f"{folder}/{module}.rs", f"{folder}/{module}/mod.rs"))


def _module_path(path: str) -> str:
    """The module a source file is, from its path (`src/a/b.rs`, `src/a/b/mod.rs`: `a::b::`);
    a crate root (`src/lib.rs`, a `src/bin/x.rs`) is none. A `#[path]` attribute is not read."""
    parts = PurePosixPath(path).parts
    if "src" not in parts:
        return ""
    rest = list(parts[parts.index("src") + 1 :])
    if rest[-1] in _CRATE_ROOTS or rest[0] == "bin":
        return ""
    if rest[-1] == "mod.rs":
        rest = rest[:-1]
    else:
        rest[-1] = rest[-1].removesuffix(".rs")
    return "".join(f"{part}::" for part in rest)


def _same_crate(path: str, target: str) -> bool:
    """`target` is the crate root `path` is compiled in (itself, or a root of its package)."""
    if target == path or not _module_path(path):
        return target == path
    package = path.split("src/")[0]
    return target.startswith(package + "src/") and target.endswith(_CRATE_ROOTS)
