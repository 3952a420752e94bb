"""Go tests (`func TestX(t *testing.T)`) read with tree-sitter.

Skips are `t.Skip`/`t.Skipf`/`t.SkipNow`, and a build constraint on the file (`//go:build …`,
`// +build …`: its tests may not be compiled at all). Assertions are `t.Error*`/`t.Fatal*`/
`t.Fail*` and testify's `assert.*`/`require.*`.
"""

from __future__ import annotations

import tree_sitter as ts

from referee.tools.tampering import literals, reach
from referee.tools.tampering.model import TestInfo
from referee.tools.tampering.syntax import descendants, empty_block, line, parse, text

__all__ = ["go_tests"]

_SKIPS = {"Skip", "Skipf", "SkipNow"}
_ASSERTS = {"Error", "Errorf", "Fatal", "Fatalf", "Fail", "FailNow"}
_ASSERT_PACKAGES = {"assert", "require"}


def go_tests(source: str) -> dict[str, TestInfo] | None:
    """Every top-level `Test…` function, by name; None when the file cannot be read."""
    root = parse("go", source)
    if root is None:
        return None
    # The file's constants read as their values; each block's exits read once.
    with literals.bound(literals.constants(root)), reach.cached():
        return _go_tests(root)


def _go_tests(root: ts.Node) -> dict[str, TestInfo]:
    tests: dict[str, TestInfo] = {}
    constraint = _constraint(root)
    helpers = _skipping_helpers(root)
    checkers = _checkers(root)
    main = _main_without_run(root)
    for node in root.named_children:
        name = text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        receiver = _receiver(node)
        declared = node.type == "function_declaration" or receiver
        if declared and name.startswith("Test") and body is not None:
            info = _info(node, body, helpers, receiver, checkers)
            if receiver:  # a testify suite's method: `func (s *S) TestAdd()`
                name = f"{_receiver_type(node)}.{name}"
            gate = constraint or main
            if gate is not None and not info.skipped and name != "TestMain":
                info.skipped, info.skip_line = True, gate
            tests[name] = info
    return tests


def _copies(body: ts.Node, t: str) -> tuple[set[str], set[str]]:
    """Names the test binds to its `t` (`u := t`) and to its skip methods (`s := t.SkipNow`)."""
    copies: set[str] = set()
    skippers: set[str] = set()
    for node in descendants(body, frozenset({"short_var_declaration", "var_spec"})):
        left = node.child_by_field_name("left") or node.child_by_field_name("name")
        right = node.child_by_field_name("right") or node.child_by_field_name("value")
        if left is None or right is None:
            continue
        value = " ".join(text(right).split())
        if value == t:
            copies.add(text(left))
        elif value in {f"{t}.{m}" for m in _SKIPS}:
            skippers.add(text(left))
    return copies, skippers


def _main_without_run(root: ts.Node) -> int | None:
    """A `TestMain` that never calls `m.Run()`: no test of the package runs."""
    for node in root.named_children:
        if (
            node.type == "function_declaration"
            and text(node.child_by_field_name("name")) == "TestMain"
        ):
            return None if ".Run()" in text(node.child_by_field_name("body")) else line(node)
    return None


def _constraint(root: ts.Node) -> int | None:
    """The line of the file's build constraint (comments before `package`), or None."""
    for node in root.named_children:
        if node.type != "comment":
            return None
        if text(node).replace(" ", "").startswith(("//go:build", "//+build")):
            return line(node)
    return None


def _skipping_helpers(root: ts.Node) -> set[str]:
    """Functions of the file (no tests) whose own statements skip the test they are handed,
    under no condition (`func later(t *testing.T) { t.SkipNow() }`): `later(t)` skips."""
    found = set()
    for node, name in _functions(root):
        body = node.child_by_field_name("body")
        if name.startswith("Test") or body is None:
            continue
        t = _testing_t(node, "")
        statements = [s for block in _lists(body) for s in block.named_children]
        if t and any(_skips(s, t) for s in statements):
            found.add(name)
    return found


def _functions(root: ts.Node) -> list[tuple[ts.Node, str]]:
    """The file's functions with their names: declared, or a `var later = func(…) {…}`."""
    found = []
    for node in root.named_children:
        if node.type == "function_declaration":
            found.append((node, text(node.child_by_field_name("name"))))
        for spec in (
            descendants(node, frozenset({"var_spec"})) if node.type == "var_declaration" else ()
        ):
            value = spec.child_by_field_name("value")
            literal = (
                value.named_children[0] if value is not None and value.named_children else None
            )
            if literal is not None and literal.type == "func_literal":
                found.append((literal, text(spec.child_by_field_name("name"))))
    return found


def _lists(body: ts.Node) -> list[ts.Node]:
    """A block's statements (in a `statement_list` in newer grammars)."""
    inner = [c for c in body.named_children if c.type == "statement_list"]
    return inner or [body]


def _skips(statement: ts.Node, t: str) -> bool:
    """A statement that skips `t` under no condition: `t.SkipNow()`, `defer t.SkipNow()`,
    `if true { t.SkipNow() }`."""
    if statement.type == "if_statement" and reach.truth(statement.child_by_field_name("condition")):
        taken = statement.child_by_field_name("consequence")
        inner = [s for block in _lists(taken) for s in block.named_children] if taken else []
        return any(_skips(s, t) for s in inner)
    call = statement.named_children[0] if statement.named_children else None
    kinds = ("expression_statement", "defer_statement")
    if statement.type not in kinds or call is None or call.type != "call_expression":
        return False
    target = call.child_by_field_name("function")
    if target is None or target.type != "selector_expression":
        return False
    owner = text(target.child_by_field_name("operand"))
    return owner == t and text(target.child_by_field_name("field")) in _SKIPS


def _testing_t(node: ts.Node, default: str = "t") -> str:
    """The name of the test's `*testing.T` parameter (`t` by convention)."""
    params = node.child_by_field_name("parameters")
    for param in params.named_children if params is not None else []:
        kind = text(param.child_by_field_name("type"))
        if "testing.T" in kind or "SkipNow" in kind:  # `testing.TB`, `interface{ SkipNow() }`
            return text(param.child_by_field_name("name"))
    return default


def _arguments(call: ts.Node) -> list[str]:
    args = call.child_by_field_name("arguments")
    return [text(a) for a in args.named_children] if args is not None else []


def _checkers(root: ts.Node) -> dict[str, tuple[ts.Node, str]]:
    """Functions of the file (no tests) handed the test's `*testing.T`, by name: their body
    and the name the handle has there."""
    found = {}
    for node in root.named_children:
        name = text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        handle = _testing_t(node, "")
        if node.type == "function_declaration" and not name.startswith("Test") and body and handle:
            found[name] = (body, handle)
    return found


def _receiver(node: ts.Node) -> str:
    """The receiver's name of a method (`s` in `func (s *S) TestAdd()`), else ''."""
    if node.type != "method_declaration":
        return ""
    receiver = node.child_by_field_name("receiver")
    first = next(iter(receiver.named_children), None) if receiver is not None else None
    return text(first.child_by_field_name("name")) if first is not None else ""


def _receiver_type(node: ts.Node) -> str:
    receiver = node.child_by_field_name("receiver")
    first = next(iter(receiver.named_children), None) if receiver is not None else None
    return text(first.child_by_field_name("type") if first is not None else None).lstrip("*")


# A suite's plumbing: its methods that check nothing.
_PLUMBING = {"T", "Run", "SetT", "SetS", "Require", "Assert", "SetupTest", "TearDownTest"}


def _info(
    node: ts.Node,
    body: ts.Node,
    helpers: set[str],
    receiver: str = "",
    checkers: dict[str, tuple[ts.Node, str]] | None = None,
) -> TestInfo:
    skip_line: int | None = None
    # A suite method's test is `s.T()`; its assertions are the suite's own (`s.Equal`,
    # `s.Require().NoError`).
    t = f"{receiver}.T()" if receiver else _testing_t(node)
    suite = {receiver, f"{receiver}.Require()", f"{receiver}.Assert()"} if receiver else set()
    checkers = checkers or {}
    scopes: list[tuple[ts.Node, str]] = [(body, t)]
    visited: set[str] = set()
    tally = reach.Tally()
    copies, skippers = _copies(body, t)
    while scopes:
        scope, handle = scopes.pop()
        candidates: list[tuple[ts.Node, frozenset[str]]] = []
        for call in descendants(scope, frozenset({"call_expression"})):
            target = call.child_by_field_name("function")
            called = text(target) if target is not None and target.type == "identifier" else ""
            if called in skippers and scope is body:
                skip_line = skip_line or line(call)  # `s := t.SkipNow; s()`
                continue
            if called and handle in _arguments(call):
                if called in helpers:
                    skip_line = skip_line or line(call)  # `later(t)`: a helper that skips
                elif called in checkers and (scope is body or called not in visited):
                    # `check(t, …)`: a helper lends the test its assertions at each call of the
                    # test's own, once from inside a helper.
                    visited.add(called)
                    scopes.append(checkers[called])
                continue
            if target is None or target.type != "selector_expression":
                continue
            owner = text(target.child_by_field_name("operand"))
            method = text(target.child_by_field_name("field"))
            if method in _SKIPS and (owner == handle or owner in copies):
                # t.Skip(), never a decoder's d.Skip(); a helper's own (conditional) skips are
                # its fixture's business (helpers that skip outright are read above).
                skip_line = skip_line or (line(call) if scope is body else None)
            elif method in _ASSERTS and owner == handle:
                # `t.Errorf("bad")` says nothing of what it checks: its `if` does (no heads).
                candidates.append((call, frozenset()))
            elif owner in _ASSERT_PACKAGES:
                candidates.append((call, frozenset({owner, method, handle})))
            elif owner in suite and method[:1].isupper() and method not in _PLUMBING:
                candidates.append((call, frozenset({receiver, method, "Require", "Assert"})))
        tally.add(candidates, scope, own=scope is body)
    return TestInfo(
        line=line(node),
        skipped=skip_line is not None,
        skip_line=skip_line,
        asserts=tally.asserts,
        inert=tally.inert,
        lent=tally.lent,
        trivial=empty_block(body),
    )
