"""Go code read with tree-sitter.

Ends the run: `os.Exit` (in test code, but for TestMain's `os.Exit(m.Run())`; in the code under
test, outside package main), `syscall.Exit`/`unix.Exit`, a kill of its own process, raw exit
syscalls, whatever the import is named (`sc "syscall"`, a dot import) and whether called or only
referenced (`f := os.Exit`). Forges the report: `--- PASS:`, `=== RUN`, `ok  \t…`, `PASS` printed.
Replaces the code under test: assignment to a package-level name the change wrote, gomonkey and
monkey patches. Inspects: `.git`, `/proc`, source files read, the environment deciding a branch.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from functools import cached_property

import tree_sitter as ts

from referee.tools.claims import messages as M
from referee.tools.claims.clocks import go_clock, go_listing
from referee.tools.claims.equality import comparator_literals, ts_equalities
from referee.tools.claims.gosituation import go_asking
from referee.tools.claims.model import (
    CODE_UNDER_TEST_PATCHED,
    HARNESS_MODIFIED,
    TEST_INSPECTS_ENVIRONMENT,
    Claim,
    Module,
    Role,
    Scope,
)
from referee.tools.claims.patterns import (
    C_ENDS,
    names_runner,
    names_source,
    protocol_line,
    reveals_environment,
)
from referee.tools.claims.pyscope import Target
from referee.tools.claims.stacks import Stacks, stack_reads
from referee.tools.claims.tsfile import TsFile, open_file, unquote
from referee.tools.claims.tssituation import asked
from referee.tools.tampering.syntax import descendants, text

__all__ = ["go_claims"]

_UNIX = "golang.org/x/sys/unix"
_HARD = frozenset({("syscall", "Exit"), (_UNIX, "Exit"), ("runtime", "Goexit")})
_KILLS = frozenset(
    {("syscall", "Kill"), (_UNIX, "Kill"), (_UNIX, "Tgkill"), ("syscall", "Tgkill")}
    | {("os", "FindProcess")}  # a handle on itself, to Signal or Kill
)
_SELF = frozenset({"Getpid", "Getppid", "Gettid"})
_EXIT_SYSCALLS = ("SYS_EXIT", "SYS_EXIT_GROUP", "SYS_KILL", "SYS_TGKILL", "SYS_TKILL")
_OUTPUT = frozenset(
    {"Print", "Println", "Printf", "Fprint", "Fprintln", "Fprintf", "WriteString", "Write"}
)
_READS = frozenset(
    {("os", "ReadFile"), ("io/ioutil", "ReadFile"), ("os", "Open"), ("os", "OpenFile")}
)
_PATCHERS = frozenset(
    {
        "ApplyFunc",
        "ApplyMethod",
        "ApplyGlobalVar",
        "ApplyFuncVar",
        "ApplyMethodFunc",
        "Patch",
        "PatchInstanceMethod",
    }
)
_SURROUNDINGS = frozenset(
    {
        "Getenv",
        "LookupEnv",
        "Environ",
        "Args",
        "Getwd",
        "Getppid",
        "Executable",
        "Hostname",
        "Caller",
    }
)


# What tells a test where the code it calls lies (a function's file and line, a stack): a change
# moves it. `runtime.Caller` is not among them: in a test it tells the test's own place (its
# testdata folder, a helper that decorates messages as testing.T does).
_STACKS = frozenset(
    {
        ("runtime", "FuncForPC"),
        ("runtime", "Callers"),
        ("runtime", "CallersFrames"),
        ("runtime", "Stack"),
        ("runtime/debug", "Stack"),
        ("runtime/debug", "PrintStack"),
    }
)


def go_claims(path: str, source: str, scope: Scope, role: Role) -> list[Claim] | None:
    file = open_file("go", path, source, scope, role)
    if file is None:
        return None
    reader = _Go(file)
    # A program's `func main` never runs under `go test`: what it asks of argv is its own.
    in_main = (lambda n: _in_func(n, "main")) if reader.package == "main" else None
    found = [*reader.escapes(), *asked(file, go_asking(file, reader._ref), skip=in_main)]
    if role == "test":
        found += [*reader.replacements(), *reader.inspections()]
    else:
        found += [*ts_equalities(file, "go"), *comparator_literals(file, "go")]
    return found


class _Go:
    def __init__(self, file: TsFile) -> None:
        self.file = file
        self.imports: dict[str, str] = {}
        self.dots: list[str] = []
        for spec in file.nodes("import_spec"):
            literal = spec.child_by_field_name("path")
            path = (unquote(literal) if literal is not None else None) or ""
            name = spec.child_by_field_name("name")
            local = text(name) if name is not None else _last(path)
            if local == ".":
                self.dots.append(path)
            else:
                self.imports[local] = path
        self.functions = {
            text(n.child_by_field_name("name"))
            for n in file.root.named_children
            if n.type == "function_declaration"
        }
        package = next(file.nodes("package_identifier"), None)
        self.package = text(package) if package is not None else ""

    @cached_property
    def _stacks(self) -> Stacks:
        """The file's stack reads (`runtime.FuncForPC`, `runtime.Caller` …) and the names
        bound from them (stacks.py)."""
        reads = [n for n in self.file.nodes("selector_expression") if self._ref(n) in _STACKS]
        return stack_reads(self.file.root, "go", reads)

    @cached_property
    def _clocks(self) -> Stacks:
        """The file's clock reads (clocks.py) and the names bound from them."""
        reads = [n for n in self.file.nodes("selector_expression") if go_clock(self._ref(n), n)]
        return stack_reads(self.file.root, "go", reads)

    @cached_property
    def _listings(self) -> Stacks:
        """The file's listings of the package's folder (clocks.py) and the names bound from
        them."""
        reads = [n for n in self.file.nodes("selector_expression") if go_listing(self._ref(n), n)]
        return stack_reads(self.file.root, "go", reads)

    def _ref(self, node: ts.Node) -> tuple[str, str] | None:
        """(import path, name) of `pkg.Name`, or of `Name` dot-imported; None otherwise."""
        if node.type == "selector_expression":
            operand = node.child_by_field_name("operand")
            if (
                operand is not None
                and operand.type == "identifier"
                and text(operand) in self.imports
            ):
                return self.imports[text(operand)], text(node.child_by_field_name("field"))
        if node.type == "identifier" and self.dots:
            for path in self.dots:
                if path in ("os", "syscall", _UNIX):
                    return path, text(node)
        return None

    # (d) ----------------------------------------------------------------------------------
    def escapes(self) -> Iterator[Claim]:
        test = self.file.role == "test"
        for node in self.file.nodes("selector_expression", "identifier"):
            ref = self._ref(node)
            if ref is None:
                continue
            if (
                ref in _HARD
                or (ref[0] == "C" and ref[1] in C_ENDS)
                or (ref in _KILLS and self._kills_itself(node))
                or self._raw_exit(node, ref)
            ):
                yield self._ended(node, f"{_last(ref[0])}.{ref[1]}")
            elif ref == ("os", "Exit") and (
                (test and not self._test_main_exit(node))
                or (not test and self.package != "main" and not self._fails(node))
            ):
                yield self._ended(node, "os.Exit")
            elif ref in (("syscall", "Exec"), (_UNIX, "Exec")) and test:
                yield self._ended(node, f"{_last(ref[0])}.Exec")
        for comment in self.file.nodes("comment"):
            yield from self._directive(comment)
        for call in self.file.nodes("call_expression"):
            yield from self._printed(call)
        for literal in self.file.nodes("interpreted_string_literal", "raw_string_literal"):
            runner = names_runner(unquote(literal) or "")
            if runner is not None:
                yield self.file.claim(
                    HARNESS_MODIFIED,
                    literal,
                    M.runner(runner),
                )

    def _directive(self, comment: ts.Node) -> Iterator[Claim]:
        """What a comment makes code of: `//go:linkname f runtime.exit` (a runtime function
        under a name of the file's own), and cgo's preamble, the C before `import "C"`, calling
        the C library's exits."""
        said = text(comment)
        linked = _LINKNAME.search(said)
        if linked is not None:
            yield self._ended(comment, linked.group(1))
            return
        after = comment.next_named_sibling
        if after is not None and after.type == "import_declaration" and '"C"' in text(after):
            called = re.search(rf"\b({'|'.join(sorted(C_ENDS))})\s*\(", said)
            if called is not None:
                yield self._ended(comment, f"C's {called.group(1)} (cgo preamble)")

    def _ended(self, node: ts.Node, named: str) -> Claim:
        return self.file.claim(HARNESS_MODIFIED, node, M.ended(named))

    def _kills_itself(self, node: ts.Node) -> bool:
        args = _args(node.parent)
        return (
            bool(args)
            and (
                text(args[0]) in ("0", "-1") or any(text(n) in _SELF for n in descendants(args[0]))
            )
            and not self._notified(text(args[-1]))
        )

    def _notified(self, sent: str) -> bool:
        """A signal the file asks to be told of (`signal.Notify(c, syscall.SIGUSR1)`): sending it
        to itself ends nothing (SIGKILL and SIGSTOP cannot be caught)."""
        if "SIGKILL" in sent or "SIGSTOP" in sent:
            return False
        for call in self.file.nodes("call_expression"):
            function = call.child_by_field_name("function")
            named = self._ref(function) if function is not None else None
            if named in (("os/signal", "Notify"), ("os/signal", "Ignore")):
                if any(text(a) == sent for a in _args(call)[1:]):
                    return True
        return False

    def _raw_exit(self, node: ts.Node, ref: tuple[str, str]) -> bool:
        """A raw system call (`Syscall`, `RawSyscall6`, `RawSyscallNoError` …) that exits or
        signals, or whose number says nothing: `231`, a constant of the file's holding it, an
        expression. Only a trap named by the package (`syscall.SYS_GETPID`) says what it does."""
        if ref[0] not in ("syscall", _UNIX) or not ref[1].startswith(("Syscall", "RawSyscall")):
            return False
        args = _args(node.parent)
        if not args:
            return False
        trap = args[0]
        named = self._ref(trap) if trap.type == "selector_expression" else None
        if named is None or not named[1].startswith("SYS_"):
            return True
        return named[1].endswith(_EXIT_SYSCALLS)

    def _function(self, value: ts.Node) -> bool:
        """A function value: a literal, a function of this file, or one of an imported package."""
        if value.type == "func_literal":
            return True
        if value.type == "identifier":
            return text(value) in self.functions
        operand = (
            value.child_by_field_name("operand") if value.type == "selector_expression" else None
        )
        return operand is not None and text(operand) in self.imports

    def _fails(self, node: ts.Node) -> bool:
        """`os.Exit(1)` in a library (cobra's CheckErr): a failing exit forges no pass."""
        args = _args(node.parent)
        return len(args) == 1 and args[0].type == "int_literal" and text(args[0]) != "0"

    def _test_main_exit(self, node: ts.Node) -> bool:
        """`os.Exit(m.Run())` in TestMain: the runner's own exit, the idiom of every TestMain."""
        function = node.parent
        while function is not None and function.type != "function_declaration":
            function = function.parent
        if function is None or text(function.child_by_field_name("name")) != "TestMain":
            return False
        args = _args(node.parent)
        runs = [
            n
            for n in descendants(function, frozenset({"call_expression"}))
            if text(n.child_by_field_name("function")).endswith(".Run")
        ]
        if not args or not runs:
            return False
        argument = text(args[0])
        return ".Run()" in argument or any(argument in _bound_to(r) for r in runs)

    def _printed(self, call: ts.Node) -> Iterator[Claim]:
        function = call.child_by_field_name("function")
        if function is None or (self.package == "main" and _in_func(call, "main")):
            return  # a program's `func main` never runs under `go test`: its output is its own
        name = (
            text(function.child_by_field_name("field"))
            if function.type == "selector_expression"
            else text(function)
        )
        if name not in _OUTPUT and name not in ("print", "println"):
            return
        arguments = call.child_by_field_name("arguments")
        built = [_template(a) for a in (arguments.named_children if arguments else [])]
        for piece in [*built, *map(unquote, descendants(call, _GO_STRINGS))]:
            line = protocol_line(piece or "")
            if line is not None:
                yield self.file.claim(
                    HARNESS_MODIFIED,
                    call,
                    M.printed(line),
                )
                return

    # (b) ----------------------------------------------------------------------------------
    def replacements(self) -> Iterator[Claim]:
        called = [
            t
            for c in self.file.nodes("call_expression")
            if (t := self._target(c.child_by_field_name("function"))) is not None
        ]
        for node in self.file.nodes("assignment_statement"):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if right is None or not any(self._function(v) for v in right.named_children):
                continue  # a setting set or restored (`EnablePrefixMatching = ov`), not code
            for target in left.named_children if left is not None else []:
                yield from self._replaced(node, self._target(target), called)
        for call in self.file.nodes("call_expression"):
            function = call.child_by_field_name("function")
            if (
                function is not None
                and function.type == "selector_expression"
                and text(function.child_by_field_name("field")) in _PATCHERS
            ):
                args = _args(call)
                patched = self._target(args[0]) if args else None
                if patched is None and len(args) >= 2:
                    patched = self._method_target(args[1])
                yield from self._replaced(call, patched, called)

    def _target(self, node: ts.Node | None) -> Target | None:
        if node is None:
            return None
        if node.type == "selector_expression":
            operand = node.child_by_field_name("operand")
            name = text(node.child_by_field_name("field"))
            if (
                operand is not None
                and operand.type == "identifier"
                and text(operand) in self.imports
            ):
                module = self._package(self.imports[text(operand)])
                return Target(module, (name,)) if module else None
            return None
        if node.type == "identifier":
            module = self._same_package(text(node))
            return Target(module, (text(node),)) if module else None
        return None

    def _method_target(self, node: ts.Node) -> Target | None:
        name = unquote(node)
        if not name:
            return None
        for module in self._go_modules():
            if name in module.names or any(n.endswith("." + name) for n in module.names):
                return Target(module, (name,))
        return None

    def _package(self, import_path: str) -> Module | None:
        return next(
            (
                m
                for m in self._go_modules()
                if (d := posixpath.dirname(m.path))
                and (import_path == d or import_path.endswith("/" + d))
            ),
            None,
        )

    def _same_package(self, name: str) -> Module | None:
        here = posixpath.dirname(self.file.path)
        return next(
            (
                m
                for m in self._go_modules()
                if posixpath.dirname(m.path) == here and name in m.names
            ),
            None,
        )

    def _go_modules(self) -> list[Module]:
        return [m for m in self.file.scope.modules if m.path.endswith(".go")]

    def _replaced(
        self, node: ts.Node, target: Target | None, called: list[Target]
    ) -> Iterator[Claim]:
        if target is None:
            return
        if (
            target.written()
            and target.rest
            and any(
                target.rest[0] == n or n.endswith("." + target.rest[0]) for n in target.module.names
            )
        ):
            yield self.file.claim(
                CODE_UNDER_TEST_PATCHED,
                node,
                M.patched_written(f"`{target}`", target.module.path),
            )
        elif any(target.covers(c) for c in called) and node.type == "call_expression":
            yield self.file.claim(
                CODE_UNDER_TEST_PATCHED,
                node,
                M.patched_called(f"`{target}`", target.module.path),
            )

    # (c) ----------------------------------------------------------------------------------
    def inspections(self) -> Iterator[Claim]:
        for literal in self.file.nodes("interpreted_string_literal", "raw_string_literal"):
            value = unquote(literal) or ""
            where = reveals_environment(value)
            if where is not None:
                yield self.file.claim(TEST_INSPECTS_ENVIRONMENT, literal, M.looks_at(where))
        for call in self.file.nodes("call_expression"):
            function = call.child_by_field_name("function")
            ref = self._ref(function) if function is not None else None
            if ref in _READS:
                for literal in descendants(
                    call, frozenset({"interpreted_string_literal", "raw_string_literal"})
                ):
                    module = names_source(unquote(literal) or "", self.file.scope, self.file.path)
                    if module is not None:
                        yield self.file.claim(
                            TEST_INSPECTS_ENVIRONMENT,
                            call,
                            M.reads(module.path),
                        )
                        break
        for node in self.file.nodes(
            "if_statement", "switch_statement", "expression_switch_statement"
        ):
            condition = node.child_by_field_name("condition") or node.child_by_field_name("value")
            if condition is None or not _chooses(node):
                continue
            if self._stacks.decide(condition):
                yield self.file.claim(
                    TEST_INSPECTS_ENVIRONMENT, condition, M.stack(text(condition))
                )
                continue
            if self._clocks.decide(condition):
                yield self.file.claim(
                    TEST_INSPECTS_ENVIRONMENT, condition, M.clock(text(condition))
                )
                continue
            if self._listings.decide(condition):
                yield self.file.claim(
                    TEST_INSPECTS_ENVIRONMENT, condition, M.listing(text(condition))
                )
                continue
            for part in (condition, *descendants(condition)):
                ref = self._ref(part) if part.type == "selector_expression" else None
                if ref is not None and ref[0] in ("os", "runtime") and ref[1] in _SURROUNDINGS:
                    yield self.file.claim(
                        TEST_INSPECTS_ENVIRONMENT,
                        condition,
                        M.decides(f"{_last(ref[0])}.{ref[1]}"),
                    )
                    break
        for node in self.file.nodes("selector_expression"):
            ref = self._ref(node)
            if ref in (("os", "Getppid"), ("syscall", "Getppid")):
                yield self.file.claim(TEST_INSPECTS_ENVIRONMENT, node, M.process_tree())


def _chooses(node: ts.Node) -> bool:
    """A branch that sets a value (the expectation); one that only reports (`t.Errorf`) is the
    test's assertion on a value it set itself (`os.Args` in a CLI test)."""
    kinds = ("assignment_statement", "short_var_declaration", "return_statement")
    return any(True for _ in descendants(node, frozenset(kinds)))


def _args(call: ts.Node | None) -> list[ts.Node]:
    if call is None or call.type != "call_expression":
        return []
    args = call.child_by_field_name("arguments")
    return list(args.named_children) if args is not None else []


# `//go:linkname local runtime.exit`: a runtime or syscall function that ends the process.
_LINKNAME = re.compile(
    r"//go:linkname\s+\w+\s+((?:runtime|syscall|os|internal/\S+)\.\w*(?:[eE]xit|abort|raise|[kK]ill)\w*)"
)
_GO_STRINGS = frozenset({"interpreted_string_literal", "raw_string_literal"})


def _in_func(node: ts.Node, name: str) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "function_declaration":
            return text(parent.child_by_field_name("name")) == name
        parent = parent.parent
    return False


def _template(node: ts.Node) -> str | None:
    """What a `+` of strings prints, a placeholder for each part no literal gives
    (`strings.Repeat("-", 3) + " PASS: TestAdd"` is `%v PASS: TestAdd`)."""
    if node.type in _GO_STRINGS:
        return (unquote(node) or "").replace("%", "%%")
    if node.type == "binary_expression" and text(node.child_by_field_name("operator")) == "+":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        parts = [_template(n) if n is not None else None for n in (left, right)]
        return None if None in parts else "".join(p or "" for p in parts)
    return "%v"


def _last(path: str) -> str:
    parts = [p for p in path.split("/") if p]
    if len(parts) > 1 and parts[-1].startswith("v") and parts[-1][1:].isdigit():
        return parts[-2]
    return parts[-1] if parts else path


_BINDINGS = frozenset({"short_var_declaration", "assignment_statement", "var_spec"})


def _bound_to(call: ts.Node) -> list[str]:
    """The names a call's result is bound to (`code := m.Run()`, `code = m.Run()`,
    `var code = m.Run()`); none when it is not bound."""
    node = call.parent
    while node is not None and node.type not in _BINDINGS:
        if node.type in ("block", "function_declaration", "func_literal"):
            return []
        node = node.parent
    if node is None:
        return []
    left = node.child_by_field_name("left") or node.child_by_field_name("name")
    names = descendants(left, frozenset({"identifier"})) if left is not None else []
    return [text(n) for n in names] + ([text(left)] if left is not None else [])
