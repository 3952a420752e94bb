"""JS/TS tests (jest, vitest, mocha, jasmine, node:test) read with tree-sitter.

A test is `it`/`test`/`specify` called with a title and a body; suites are `describe`/`suite`/
`context`. The framework's call forms are read as one class, not as a list of spellings: a chain of
names (`it.concurrent.only`), optionally called once more as a factory (`test.each(table)(…)`,
`describe.for(rows)(…)`, `test.skipIf(cond)(…)`, `test.runIf(cond)(…)`). `x`-prefixed, `.skip`,
`.todo` and `.fails` calls, `skipIf` unless its condition is the literal `false` and `runIf` unless
it is `true`, and a body that calls `this.skip()` (mocha) are skipped; `f`-prefixed and `.only`
calls are focused, through their suites too. A title that is not a literal (a table row's name in
a loop, a template, a call) is keyed by its source text, so the test is read all the same.
Assertions are `expect(…)` and `assert`/`assert.*(…)` calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import tree_sitter as ts

from referee.tools.tampering import literals, reach
from referee.tools.tampering.model import TestInfo
from referee.tools.tampering.syntax import descendants, empty_block, line, parse, same, text

__all__ = ["script_tests"]

_TESTS = {"it", "test", "specify"}
_SUITES = {"describe", "suite", "context"}
_PREFIXED = {f"{p}{n}": p for n in (*_TESTS, *_SUITES) for p in ("x", "f")}
_SKIPS = {"skip", "todo", "fails", "fixme"}
_FOCUS = {"only"}
# The modifiers that return the test function instead of declaring a test: `test.each(table)`.
_FACTORIES = {"each", "for", "skipIf", "runIf"}
# Methods of a test function that declare no test: fixtures, hooks, steps, settings.
_HOOKS = frozenset(
    {"extend", "scoped", "use", "step", "info", "setTimeout", "slow", "expect"}
    | {"beforeEach", "afterEach", "beforeAll", "afterAll"}
)
_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function"})
_TITLES = frozenset({"string", "template_string"})


class _Call:
    """A test or suite call: its kind, title and modifiers."""

    def __init__(
        self, node: ts.Node, base: str, marks: set[str], objects: dict[str, ts.Node]
    ) -> None:
        self.node, self.marks = node, marks
        self.is_suite = base in _SUITES
        args = node.child_by_field_name("arguments")
        named = args.named_children if args is not None else []
        self.body = next((a for a in reversed(named) if a.type in _FUNCTIONS), None)
        self.title = _title(named[0]) if named and named[0] is not self.body else None
        # node:test and vitest take options between title and body: `{ skip: true }`, or a
        # name bound to such an object.
        for option in named[1:]:
            self.marks |= _option_marks(objects.get(text(option), option), objects)


def script_tests(source: str, language: str) -> dict[str, TestInfo] | None:
    """Every titled test, by `suite > … > title`; None when the file cannot be read."""
    root = parse(language, source)
    if root is None:
        return None
    # The file's constants read as their values; each block's exits read once.
    with literals.bound(literals.constants(root)), reach.cached():
        return _script_tests(root)


def _script_tests(root: ts.Node) -> dict[str, TestInfo]:
    tests: dict[str, TestInfo] = {}
    names = _aliases(root)
    helpers = _helpers(root)
    hooks: dict[tuple[int, int], ts.Node | None] = {}
    for node in descendants(root, frozenset({"call_expression"})):
        call = _call(node, names)
        if call is None or call.is_suite or call.title is None:
            continue
        suites = _suites(node, names)
        name = " > ".join([*(s.title or "?" for s in suites), call.title])
        info = _info(call, suites, helpers)
        hook = _skipping_hook(root, suites, names, helpers, hooks)
        dead = reach.unreached(node, root)  # declared under `if (false)`: never
        if not info.skipped and (hook is not None or dead is not None):
            info.skipped, info.skip_line = True, line(hook) if hook is not None else line(node)
        tests.setdefault(name, info)
    return tests


def _option_marks(options: ts.Node, objects: dict[str, ts.Node], depth: int = 0) -> set[str]:
    """`{ skip: true }`, `{ todo: 'later' }`, `{ only: true }`, `{ skip }`, `{ ...opts }`: the
    marks an options object sets (any value but a literal false, 0 or an empty string)."""
    marks: set[str] = set()
    if options.type != "object" or depth > 8:
        return marks
    for entry in options.named_children:
        if entry.type == "pair":
            key = text(entry.child_by_field_name("key")).strip("'\"")
            value = text(entry.child_by_field_name("value"))
        elif entry.type == "shorthand_property_identifier":
            key, value = text(entry), text(entry)  # `{ skip }`: a name that is not false
        elif entry.type == "spread_element" and entry.named_children:
            spread = objects.get(text(entry.named_children[0]))
            marks |= _option_marks(spread, objects, depth + 1) if spread is not None else set()
            continue
        else:
            continue
        if key in (*_SKIPS, *_FOCUS) and value not in ("false", "0", "''", '""', "undefined"):
            marks.add(key)
    return marks


def _title(node: ts.Node) -> str:
    """A literal title as written; any other expression by its source text, in brackets."""
    if node.type in _TITLES and "${" not in text(node):
        return text(node)[1:-1]
    return "[" + " ".join(text(node).split()) + "]"


@dataclass
class _Names:
    """What the file binds to the test functions: other names for them (`import { test as
    base }`, `const test = base.skip`, `const { skip: test } = base`, `test = test.skip`), names
    of theirs it binds to functions of its own (`const test = (name, fn) => {}`: calls of it
    declare nothing), and object literals it names (options passed by name)."""

    aliases: dict[str, list[str]] = field(default_factory=dict)
    shadowed: set[str] = field(default_factory=set)
    objects: dict[str, ts.Node] = field(default_factory=dict)


_DECLARATORS = frozenset({"variable_declarator", "assignment_expression"})


def _aliases(root: ts.Node) -> _Names:
    names = _Names()
    for spec in descendants(root, frozenset({"import_specifier"})):
        name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
        if alias is not None and text(name) in (*_TESTS, *_SUITES):
            names.aliases[text(alias)] = [text(name)]
    unsure: set[str] = set()
    for node in descendants(root, _DECLARATORS):
        target = node.child_by_field_name("name") or node.child_by_field_name("left")
        value = node.child_by_field_name("value") or node.child_by_field_name("right")
        if target is None or value is None:
            continue
        if node.type == "assignment_expression" and _conditional_site(node, root):
            unsure.add(text(target))  # `if (skip) describeFn = describe.skip`: either may run
            continue
        chain = _resolved(_chain(value), names.aliases)
        framework = chain and _base(chain[0])
        if target.type == "identifier":
            if framework:
                names.aliases[text(target)] = chain
            elif value.type in _FUNCTIONS and _base(text(target)):
                names.shadowed.add(text(target))
            elif value.type == "object":
                names.objects[text(target)] = value
        elif target.type == "object_pattern":
            _destructured(target, chain if framework else [], value, names)
    for either in unsure:
        names.aliases.pop(either, None)
    return names


_BRANCHES = frozenset(
    {"if_statement", "ternary_expression", "switch_statement", "try_statement", "catch_clause"}
    | {"for_statement", "for_in_statement", "while_statement", "do_statement"}
    | {"binary_expression", "function_declaration", "arrow_function", "function_expression"}
)


def _conditional_site(node: ts.Node, root: ts.Node) -> bool:
    """An assignment that runs only on a condition, in a loop or in a function."""
    parent = node.parent
    while parent is not None and parent != root:
        if parent.type in _BRANCHES:
            return True
        parent = parent.parent
    return False


def _destructured(pattern: ts.Node, chain: list[str], value: ts.Node, names: _Names) -> None:
    """`const { skip: test } = base` binds test to base.skip; `const { test: base } =
    require('@jest/globals')` binds base to the framework's test."""
    module = (
        value.type in ("call_expression", "await_expression") and "require" in text(value)
    ) or ("import" in text(value))
    for pair in pattern.named_children:
        if pair.type == "shorthand_property_identifier_pattern":
            key = bound = text(pair)
        elif pair.type == "pair_pattern":
            key = text(pair.child_by_field_name("key"))
            bound = text(pair.child_by_field_name("value"))
        else:
            continue
        if chain:
            names.aliases[bound] = [*chain, key]
        elif module and key in (*_TESTS, *_SUITES) and bound != key:
            names.aliases[bound] = [key]


def _resolved(parts: list[str], aliases: dict[str, list[str]]) -> list[str]:
    return [*aliases[parts[0]], *parts[1:]] if parts and parts[0] in aliases else parts


def _base(name: str) -> bool:
    return name in _TESTS or name in _SUITES or name in _PREFIXED


def _call(node: ts.Node, names: _Names | None = None) -> _Call | None:
    names = names or _Names()
    aliases = names.aliases
    callee = node.child_by_field_name("function")
    if callee is not None and callee.type == "identifier" and text(callee) in names.shadowed:
        return None  # the file's own function under a test function's name
    parts = _resolved(_chain(callee), aliases)
    if parts and parts[-1] in _FACTORIES:
        return None  # `test.each(table)`: the test is the call of what it returns
    marks: set[str] = set()
    if callee is not None and callee.type == "call_expression":
        parts = _resolved(_chain(callee.child_by_field_name("function")), aliases)
        if not parts or parts[-1] not in _FACTORIES:
            return None
        marks = _conditional(parts[-1], callee)
    if not parts or _HOOKS.intersection(parts[1:]):
        return None  # `test.extend({…})`, `test.beforeEach(…)`: no test declared
    base, modifiers = parts[0], set(parts[1:]) | marks
    if base in _PREFIXED:
        modifiers.add("skip" if _PREFIXED[base] == "x" else "only")
        base = base[1:]
    if base not in _TESTS and base not in _SUITES:
        return None
    return _Call(node, base, modifiers, names.objects)


def _conditional(factory: str, call: ts.Node) -> set[str]:
    """`skipIf(cond)` skips unless cond is the literal false, `runIf(cond)` unless it is true;
    `each([])`/`for([])` declare the test once per row of an empty table: never."""
    args = call.child_by_field_name("arguments")
    first_node = args.named_children[0] if args is not None and args.named_children else None
    first = text(first_node)
    if factory == "skipIf" and first != "false":
        return {"skip"}
    if factory == "runIf" and first != "true":
        return {"skip"}
    if factory in ("each", "for") and first_node is not None and first_node.type == "array":
        return {"skip"} if empty_block(first_node) else set()
    return set()


def _chain(node: ts.Node | None) -> list[str]:
    """`it.only.each` → ["it", "only", "each"]; anything but a chain of names → []."""
    names: list[str] = []
    while node is not None and node.type == "member_expression":
        names.append(text(node.child_by_field_name("property")))
        node = node.child_by_field_name("object")
    if node is None or node.type != "identifier":
        return []
    return [text(node), *reversed(names)]


def _suites(node: ts.Node, names: _Names) -> list[_Call]:
    found = []
    parent = node.parent
    while parent is not None:
        if parent.type == "call_expression":
            call = _call(parent, names)
            if call is not None and call.is_suite:
                found.append(call)
        parent = parent.parent
    return list(reversed(found))


def _info(call: _Call, suites: list[_Call], helpers: dict[str, ts.Node]) -> TestInfo:
    chain = [*suites, call]
    skipper = next((c for c in chain if c.marks & _SKIPS), None)
    focuser = next((c for c in chain if c.marks & _FOCUS), None)
    marker = skipper or focuser
    asserts, inert, lent = _asserts(call.body, helpers)
    return TestInfo(
        line=line(call.node),
        skipped=skipper is not None or call.body is None or _skips_itself(call.body, helpers),
        skip_line=line(marker.node) if marker else None,
        focused=focuser is not None,
        asserts=asserts,
        inert=inert,
        lent=lent,
        trivial=call.body is not None and _empty(call.body),
    )


_BEFORE = frozenset({"beforeEach", "before", "beforeAll"})


def _skipping_hook(
    root: ts.Node,
    suites: list[_Call],
    names: _Names,
    helpers: dict[str, ts.Node],
    seen: dict[tuple[int, int], ts.Node | None],
) -> ts.Node | None:
    """A hook run before the test, in its file or one of its suites, that skips (mocha's
    `this.skip()` in `beforeEach`, Playwright's `test.fixme()`), or a file- or suite-level
    Playwright `test.skip(true)`/`test.skip(() => true)`: where it is written, or None. Each
    scope is read once per file (`seen`)."""
    for scope in [root, *(s.body for s in suites if s.body is not None)]:
        key = (scope.start_byte, scope.end_byte)
        if key not in seen:
            block = scope.child_by_field_name("body") if scope is not root else scope
            seen[key] = _scope_hook(block, names, helpers) if block is not None else None
        if seen[key] is not None:
            return seen[key]
    return None


def _scope_hook(block: ts.Node, names: _Names, helpers: dict[str, ts.Node]) -> ts.Node | None:
    for statement in block.named_children:
        call = statement.named_children[0] if statement.named_children else None
        if statement.type != "expression_statement" or call is None:
            continue
        if call.type != "call_expression":
            continue
        parts = _resolved(_chain(call.child_by_field_name("function")), names.aliases)
        args = call.child_by_field_name("arguments")
        given = args.named_children if args is not None else []
        body = next((a for a in given if a.type in _FUNCTIONS), None)
        if parts and parts[-1] in _BEFORE and body is not None:
            if _skips_itself(body, helpers):
                return call
        elif parts[:1] and _base(parts[0]) and parts[-1] in ("skip", "fixme") and given:
            first = given[0]  # a title makes it a test declared skipped, not this form
            titled = first.type in _TITLES
            if not titled and (first.type in _FUNCTIONS or reach.truth(first) is True):
                return call  # Playwright: skip every test here
    return None


def _skips_itself(body: ts.Node, helpers: dict[str, ts.Node]) -> bool:
    """The test's own body skips it: mocha's `this.skip()`, the test context's `t.skip()` (its
    first parameter, whatever its name), Playwright's `test.skip()`/`test.fixme()`, jasmine's
    `pending()`."""
    context = _first_parameter(body)
    for node in descendants(body, frozenset({"call_expression"})):
        callee = node.child_by_field_name("function")
        if callee is not None and callee.type == "identifier" and text(callee) == "pending":
            if "pending" not in helpers:  # jasmine's, not a function of the file's own
                return True
        if callee is None or callee.type != "member_expression":
            continue
        owner = callee.child_by_field_name("object")
        if owner is None or text(callee.child_by_field_name("property")) not in _SKIPS:
            continue
        if owner.type == "this" or text(owner) in _TESTS or (context and text(owner) == context):
            return True
    return False


def _first_parameter(function: ts.Node) -> str:
    params = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
    if params is None:
        return ""
    if params.type == "identifier":
        return text(params)
    first = next(iter(params.named_children), None)
    return text(first.child_by_field_name("pattern") or first) if first is not None else ""


def _asserts(
    body: ts.Node | None, helpers: dict[str, ts.Node]
) -> tuple[list[tuple[int, str]], list[tuple[int, str, str]], list[tuple[int, str]]]:
    """The test's assertions that count, those still written that check nothing, and those a
    function of the file the test calls lends it (once each)."""
    found: list[tuple[int, str]] = []
    inert: list[tuple[int, str, str]] = []
    lent_asserts: list[tuple[int, str]] = []
    if body is None:
        return found, inert, lent_asserts
    scopes, lent = [body], set()
    while scopes:
        scope = scopes.pop()
        for node in descendants(scope, frozenset({"call_expression"})):
            callee = node.child_by_field_name("function")
            name = text(callee) if callee is not None and callee.type == "identifier" else ""
            if name in helpers and (scope is body or name not in lent):
                lent.add(name)  # lent at each call of the test, once from a helper
                scopes.append(helpers[name])
            read = _assertion(node, scope)
            if read is not None and read[1] is None:
                (found if scope is body else lent_asserts).append(read[0])
            elif read is not None and read[1] is not None:
                inert.append((*read[0], read[1]))
    return found, inert, lent_asserts


def _assertion(node: ts.Node, top: ts.Node) -> tuple[tuple[int, str], str | None] | None:
    """(line, text) of an assertion and why it does not count (None: it does), or None for a
    call that is no assertion."""
    parts = _chain(node.child_by_field_name("function"))
    # `expect(…)`, `expect.soft(…)`, `expect.poll(…)`: one assertion each; `assert…(…)`.
    expects = parts[:1] == ["expect"] and parts[1:] in ([], ["soft"], ["poll"])
    if not expects and parts[:1] != ["assert"]:
        return None
    statement = _outermost(node)
    # `assert.fail()` reads nothing and fails wherever it is reached: no literal test for it.
    why = reach.inert(statement, top, frozenset() if parts[-1] == "fail" else _HEADS)
    if expects and (same(statement, node) or _uncalled(statement)):
        why = "no matcher is called on its expect()"  # `expect(x)`, `expect(x).toBe`
    return (line(node), " ".join(text(statement).split())), why


# chai's assertions made by reading a property (`expect(x).to.be.true`).
_PROPERTY_ASSERTIONS = frozenset(
    {"true", "false", "null", "undefined", "ok", "empty", "exist", "NaN", "finite"}
    | {"extensible", "sealed", "frozen", "arguments", "Arguments", "called", "calledOnce"}
)


def _uncalled(statement: ts.Node) -> bool:
    """A matcher named but never called: `expect(x).toBe` asserts nothing."""
    if statement.type != "member_expression":
        return False
    return text(statement.child_by_field_name("property")) not in _PROPERTY_ASSERTIONS


def _helpers(root: ts.Node) -> dict[str, ts.Node]:
    """Functions the file declares at its top level, by name: `function check(…) {…}`,
    `const check = (…) => {…}`."""
    found: dict[str, ts.Node] = {}
    for statement in root.named_children:
        target = (
            statement.named_children[0]
            if statement.type == "export_statement" and (statement.named_children)
            else statement
        )
        if target.type == "function_declaration":
            found[text(target.child_by_field_name("name"))] = target
        elif target.type in ("lexical_declaration", "variable_declaration"):
            for declarator in (d for d in target.named_children if d.type == "variable_declarator"):
                value = declarator.child_by_field_name("value")
                if value is not None and value.type in _FUNCTIONS:
                    found[text(declarator.child_by_field_name("name"))] = value
    return found


_HEADS = frozenset({"expect", "assert"})


def _outermost(node: ts.Node) -> ts.Node:
    """The whole assertion (`expect(a).toBe(b)`), not only its `expect(a)` part."""
    while node.parent is not None and node.parent.type in ("member_expression", "call_expression"):
        node = node.parent
    return node


def _empty(body: ts.Node) -> bool:
    block = body.child_by_field_name("body")
    if block is None or block.type != "statement_block":
        return False  # an expression body (`() => expect(x)…`) does something
    return empty_block(block)
