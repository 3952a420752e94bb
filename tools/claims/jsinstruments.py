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

from referee.tools.claims.jsnames import JsNames, arguments
from referee.tools.claims.model import EQUALITY_FORGED, HARNESS_MODIFIED, Claim
from referee.tools.claims.tsfile import TsFile
from referee.tools.tampering.syntax import text

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
_SETTERS = frozenset({"Object.defineProperty", "Reflect.defineProperty", "Reflect.set"})


def js_instruments(file: TsFile, names: JsNames) -> Iterator[Claim]:
    """Every write to a test instrument the file makes."""
    for node in file.nodes("assignment_expression", "augmented_assignment_expression"):
        left = node.child_by_field_name("left")
        dotted = names.resolve(left) or text(left)
        if _instrument(dotted):
            yield _claim(file, node, dotted)
    for call in file.nodes("call_expression"):
        callee = names.resolve(call.child_by_field_name("function")) or ""
        args = arguments(call)
        if callee in _SETTERS and len(args) >= 2:
            dotted = f"{names.resolve(args[0])}.{names.fold(args[1]) or '*'}"
            if _instrument(dotted):
                yield _claim(file, call, dotted)
        elif callee == "Object.assign" and args:
            owner = names.resolve(args[0]) or ""
            keys = _keys(args[1]) if len(args) > 1 else []
            if any(_instrument(f"{owner}.{k}") for k in keys):
                yield _claim(file, call, owner)
        elif callee.rpartition(".")[2] in _REGISTERS and _library(callee.rpartition(".")[0]):
            keys = _keys(_value(file, args[0])) if args else []
            if file.role == "source" or set(keys) & _MATCHERS:
                yield _claim(file, call, callee)


def _instrument(dotted: str) -> bool:
    if dotted in _INTRINSICS or _library(dotted):
        return True
    owner, prototype, _ = dotted.partition(".prototype")
    return bool(prototype) and owner in _PROTOTYPES


def _library(dotted: str) -> bool:
    return any(dotted == name or dotted.startswith(name + ".") for name in _LIBRARIES)


def _value(file: TsFile, node: ts.Node) -> ts.Node:
    """An object a name was declared with (`const m = {…}; expect.extend(m)`), else the node."""
    if node.type != "identifier":
        return node
    for declarator in file.nodes("variable_declarator"):
        value = declarator.child_by_field_name("value")
        if text(declarator.child_by_field_name("name")) == text(node) and value is not None:
            return value
    return node


def _keys(node: ts.Node) -> list[str]:
    """The keys an object literal spells (`{toBe: …}`, `{toBe() {…}}`, `{toBe}`); a key
    computed from anything else reads as `*`."""
    if node.type != "object":
        return ["*"]
    keys = []
    for member in node.named_children:
        key = member.child_by_field_name("key") or member.child_by_field_name("name") or member
        keys.append(text(key).strip("'\"`[]"))
    return keys


def _claim(file: TsFile, node: ts.Node, dotted: str) -> Claim:
    kind = HARNESS_MODIFIED if file.role == "test" else EQUALITY_FORGED
    return file.claim(
        kind,
        node,
        f"replaces `{dotted}`, which the tests judge with: every comparison made through it"
        " answers as this code says, whatever the code under test computed",
    )
