"""Java tests (JUnit 4 and 5, TestNG: methods annotated `@Test` and its kin) read with
tree-sitter.

Skips are `@Disabled`/`@Ignore` on the method or its class; assertions are `assert*`, `fail`
and `verify` calls (JUnit, AssertJ, Hamcrest, Mockito).
"""

from __future__ import annotations

import tree_sitter as ts

from referee.tools.tampering import literals, reach
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
    # The file's constants read as their values; each block's exits read once.
    with literals.bound(literals.constants(root)), reach.cached():
        return _java_tests(root)


def _java_tests(root: ts.Node) -> dict[str, TestInfo]:
    tests: dict[str, TestInfo] = {}
    skips = _SKIP_ANNOTATIONS | _skipping_annotations(root)
    # An annotation type the file declares under a test annotation's name shadows it.
    shadowed = {
        text(n.child_by_field_name("name"))
        for n in descendants(root, frozenset({"annotation_type_declaration"}))
    }
    markers = _TEST_ANNOTATIONS - shadowed
    stack: list[tuple[ts.Node, list[str], ts.Node | None]] = [(root, [], None)]
    while stack:
        node, path, class_skip = stack.pop()
        helpers: set[str] | None = None  # read once per class body, when it has a test
        for child in node.named_children:
            inner = child.child_by_field_name("body") if child.type in _CLASSES else None
            if inner is not None:
                name = text(child.child_by_field_name("name"))
                skip = class_skip or _annotation(child, skips) or _class_skip(child, inner)
                stack.append((inner, [*path, name], skip))
            elif child.type == "method_declaration" and _annotation(child, markers):
                name = ".".join([*path, text(child.child_by_field_name("name"))])
                helpers = _skipping_helpers(node) if helpers is None else helpers
                tests[name] = _info(child, class_skip, skips, helpers)
    return tests


_SETUPS = {"BeforeEach", "BeforeAll", "Before", "BeforeClass", "BeforeMethod", "BeforeTest"}
# Throwing one skips the test that is running (JUnit 4 and 5, TestNG, opentest4j).
_SKIP_THROWS = {"AssumptionViolatedException", "TestAbortedException", "SkipException"}


def _enabled_off(annotation: ts.Node) -> bool:
    """TestNG's `@Test(enabled = OFF)` with a constant of the file that is false."""
    for pair in descendants(annotation, frozenset({"element_value_pair"})):
        if text(pair.child_by_field_name("key")) == "enabled":
            return literals.truth(pair.child_by_field_name("value")) is False
    return False


def _class_skip(node: ts.Node, body: ts.Node) -> ts.Node | None:
    """What keeps every test of a class from running: the class is abstract (JUnit makes no
    instance of it), carries a disabling condition, or a set-up method that runs before each
    test skips outright."""
    modifiers = next((c for c in node.children if c.type == "modifiers"), None)
    abstract = (
        next((c for c in modifiers.children if c.type == "abstract"), None) if modifiers else None
    )
    if abstract is not None:
        return abstract
    disabled = _disabled(node)
    if disabled is not None and disabled.type != "private" and disabled.type != "static":
        return disabled
    for member in body.named_children:
        if member.type == "method_declaration" and _annotation(member, _SETUPS) is not None:
            skip = _skips_outright(member.child_by_field_name("body"), set())
            if skip is not None:
                return skip
    return None


def _skipping_helpers(body: ts.Node) -> set[str]:
    """Methods of the class whose own statements skip outright: calling one skips the test."""
    found: set[str] = set()
    for _ in range(3):  # helpers of helpers
        for member in body.named_children:
            if member.type == "method_declaration" and not _annotation(member, _TEST_ANNOTATIONS):
                if _skips_outright(member.child_by_field_name("body"), found) is not None:
                    found.add(text(member.child_by_field_name("name")))
    return found


def _skips_outright(block: ts.Node | None, helpers: set[str]) -> ts.Node | None:
    """A statement of the block that skips under no condition: an assumption that cannot hold,
    `Assumptions.abort()`, a thrown skip exception, a skipping helper's call."""
    for statement in block.named_children if block is not None else ():
        if statement.type == "throw_statement" and any(t in text(statement) for t in _SKIP_THROWS):
            return statement
        call = statement.named_children[0] if statement.named_children else None
        if statement.type != "expression_statement" or call is None:
            continue
        if call.type != "method_invocation":
            continue
        name = text(call.child_by_field_name("name"))
        if (
            _assumed_away(call)
            or name == "abort"
            or (name in helpers and call.child_by_field_name("object") is None)
        ):
            return call
    return None


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
        arguments = "".join(text(child.child_by_field_name("arguments")).split())
        if name == "Test" and ("enabled=false" in arguments or _enabled_off(child)):
            return child
        if name.startswith(("DisabledIf", "DisabledOn", "EnabledIf", "EnabledOn")):
            return child
    return None


def _skipping_annotations(root: ts.Node) -> set[str]:
    """Annotation types the file declares carrying a skip (`@Disabled @interface Off {}`), or
    carrying one of those (`@Off @interface Later {}`): a test marked with one is disabled as
    surely."""
    declared = list(descendants(root, frozenset({"annotation_type_declaration"})))
    found: set[str] = set()
    while True:
        grown = {
            text(node.child_by_field_name("name"))
            for node in declared
            if _annotation(node, _SKIP_ANNOTATIONS | found) is not None
        }
        if grown <= found:
            return found
        found |= grown


def _assumed_away(call: ts.Node) -> bool:
    """`assumeTrue(false)`, `assumeFalse(true)`: an assumption that cannot hold aborts the test
    as skipped, every run."""
    name = text(call.child_by_field_name("name"))
    args = call.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    if name not in ("assumeTrue", "assumeFalse") or first is None:
        return False
    return reach.truth(first) is (name == "assumeFalse")


def _info(
    node: ts.Node, class_skip: ts.Node | None, skips: set[str], helpers: set[str]
) -> TestInfo:
    returns = node.child_by_field_name("type")
    # JUnit Jupiter runs no test method that returns a value.
    valued = returns if returns is not None and returns.type != "void_type" else None
    skip = _annotation(node, skips) or class_skip or _disabled(node) or valued
    skip = skip or _skips_outright(node.child_by_field_name("body"), helpers)
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
