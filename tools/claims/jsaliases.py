"""Every binding a JS/TS file may give a name, for checks that must not miss one.

`JsNames.resolve` follows a name's first declaration. A write to an instrument can hide behind
any other binding, so `resolve_all` gives them all, blind to the order of statements:
- a name: every declaration of it in the file, every plain assignment (`let O; O = Object`,
  `(O = Object).is`), destructuring (defaults included), a loop's variable for the items of the
  array it walks, an object literal's properties (`const o = {O: Object}; o.O`), a class's
  fields and `this.x`, a global's property (`globalThis.O`), a catch parameter (whatever the
  file throws);
- a function's parameter, inside that function only: its default, and the arguments of every
  call the file makes of the function (by its name or a name holding it, immediately, through
  `call`/`apply`/`bind`/`Reflect.apply`, as a callback of an array's iteration, of `then` or of
  a timer), through chains of such calls; a string argument is a key the parameter may hold
  (`stub(JSON, "parse", …)` writes `JSON.parse`, not any key of `JSON`);
- an expression: both sides of `||`, `??` and `&&`, both branches of `?:`, an assignment's
  value, and what the file's own functions return (`const get = () => Object; get().is`).

A parameter is read in its own function's scope (an unrelated `set(obj, k, v)` elsewhere is not
bound by a call of `has(obj)`); declarations are not scoped: one alias anywhere is enough.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tree_sitter as ts

from referee.tools.claims.jsnames import (
    FUNCTIONS,
    WRAPPERS,
    arguments,
    destructured,
    joined,
    literal_constructor,
    parameters,
    unwrapped,
)
from referee.tools.tampering.syntax import descendants, text

if TYPE_CHECKING:
    from referee.tools.claims.jsnames import JsNames

__all__ = ["Aliases"]

_EITHER = frozenset({"||", "??", "&&"})
_ITERATIONS = frozenset(
    {"forEach", "map", "filter", "some", "every", "find", "findIndex", "findLast", "flatMap"}
)
# What binds names, besides functions' parameters.
_BOUND_BY = frozenset(
    {"variable_declarator", "assignment_expression", "for_in_statement", "catch_clause"}
    | {"class_declaration", "class", "throw_statement", "call_expression", "new_expression"}
)
_GET_PROTOTYPE = frozenset({"Object.getPrototypeOf", "Reflect.getPrototypeOf"})
# A timer's callback gets the arguments after these many.
_TIMERS = {"setTimeout": 2, "setInterval": 2, "setImmediate": 1}
_MAX = 16  # bindings of one name: enough for any honest file, bounded for a hostile one
_ROUNDS = 3  # parameters passed on to other functions' parameters
_DEPTH = 8  # of the expressions resolved through returns and parameters

# Steps (an expression resolved, a parameter bound) one file may take: the largest honest file
# read (lodash.min.js; lodash's builds and tests, jest and vitest take fewer) takes about 19,000.
# A file that needs more (many functions of one name calling each other) is named as unread
# (jsinstruments), not followed.
_BUDGET = 100_000

Scoped = tuple[int, str]  # (the function's node id, the parameter's name)


class _Exhausted(Exception):
    """The budget ran out while binding."""


class Aliases:
    """The bindings of one file's names (see the module)."""

    def __init__(self, names: JsNames, root: ts.Node) -> None:
        self._names = names
        self.names: dict[str, set[str]] = {}
        """Every binding of a name outside parameters, its first declaration included."""
        self.unknown: set[str] = set()
        """Names also given a value the reader cannot name (`O = function () {…}`)."""
        self._keys: dict[str, set[str]] = {}
        self._params: dict[Scoped, set[str]] = {}
        self._param_keys: dict[Scoped, set[str]] = {}
        self._param_names: dict[int, set[str]] = {}
        self._by_kind: dict[str, list[ts.Node]] = {}
        for node in descendants(root, _BOUND_BY | FUNCTIONS):  # the file walked once
            self._by_kind.setdefault(node.type, []).append(node)
        self._functions = _functions(self._by_kind)
        self._returns: dict[int, list[ts.Node]] = {}
        self._arrays: dict[str, ts.Node] = {}
        self._held: dict[str, list[ts.Node]] = {}  # the expressions a name is given
        self._param_held: dict[Scoped, list[ts.Node]] = {}
        self._given: dict[int, set[str]] = {}
        self.steps = 0
        """Expressions resolved and parameters bound so far."""
        self.exhausted = False
        """The file has more bindings than referee follows (_BUDGET): some were not bound."""
        try:
            self._bind(root)
        except _Exhausted:
            self.exhausted = True

    def _step(self) -> None:
        self.steps += 1
        if self.steps > _BUDGET and not self.exhausted:
            raise _Exhausted

    def resolve_all(self, node: ts.Node | None, depth: int = 0, place: bool = False) -> set[str]:
        """Every reference `node` may have; empty when none is known.

        Args:
            place: `node` is written, not read: `o.O = …` writes `o`'s property, whatever
                `o.O` held (`o.O.is = …` writes what it held).
        """
        self._step()
        if node is None or depth > _DEPTH:
            return set()
        kind, inner = node.type, node.named_children
        if kind in WRAPPERS and inner:
            return self.resolve_all(unwrapped(node), depth + 1, place)
        if kind == "sequence_expression" and inner:
            return self.resolve_all(inner[-1], depth + 1, place)
        if kind == "identifier":
            return self._identifier(node)
        if kind == "this":
            return {"this"}
        if kind in ("member_expression", "subscript_expression"):
            return self._member(node, depth, place)
        found = {n for n in (self._names.resolve(node),) if n is not None}
        if kind == "call_expression":
            found |= self._prototype_of(node, depth)
        for part in self._parts(node):
            found |= self.resolve_all(part, depth + 1)
        if kind == "call_expression":
            for function in self._callees(node)[:_MAX]:
                found |= self._gives(function, depth)
        return found

    def _prototype_of(self, node: ts.Node, depth: int) -> set[str]:
        """`Object.getPrototypeOf({})` is `Object.prototype`."""
        if self._names.resolve(node.child_by_field_name("function")) not in _GET_PROTOTYPE:
            return set()
        args = arguments(node)
        if not args:
            return set()
        made = literal_constructor(args[0])
        if made is not None:
            return {f"{made}.prototype"}
        return {_member_of(o, "__proto__") for o in self.resolve_all(args[0], depth + 1)}

    def _gives(self, function: ts.Node, depth: int) -> set[str]:
        """What a function of the file returns, worked out once per function (a hostile file
        of many calls and many functions of one name costs each function once)."""
        found = self._given.get(function.id)
        if found is None:
            self._given[function.id] = set()  # a function that returns its own call: nothing
            found = set()
            for value in self._returned(function)[:_MAX]:
                found |= self.resolve_all(value, depth + 1)
            self._given[function.id] = found
        return found

    def objects(self, node: ts.Node | None, depth: int = 0) -> list[ts.Node]:
        """The object literals `node` may be (a matcher object handed to `expect.extend`):
        through names, parameters, properties and `Object.assign`."""
        if node is None or depth > _DEPTH:
            return []
        kind = node.type
        if kind == "object":
            return [node]
        if kind in WRAPPERS and node.named_children:
            return self.objects(unwrapped(node), depth + 1)
        held: list[ts.Node] = []
        if kind == "identifier":
            scoped = self._parameter(node, text(node))
            held = self._param_held.get(scoped, []) if scoped else self._held.get(text(node), [])
        elif kind == "member_expression":
            key = text(node.child_by_field_name("property"))
            for owner in self.objects(node.child_by_field_name("object"), depth + 1):
                held += [v for k, v in _properties(owner).items() if k == key]
        elif kind == "call_expression":
            if self._names.resolve(node.child_by_field_name("function")) == "Object.assign":
                held = arguments(node)
        return [o for value in held[:_MAX] for o in self.objects(value, depth + 1)][:_MAX]

    def rebound(self, name: str) -> tuple[set[str], bool]:
        """What a name may be bound to outside parameters, and whether it is also given a value
        the reader cannot name (`O = function () {…}`)."""
        return set(self.names.get(name, ())), name in self.unknown

    def _identifier(self, node: ts.Node) -> set[str]:
        name = text(node)
        scoped = self._parameter(node, name)
        if scoped is not None:
            return set(self._params.get(scoped, ())) or {name}
        return set(self.names.get(name, ())) or {self._names.resolve(node) or name}

    def _member(self, node: ts.Node, depth: int, place: bool) -> set[str]:
        owner_node = node.child_by_field_name("object")
        owners = self.resolve_all(owner_node, depth + 1)
        made = literal_constructor(owner_node) if owner_node is not None else None
        if made is not None:
            owners.add(f"{made}.__literal__")  # `({}).__proto__` is `Object.prototype`
        found = {n for n in (self._names.resolve(node),) if n is not None}
        for key in self._keys_of(node):
            for owner in sorted(owners)[:_MAX]:
                member = _member_of(owner, key)
                found.add(member)
                if not place:
                    found |= self.names.get(member, set())  # `o.O` where `o = {O: Object}`
        return found

    def _parts(self, node: ts.Node) -> list[ts.Node]:
        """The expressions `node`'s value may be: sides, branches, an assignment's value."""
        kind = node.type
        if kind == "binary_expression":
            operator = text(node.child_by_field_name("operator"))
            if operator in _EITHER:
                return [n for n in (node.child_by_field_name(f) for f in ("left", "right")) if n]
        if kind == "ternary_expression":
            fields = ("consequence", "alternative")
            return [n for n in (node.child_by_field_name(f) for f in fields) if n]
        if kind == "assignment_expression":
            return [n for n in (node.child_by_field_name("right"),) if n]
        return []

    def _returned(self, function: ts.Node) -> list[ts.Node]:
        found = self._returns.get(function.id)
        if found is None:
            found = self._returns[function.id] = _returned(function)
        return found

    def _keys_of(self, node: ts.Node) -> set[str]:
        """The member names a member expression may use; `*` for one the reader cannot fold."""
        if node.type == "member_expression":
            return {text(node.child_by_field_name("property"))}
        index = node.child_by_field_name("index")
        if index is None:
            return {"*"}
        if index.type == "number":
            return {text(index)}  # `Array.prototype[0]` writes an element, not a method
        folded = self._names.fold(index)
        if folded is not None:
            return {folded}
        if index.type == "identifier":
            scoped = self._parameter(index, text(index))
            held = self._param_keys.get(scoped) if scoped else self._keys.get(text(index))
            if held:
                return set(held)
        symbol = self._names.resolve(index)
        if symbol is not None and symbol.startswith("Symbol."):
            return {f"[{symbol}]"}  # `Array.prototype[Symbol.iterator]`: a known member
        return {"*"}

    def _parameter(self, node: ts.Node, name: str) -> Scoped | None:
        """The function whose parameter `name` is, where `node` stands; None if not one."""
        parent = node.parent
        while parent is not None:
            if parent.type in FUNCTIONS:
                if parent.id not in self._param_names:
                    self._param_names[parent.id] = {
                        text(p) for p in parameters(parent) if p.type == "identifier"
                    }
                if name in self._param_names[parent.id]:
                    return parent.id, name
            parent = parent.parent
        return None

    # Binding

    def _add(self, table: dict[str, set[str]], name: str, named: str | None) -> None:
        if named is not None and named != name:
            found = table.setdefault(name, set())
            if len(found) < _MAX:
                found.add(named)

    def _bind(self, root: ts.Node) -> None:
        for bound, named in self._names.bound.items():
            self._add(self.names, bound, named)
        kind = self._by_kind.get
        for node in kind("variable_declarator", []):
            held, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if held is not None and value is not None and value.type == "array":
                self._arrays.setdefault(text(held), value)
        thrown = [c.named_children[0] for c in kind("throw_statement", []) if c.named_children]
        for node in kind("for_in_statement", []):
            self._loop(node)
        for node in kind("catch_clause", []):
            self._catch(node, thrown)
        for node in [*kind("class_declaration", []), *kind("class", [])]:
            self._fields(node)
        for node in [*kind("variable_declarator", []), *kind("assignment_expression", [])]:
            declared = node.type == "variable_declarator"
            left = node.child_by_field_name("name" if declared else "left")
            value = node.child_by_field_name("value" if declared else "right")
            if left is not None and value is not None:
                self._pattern(left, value)
        calls = [*kind("call_expression", []), *kind("new_expression", [])]
        functions = [f for fs in self._functions.values() for f in fs] + [
            f for k in FUNCTIONS for f in kind(k, []) if f.child_by_field_name("name") is None
        ]
        for _ in range(_ROUNDS):  # a parameter passed on binds the next function's
            self._given.clear()  # what functions return, worked out with fewer bindings
            for function in functions:
                self._defaults(function)
            for call in calls:
                self._call(call)
        self._given.clear()

    def _pattern(self, pattern: ts.Node, value: ts.Node) -> None:
        """Bind what a declaration or an assignment names, a destructuring one included."""
        value = unwrapped(value)  # `[Object] as const`
        named = sorted(self.resolve_all(value))[:_MAX]
        if pattern.type == "identifier":
            name = text(pattern)
            held = self._held.setdefault(name, [])
            if len(held) < _MAX:
                held.append(value)
            for each in named:
                self._add(self.names, name, each)
            if not named:
                self.unknown.add(name)
            if value.type == "object":
                self._properties(name, value)
        elif pattern.type == "object_pattern":
            properties = _properties(value) if value.type == "object" else {}
            for key, local in destructured(pattern):
                for each in named:
                    self._add(self.names, local, f"{each}.{key}")
                if key in properties:  # `const { O } = { O: Object }`
                    for each in sorted(self.resolve_all(properties[key]))[:_MAX]:
                        self._add(self.names, local, each)
        elif pattern.type == "array_pattern" and value.type == "array":
            for target, item in zip(pattern.named_children, value.named_children, strict=False):
                self._pattern(target, item)
        elif pattern.type in ("member_expression", "subscript_expression"):
            # `this.O = Object`, `globalThis.O = Object`: the member holds it from now on.
            for place in sorted(self.resolve_all(pattern, place=True))[:_MAX]:
                for each in named:
                    self._add(self.names, place, each)

    def _properties(self, name: str, value: ts.Node) -> None:
        """`const o = {O: Object}`: `o.O` is `Object`."""
        for key, item in _properties(value).items():
            short = item.type == "shorthand_property_identifier"  # `{O}`: what `O` names
            named = self._names.bound.get(key) if short else self._names.resolve(item)
            self._add(self.names, f"{name}.{key}", named)

    def _loop(self, node: ts.Node) -> None:
        """`for (const k of ["is", "keys"])`: `k` holds each string; `for (const [O] of
        [[Object]])` and a loop over a name bound to an array literal alike."""
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return
        array = right if right.type == "array" else self._arrays.get(text(right))
        if array is None:
            return
        if left.type == "identifier":
            items = [self._names.fold(item) for item in array.named_children]
            self._keys.setdefault(text(left), set()).update(i for i in items if i is not None)
        for item in array.named_children:
            self._pattern(left, item)

    def _catch(self, node: ts.Node, thrown: list[ts.Node]) -> None:
        """`catch (O)` may hold whatever the file throws."""
        parameter = node.child_by_field_name("parameter")
        if parameter is not None:
            for value in thrown[:_MAX]:
                self._pattern(parameter, value)

    def _fields(self, node: ts.Node) -> None:
        """A class's fields: `static O = Object` is `K.O`, `O = Object` is `this.O` (a TS
        parameter property, `constructor(public O)`, is not read)."""
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        for member in body.named_children if body is not None else []:
            if member.type not in ("field_definition", "public_field_definition"):
                continue
            key = member.child_by_field_name("property") or member.child_by_field_name("name")
            value = member.child_by_field_name("value")
            if key is None or value is None:
                continue
            static = any(c.type == "static" for c in member.children)
            owner = text(name) if static and name is not None else "this"
            for named in self.resolve_all(value):
                self._add(self.names, f"{owner}.{text(key)}", named)

    def _defaults(self, function: ts.Node) -> None:
        """`function f(O = Object)`: the parameter may be its default."""
        listed = function.child_by_field_name("parameters")
        for parameter in listed.named_children if listed is not None else []:
            left = right = None
            if parameter.type == "assignment_pattern":
                left, right = (
                    parameter.child_by_field_name("left"),
                    parameter.child_by_field_name("right"),
                )
            elif parameter.type in ("required_parameter", "optional_parameter"):
                left, right = (
                    parameter.child_by_field_name("pattern"),
                    parameter.child_by_field_name("value"),
                )
            if left is not None and right is not None and left.type == "identifier":
                self._bind_parameter((function.id, text(left)), right)

    def _call(self, node: ts.Node) -> None:
        """Bind the parameters of the functions a call calls to its arguments."""
        args = arguments(node)
        callee = node.child_by_field_name("function") or node.child_by_field_name("constructor")
        while callee is not None and callee.type == "parenthesized_expression":
            callee = callee.named_children[0] if callee.named_children else None
        if callee is not None and self._names.resolve(callee) == "Reflect.apply":
            # `Reflect.apply(w, null, [Object])`
            spread = args[2] if len(args) > 2 and args[2].type == "array" else None
            callee = args[0] if args else None
            args = list(spread.named_children) if spread is not None else []
        elif callee is not None and callee.type == "member_expression":
            how = text(callee.child_by_field_name("property"))
            # `w.call(null, Object)`, `w.apply(null, [Object])`, and `w.bind(null, Object)`,
            # whose arguments are bound when it is made, whenever it is called.
            if how in ("call", "apply", "bind"):
                callee = callee.child_by_field_name("object")
                rest = args[1:]
                if how == "apply":
                    rest = list(rest[0].named_children) if rest and rest[0].type == "array" else []
                args = rest
        calls = [args]
        handed = self._handed(callee, args)
        if handed is not None:  # a callback a host function calls: `[Object].forEach(O => …)`
            callee, calls = handed
        for function in self._called(callee):
            for each in calls:
                for parameter, arg in zip(parameters(function), each, strict=False):
                    if parameter.type == "identifier":
                        self._bind_parameter((function.id, text(parameter)), arg)
                    else:
                        self._pattern(parameter, arg)

    def _handed(
        self, callee: ts.Node | None, args: list[ts.Node]
    ) -> tuple[ts.Node, list[list[ts.Node]]] | None:
        """The callback a host function calls and the arguments of each call: an array
        literal's items for its iteration methods (one call per item), `Promise.resolve(x)
        .then(f)`'s `x`, the extra arguments of a timer."""
        if callee is None or not args:
            return None
        if callee.type == "member_expression":
            owner = callee.child_by_field_name("object")
            method = text(callee.child_by_field_name("property"))
            if owner is not None and owner.type == "array" and method in _ITERATIONS:
                return args[0], [[item] for item in owner.named_children]
            if owner is not None and owner.type == "call_expression" and method == "then":
                made = owner.child_by_field_name("function")
                if self._names.resolve(made) == "Promise.resolve":
                    return args[0], [arguments(owner)[:1]]
            return None
        named = self._names.resolve(callee)
        if named in _TIMERS:
            return args[0], [args[_TIMERS[named] :]]
        return None

    def _bind_parameter(self, scoped: Scoped, value: ts.Node) -> None:
        self._step()
        held = self._param_held.setdefault(scoped, [])
        if len(held) < _MAX and all(v.id != value.id for v in held):
            held.append(value)
        found = self._params.setdefault(scoped, set())
        found.update(sorted(self.resolve_all(value))[: _MAX - len(found)])
        key = self._names.fold(value)
        if key is not None:
            self._param_keys.setdefault(scoped, set()).add(key)

    def _callees(self, node: ts.Node) -> list[ts.Node]:
        return self._called(node.child_by_field_name("function"))

    def _called(self, callee: ts.Node | None) -> list[ts.Node]:
        while callee is not None and callee.type == "parenthesized_expression":
            callee = callee.named_children[0] if callee.named_children else None
        if callee is None:
            return []
        if callee.type in FUNCTIONS:
            return [callee]
        if callee.type == "identifier":
            return self._functions.get(text(callee), [])
        return []


def _properties(value: ts.Node) -> dict[str, ts.Node]:
    """An object literal's properties by key (`{O: Object}`, `{O}`)."""
    found: dict[str, ts.Node] = {}
    for pair in value.named_children:
        if pair.type == "pair":
            key, item = pair.child_by_field_name("key"), pair.child_by_field_name("value")
            if key is not None and item is not None:
                found[text(key).strip("'\"")] = item
        elif pair.type == "shorthand_property_identifier":
            found[text(pair)] = pair
    return found


def _member_of(owner: str, key: str) -> str:
    """`owner.key`, where the language says more: `X.prototype.constructor` is `X`, a
    literal's `__proto__` its constructor's prototype."""
    if key == "constructor" and owner.endswith(".prototype"):
        return owner.removesuffix(".prototype")
    if owner.endswith(".__literal__") and key == "__proto__":
        return f"{owner.removesuffix('.__literal__')}.prototype"
    return joined(owner, key)  # a literal's own member (`({}).x`) is no intrinsic's


def _functions(by_kind: dict[str, list[ts.Node]]) -> dict[str, list[ts.Node]]:
    """The file's functions by the name it calls them by: declared, held by a variable, or by
    a name that holds one (`const ww = w`)."""
    found: dict[str, list[ts.Node]] = {}
    holders = [*by_kind.get("variable_declarator", []), *by_kind.get("assignment_expression", [])]
    for node in [n for k in FUNCTIONS for n in by_kind.get(k, [])] + holders:
        function: ts.Node | None = node
        if node.type in FUNCTIONS:
            name = node.child_by_field_name("name")
        else:
            left = "name" if node.type == "variable_declarator" else "left"
            name = node.child_by_field_name(left)
            function = node.child_by_field_name("value" if left == "name" else "right")
        if function is None or function.type not in FUNCTIONS:
            continue
        if name is not None and name.type == "identifier":
            found.setdefault(text(name), []).append(function)
    for node in by_kind.get("variable_declarator", []):
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if name is not None and value is not None and value.type == "identifier":
            held = found.get(text(value))
            if held and name.type == "identifier":
                found.setdefault(text(name), []).extend(held[:_MAX])
    return found


def _returned(function: ts.Node) -> list[ts.Node]:
    """What a function returns: an arrow's expression body, its own `return`s' values."""
    body = function.child_by_field_name("body")
    if body is None:
        return []
    if body.type != "statement_block":
        return [body]
    found = []
    for statement in descendants(body, frozenset({"return_statement"})):
        owner = statement.parent
        while owner is not None and owner.type not in FUNCTIONS:
            owner = owner.parent
        if owner is not None and owner.id == function.id and statement.named_children:
            found.append(statement.named_children[0])
    return found
