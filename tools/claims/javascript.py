"""JS/TS code read with tree-sitter: module mocks and replaced members of the code under test,
reads of its source and of the surroundings, and code that ends the run or forges its report.

Mocks: `jest.mock`/`vi.mock`/`doMock`/`unstable_mockModule`/`setMock`, `td.replace`,
`proxyquire`/`esmock`/`mockery.registerMock` of a specifier resolving to a project file;
`spyOn(…).mock*`, `sinon.stub/replace`, `Object.defineProperty`, `Reflect.set`, `Object.assign`
and plain assignment on a member of an imported project module; `require.cache` and
`Module._load` (a hook that can replace any module).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property

import tree_sitter as ts

from referee.tools.claims import messages as M
from referee.tools.claims.clocks import js_clock, js_listing
from referee.tools.claims.equality import ts_equalities
from referee.tools.claims.jsinstruments import js_instruments
from referee.tools.claims.jsnames import JsNames, arguments, resolve_specifier
from referee.tools.claims.jssituation import js_asking
from referee.tools.claims.model import (
    CODE_UNDER_TEST_PATCHED,
    HARNESS_MODIFIED,
    TEST_INSPECTS_ENVIRONMENT,
    Claim,
    Role,
    Scope,
)
from referee.tools.claims.patterns import (
    names_runner,
    names_source,
    protocol_line,
    reveals_environment,
)
from referee.tools.claims.pyscope import Target
from referee.tools.claims.stacks import Stacks, stack_reads
from referee.tools.claims.tells import is_runner_config
from referee.tools.claims.tsfile import TsFile, open_file
from referee.tools.claims.tssituation import asked
from referee.tools.tampering.syntax import descendants, text

__all__ = ["script_claims"]

_MODULE_MOCKS = frozenset(
    {"mock", "doMock", "unstable_mockModule", "setMock", "mockModule", "registerMock"}
)
_MOCKERS = frozenset({"jest", "vi", "td", "mockery", "mock", "testdouble"})
_STUB_LOADERS = frozenset(
    {"proxyquire", "esmock", "proxyquire.noCallThru", "mockRequire", "rewiremock"}
)
_SPY_MOCKS = ("mockImplementation", "mockReturnValue", "mockResolvedValue", "mockRejectedValue")
_MEMBER_STUBS = frozenset(
    {"sinon.stub", "sinon.replace", "sinon.replaceGetter", "sinon.replaceSetter", "td.replace"}
    | {"Object.defineProperty", "Reflect.set", "Reflect.defineProperty", "stub", "replace"}
)
_HOOKS = ("require.cache", "module.Module._load", "Module._load", "Module.prototype.require")
_HOOK_OWNERS = frozenset({"module", "node:module"})
_EXITS_ANYWHERE = frozenset({"process.reallyExit", "process.abort", "process.binding"})
_EXITS_IN_TESTS = frozenset({"process.exit", "Deno.exit", "Bun.exit", "process.exitCode"})
# What a runner's worker or child process reports its results through: its output (node:test's
# child frames, TAP), its IPC channel and events (jest's and vitest's workers, a worker thread's
# port), and the stream classes behind them. Code under test that writes any of it, on the object
# or its prototype, decides what the parent hears; a test may capture output, and a test's own
# doings are checked by the base tests' run without it.
_PROCESS_CHANNELS = frozenset(
    {"stdout", "stderr", "stdin", "send", "channel", "emit", "_events", "disconnect"}
    | {"_rawDebug", "binding", "_linkedBinding", "reallyExit", "exit", "abort"}
)
# A stream's account of its terminal (a fixture pretends to be one): no output passes through it.
_TERMINAL = frozenset({"isTTY", "columns", "rows", "hasColors", "getColorDepth", "getWindowSize"})
_STREAM_MODULES = frozenset(
    {"stream", "net", "tty", "fs", "events", "worker_threads", "child_process"}
    | {"node:stream", "node:net", "node:tty", "node:fs", "node:events", "node:worker_threads"}
)
_DEFINES = frozenset(
    {"Object.defineProperty", "Reflect.defineProperty", "Reflect.set", "Object.defineProperties"}
    | {"Object.assign", "Object.setPrototypeOf", "Reflect.setPrototypeOf"}
)


def _channel(named: str) -> bool:
    """Whether a write to `named` (a resolved name) changes what a runner's worker reports
    through: a member of `process` that carries output, messages or the exit, anything of
    a worker thread's `parentPort`, or a prototype of the stream and event classes."""
    parts = named.removeprefix("globalThis.").split(".")
    if parts[0] == "process":
        if len(parts) >= 3 and parts[2] in _TERMINAL:
            return False  # what the stream says of its terminal, not what it carries
        return len(parts) >= 2 and parts[1] in _PROCESS_CHANNELS
    if parts[0] in _STREAM_MODULES:
        return "parentPort" in parts or "prototype" in parts or "__proto__" in parts
    return False


_OUTPUT = frozenset(
    {"console.log", "console.info", "console.error", "console.warn", "console.debug"}
)
_OUTPUT |= {"process.stdout.write", "process.stderr.write", "console.trace"}
_WRITES = frozenset(
    {"writeFileSync", "writeFile", "appendFileSync", "appendFile", "createWriteStream"}
    | {"copyFileSync", "copyFile", "renameSync", "rename", "outputFile", "outputFileSync"}
)
_READS = frozenset({"readFileSync", "readFile", "createReadStream", "file", "readTextFile"})
_SURROUNDINGS = ("process.env", "process.argv", "process.cwd", "process.ppid", "process.pid")
_SURROUNDING_NAMES = frozenset({"__filename", "__dirname", "import.meta", "os.hostname"})


def script_claims(
    path: str, source: str, scope: Scope, role: Role, language: str
) -> list[Claim] | None:
    """What the JS/TS readers find in one file; None when it cannot be read."""
    file = open_file(language, path, source, scope, role)
    if file is None:
        return None
    names = JsNames(file.root, path, scope)
    reader = _Reader(file, names)
    found = [*reader.escapes()]
    if not is_runner_config(path):
        found += asked(file, js_asking(file, names))
    if role == "test":
        found += [*reader.replacements(), *reader.inspections()]
    elif not is_runner_config(path):
        found += ts_equalities(file, language)
    if not is_runner_config(path):
        found += js_instruments(file, names)
    return found


class _Reader:
    def __init__(self, file: TsFile, names: JsNames) -> None:
        self.file, self.names = file, names
        self.calls = list(file.nodes("call_expression"))
        self.called = [t for c in self.calls if (t := self._target(self._callee(c))) is not None]

    def _callee(self, call: ts.Node) -> str | None:
        return self.names.resolve(call.child_by_field_name("function"))

    def _target(self, dotted: str | None) -> Target | None:
        if not dotted or not dotted.startswith("module:"):
            return None
        path, _, rest = dotted.removeprefix("module:").partition("|")
        module = next((m for m in self.file.scope.modules if m.path == path), None)
        parts = tuple(p for p in rest.split(".") if p)
        return Target(module, parts[1:] if parts[:1] == ("default",) else parts) if module else None

    # (b) replacements -------------------------------------------------------------------
    def replacements(self) -> Iterator[Claim]:
        for call in self.calls:
            yield from self._mocked(call)
        for node in self.file.nodes("assignment_expression", "augmented_assignment_expression"):
            left = node.child_by_field_name("left")
            named = self.names.resolve(left) or text(left)
            if named.startswith(_HOOKS):
                yield self._hook(node, named)
            else:
                yield from self._replaced(node, self._target(named))

    def _mocked(self, call: ts.Node) -> Iterator[Claim]:
        callee = self._callee(call) or ""
        owner, _, method = callee.rpartition(".")
        owner = owner.rsplit(".", 1)[-1]  # `vi` imported from vitest is `vitest.vi`
        args = arguments(call)
        first = self.names.fold(args[0]) if args else None
        module_mock = owner in _MOCKERS and method in _MODULE_MOCKS
        module_mock |= (
            owner in ("td", "testdouble") and method.startswith("replace") and bool(first)
        )
        if module_mock or callee in ("mock-require", "mockRequire"):
            spec = self.names.fold(args[0]) if args else None
            if spec is not None:
                yield from self._replaced(call, self._module(spec))
            return
        if callee in _STUB_LOADERS and len(args) >= 2:
            yield from self._loader_stubs(call, args)
            return
        if method == "__set__" and args:  # rewire's setter on a loaded module
            base = callee.rpartition(".")[0]
            yield from self._replaced(call, self._target(f"{base}.{first or '*'}"))
        elif (
            callee in _MEMBER_STUBS
            or (method in ("stub", "replace") and owner == "sinon")
            or (method == "spyOn" and owner in _MOCKERS and self._spy_replaced(call))
        ):
            yield from self._member_stub(call, args)
        elif callee == "Object.assign" and args:
            owner_name = self.names.resolve(args[0])
            for key in _object_keys(args[1]) if len(args) > 1 else []:
                yield from self._replaced(call, self._target(f"{owner_name}.{key}"))
        elif owner in _HOOK_OWNERS or callee.startswith(("Module._load", "require.cache")):
            if method in ("_load", "_resolveFilename"):
                yield self._hook(call, callee)

    def _module(self, specifier: str) -> Target | None:
        module = resolve_specifier(specifier, self.file.path, self.file.scope)
        return Target(module, ()) if module is not None else None

    def _loader_stubs(self, call: ts.Node, args: list[ts.Node]) -> Iterator[Claim]:
        """`proxyquire("../src/app", {"./calc": …})`: stub keys resolve from the loaded file."""
        loaded = self.names.fold(args[0])
        loaded_module = (
            resolve_specifier(loaded, self.file.path, self.file.scope) if loaded else None
        )
        origin = loaded_module.path if loaded_module else self.file.path
        for key in _object_keys(args[1]):
            module = resolve_specifier(key, origin, self.file.scope)
            if module is not None:
                yield from self._replaced(call, Target(module, ()))

    def _member_stub(self, call: ts.Node, args: list[ts.Node]) -> Iterator[Claim]:
        if len(args) >= 2:
            base = self.names.resolve(args[0])
            key = self.names.fold(args[1]) or "*"
            yield from self._replaced(call, self._target(f"{base}.{key}" if base else None))
        elif args:
            yield from self._replaced(call, self._target(self.names.resolve(args[0])))

    def _spy_replaced(self, call: ts.Node) -> bool:
        """A spy replaces only once told to (`.mockImplementation` …), here or on its variable."""
        parent = call.parent
        if parent is not None and parent.type == "member_expression":
            return text(parent.child_by_field_name("property")).startswith(_SPY_MOCKS)
        if parent is not None and parent.type == "variable_declarator":
            name = text(parent.child_by_field_name("name"))
            return any(
                text(c.child_by_field_name("function")).startswith(
                    tuple(f"{name}.{m}" for m in _SPY_MOCKS)
                )
                for c in self.calls
            )
        return False

    def _replaced(self, node: ts.Node, target: Target | None) -> Iterator[Claim]:
        if target is None:
            return
        named = f"`{target}`" if target.rest else f"the module {target.module.path}"
        if target.written():
            yield self.file.claim(
                CODE_UNDER_TEST_PATCHED,
                node,
                M.patched_written(named, target.module.path),
            )
        elif any(target.covers(c) for c in self.called):
            yield self.file.claim(
                CODE_UNDER_TEST_PATCHED,
                node,
                M.patched_called(named, target.module.path),
            )

    def _hook(self, node: ts.Node, named: str) -> Claim:
        return self.file.claim(
            CODE_UNDER_TEST_PATCHED,
            node,
            M.hook(named),
        )

    # (c) inspections --------------------------------------------------------------------
    def inspections(self) -> Iterator[Claim]:
        for node, value in self._strings():
            where = reveals_environment(value)
            if where is not None:
                yield self.file.claim(TEST_INSPECTS_ENVIRONMENT, node, M.looks_at(where))
        for call in self.calls:
            yield from self._read(call)
        for node in self.file.nodes("if_statement", "ternary_expression", "while_statement"):
            yield from self._condition(node)
        if self._clocks.reads or self._listings.reads:
            for call in self.calls:
                yield from self._timed(call)
        for node in self.file.nodes("member_expression"):
            if self.names.resolve(node) == "process.ppid":
                yield self.file.claim(TEST_INSPECTS_ENVIRONMENT, node, M.process_tree())

    def _read(self, call: ts.Node) -> Iterator[Claim]:
        callee = self._callee(call) or text(call.child_by_field_name("function"))
        method = callee.rsplit(".", 1)[-1]
        args = arguments(call)
        if method in _READS and args:
            source = self._source_path(args[0])
            if source is not None:
                yield self.file.claim(TEST_INSPECTS_ENVIRONMENT, call, M.reads(source))
        elif method == "toString" or callee == "String":
            function = call.child_by_field_name("function")
            subject = (
                function.child_by_field_name("object")
                if method == "toString" and function
                else (args[0] if args else None)
            )
            target = self._target(self.names.resolve(subject))
            if target is not None:
                yield self.file.claim(TEST_INSPECTS_ENVIRONMENT, call, M.source_of(str(target)))

    def _source_path(self, expr: ts.Node) -> str | None:
        for node in (expr, *descendants(expr)):
            value = self.names.fold(node)
            if value is None:
                continue
            module = names_source(value, self.file.scope, self.file.path) or (
                resolve_specifier(value, self.file.path, self.file.scope)
                if value.startswith(".")
                else None
            )
            if module is not None:
                return module.path
        if text(expr) in ("__filename", "import.meta.url", "import.meta.filename"):
            return "its own source file"
        return None

    def _condition(self, node: ts.Node) -> Iterator[Claim]:
        condition = node.child_by_field_name("condition")
        if condition is None or not _decides(node, self.names):
            return
        if self._stacks.decide(condition):
            yield self.file.claim(TEST_INSPECTS_ENVIRONMENT, condition, M.stack(text(condition)))
            return
        # A loop on the clock waits (a poll until a deadline); a branch chooses.
        if node.type != "while_statement":
            for reads, message in ((self._clocks, M.clock), (self._listings, M.listing)):
                if reads.decide(condition):
                    yield self.file.claim(
                        TEST_INSPECTS_ENVIRONMENT, condition, message(text(condition))
                    )
                    return
        for part in (condition, *descendants(condition)):
            if part.type not in ("identifier", "member_expression"):
                continue
            named = self.names.resolve(part) or text(part)
            if self._shape_of_code_under_test(part):
                named = text(part)  # the test's own words, not the resolved module path
            elif not (
                named.startswith(_SURROUNDINGS)
                or named in _SURROUNDING_NAMES
                or named.startswith("import.meta")
            ):
                continue
            yield self.file.claim(TEST_INSPECTS_ENVIRONMENT, condition, M.decides(named))
            return

    @cached_property
    def _stacks(self) -> Stacks:
        """The file's stack reads (an error's `.stack`, not a `typeof` of it; the V8 stack
        hooks) and the names bound from them (stacks.py)."""
        reads = [
            n
            for n in self.file.nodes("member_expression")
            if not _typeof(n)
            and (
                text(n.child_by_field_name("property")) == "stack"
                or text(n) in ("Error.captureStackTrace", "Error.prepareStackTrace")
            )
        ]
        return stack_reads(self.file.root, "javascript", reads)

    @cached_property
    def _clocks(self) -> Stacks:
        """The file's clock reads (clocks.py) and the names bound from them."""
        reads = [
            n
            for n in self.file.nodes("call_expression", "member_expression", "new_expression")
            if js_clock(n)
        ]
        return stack_reads(self.file.root, "javascript", reads)

    @cached_property
    def _listings(self) -> Stacks:
        """The file's listings of the tree (clocks.py) and the names bound from them."""
        reads = [n for n in self.file.nodes("call_expression") if js_listing(n, self._callee(n))]
        return stack_reads(self.file.root, "javascript", reads)

    def _timed(self, call: ts.Node) -> Iterator[Claim]:
        """An assertion on the code under test (`assert.strictEqual(add(2, 3), want)`,
        `expect(add(2, 3)).toBe(want)`) whose other side carries the clock. A time budget
        (`assert.ok(Date.now() - start < 100)`) calls no code under test."""
        function = call.child_by_field_name("function")
        if text(function).split(".")[0].split("(")[0] not in ("expect", "assert"):
            return
        if call.parent is not None and call.parent.type == "member_expression":
            return  # `expect(x)` of `expect(x).toBe(y)`: the outer call is the assertion
        inner = [c for c in descendants(call) if c.type == "call_expression"]
        code = [c for c in (call, *inner) if self._of_code(c)]
        if not code:
            return
        for owner in (call, *inner):
            for arg in arguments(owner):
                if arg in code or any(_within(arg, c) for c in code):
                    continue
                for reads, message in ((self._clocks, M.clock), (self._listings, M.listing)):
                    if reads.decide(arg):
                        yield self.file.claim(TEST_INSPECTS_ENVIRONMENT, call, message(text(arg)))
                        return

    def _of_code(self, call: ts.Node) -> bool:
        function = call.child_by_field_name("function")
        return function is not None and self._target(self.names.resolve(function)) is not None

    def _shape_of_code_under_test(self, part: ts.Node) -> bool:
        """`add.length`, `add.name`: what a function of the code under test looks like (its
        parameters, its name), which a change alters while the code stays as wrong."""
        if part.type != "member_expression":
            return False
        prop, subject = part.child_by_field_name("property"), part.child_by_field_name("object")
        if prop is None or subject is None or text(prop) not in ("length", "name"):
            return False
        return self._target(self.names.resolve(subject)) is not None

    # (d) escapes ------------------------------------------------------------------------
    def escapes(self) -> Iterator[Claim]:
        test = self.file.role == "test"
        for node in self.file.nodes(
            "member_expression", "subscript_expression", "identifier", "call_expression"
        ):
            if _chained(node):
                continue
            named = self.names.resolve(node)
            if named is None:
                continue
            if named == "process.kill" and not self._kills_itself(node):
                continue
            computed = node.type != "member_expression" or named != text(node)
            anywhere = named in _EXITS_ANYWHERE or named == "process.kill"
            if anywhere or (
                named in _EXITS_IN_TESTS and (test or (computed and node.type != "identifier"))
            ):
                if named == "process.exitCode" and not _assigned(node):
                    continue
                if named != "process.exitCode" and _moved(node):
                    continue  # saved, stubbed or put back (`const exit = process.exit`): no call
                yield self.file.claim(HARNESS_MODIFIED, node, M.ended(named))
            elif not test and _assigned(node) and (_channel(named) or _zeroed(node, named)):
                yield self.file.claim(HARNESS_MODIFIED, node, M.channel(named))
        if not test:
            yield from self._prototype_writes()
        for node, value in self._strings():
            runner = names_runner(value)
            if runner is not None:
                yield self.file.claim(
                    HARNESS_MODIFIED,
                    node,
                    M.runner(runner),
                )
        for call in self.calls:
            yield from self._printed(call)
            yield from self._written(call)
            if not test:
                yield from self._channel_defined(call)

    def _channel_defined(self, call: ts.Node) -> Iterator[Claim]:
        """`Object.defineProperty(process.stdout, "write", …)`, `Object.assign(process.stdout,
        {write})` and their kin: a channel replaced through a write of its owner."""
        callee = self._callee(call)
        if callee not in _DEFINES:
            return
        args = arguments(call)
        owner = self._owner(args[0]) if args else None
        if owner is None:
            return
        if callee.endswith("setPrototypeOf") or callee == "Object.assign":
            keys = _literal_keys(args[1], self.names) if len(args) > 1 else ["*"]
        else:
            keys = [self.names.fold(args[1]) or "*"] if len(args) > 1 else ["*"]
        named = next((f"{owner}.{k}" for k in keys if _channel(f"{owner}.{k}")), None)
        if named is not None or (keys == ["*"] and _channel(f"{owner}.prototype")):
            shown = named or owner
            yield self.file.claim(HARNESS_MODIFIED, call, M.channel(shown))

    def _owner(self, node: ts.Node) -> str | None:
        """What a write's object names, its prototype included
        (`Object.getPrototypeOf(process.stdout)` is `process.stdout.__proto__`)."""
        if node.type == "call_expression":
            callee = self._callee(node)
            inner = arguments(node)
            if callee in ("Object.getPrototypeOf", "Reflect.getPrototypeOf") and inner:
                owner = self.names.resolve(inner[0])
                return f"{owner}.__proto__" if owner else None
        return self.names.resolve(node)

    def _prototype_writes(self) -> Iterator[Claim]:
        """`Object.getPrototypeOf(process.stdout).write = …`: an assignment whose object is a
        prototype found by a call."""
        for node in self.file.nodes("assignment_expression"):
            left = node.child_by_field_name("left")
            if left is None or left.type not in ("member_expression", "subscript_expression"):
                continue
            holder = left.child_by_field_name("object")
            if holder is None or holder.type != "call_expression":
                continue
            owner = self._owner(holder)
            if owner is not None and _channel(f"{owner}.x"):
                yield self.file.claim(HARNESS_MODIFIED, node, M.channel(f"{owner}"))

    def _kills_itself(self, node: ts.Node) -> bool:
        call = node.parent
        if call is None or call.type != "call_expression":
            return False
        args = arguments(call)
        pid = self.names.resolve(args[0]) if args else None
        return pid in ("process.pid", "process.ppid") or (
            bool(args) and text(args[0]) in ("0", "-1")
        )

    def _printed(self, call: ts.Node) -> Iterator[Claim]:
        if self._callee(call) not in _OUTPUT:
            return
        for arg in arguments(call):
            value = self.names.fold(arg, holes=True)
            line = protocol_line(value) if value else None
            if line is not None:
                yield self.file.claim(
                    HARNESS_MODIFIED,
                    call,
                    M.printed(line),
                )
                return

    def _written(self, call: ts.Node) -> Iterator[Claim]:
        callee = self._callee(call) or ""
        method = callee.rsplit(".", 1)[-1]
        args = arguments(call)
        if method not in _WRITES or not args:
            return
        path = args[1] if method.startswith(("copy", "rename")) and len(args) > 1 else args[0]
        level = _Taint(self).level(path)
        if level >= (1 if self.file.role == "test" else 2):
            yield self.file.claim(
                HARNESS_MODIFIED,
                call,
                M.written(),
            )

    def _strings(self) -> Iterator[tuple[ts.Node, str]]:
        for node in self.file.nodes(
            "string", "template_string", "binary_expression", "call_expression"
        ):
            parent = node.parent
            if (
                parent is not None
                and parent.type in ("binary_expression", "template_substitution")
                and self.names.fold(parent) is not None
            ):
                continue
            value = self.names.fold(node)
            if value:
                yield node, value


class _Taint:
    """Names bound from process.argv (searched: 2) or process.env (1), followed through
    declarations and for-of loops."""

    def __init__(self, reader: _Reader) -> None:
        self.reader = reader
        self.names: dict[str, int] = {}
        bindings = []
        for node in reader.file.nodes(
            "variable_declarator", "for_in_statement", "assignment_expression"
        ):
            left = node.child_by_field_name("name") or node.child_by_field_name("left")
            right = node.child_by_field_name("value") or node.child_by_field_name("right")
            if left is not None and right is not None:
                bindings.append((left, right, node.type == "for_in_statement"))
        for _ in range(4):
            for left, right, loop in bindings:
                level = self.level(right)
                level = 2 if loop and level else level
                for name in (left, *descendants(left)):
                    if name.type in (
                        "identifier",
                        "shorthand_property_identifier_pattern",
                    ) and level > self.names.get(text(name), 0):
                        self.names[text(name)] = level

    def level(self, expr: ts.Node) -> int:
        level = 0
        for node in (expr, *descendants(expr)):
            if node.type == "identifier" and text(node) in self.names:
                level = max(level, self.names[text(node)])
            if node.type != "member_expression" or _chained(node):
                continue
            named = self.reader.names.resolve(node) or ""
            if named.startswith("process.argv"):
                level = max(level, 2 if _searched(node) else 1)
            elif named.startswith("process.env"):
                level = max(level, 1)
        return level


def _searched(node: ts.Node) -> bool:
    parent = node.parent
    if parent is not None and parent.type == "member_expression":
        return text(parent.child_by_field_name("property")) in (
            "find",
            "filter",
            "indexOf",
            "findIndex",
            "some",
            "slice",
            "findLast",
        )
    return parent is not None and parent.type == "for_in_statement"


def _chained(node: ts.Node) -> bool:
    """Part of a longer reference: `process` in `process.exit`, `process.exit` in `….bind()`."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type in ("member_expression", "subscript_expression"):
        return parent.child_by_field_name("object") == node
    return False


def _zeroed(node: ts.Node, named: str) -> bool:
    """`process.exitCode = 0` in code under test: a run that failed made to end as a pass (a
    program's own exit code is 0 unless it says otherwise)."""
    if named != "process.exitCode" or node.parent is None:
        return False
    value = node.parent.child_by_field_name("right")
    return value is not None and text(value).strip() in ("0", "undefined", "null", "false")


def _literal_keys(node: ts.Node, names: JsNames) -> list[str]:
    """The keys an object literal spells (a spread or anything else: `*`)."""
    if node.type != "object":
        return ["*"]
    keys = []
    for member in node.named_children:
        key = member.child_by_field_name("key") or member.child_by_field_name("name") or member
        if member.type == "spread_element":
            keys.append("*")
        elif key.type == "computed_property_name":
            folded = names.fold(key.named_children[0]) if key.named_children else None
            keys.append(folded or "*")
        else:
            keys.append(text(key).strip("'\"`"))
    return keys


def _moved(node: ts.Node) -> bool:
    """A function value only moved: assigned to (a stub), or the whole value of an assignment or
    a declaration (kept aside, put back). Where the name it went to is called, that call is one
    of the function's (the names resolve)."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "assignment_expression":
        return node in (parent.child_by_field_name("left"), parent.child_by_field_name("right"))
    return parent.type == "variable_declarator" and node in (
        parent.child_by_field_name("value"),
        parent.child_by_field_name("name"),
    )


def _assigned(node: ts.Node) -> bool:
    parent = node.parent
    return (
        parent is not None
        and parent.type in ("assignment_expression", "augmented_assignment_expression")
        and parent.child_by_field_name("left") == node
    )


def _typeof(node: ts.Node) -> bool:
    """`typeof err.stack`: whether there is a stack, not what it says."""
    parent = node.parent
    return (
        parent is not None
        and parent.type == "unary_expression"
        and text(parent).startswith("typeof")
    )


def _within(node: ts.Node, outer: ts.Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def _decides(node: ts.Node, names: JsNames) -> bool:
    """A conditional value, or a condition guarding an expectation or an assignment (one that
    only puts the environment back, `process.env.X = old`, chooses nothing)."""
    if node.type == "ternary_expression":
        return True
    body = [
        n
        for field in ("consequence", "alternative", "body")
        if (b := node.child_by_field_name(field))
        for n in descendants(b)
    ]
    return any(
        n.type == "return_statement"
        or (
            n.type == "assignment_expression"
            and not (names.resolve(n.child_by_field_name("left")) or "").startswith("process.env")
        )
        or (
            n.type == "call_expression"
            and text(n.child_by_field_name("function")).split(".")[0].split("(")[0]
            in ("expect", "assert")
        )
        for n in body
    )


def _object_keys(node: ts.Node) -> list[str]:
    if node.type != "object":
        return []
    keys = []
    for pair in node.named_children:
        key = pair.child_by_field_name("key") if pair.type == "pair" else pair
        if key is not None:
            keys.append(text(key).strip("'\"`"))
    return keys
