"""JS/TS names as the runtime resolves them: imports and requires, `process` however it is
reached, members however they are spelled, and strings computed from constants.

`process.exit` is also `process["ex" + "it"]`, `` process[`exit`] ``, `globalThis.process.exit`,
`Reflect.get(process, "exit")`, `const { exit } = process` and `const p = process; p.exit`: each
resolves to `process.exit`. A member of an imported module resolves to its specifier's file.
"""

from __future__ import annotations

import base64
import binascii
import posixpath

import tree_sitter as ts

from referee.tools.claims.model import Module, Scope
from referee.tools.claims.tsfile import unquote
from referee.tools.tampering.syntax import descendants, text

__all__ = [
    "FUNCTIONS",
    "WRAPPERS",
    "JsNames",
    "destructured",
    "joined",
    "literal_constructor",
    "parameters",
    "resolve_specifier",
    "unwrapped",
]

_GLOBALS = frozenset({"globalThis", "global", "window", "self"})
# Expressions whose value is their operand's: `(x)`, `x!`, `x as T`, `x satisfies T`,
# `await x`, `<T>x` (whose operand comes last).
WRAPPERS = frozenset(
    {"parenthesized_expression", "non_null_expression", "as_expression", "type_assertion"}
    | {"satisfies_expression", "await_expression"}
)
# Every kind of function node: a parameter's scope, a call's target, what a return ends.
FUNCTIONS = frozenset(
    {"function_expression", "arrow_function", "function_declaration", "method_definition"}
    | {"generator_function", "generator_function_declaration", "function"}
)
# What `.constructor` of a literal is.
_LITERALS = {
    "object": "Object",
    "array": "Array",
    "string": "String",
    "template_string": "String",
    "number": "Number",
    "regex": "RegExp",
    "true": "Boolean",
    "false": "Boolean",
}

# Ways to load a module by its specifier, besides `require`.
_LOADERS = frozenset(
    {"require", "rewire", "rewire.default", "module.require", "process.getBuiltinModule", "import"}
)
_EXTENSIONS = ("", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_INDEXES = tuple(f"/index{e}" for e in _EXTENSIONS if e)
_PROCESS_MODULES = frozenset({"process", "node:process"})


def resolve_specifier(specifier: str, here: str, scope: Scope) -> Module | None:
    """The project source file an import specifier names: relative to the importing file, or an
    alias (`@/calc`, `~/calc`, `#calc`) by its trailing path."""
    if specifier.startswith("."):
        near = posixpath.normpath(posixpath.join(posixpath.dirname(here), specifier))
        candidates = [near + e for e in (*_EXTENSIONS, *_INDEXES)]
        stem = near.rsplit(".", 1)[0] if near.endswith((".js", ".mjs", ".cjs", ".jsx")) else None
        if stem is not None:  # TypeScript imports `./calc.js` for `./calc.ts`
            candidates += [stem + e for e in _EXTENSIONS]
        return next((m for m in scope.modules if m.path in candidates), None)
    for prefix in ("@/", "~/", "#", "src/"):
        if specifier.startswith(prefix):
            tail = specifier.removeprefix(prefix)
            wanted = [tail + e for e in (*_EXTENSIONS, *_INDEXES)]
            return next((m for m in scope.modules if any(_ends(m.path, w) for w in wanted)), None)
    return None


def _ends(path: str, tail: str) -> bool:
    return path == tail or path.endswith("/" + tail)


class JsNames:
    """What the names of one JS/TS file refer to.

    A reference is a dotted string: `process.exit`, `module:src/calc.ts:add` for a member of a
    project file, `fs.writeFileSync` for a node builtin; None when unknown.

    `resolve` gives a name's first binding (tools/claims/jsaliases.py gives every binding).
    """

    def __init__(self, root: ts.Node, path: str, scope: Scope) -> None:
        self._path, self._scope = path, scope
        self.bound: dict[str, str] = {}
        self.consts: dict[str, str] = {}
        self._scoped = _declared_names(root)
        declarators = list(descendants(root, frozenset({"variable_declarator"})))
        for node in descendants(root, frozenset({"import_statement"})):
            self._imports(node)
        for _ in range(3):  # bindings of bindings
            for node in declarators:
                self._declared(node)

    def declared(self, node: ts.Node) -> bool:
        """Whether the name at `node` is one a scope around it declares (a variable, a
        parameter, a loop's, a function's): a local `self` or `test` is no global, whatever it
        holds, and a global is still one beside a function that declares the same name."""
        scopes = self._scoped.get(text(node))
        if not scopes:
            return False
        parent = node.parent
        while parent is not None:
            if (parent.start_byte, parent.end_byte) in scopes:
                return True
            parent = parent.parent
        return False

    def scope(self, name: str, node: ts.Node) -> tuple[int, int] | None:
        """The span of the innermost scope around `node` that declares `name` (None: a global or
        a name no scope of the file declares)."""
        scopes = self._scoped.get(name)
        parent: ts.Node | None = node
        while scopes and parent is not None:
            span = (parent.start_byte, parent.end_byte)
            if span in scopes and parent.parent is not None:
                return span
            parent = parent.parent
        return None

    def resolve(self, node: ts.Node | None) -> str | None:
        if node is None:
            return None
        kind = node.type
        if kind in WRAPPERS:
            # `(x)`, `x!`, `x as T`, `x satisfies T`: the value first; `<T>x`: the value last.
            inner = node.named_children
            return self.resolve(
                (inner[-1] if kind == "type_assertion" else inner[0]) if inner else None
            )
        if kind == "sequence_expression":  # `(0, expect)` is its last value
            return self.resolve(node.named_children[-1] if node.named_children else None)
        if kind == "identifier":
            name = text(node)
            if name in self.bound:
                return self.bound[name]
            return "globalThis" if name in _GLOBALS and not self.declared(node) else name
        if kind == "member_expression":
            owner = node.child_by_field_name("object")
            name = text(node.child_by_field_name("property"))
            if name == "constructor" and owner is not None:
                literal = literal_constructor(owner)
                if literal is not None:
                    return literal  # `({}).constructor` is `Object`
            return self._member(owner, name)
        if kind == "subscript_expression":
            owner = node.child_by_field_name("object")
            index = node.child_by_field_name("index")
            if owner is not None and owner.type == "array" and index is not None:
                position = _number(index)  # `[expect][0]` is `expect`
                items = owner.named_children
                if position is not None and 0 <= position < len(items):
                    return self.resolve(items[position])
            return self._member(owner, self.fold(index))
        if kind == "call_expression":
            return self._called(node)
        return None

    def _member(self, owner: ts.Node | None, name: str | None) -> str | None:
        base = self.resolve(owner)
        if base is None or name is None:
            return None
        return joined(base, name)

    def _called(self, node: ts.Node) -> str | None:
        callee = self.resolve(node.child_by_field_name("function"))
        args = _arguments(node)
        function = node.child_by_field_name("function")
        if function is not None and function.type == "import":
            callee = "import"  # `await import("node:assert")`
        if function is not None and function.type == "call_expression":
            # `createRequire(import.meta.url)("assert")` is a require.
            if (self.resolve(function.child_by_field_name("function")) or "").endswith(
                "createRequire"
            ):
                callee = "require"
        if callee in _LOADERS and args:
            return self._module(self.fold(args[0]))
        if callee is not None and callee.rpartition(".")[2] == "createRequire":
            return "require"  # what `createRequire(import.meta.url)` returns loads as require
        if callee == "Reflect.get" and len(args) >= 2:
            return self._member(args[0], self.fold(args[1]))
        if callee is not None and callee.endswith((".bind", ".call", ".apply")):
            return callee.rsplit(".", 1)[0]  # process.exit.bind(process) is process.exit
        return None

    def _module(self, specifier: str | None) -> str | None:
        if specifier is None:
            return None
        if specifier in _PROCESS_MODULES:
            return "process"
        module = resolve_specifier(specifier, self._path, self._scope)
        if module is not None:
            return f"module:{module.path}|"
        return specifier.removeprefix("node:")

    def _imports(self, node: ts.Node) -> None:
        source = self.fold(node.child_by_field_name("source"))
        module = self._module(source)
        if module is None:
            return
        for clause in node.named_children:
            if clause.type != "import_clause":
                continue
            for part in clause.named_children:
                if part.type == "identifier":
                    # A project file's default export is one of its names; a package's default
                    # export is the package (`import sinon from "sinon"`).
                    project = module.startswith("module:")
                    self.bound[text(part)] = f"{module}.default" if project else module
                elif part.type == "namespace_import":
                    names = [c for c in part.named_children if c.type == "identifier"]
                    if names:
                        self.bound[text(names[-1])] = module
                elif part.type == "named_imports":
                    for spec in part.named_children:
                        name = text(spec.child_by_field_name("name"))
                        alias = spec.child_by_field_name("alias")
                        self.bound[text(alias) if alias else name] = f"{module}.{name}"

    def _declared(self, node: ts.Node) -> None:
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if name is None or value is None:
            return
        if name.type == "identifier":
            folded = self.fold(value)
            if folded is not None:
                self.consts.setdefault(text(name), folded)
                return
            named = self.resolve(value)
            if named is not None and named != text(name):
                self.bound.setdefault(text(name), named)
        elif name.type == "object_pattern":
            owner = self.resolve(value)
            if owner is not None:
                for key, local in destructured(name):
                    self.bound.setdefault(local, f"{owner}.{key}")

    def fold(self, node: ts.Node | None, holes: bool = False) -> str | None:
        """The string an expression always evaluates to; with `holes`, a template's unknown parts
        as `{}` (for printed lines)."""
        if node is None:
            return None
        kind = node.type
        if kind == "string":
            return unquote(node)
        if kind == "template_string":
            return self._template(node, holes)
        if kind == "identifier":
            return self.consts.get(text(node))
        if kind == "parenthesized_expression" and node.named_children:
            return self.fold(node.named_children[0], holes)
        if kind == "binary_expression" and text(node.child_by_field_name("operator")) == "+":
            left = self.fold(node.child_by_field_name("left"), holes)
            right = self.fold(node.child_by_field_name("right"), holes)
            if holes and (left is not None or right is not None):
                return (left if left is not None else "{}") + (right if right is not None else "{}")
            return left + right if left is not None and right is not None else None
        if kind == "call_expression":
            return self._fold_call(node)
        return None

    def _template(self, node: ts.Node, holes: bool) -> str | None:
        parts = []
        for child in node.named_children:
            if child.type == "string_fragment":
                parts.append(text(child))
            elif child.type == "escape_sequence":
                parts.append(unquote_escape(text(child)))
            elif child.type == "template_substitution":
                inner = self.fold(child.named_children[0] if child.named_children else None)
                if inner is None and not holes:
                    return None
                parts.append(inner if inner is not None else "{}")
        return "".join(parts)

    def _fold_call(self, node: ts.Node) -> str | None:
        callee = node.child_by_field_name("function")
        args = _arguments(node)
        named = self.resolve(callee) or ""
        if named == "String.fromCharCode":
            codes = [_number(a) for a in args]
            return "".join(chr(c) for c in codes if c is not None) if None not in codes else None
        if named == "atob" and args:
            return _b64(self.fold(args[0]))
        if callee is None or callee.type != "member_expression":
            return None
        method = text(callee.child_by_field_name("property"))
        owner = callee.child_by_field_name("object")
        if method == "join" and owner is not None and owner.type == "array":
            sep = self.fold(args[0]) if args else ","
            items = [self.fold(i) for i in owner.named_children]
            return (
                sep.join(i for i in items if i is not None)
                if sep is not None and None not in items
                else None
            )
        if method in ("join", "reverse", "split", "toLowerCase", "toUpperCase", "trim", "toString"):
            return self._chain(callee, method, args)
        return None

    def _chain(self, callee: ts.Node, method: str, args: list[ts.Node]) -> str | None:
        """`"tixe".split("").reverse().join("")`, `Buffer.from("ZXhpdA==", "base64").toString()`."""
        owner = callee.child_by_field_name("object")
        if owner is None:
            return None
        if method == "toString" and owner.type == "call_expression":
            inner = _arguments(owner)
            if self.resolve(owner.child_by_field_name("function")) == "Buffer.from" and inner:
                encoding = self.fold(inner[1]) if len(inner) > 1 else "utf8"
                data = self.fold(inner[0])
                return _b64(data) if encoding == "base64" else data
        value = self.fold(owner) if method != "join" else None
        if method == "join":
            parts = self._split_parts(owner)
            sep = self.fold(args[0]) if args else ","
            return sep.join(parts) if parts is not None and sep is not None else None
        if value is None:
            return None
        simple = {"toLowerCase": value.lower(), "toUpperCase": value.upper(), "trim": value.strip()}
        return simple.get(method, value if method == "toString" else None)

    def _split_parts(self, node: ts.Node) -> list[str] | None:
        """The parts of `"…".split("")`, `….reverse()` before a join."""
        if node.type != "call_expression":
            return None
        callee = node.child_by_field_name("function")
        if callee is None or callee.type != "member_expression":
            return None
        method = text(callee.child_by_field_name("property"))
        owner = callee.child_by_field_name("object")
        if method == "reverse":
            inner = self._split_parts(owner) if owner is not None else None
            return list(reversed(inner)) if inner is not None else None
        if method == "split":
            value = self.fold(owner)
            args = _arguments(node)
            sep = self.fold(args[0]) if args else None
            if value is None or sep is None:
                return None
            return list(value) if sep == "" else value.split(sep)
        return None


def destructured(pattern: ts.Node) -> list[tuple[str, str]]:
    found = []
    for child in pattern.named_children:
        if child.type == "shorthand_property_identifier_pattern":
            found.append((text(child), text(child)))
        elif child.type == "pair_pattern":
            key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
            if value is not None and value.type == "assignment_pattern":
                value = value.child_by_field_name("left")  # `{defineProperty: dp = null}`
            if value is not None and value.type == "identifier":
                found.append((text(key).strip("'\"[]"), text(value)))
        elif child.type == "object_assignment_pattern":  # `{is = null}`
            left = child.child_by_field_name("left")
            if left is not None and left.type == "shorthand_property_identifier_pattern":
                found.append((text(left), text(left)))
    return found


def parameters(function: ts.Node) -> list[ts.Node]:
    """A function's parameters as patterns (`a`, `{x}`; a default's left side; TS's typed one)."""
    single = function.child_by_field_name("parameter")  # `O => …`
    if single is not None:
        return [single]
    listed = function.child_by_field_name("parameters")
    found = []
    for parameter in listed.named_children if listed is not None else []:
        if parameter.type in ("required_parameter", "optional_parameter"):
            parameter = parameter.child_by_field_name("pattern") or parameter
        if parameter.type == "assignment_pattern":
            parameter = parameter.child_by_field_name("left") or parameter
        found.append(parameter)
    return found


def unwrapped(node: ts.Node) -> ts.Node:
    """The operand a wrapper stands for (WRAPPERS), through any number of them."""
    while node.type in WRAPPERS and node.named_children:
        node = node.named_children[-1 if node.type == "type_assertion" else 0]
    return node


def literal_constructor(node: ts.Node) -> str | None:
    """The constructor of a literal value (`{}`, `[]`, `""`), through parentheses."""
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    return _LITERALS.get(node.type)


def joined(owner: str, key: str) -> str:
    if owner == "globalThis":
        return "globalThis" if key in _GLOBALS else key
    return f"{owner}.{key}"


def _arguments(node: ts.Node) -> list[ts.Node]:
    args = node.child_by_field_name("arguments")
    return [a for a in args.named_children if "comment" not in a.type] if args is not None else []


def _number(node: ts.Node) -> int | None:
    try:
        return int(text(node), 0) if node.type == "number" else None
    except ValueError:
        return None


def _b64(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return base64.b64decode(value).decode("latin-1")
    except (binascii.Error, ValueError):
        return None


def unquote_escape(sequence: str) -> str:
    return {"\\n": "\n", "\\t": "\t", "\\`": "`", "\\$": "$", "\\\\": "\\"}.get(
        sequence, sequence[1:]
    )


def arguments(node: ts.Node) -> list[ts.Node]:
    return _arguments(node)


_DECLARING = frozenset(
    {"variable_declarator", "formal_parameters", "for_in_statement", "catch_clause"}
    | {"function_declaration", "class_declaration", "arrow_function"}
)
_DECLARED_FIELDS = ("name", "left", "parameter")


def _declared_names(root: ts.Node) -> dict[str, set[tuple[int, int]]]:
    """Each declared name, with the spans of the scopes that declare it (the function, loop or
    program around the declaration; a function's own name, its parent's)."""
    found: dict[str, set[tuple[int, int]]] = {}
    for node in descendants(root, _DECLARING):
        if node.type == "formal_parameters":
            parts: list[ts.Node] = [node]
        else:
            parts = [f for k in _DECLARED_FIELDS if (f := node.child_by_field_name(k)) is not None]
        owner = node.parent if node.type in _NAMING else node
        scope = _scope_of(owner) if owner is not None else root
        for part in parts:
            for name in _names_bound(part):
                found.setdefault(name, set()).add((scope.start_byte, scope.end_byte))
    return found


_NAMING = frozenset({"function_declaration", "class_declaration", "variable_declarator"})
_SCOPES = frozenset(
    {"function_declaration", "function_expression", "function", "arrow_function"}
    | {"method_definition", "for_in_statement", "for_statement", "catch_clause", "program"}
    | {"generator_function_declaration", "generator_function", "class_body"}
)


def _scope_of(node: ts.Node) -> ts.Node:
    while node.parent is not None and node.type not in _SCOPES:
        node = node.parent
    return node


def _names_bound(part: ts.Node) -> list[str]:
    kinds = frozenset({"identifier", "shorthand_property_identifier_pattern"})
    if part.type in kinds:
        return [text(part)]
    if part.type in ("member_expression", "subscript_expression"):
        return []
    return [text(n) for n in descendants(part, kinds) if _declares(n)]


def _declares(node: ts.Node) -> bool:
    """An identifier that a pattern binds, not a default value's or a type's name."""
    parent = node.parent
    return parent is None or parent.type not in (
        "assignment_pattern_value",
        "call_expression",
        "member_expression",
        "type_annotation",
    )
