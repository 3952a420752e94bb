"""Rust tests (`#[test]` functions, in `mod tests` or anywhere) read with tree-sitter.

Skips are `#[ignore]`, `#[cfg_attr(…, ignore)]`, a `#[cfg(…)]` gate that does not hold in a
test build here (`test`, `debug_assertions` and `unix` do) on the test or a module around it (the
test may not be compiled at all), and `#[should_panic]` (the test
passes when its code fails). Assertions are the `assert*!`/`debug_assert*!` macros (and `panic!`).
"""

from __future__ import annotations

import tree_sitter as ts

from referee.tools.tampering import literals, reach
from referee.tools.tampering.model import TestInfo
from referee.tools.tampering.rustcfg import holds
from referee.tools.tampering.syntax import descendants, empty_block, line, parse, text

__all__ = ["rust_tests"]

_CONTAINERS = frozenset({"source_file", "declaration_list"})


def rust_tests(source: str) -> dict[str, TestInfo] | None:
    """Every `#[test]` function, by `module::name`; None when the file cannot be read."""
    root = parse("rust", source)
    if root is None:
        return None
    # The file's constants read as their values; each block's exits read once.
    with literals.bound(literals.constants(root)), reach.cached():
        return _rust_tests(root)


def _rust_tests(root: ts.Node) -> dict[str, TestInfo]:
    tests: dict[str, TestInfo] = {}
    hollow = _hollow_macros(root)
    checkers = {
        text(f.child_by_field_name("name")): body
        for f in descendants(root, frozenset({"function_item"}))
        if (body := f.child_by_field_name("body")) is not None
    }
    stack: list[tuple[ts.Node, list[str], ts.Node | None]] = [(root, [], None)]
    while stack:
        container, path, gate = stack.pop()
        gate = gate or _inner_gate(container)
        attributes: list[ts.Node] = []
        for child in container.named_children:
            if child.type == "attribute_item":
                attributes.append(child)
                continue
            if child.type in ("line_comment", "block_comment"):
                continue  # `#[test] // why`, a doc comment: the attributes still hold
            inner = child.child_by_field_name("body") if child.type == "mod_item" else None
            if inner is not None:
                name = text(child.child_by_field_name("name"))
                stack.append((inner, [*path, name], gate or _skip(attributes, module=True)))
            elif child.type == "function_item" and _is_test(attributes):
                name = "::".join([*path, text(child.child_by_field_name("name"))])
                tests[name] = _info(child, attributes, gate, hollow, checkers)
            attributes = []
    return tests


def _skip(attributes: list[ts.Node], module: bool = False) -> ts.Node | None:
    """The attribute that keeps a test (or every test of a module) from running as written."""
    for item in attributes:
        name, raw = _attribute_name(item), " ".join(text(item).split())
        if name == "cfg" and not holds(raw):
            return item
        if name == "cfg_attr" and _applies(raw):
            rest = raw[raw.find("cfg_attr(") :]
            if "ignore" in rest or "cfg(" in rest[len("cfg_attr(") :] or "should_panic" in rest:
                return item
        if not module and name == "ignore":
            return item
    return None


def _applies(raw: str) -> bool:
    """Whether a `#[cfg_attr(predicate, …)]`'s predicate holds in a test build here
    (`cfg_attr(miri, ignore)` ignores nothing under `cargo test`)."""
    inner = raw[raw.find("cfg_attr(") + len("cfg_attr(") :]
    depth = 0
    for at, char in enumerate(inner):
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            return holds(f"cfg({inner[:at]})")
    return False


def _inner_gate(container: ts.Node, test: bool = False) -> ts.Node | None:
    """`#![cfg(…)]` (or a `#![cfg_attr(…)]` that holds and writes one) inside a module or a
    test's body: it gates the whole module or test like one on its head; in a test's body
    `#![ignore]` ignores it too."""
    for child in container.named_children:
        if child.type != "inner_attribute_item":
            continue
        raw = " ".join(text(child).split()).replace(" ", "")
        if raw.startswith("#![cfg(") and not holds(raw):
            return child
        if raw.startswith("#![cfg_attr(") and _applies(raw):
            rest = raw[raw.find("cfg_attr(") + len("cfg_attr(") :]
            if "cfg(" in rest and not holds(rest[rest.find("cfg(") :]):
                return child
            if test and "ignore" in rest:
                return child
        if test and raw.startswith("#![ignore"):
            return child
    return None


def _attribute_name(item: ts.Node) -> str:
    attribute = next((c for c in item.named_children if c.type == "attribute"), None)
    return text(attribute.named_children[0]) if attribute and attribute.named_children else ""


def _is_test(attributes: list[ts.Node]) -> bool:
    return any(_attribute_name(a).split("::")[-1] == "test" for a in attributes)


def _hollow_macros(root: ts.Node) -> set[str]:
    """Macros the file defines (`macro_rules! assert_eq { … => {} }`) whose rules assert
    nothing: no `assert…!`, `panic!` or `unreachable!` in any expansion. Written in a test they
    shadow the standard macro of that name and check nothing."""
    found = set()
    for macro in descendants(root, frozenset({"macro_definition"})):
        body = text(macro).split("{", 1)[-1]
        if not any(word in body for word in ("assert", "panic", "unreachable", "fail")):
            found.add(text(macro.child_by_field_name("name")))
    return found


def _info(
    node: ts.Node,
    attributes: list[ts.Node],
    gate: ts.Node | None,
    hollow: set[str],
    checkers: dict[str, ts.Node],
) -> TestInfo:
    body = node.child_by_field_name("body")
    ignored = _skip(attributes) or gate or (_inner_gate(body, test=True) if body else None)
    panics = next((a for a in attributes if _attribute_name(a) == "should_panic"), None)
    tally = reach.Tally()
    # A function of the file the test calls lends it its assertions (once each).
    scopes = [body] if body is not None else []
    visited = {text(node.child_by_field_name("name"))}
    while scopes:
        scope = scopes.pop()
        candidates: list[tuple[ts.Node, frozenset[str]]] = []
        for found in descendants(scope, frozenset({"macro_invocation", "call_expression"})):
            if found.type == "call_expression":
                called = text(found.child_by_field_name("function")).split("::")[-1]
                if called in checkers and (scope is body or called not in visited):
                    visited.add(called)  # lent at each call of the test, once from a helper
                    scopes.append(checkers[called])
                continue
            name = text(found.child_by_field_name("macro")).split("::")[-1]
            if name.startswith(("assert", "debug_assert")):
                candidates.append((found, frozenset({name})))
            elif name == "panic":
                candidates.append((found, frozenset()))  # its message is all it reads
        tally.add(candidates, scope, own=scope is body)
    # `std::assert_eq!` is std's; a bare name may be the file's own macro.
    shadowed = [a for a in tally.asserts if a[1].split("!", 1)[0] in hollow]
    asserts = [a for a in tally.asserts if a not in shadowed]
    inert = tally.inert + [
        (*a, "the file's own macro of that name asserts nothing") for a in shadowed
    ]
    return TestInfo(
        line=line(node),
        skipped=ignored is not None,
        skip_line=line(ignored) if ignored is not None else None,
        asserts=asserts,
        inert=inert,
        lent=tally.lent,
        trivial=empty_block(body),
        expects_failure=line(panics) if panics is not None else None,
    )
