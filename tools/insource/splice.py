"""The base's code with the change's tests spliced in, for tests that live in source files.

A bug-fix criterion runs the change's tests on the base code. Tests in a test file travel as the
file; tests inside a source file cannot, since the whole file would carry the fix with it. So the
base run gets the base file's code with the current file's test blocks put in their place:

- Rust: each `#[cfg(test)] mod NAME { … }` (with its attributes and doc comments), and each
  `#[cfg(test)] mod NAME;` declaring one in a file of its own, replaces the base's module of that
  name, or is appended when base had none; a base test module the change deleted is removed;
- vitest in-source tests: each top-level `if (import.meta.vitest) { … }` block, matched in order;
- Python doctests: each docstring holding `>>>` examples, by what it documents (doctests.py).

Only the test blocks move: every other byte is the base's, so nothing the fix wrote reaches the
base run through them (a test block cannot define the crate's non-test items for the crate's other
code: `#[cfg(test)]` code is compiled for tests only).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import tree_sitter as ts

from referee.tools.insource.declared import declared_test_modules, test_only
from referee.tools.insource.doctests import splice_doctests
from referee.tools.tampering.syntax import descendants, parse, script_language, text

__all__ = ["Spliced", "splice"]


@dataclass(frozen=True)
class Spliced:
    """The base file with the current test blocks, and which of its tests the change touched."""

    text: str
    changed_tests: tuple[str, ...]
    """Tests (`tests::name`) new in the change or edited by it: the ones a base build that does
    not compile keeps from running. Rust only; empty for vitest blocks."""
    modules: tuple[str, ...] = ()
    """The spliced Rust test modules' names (`tests`): which of the file's tests the base run
    has in their current version. Empty for vitest, whose in-source tests are all in blocks."""
    docs_unchanged: bool = False
    """Rust: the file's doc comments are the same at base and now, so its doc tests ran at base
    in their current version (a doc comment is not spliced: it documents the base's item)."""
    lines: tuple[tuple[int, int], ...] = ()
    """The 1-based line spans of the spliced blocks in `text`: a build error there comes from
    the change's tests, anywhere else from the splice itself."""
    declared: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Rust: the test modules the file declares with their code in a file of their own, and the
    files each can live in (`tests`, `src/unit_tests.rs` for a `#[path]`)."""
    other: str = ""
    """Where the test blocks came from when the module moved (plan.py module_key): the other
    side's path of the same module; empty when both sides are at one path."""


def splice(path: str, base: str, now: str) -> Spliced | None:
    """The spliced text of a changed source file, or None when it holds no test block (at base
    or now) or a side cannot be read."""
    if path.endswith(".rs"):
        spliced = _rust(base, now)
        declared = tuple(sorted(declared_test_modules(path, now).items()))
        return replace(spliced, declared=declared) if spliced and declared else spliced
    if path.endswith(_SCRIPTS) and "import.meta.vitest" in now + base:
        return _vitest(script_language(path), base, now)
    if path.endswith(".py"):
        doctests = splice_doctests(base, now)
        return None if doctests is None else Spliced(doctests[0], (), (), False, doctests[1])
    return None


_SCRIPTS = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx")


def _rust(base: str, now: str) -> Spliced | None:
    before, after = parse("rust", base), parse("rust", now)
    if before is None or after is None:
        return None
    old, new = _rust_modules(before), _rust_modules(after)
    if not (_readable(before, old) and _readable(after, new)):
        return None
    docs = _doc_lines(before), _doc_lines(after)
    if not old and not new and not any(docs):
        return None
    edits = [(_span(m), _span(new[name]) if name in new else None) for name, m in old.items()]
    # A test module new in the change is appended at the top level: one nested in another
    # module has no place at base to go (its tests then did not run there).
    tail = [_span(m) for name, m in new.items() if name not in old and "::" not in name]
    was, now_tests = _module_tests(old), _module_tests(new)
    changed = tuple(sorted(n for n, body in now_tests.items() if was.get(n) != body))
    made, lines = _apply(base, now, edits, tail)
    return Spliced(made, changed, tuple(sorted(new)), docs[0] == docs[1], lines)


def _readable(root: ts.Node, modules: dict[str, tuple[ts.Node, ts.Node]]) -> bool:
    """Whether the file's test modules were read whole. A parse error elsewhere is no obstacle
    (the grammar is 2018's: an edition-2015 crate's `try!(…)` reads as one); an error inside a
    test module, or one that holds a `cfg(test)` (a module it may have swallowed, which the
    splice would then add twice or miss), is."""
    if not root.has_error:
        return True
    spans = [_span(m) for m in modules.values()]
    for node in [root, *descendants(root, frozenset({"ERROR"}))]:
        if node.type != "ERROR":
            continue
        inside = any(a <= node.start_byte < b or a < node.end_byte <= b for a, b in spans)
        if inside or "cfg(test)" in "".join(text(node).split()):
            return False
    return not any(n.is_missing for _, m in modules.values() for n in descendants(m))


def _rust_modules(root: ts.Node, prefix: str = "") -> dict[str, tuple[ts.Node, ts.Node]]:
    """Each module compiled for tests only (`#[cfg(test)]`, `#[cfg(all(test, …))]`), at the top
    level or inside other modules, by its path (`tests`, `ops::tests`): its first attribute and
    the module. A module declared without a body (`mod tests;`, with or without `#[path]`) counts
    as its declaration: its file is a test file of the change (declared.py), and the declaration
    moves with the test blocks so that the base run compiles the change's version of it."""
    found: dict[str, tuple[ts.Node, ts.Node]] = {}
    lead: list[ts.Node] = []
    for child in root.children:
        if child.type in ("attribute_item", "line_comment", "block_comment"):
            lead.append(child)
            continue
        attributes = [a for a in lead if a.type == "attribute_item"]
        lead = []
        if child.type != "mod_item":
            continue
        name = prefix + text(child.child_by_field_name("name"))
        body = child.child_by_field_name("body")
        if any(test_only(a) for a in attributes):
            found[name] = (attributes[0], child)
        elif body is not None:
            found.update(_rust_modules(body, name + "::"))
    return found


def _doc_lines(root: ts.Node) -> list[str]:
    """The file's doc comments (`///`, `//!`, `/** */`), in order, as written."""
    return [
        text(node).strip()
        for node in descendants(root, frozenset({"line_comment", "block_comment"}))
        if text(node).startswith(("///", "//!", "/**", "/*!"))
    ]


def _span(module: tuple[ts.Node, ts.Node]) -> tuple[int, int]:
    return module[0].start_byte, module[1].end_byte


def _module_tests(modules: dict[str, tuple[ts.Node, ts.Node]]) -> dict[str, str]:
    """Each function of the test modules by `module::name`, with its text (whitespace folded):
    helpers count too, since a test that calls an edited helper is edited."""
    found: dict[str, str] = {}
    for key, (_, module) in modules.items():
        outer = key.rpartition("::")[0]  # the modules around a nested test module
        for node in descendants(module, frozenset({"function_item"})):
            path, parent = [text(node.child_by_field_name("name"))], node.parent
            while parent is not None and parent.id != module.parent.id:  # type: ignore[union-attr]
                if parent.type == "mod_item":
                    path.insert(0, text(parent.child_by_field_name("name")))
                parent = parent.parent
            name = "::".join([outer, *path] if outer else path)
            found[name] = " ".join(f"{_attributes(node)} {text(node)}".split())
    return found


def _attributes(function: ts.Node) -> str:
    """The attributes written above a function (`#[test]`, `#[ignore]`, `#[should_panic]`): part of
    the test, though the grammar makes them its siblings."""
    found: list[str] = []
    node = function.prev_named_sibling
    while node is not None and node.type == "attribute_item":
        found.insert(0, text(node))
        node = node.prev_named_sibling
    return " ".join(found)


def _vitest(language: str, base: str, now: str) -> Spliced | None:
    before, after = parse(language, base), parse(language, now)
    if before is None or after is None or before.has_error or after.has_error:
        return None
    old, new = _vitest_blocks(before), _vitest_blocks(after)
    if not old and not new:
        return None
    edits = [(span, new[i] if i < len(new) else None) for i, span in enumerate(old)]
    made, lines = _apply(base, now, edits, new[len(old) :])
    return Spliced(made, (), (), False, lines)


def _vitest_blocks(root: ts.Node) -> list[tuple[int, int]]:
    """Each top-level `if` whose condition reads `import.meta.vitest` (`if (import.meta.vitest)`,
    `!== undefined`, …): vitest defines it for in-source tests alone."""
    return [
        (child.start_byte, child.end_byte)
        for child in root.named_children
        if child.type == "if_statement"
        and "import.meta.vitest" in text(child.child_by_field_name("condition"))
    ]


def _apply(
    base: str,
    now: str,
    edits: list[tuple[tuple[int, int], tuple[int, int] | None]],
    tail: list[tuple[int, int]],
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """`base` with each span replaced by the current text of its match (None: removed) and the
    `tail` spans of `now` appended, with the lines each moved block spans there."""
    old, new = base.encode("utf-8", errors="replace"), now.encode("utf-8", errors="replace")
    out, at, lines = bytearray(), 0, []
    for (start, end), match in sorted(edits):
        out += old[at:start]
        if match:
            lines.append(_put(out, new[match[0] : match[1]]))
        at = end
    out += old[at:]
    for start, end in tail:
        out += b"" if out.endswith(b"\n\n") else b"\n" if out.endswith(b"\n") else b"\n\n"
        lines.append(_put(out, new[start:end]))
        out += b"\n"
    return out.decode("utf-8", "replace"), tuple(lines)


def _put(out: bytearray, block: bytes) -> tuple[int, int]:
    """Appends `block` to `out`: the 1-based lines it spans there."""
    first = out.count(b"\n") + 1
    out += block
    return first, first + block.count(b"\n")
