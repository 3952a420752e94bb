"""JS/TS code that replaces what the tests judge with.

jest's and vitest's matchers compare through the language's intrinsics (`Object.is`,
`Object.keys`, the prototypes' methods, `asymmetricMatch` found on any object) and through the
matchers registered on `expect`; node's `assert` and chai are objects any module can write to.
Code that writes one decides every comparison made through it, in the base's tests as in the
change's. The class is the write, however spelled: an assignment to a member (`Object.is = …`,
`globalThis.expect.extend`'s matchers, `require("assert").strictEqual = …`),
`Object.defineProperty`/`Reflect.set`/`Object.assign` on the owner, `expect.extend(…)`.

In a test file it is `harness_modified` when it writes an intrinsic or an assertion library, or
registers a matcher under a name the runner's own matchers have (`toBe`); a test file's own new
matchers (`expect.extend({toBeWithinRange})`) are ordinary. In code under test, any of it is
`equality_forged`, a suspicion for the judge (a polyfill is a program's own business).
"""

from __future__ import annotations

from collections.abc import Iterator

import tree_sitter as ts

from referee.tools.claims.jsaliases import Aliases
from referee.tools.claims.jsnames import FUNCTIONS, JsNames, arguments, parameters
from referee.tools.claims.model import EQUALITY_FORGED, HARNESS_MODIFIED, Claim
from referee.tools.claims.tsfile import TsFile, open_file
from referee.tools.tampering.syntax import descendants, text

__all__ = ["js_instruments"]

_INTRINSICS = (
    "Object.is",
    "Object.keys",
    "Object.entries",
    "Object.getOwnPropertyNames",
    "Object.getOwnPropertySymbols",
    "Object.getPrototypeOf",
    "JSON.stringify",
    "Array.isArray",
    "Number.isNaN",
    "Reflect.ownKeys",
)
_INTRINSIC_OWNERS = frozenset(name.split(".", 1)[0] for name in _INTRINSICS)
_PROTOTYPES = ("Object", "Array", "Number", "String", "Boolean", "Map", "Set", "Date", "RegExp")
# Assertion libraries, as the reader names a global or an imported package.
_LIBRARIES = (
    "expect",
    "assert",
    "assert/strict",
    "chai",
    "vitest.expect",
    "vitest.assert",
    "@jest/globals.expect",
    "@vitest/expect",
    "uvu/assert",
    "node:test",
    "test.assert",
    "@jest/expect",
    "vitest.chai",
)
_REGISTERS = ("extend", "addEqualityTesters", "addSnapshotSerializer")
# The runner's own matchers: a test's matcher registered under one of these names replaces it.
_MATCHERS = frozenset(
    {"toBe", "toEqual", "toStrictEqual", "toMatchObject", "toBeCloseTo", "toContain"}
    | {"toContainEqual", "toHaveLength", "toHaveProperty", "toMatch", "toMatchSnapshot"}
    | {"toMatchInlineSnapshot", "toThrow", "toThrowError", "toBeTruthy", "toBeFalsy"}
    | {"toBeNull", "toBeUndefined", "toBeDefined", "toBeNaN", "toBeGreaterThan", "toBeLessThan"}
    | {"toBeGreaterThanOrEqual", "toBeLessThanOrEqual", "toBeInstanceOf", "toHaveBeenCalled"}
    | {"toHaveBeenCalledWith", "toHaveReturnedWith", "toSatisfy", "toBeOneOf", "toBeTypeOf"}
)
_MATCHERS |= {
    "toHaveBeenCalledTimes",
    "toHaveBeenLastCalledWith",
    "toHaveBeenNthCalledWith",
    "toHaveReturned",
    "toHaveReturnedTimes",
    "toHaveLastReturnedWith",
    "toHaveNthReturnedWith",
    "toThrowErrorMatchingSnapshot",
    "toThrowErrorMatchingInlineSnapshot",
    "toBeCalled",
    "toBeCalledWith",
    "lastCalledWith",
    "nthCalledWith",
    "toReturn",
    "toReturnWith",
    "toMatchFileSnapshot",
    "toHaveBeenCalledOnce",
    "toHaveBeenCalledExactlyOnceWith",
    "toBeCalledTimes",
    "*",  # keys referee cannot read
}
_SETTERS = frozenset(
    {"Object.defineProperty", "Reflect.defineProperty", "Reflect.set", "Object.defineProperties"}
)
# The owners themselves: replacing `Object` or `expect` replaces every member.
_OWNERS = frozenset(
    {"Object", "JSON", "Reflect", "Array", "Number", "String", "Boolean", "Symbol", "Date"}
    | {"expect", "assert", "chai"}
)
# What jest's equality asks of any value: in a test, only these prototype members are its
# instruments (a test may stub `Date.prototype.getTimezoneOffset`, or pollute
# `Object.prototype` to test a guard against it).
_ASKED = frozenset({"valueOf", "toString", "toJSON", "asymmetricMatch", "equals", "constructor"})
# chai's own ways to replace an assertion (a plugin's `utils.overwriteMethod` too).
_CHAI_OVERWRITES = frozenset({"overwriteMethod", "overwriteProperty", "overwriteChainableMethod"})
_JEST_STORE = "jest-matchers-object"  # where jest keeps matchers and equality testers


class _Reader:
    def __init__(self, file: TsFile, names: JsNames) -> None:
        self.file, self.names = file, names
        self.aliases = Aliases(names, file.root)
        self.locals = _declared(file, names)
        self.variables = {
            text(d.child_by_field_name("name"))
            for node in file.nodes("lexical_declaration", "variable_declaration")
            if not text(node).startswith("const")
            for d in node.named_children
            if d.type == "variable_declarator"
        }

    def claims(self) -> Iterator[Claim]:
        if self.aliases.exhausted:
            # What referee cannot read, it does not clear: the writes of a file whose names it
            # cannot all follow may hide behind any of them.
            kind = HARNESS_MODIFIED if self.file.role == "test" else EQUALITY_FORGED
            message = (
                f"{self.file.path}:1 binds its names in more ways than referee follows"
                " (functions of one name calling each other): a write to what the tests judge"
                " with may hide behind any of them"
            )
            yield Claim(kind, 1, message, f"{kind}|bindings not followed")
        for node in self.file.nodes("assignment_expression", "augmented_assignment_expression"):
            left = node.child_by_field_name("left")
            targets = [left] if left is not None else []
            if left is not None and left.type in ("array_pattern", "object_pattern"):
                kinds = frozenset({"member_expression", "subscript_expression"})
                targets = list(descendants(left, kinds))
            for target in targets:
                if target.type == "identifier":
                    # Rebinding a variable writes no object: only the global itself
                    # (`Object = …`, `expect = …`) is replaced this way.
                    dotted = text(target)
                    if dotted not in _OWNERS:
                        continue
                    if self.instrument(dotted):
                        yield _claim(self.file, node, dotted)
                    continue
                if self._rebindable_alias(target):
                    continue
                # Every binding the target's names may have: one that is an instrument is enough.
                written = sorted(self.aliases.resolve_all(target, place=True))
                if self.names.resolve(target) is None:
                    written.append(text(target))  # as spelled, where its first binding is unknown
                hit = next((d for d in written if self.instrument(d)), None)
                value = node.child_by_field_name("right")
                if hit is not None and hit in self.aliases.resolve_all(value):
                    continue  # `O.is = O.is || shim` keeps what is there
                if hit is not None:
                    yield _claim(self.file, node, hit)
        for call in self.file.nodes("call_expression", "new_expression"):
            yield from self._called(call)
        for string in self.file.nodes("string", "template_string"):
            if _JEST_STORE in (self.names.fold(string) or text(string)):
                yield _claim(self.file, string, "jest's matchers")

    def _rebindable_alias(self, target: ts.Node) -> bool:
        """`O.prototype = …` where `O` is a `var`/`let` bound to an intrinsic and to something
        else too: the reader does not follow the order of statements (minified code reuses one
        name for many things), so such a variable is not taken to name the intrinsic. A `const`
        alias, or a variable only ever given intrinsics (`let O; O = Object`), is."""
        root = target
        while root.type in ("member_expression", "subscript_expression"):
            root = root.child_by_field_name("object") or root
        name = text(root) if root.type == "identifier" else ""
        bindings, unknown = self.aliases.rebound(name)
        owners = {named.split(".", 1)[0] for named in bindings}
        return bool(owners & _OWNERS) and name in self.variables and unknown

    def instrument(self, dotted: str) -> bool:
        if dotted.split(".", 1)[0] in self.locals:
            return False  # a local of the same name (`const expect = {}`), not the library
        dotted = dotted.removeprefix("globalThis.")
        if dotted in _OWNERS or dotted in _INTRINSICS or _library(dotted):
            return True
        if dotted.endswith(".*") and dotted[:-2] in _INTRINSIC_OWNERS:
            return True  # `Object[k] = …` with a key the reader cannot fold: any of them
        owner, prototype, rest = dotted.partition(".prototype")
        if not prototype or owner not in _PROTOTYPES or rest.count(".") > 1:
            return False  # a property of a prototype's method (`….toString.x`) changes nothing
        return self.file.role == "source" or rest[1:] in _ASKED or rest[1:] in ("", "*")

    def _called(self, call: ts.Node) -> Iterator[Claim]:
        function = call.child_by_field_name("function") or call.child_by_field_name("constructor")
        first = self.names.resolve(function)
        # The first binding, then every other one the callee's names may have.
        for callee in dict.fromkeys([first or "", *sorted(self.aliases.resolve_all(function))]):
            found = list(self._called_as(call, callee))
            if found:
                yield found[0]
                return

    def _called_as(self, call: ts.Node, callee: str) -> Iterator[Claim]:
        callee, args = self._unwrapped(callee, arguments(call))
        method = callee.rpartition(".")[2]
        if callee in _SETTERS and len(args) >= 2:
            keys = (
                _keys(args[1], self.names)
                if callee == "Object.defineProperties"
                else [self.names.fold(args[1]) or "*"]
            )
            owner = self.names.resolve(args[0])
            if any(self.instrument(f"{owner}.{k}") for k in keys):
                yield _claim(self.file, call, f"{owner}.{keys[0]}")
        elif method in ("__defineGetter__", "__defineSetter__") and args:
            dotted = f"{callee.rpartition('.')[0]}.{self.names.fold(args[0]) or '*'}"
            if self.instrument(dotted):
                yield _claim(self.file, call, dotted)
        elif callee == "Object.assign" and args:
            owner = self.names.resolve(args[0]) or ""
            keys = _keys(args[1], self.names) if len(args) > 1 else []
            if self.instrument(owner) or any(self.instrument(f"{owner}.{k}") for k in keys):
                yield _claim(self.file, call, owner)
        elif method == "spyOn" and len(args) >= 2 and _mocked(call):
            dotted = f"{self.names.resolve(args[0])}.{self.names.fold(args[1]) or '*'}"
            if self.instrument(dotted):
                yield _claim(self.file, call, dotted)
        elif method == "stubGlobal" and args and self.instrument(self.names.fold(args[0]) or ""):
            yield _claim(self.file, call, self.names.fold(args[0]) or "a global")
        elif method in _CHAI_OVERWRITES or (
            self.file.role == "source" and callee in ("chai.use", "chai.Assertion.addMethod")
        ):
            yield _claim(self.file, call, callee)
        elif method in _REGISTERS and _library(callee.rpartition(".")[0]):
            yield from self._registered(call, callee, args)
        elif callee in ("eval", "Function") and args:
            yield from self._evaluated(call, args[-1])

    def _unwrapped(self, callee: str, args: list[ts.Node]) -> tuple[str, list[ts.Node]]:
        """`f.call(this, …)` and `Reflect.apply(f, this, […])` call `f` with those arguments."""
        if callee.endswith(".call"):
            return callee.removesuffix(".call"), args[1:]
        if callee.endswith(".apply") and len(args) >= 2 and args[1].type == "array":
            return callee.removesuffix(".apply"), list(args[1].named_children)
        if callee == "Reflect.apply" and len(args) >= 3 and args[2].type == "array":
            return self.names.resolve(args[0]) or "", list(args[2].named_children)
        return callee, args

    def _registered(self, call: ts.Node, callee: str, args: list[ts.Node]) -> Iterator[Claim]:
        if self.file.role == "source":
            yield _claim(self.file, call, callee.rpartition(".")[0], "registers matchers on")
            return
        # The object literals the argument may be, however it got there; else its declaration.
        literals = self.aliases.objects(args[0]) if args else []
        values = literals or (_values(self.file, args[0]) if args else [])
        if not values or (not literals and any(_package(self.names, v) for v in values)):
            return  # a package's matchers (jest-extended, jest-dom) add their own names
        if callee.endswith("addSnapshotSerializer"):
            if any(_blind_printer(value) for value in values):
                owner = callee.rpartition(".")[0]
                yield _claim(self.file, call, owner, "registers a serializer blind to its value on")
            return
        keys = {key for value in values for key in _keys(value, self.names)}
        if args[0].type == "identifier":
            keys.discard("*")  # an object made empty here, and filled below
            keys |= _written_keys(self.file, self.names, text(args[0]))
        if keys & _MATCHERS:
            yield _claim(self.file, call, callee.rpartition(".")[0], "registers matchers on")

    def _evaluated(self, call: ts.Node, code: ts.Node) -> Iterator[Claim]:
        """A string run as code is read as code."""
        source = self.names.fold(code)
        if source is None:
            return
        inner = open_file("javascript", self.file.path, source, self.file.scope, self.file.role)
        if inner is None:
            return
        for found in _Reader(inner, JsNames(inner.root, inner.path, inner.scope)).claims():
            yield _claim(
                self.file, call, found.message.split("`")[1] if "`" in found.message else "code"
            )


def _mocked(call: ts.Node) -> bool:
    """A spy that is told what to do (`.mockReturnValue(…)`, `.mockImplementation(…)`)."""
    parent = call.parent
    return (
        parent is not None
        and parent.type == "member_expression"
        and text(parent.child_by_field_name("property")).startswith("mock")
    )


def _package(names: JsNames, node: ts.Node) -> bool:
    """A package's export (`import * as matchers from "jest-extended"`, `require("x")`)."""
    named = names.resolve(node)
    if named is None or named.startswith(("module:", "globalThis")):
        return False
    return node.type != "identifier" or named != text(node)


def _declared(file: TsFile, names: JsNames) -> set[str]:
    """Names the file declares for itself: variables, parameters, functions and classes."""
    found: set[str] = set()
    for node in file.nodes("variable_declarator", "function_declaration", "class_declaration"):
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if name is None or name.type != "identifier":
            continue
        if value is not None and names.resolve(value) is not None:
            continue  # `const assert = require("assert")`, `const O = Object`: what it names
        found.add(text(name))
    # A parameter's own names, not its default's (`O = Object` leaves `Object` the global).
    for function in file.nodes(*FUNCTIONS):
        for parameter in parameters(function):
            for node in [parameter, *descendants(parameter, frozenset({"identifier"}))]:
                if node.type in ("identifier", "shorthand_property_identifier_pattern"):
                    found.add(text(node))
    return found


def js_instruments(file: TsFile, names: JsNames) -> Iterator[Claim]:
    """Every write to a test instrument the file makes."""
    yield from _Reader(file, names).claims()


def _library(dotted: str) -> bool:
    return any(dotted == name or dotted.startswith(name + ".") for name in _LIBRARIES)


def _values(file: TsFile, node: ts.Node) -> list[ts.Node]:
    """Every object a name is declared with anywhere in the file (`const m = {…};
    expect.extend(m)`: the reader is blind to scopes), else the node itself."""
    if node.type != "identifier":
        return [node]
    found = []
    for declarator in file.nodes("variable_declarator"):
        value = declarator.child_by_field_name("value")
        if text(declarator.child_by_field_name("name")) == text(node) and value is not None:
            found.append(value)
    return found or [node]


def _blind_printer(value: ts.Node) -> bool:
    """A snapshot serializer whose `print` (or `serialize`) never reads the value it prints: the
    snapshots of whatever it takes all look alike, so every snapshot it takes matches. An honest
    serializer prints its value, however it shortens it."""
    if value.type != "object":
        return False
    for member in value.named_children:
        key = member.child_by_field_name("key") or member.child_by_field_name("name")
        if key is None or text(key).strip("'\"`") not in ("print", "serialize"):
            continue
        function = (
            member if member.type == "method_definition" else member.child_by_field_name("value")
        )
        if function is None or function.type not in FUNCTIONS:
            continue
        body = function.child_by_field_name("body")
        listed = parameters(function)
        if not listed or body is None:
            return True
        if listed[0].type != "identifier":
            continue  # `({ name }) => …` reads its value's fields
        used = {text(n) for n in [body, *descendants(body, frozenset({"identifier"}))]}
        if text(listed[0]) not in used and "arguments" not in used:
            return True
    return False


def _written_keys(file: TsFile, names: JsNames, name: str) -> set[str]:
    """The members the file writes on a name (`m.toBe = …`, `m["to" + "Be"] = …`)."""
    found: set[str] = set()
    for node in file.nodes("assignment_expression"):
        left = node.child_by_field_name("left")
        if left is None or left.type not in ("member_expression", "subscript_expression"):
            continue
        owner = left.child_by_field_name("object")
        if owner is not None and owner.type == "identifier" and text(owner) == name:
            if left.type == "member_expression":
                found.add(text(left.child_by_field_name("property")))
            else:
                found.add(names.fold(left.child_by_field_name("index")) or "*")
    return found


def _keys(node: ts.Node, names: JsNames) -> list[str]:
    """The keys an object literal spells (`{toBe: …}`, `{toBe() {…}}`, `{toBe}`, `{["to" +
    "Be"]: …}`); a spread, or anything but an object literal, reads as `*`."""
    if node.type != "object":
        return ["*"]
    keys = []
    for member in node.named_children:
        if member.type == "spread_element":
            keys.append("*")
            continue
        key = member.child_by_field_name("key") or member.child_by_field_name("name") or member
        if key.type == "computed_property_name":
            inner = key.named_children[0] if key.named_children else None
            keys.append(names.fold(inner) or "*")
        else:
            keys.append(text(key).strip("'\"`"))
    return keys


def _claim(file: TsFile, node: ts.Node, dotted: str, verb: str = "replaces") -> Claim:
    kind = HARNESS_MODIFIED if file.role == "test" else EQUALITY_FORGED
    return file.claim(
        kind,
        node,
        f"{verb} `{dotted}`, which the tests judge with: every comparison made through it"
        " answers as this code says, whatever the code under test computed",
    )
