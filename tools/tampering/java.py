"""Java tests (JUnit 4 and 5, TestNG: methods annotated `@Test` and its kin) read with
tree-sitter.

Skips are `@Disabled`/`@Ignore` on the method or its class; assertions are `assert*`, `fail`
and `verify` calls (JUnit, AssertJ, Hamcrest, Mockito).
"""

from __future__ import annotations

import tree_sitter as ts

from referee.tools.tampering import reach
from referee.tools.tampering.model import TestInfo
from referee.tools.tampering.syntax import descendants, empty_block, line, parse, text

__all__ = ["java_tests"]

_TEST_ANNOTATIONS = {"Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate"}
_SKIP_ANNOTATIONS = {"Disabled", "Ignore"}
_CLASSES = frozenset({"class_declaration", "enum_declaration", "record_declaration"})


def java_tests(source: str) -> dict[str, TestInfo] | None:
    """Every test method, by `Class.method` (nested classes included); None when unreadable."""
    root = parse("java", source)
    if root is None:
        return None
    tests: dict[str, TestInfo] = {}
    skips = _SKIP_ANNOTATIONS | _skipping_annotations(root)
    stack: list[tuple[ts.Node, list[str], ts.Node | None]] = [(root, [], None)]
    while stack:
        node, path, class_skip = stack.pop()
        for child in node.named_children:
            inner = child.child_by_field_name("body") if child.type in _CLASSES else None
            if inner is not None:
                name = text(child.child_by_field_name("name"))
                skip = _annotation(child, skips) or class_skip
                stack.append((inner, [*path, name], skip))
            elif child.type == "method_declaration" and _annotation(child, _TEST_ANNOTATIONS):
                name = ".".join([*path, text(child.child_by_field_name("name"))])
                tests[name] = _info(child, class_skip, skips)
    return tests


def _annotation(node: ts.Node, names: set[str]) -> ts.Node | None:
    modifiers = next((c for c in node.children if c.type == "modifiers"), None)
    if modifiers is None:
        return None
    for annotation in modifiers.named_children:
        if annotation.type in ("marker_annotation", "annotation"):
            name = text(annotation.child_by_field_name("name")).split(".")[-1]
            if name in names:
                return annotation
    return None


def _disabled(node: ts.Node) -> ts.Node | None:
    """What keeps a test method from running though it is annotated: TestNG's `enabled = false`,
    a `private` or `static` method (JUnit 5 does not run one), an `@EnabledIf…`/`@DisabledIf…`/
    `@EnabledOn…`/`@DisabledOn…` condition."""
    modifiers = next((c for c in node.children if c.type == "modifiers"), None)
    if modifiers is None:
        return None
    for child in modifiers.children:
        if child.type in ("private", "static"):
            return child
        if child.type not in ("annotation", "marker_annotation"):
            continue
        name = text(child.child_by_field_name("name")).split(".")[-1]
        arguments = text(child.child_by_field_name("arguments")).replace(" ", "")
        if name == "Test" and "enabled=false" in arguments:
            return child
        if name.startswith(("DisabledIf", "DisabledOn", "EnabledIf", "EnabledOn")):
            return child
    return None


def _skipping_annotations(root: ts.Node) -> set[str]:
    """Annotation types the file declares carrying a skip (`@Disabled @interface Off {}`): a
    test marked `@Off` is disabled as surely."""
    return {
        text(node.child_by_field_name("name"))
        for node in descendants(root, frozenset({"annotation_type_declaration"}))
        if _annotation(node, _SKIP_ANNOTATIONS) is not None
    }


def _assumed_away(call: ts.Node) -> bool:
    """`assumeTrue(false)`, `assumeFalse(true)`: an assumption that cannot hold aborts the test
    as skipped, every run."""
    name = text(call.child_by_field_name("name"))
    args = call.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    if name not in ("assumeTrue", "assumeFalse") or first is None:
        return False
    return reach.truth(first) is (name == "assumeFalse")


def _info(node: ts.Node, class_skip: ts.Node | None, skips: set[str]) -> TestInfo:
    skip = _annotation(node, skips) or class_skip or _disabled(node)
    body = node.child_by_field_name("body")
    candidates: list[tuple[ts.Node, frozenset[str]]] = []
    if body is not None:
        for call in descendants(body, frozenset({"method_invocation"})):
            name = text(call.child_by_field_name("name"))
            if skip is None and _assumed_away(call):
                skip = call
            elif name.startswith("assert") or name == "verify":
                owner = text(call.child_by_field_name("object"))
                candidates.append((call, frozenset({name, owner})))
            elif name == "fail":
                candidates.append((call, frozenset()))  # a fail() fails wherever it is reached
    asserts, inert = reach.sort(candidates, body) if body is not None else ([], [])
    return TestInfo(
        line=line(node),
        skipped=skip is not None,
        skip_line=line(skip) if skip is not None else None,
        asserts=asserts,
        inert=inert,
        trivial=empty_block(body),
    )
