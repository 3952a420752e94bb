"""JS/TS code that asks whether it runs under test (tools/claims/tssituation.py for the rule).

What a JS program reads of its situation: `process.env` and `process.argv` however reached
(`process.env['VI' + 'TEST']`, `const { NODE_ENV: mode } = process.env`), `import.meta`, a stack
(`new Error().stack`), globalThis and `typeof` of a runner's global (`typeof expect`,
`globalThis.__vitest_worker__`), files read with fs. An in-source test block
(`if (import.meta.vitest) { … }`, vitest's own idiom) is test code, not a question.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import tree_sitter as ts

from referee.tools.claims.jsnames import JsNames
from referee.tools.claims.tells import RUNNER_GLOBALS, Read, Tell, tell_of
from referee.tools.claims.tsfile import TsFile
from referee.tools.claims.tssituation import Asking, Binding
from referee.tools.tampering.syntax import descendants, text

__all__ = ["js_asking"]

# How the process was started and what it loaded: its arguments, environment, report, module
# list and bindings, and the module system's own state (not its facts about the machine:
# `process.cwd()`, `process.platform`, which a program reads for its own reasons).
_SITUATION = (
    "process.env",
    "process.argv",
    "process.execArgv",
    "process.execPath",
    "process.title",
    "process.mainModule",
    "process.pid",
    "process.ppid",
    "process.report",
    "process.moduleLoadList",
    "process.binding",
    "process._linkedBinding",
    "process._getActiveHandles",
    "util.getCallSites",
    "node:util.getCallSites",
    "module._cache",
    "Module._cache",
    "module.constructor",
    "require.main",
    "require.cache",
    "require.resolve",
    "module.children",
    "module.parent",
    "Deno.env",
    "Deno.args",
    "Deno.mainModule",
    "Bun.env",
    "Bun.argv",
    "Bun.main",
    "navigator.userAgent",
    "Error.captureStackTrace",
    "Error.prepareStackTrace",
)
_FS = frozenset({"fs", "fs/promises", "fs-extra", "graceful-fs", "Deno", "Bun"})
_FS_READS = frozenset(
    {"readFileSync", "readFile", "existsSync", "exists", "statSync", "stat", "lstatSync"}
    | {"accessSync", "access", "readdirSync", "readdir", "createReadStream", "realpathSync"}
    | {"readTextFile", "readTextFileSync", "file", "glob", "globSync", "opendirSync"}
)
_ENUMERATES = frozenset(
    {"Object.getOwnPropertySymbols", "Object.getOwnPropertyNames", "Reflect.ownKeys"}
    | {"Object.getOwnPropertyDescriptors", "Object.keys", "Object.entries", "Object.values"}
)
_THIS_FUNCTION = re.compile(r"(new )?Function ?\( ?(['\"`])return this\2 ?\) ?\( ?\)")
_GLOBAL_OBJECTS = frozenset({"globalThis", "global", "window", "self"})
_FOLDED = frozenset({"string", "template_string", "binary_expression", "call_expression"})


def js_asking(file: TsFile, names: JsNames) -> Asking:
    """The JS/TS reads and tells of one file."""
    return _Js(file, names).asking()


class _Js:
    def __init__(self, file: TsFile, names: JsNames) -> None:
        self.file, self.names = file, names
        self.source = file.role == "source"
        self.edited = None if self.source else file.scope.edited_tests
        self.blocks = [
            (b.start_byte, b.end_byte) for b in file.nodes("if_statement") if _in_source_tests(b)
        ]

    def asking(self) -> Asking:
        return Asking(self.tell, self.read, _bindings, _stops, scope=self.names.scope)

    def _skipped(self, node: ts.Node) -> bool:
        return any(start <= node.start_byte < end for start, end in self.blocks)

    def tell(self, node: ts.Node) -> Tell | None:
        if self._skipped(node):
            return None
        if self.source and node.type == "call_expression":
            return self._enumerated(node)
        if self.source and node.type == "for_in_statement" and _is_for_in(node):
            walked = node.child_by_field_name("right")
            if walked is not None and self._global_object(walked):
                return Tell("runner", "every key of the global object (for…in)")
            return None
        if node.type == "regex":
            # `/\.test\.js$/.test(module.parent.filename)`: the pattern names what it matches.
            pattern = node.child_by_field_name("pattern")
            return tell_of(text(pattern), self.edited) if pattern is not None else None
        if node.type in _FOLDED or (node.type == "identifier" and text(node) in self.names.consts):
            value = self.names.fold(node)
            tell = tell_of(value, self.edited) if value else None
            if tell is None and value in RUNNER_GLOBALS and self.source:
                return Tell("runner", f"the runner's global {value}")  # `'describe' in globalThis`
            return tell
        if not self.source or node.type not in ("member_expression", "subscript_expression"):
            return self._global(node) if self.source else None
        key = self._key(node)
        if key is None or self.read(node) is None:
            return None
        if self._owner(node) == "globalThis" and key in RUNNER_GLOBALS:
            return Tell("runner", f"the runner's global {key}")
        return tell_of(key)

    def _enumerated(self, call: ts.Node) -> Tell | None:
        """`Object.getOwnPropertySymbols(globalThis)`: every key of the global object, where the
        runners keep their state (jest-circus's tests, the matchers) under keys no code names."""
        callee = self.names.resolve(call.child_by_field_name("function"))
        args = call.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        if callee not in _ENUMERATES or first is None or not self._global_object(first):
            return None
        return Tell("runner", f"every key of the global object ({callee})")

    def _global_object(self, node: ts.Node) -> bool:
        """The global object: `globalThis`, `global`, `window`, `self`, `Function("return this")()`
        (a function whose body returns its unbound `this`)."""
        if (self.names.resolve(node) or text(node)) in _GLOBAL_OBJECTS:
            return True
        return _THIS_FUNCTION.fullmatch(" ".join(text(node).split())) is not None

    def _global(self, node: ts.Node) -> Tell | None:
        """`typeof expect`: a runner's global, named where the file binds no such name."""
        parent = node.parent
        if node.type != "identifier" or parent is None or parent.type != "unary_expression":
            return None
        name = text(node)
        if text(parent.child(0)) != "typeof" or name not in RUNNER_GLOBALS:
            return None
        if name in self.names.bound or self.names.declared(node):
            return None
        return Tell("runner", f"the runner's global {name}")

    def read(self, node: ts.Node) -> Read | None:
        if self._skipped(node):
            return None
        kind = node.type
        if kind == "unary_expression" and text(node.child(0)) == "typeof":
            return Read("process", "typeof")
        if kind == "member_expression":
            if text(node.child_by_field_name("property")) == "stack":
                return Read("process", "a stack trace")
            if text(node).startswith("import.meta"):
                return Read("process", "import.meta")
        if kind == "call_expression" and _THIS_FUNCTION.fullmatch(" ".join(text(node).split())):
            return Read("process", "globalThis")  # `Function("return this")()`
        if kind not in ("member_expression", "subscript_expression", "identifier"):
            return None
        if kind != "identifier" and self._owner(node) == "globalThis":
            return Read("process", "globalThis")
        named = self.names.resolve(node) or ""
        if named.startswith(_SITUATION) or (kind == "identifier" and named == "globalThis"):
            return Read("process", named)
        first, _, rest = named.partition(".")
        if first in _FS and rest.rsplit(".", 1)[-1] in _FS_READS:
            return Read("file", named)
        return None

    def _owner(self, node: ts.Node) -> str | None:
        return self.names.resolve(node.child_by_field_name("object"))

    def _key(self, node: ts.Node) -> str | None:
        if node.type == "member_expression":
            return text(node.child_by_field_name("property"))
        return self.names.fold(node.child_by_field_name("index"))


def _in_source_tests(node: ts.Node) -> bool:
    """`if (import.meta.vitest) { … }` without else: vitest's in-source tests."""
    condition = node.child_by_field_name("condition")
    inner = condition.named_children if condition is not None else []
    return (
        len(inner) == 1
        and text(inner[0]).replace(" ", "") == "import.meta.vitest"
        and node.child_by_field_name("alternative") is None
    )


def _stops(node: ts.Node) -> bool:
    kind = node.type
    ends = ("statement", "declaration", "declarator", "_block", "program")
    return kind.endswith(ends) or kind in ("class_body", "switch_case", "switch_default")


def _bindings(file: TsFile) -> Iterator[Binding]:
    for node in file.nodes(
        "variable_declarator", "assignment_expression", "for_in_statement", "assignment_pattern"
    ):
        left = (
            node.child_by_field_name("name")
            or node.child_by_field_name("left")
            or (node.named_children[0] if node.named_children else None)
        )
        right = node.child_by_field_name("value") or node.child_by_field_name("right")
        if left is not None and right is not None:
            yield _declared(left), right
    for function in file.nodes("function_declaration", "method_definition"):
        name = function.child_by_field_name("name")
        body = function.child_by_field_name("body")
        for returned in descendants(body, frozenset({"return_statement"})) if body else []:
            if name is not None and returned.named_children:
                yield [text(name)], returned.named_children[0]


def _declared(pattern: ts.Node) -> list[str]:
    kinds = frozenset({"identifier", "shorthand_property_identifier_pattern"})
    found = [pattern] if pattern.type in kinds else list(descendants(pattern, kinds))
    return [text(n) for n in found]


def _is_for_in(node: ts.Node) -> bool:
    """A `for (k in o)` loop (tree-sitter calls `for…of` the same node)."""
    return any(c.type == "in" for c in node.children)
