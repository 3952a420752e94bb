"""PHPUnit tests read with tree-sitter.

A test is a method of a class named `test…`, or marked `#[Test]` or `@test`. It is skipped when
its body calls `markTestSkipped`/`markTestIncomplete`, or when it (or its class) carries a
`#[Requires…]` attribute or a `@requires` annotation: a condition the run may not meet, read like
a `skipIf`. Assertions are `assert*`, `fail` and `expectException*` calls, on `$this`, `self`,
`static` or an assertion class.
"""

from __future__ import annotations

import tree_sitter as ts

from referee.tools.tampering import literals, reach
from referee.tools.tampering.model import TestInfo
from referee.tools.tampering.syntax import descendants, empty_block, line, parse, text

__all__ = ["php_tests"]

_CALLS = frozenset({"member_call_expression", "scoped_call_expression"})
_SKIP_CALLS = {"markTestSkipped", "markTestIncomplete"}


def php_tests(source: str) -> dict[str, TestInfo] | None:
    """Every test method, by `Class::method`; None when the file cannot be read."""
    root = parse("php", source)
    if root is None:
        return None
    # The file's constants read as their values; each block's exits read once.
    with literals.bound(literals.constants(root)), reach.cached():
        return _php_tests(root)


def _php_tests(root: ts.Node) -> dict[str, TestInfo]:
    tests: dict[str, TestInfo] = {}
    for cls in descendants(root, frozenset({"class_declaration"})):
        body = cls.child_by_field_name("body")
        if body is None:
            continue
        name = text(cls.child_by_field_name("name"))
        helpers = _skipping_helpers(body)
        class_skip = _conditional(cls, _doc(cls)) or _abstract(cls) or _no_test_case(cls)
        class_skip = class_skip or _setup_skips(body, helpers)
        methods = {text(m.child_by_field_name("name")) for m in body.named_children}
        doc: ts.Node | None = None
        for member in body.named_children:
            if member.type == "comment":
                doc = member
                continue
            if member.type == "method_declaration" and _is_test(member, doc):
                method = text(member.child_by_field_name("name"))
                skip = class_skip or _missing_dependency(member, methods, doc)
                skip = skip or next(
                    (
                        c
                        for c in member.children
                        if c.type == "visibility_modifier" and text(c) != "public"
                    ),
                    None,
                )
                tests[f"{name}::{method}"] = _info(member, doc, skip, helpers)
            doc = None
    return tests


def _is_test(method: ts.Node, doc: ts.Node | None) -> bool:
    name = text(method.child_by_field_name("name"))
    return name.startswith("test") or "Test" in _attributes(method) or "@test" in text(doc)


def _attributes(node: ts.Node) -> dict[str, ts.Node]:
    """The node's attributes by their short name (`#[Test]`, `#[RequiresPhp('8')]`)."""
    found: dict[str, ts.Node] = {}
    for group in (c for c in node.children if c.type == "attribute_list"):
        for attribute in descendants(group, frozenset({"attribute"})):
            head = attribute.named_children[0] if attribute.named_children else attribute
            found.setdefault(text(head).split("\\")[-1], attribute)
    return found


def _conditional(node: ts.Node, doc: ts.Node | None = None) -> ts.Node | None:
    """A `#[Requires…]` attribute or `@requires` annotation: where it is written, or None."""
    for name, attribute in _attributes(node).items():
        if name.startswith("Requires"):
            return attribute
    return doc if doc is not None and "@requires" in text(doc) else None


def _abstract(cls: ts.Node) -> ts.Node | None:
    """An abstract class: PHPUnit runs none of its tests (its subclasses' copies run, elsewhere)."""
    return next((c for c in cls.children if c.type == "abstract_modifier"), None)


def _doc(cls: ts.Node) -> ts.Node | None:
    """The docblock just before a class (`/** @requires PHP 99 */`)."""
    before = cls.prev_named_sibling
    return before if before is not None and before.type == "comment" else None


def _no_test_case(cls: ts.Node) -> ts.Node | None:
    """A class that extends nothing: PHPUnit runs no method of a class not a TestCase."""
    extends = next((c for c in cls.named_children if c.type == "base_clause"), None)
    return cls.child_by_field_name("name") if extends is None else None


_SETUPS = {"setUp", "setUpBeforeClass"}


def _setup_skips(body: ts.Node, helpers: set[str]) -> ts.Node | None:
    """`setUp`/`setUpBeforeClass` that skip outright: every test of the class skips."""
    for member in body.named_children:
        if (
            member.type == "method_declaration"
            and text(member.child_by_field_name("name")) in _SETUPS
        ):
            if text(member.child_by_field_name("name")) in helpers:
                return member
    return None


def _missing_dependency(
    method: ts.Node, methods: set[str], doc: ts.Node | None = None
) -> ts.Node | None:
    """`#[Depends('testX')]` (or `@depends testX`) on a test of the class that does not exist:
    PHPUnit skips it."""
    if doc is not None and "@depends" in text(doc):
        words = text(doc).split("@depends", 1)[1].split()
        return doc if words and words[0] not in methods else None
    attribute = _attributes(method).get("Depends")
    if attribute is None:
        return None
    strings = descendants(attribute, frozenset({"string_content", "string_value"}))
    target = next((text(s) for s in strings), None)
    return attribute if target is not None and target not in methods else None


def _skipping_helpers(body: ts.Node) -> set[str]:
    """Methods of the class whose own statements skip, under no condition: `$this->later()`
    skips the test as `markTestSkipped` would (`if (true) { … }` and a thrown skip exception
    included)."""
    found = set()
    for member in body.named_children:
        block = member.child_by_field_name("body") if member.type == "method_declaration" else None
        if block is not None and _skips_outright(block):
            found.add(text(member.child_by_field_name("name")))
    return found


_SKIP_THROWS = ("SkippedWithMessageException", "SkippedTestError", "IncompleteTestError")


def _called(call: ts.Node) -> str:
    """The method a call names, however spelled: `$this->markTestSkipped()`,
    `$this->{'markTestSkipped'}()`, `call_user_func([$this, 'markTestSkipped'])`."""
    if call.type == "function_call_expression":
        function = text(call.child_by_field_name("function"))
        if function.lstrip("\\") in ("call_user_func", "call_user_func_array"):
            spelled = text(call.child_by_field_name("arguments"))
            return next((n for n in _SKIP_CALLS if f"'{n}'" in spelled or f'"{n}"' in spelled), "")
        return function
    return text(call.child_by_field_name("name")).strip("{}'\" ")


def _skip_call(call: ts.Node) -> bool:
    return call.type in (*_CALLS, "function_call_expression") and _called(call) in _SKIP_CALLS


def _skips_outright(block: ts.Node) -> bool:
    for statement in block.named_children:
        if statement.type == "if_statement" and reach.truth(
            statement.child_by_field_name("condition")
        ):
            taken = statement.child_by_field_name("body")
            if taken is not None and _skips_outright(taken):
                return True
        if text(statement).lstrip().startswith("throw"):
            if any(t in text(statement) for t in _SKIP_THROWS):
                return True
        call = statement.named_children[0] if statement.named_children else None
        if statement.type == "expression_statement" and call is not None and _skip_call(call):
            return True
    return False


def _info(
    method: ts.Node, doc: ts.Node | None, class_skip: ts.Node | None, helpers: set[str]
) -> TestInfo:
    body = method.child_by_field_name("body")
    candidates: list[tuple[ts.Node, frozenset[str]]] = []
    skip = _conditional(method, doc) or class_skip
    calls = frozenset({*_CALLS, "function_call_expression"})
    for call in descendants(body, calls) if body is not None else ():
        called = _called(call)
        if called in _SKIP_CALLS or called in helpers:
            skip = skip or call
        elif called.startswith(("assert", "expectException")):
            candidates.append((call, frozenset({called, "this", "self", "static", "parent"})))
        elif called == "fail":
            candidates.append((call, frozenset()))  # a fail() fails wherever it is reached
    asserts, inert = reach.sort(candidates, body) if body is not None else ([], [])
    return TestInfo(
        line=line(method),
        skipped=skip is not None,
        skip_line=line(skip) if skip is not None else None,
        asserts=asserts,
        inert=inert,
        trivial=body is not None and empty_block(body),
    )
