"""Rust code read with tree-sitter.

Test code is a file under `tests/` or `benches/`, a `#[cfg(test)]` module or a `#[test]`
function. Paths are resolved through `use` (`use std::process::{self, exit as quit}` makes
`quit` `std::process::exit`). Ends the run: `process::exit` (in the code under test, outside
`main.rs`, `src/bin/` and `fn main`), `process::abort`, `libc::exit`/`_exit`/`abort`/`raise`, a
kill of its own process, the exit intrinsics. Forges the report: libtest's `test … ok`, `test
result: ok`, `running N tests` printed. Inspects: `.git`, `/proc`, a source file read or included.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import tree_sitter as ts

from referee.tools.claims import messages as M
from referee.tools.claims.clocks import rust_chooses, rust_clock, rust_listing
from referee.tools.claims.equality import ts_equalities
from referee.tools.claims.model import (
    HARNESS_MODIFIED,
    TEST_INSPECTS_ENVIRONMENT,
    Claim,
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
from referee.tools.claims.rustsituation import cfg_claims, rust_asking
from referee.tools.claims.stacks import stack_reads
from referee.tools.claims.tsfile import TsFile, open_file, unquote
from referee.tools.claims.tssituation import asked
from referee.tools.tampering.syntax import descendants, line, text

__all__ = ["rust_claims"]

_HARD = frozenset(
    {"std::process::abort", "libc::exit", "libc::_exit", "libc::abort", "libc::raise"}
    | {f"nix::unistd::{name}" for name in ("_exit", "execv", "execve", "execvp", "fexecve")}
    | {
        "std::intrinsics::abort",
        "core::intrinsics::abort",
        "nix::sys::signal::raise",
        "libc::syscall",
    }
)
_KILLS = frozenset(
    {"libc::kill", "libc::pthread_kill", "libc::tgkill"}
    | {"nix::sys::signal::kill", "nix::sys::signal::killpg"}
)
# Paths that end the process, as a macro body's tokens spell them (`std :: process :: exit`).
_ENDING_PATH = re.compile(
    r"\b(?:(?:std|core)\s*::\s*(?:process\s*::\s*(?:exit|abort)|intrinsics\s*::\s*abort)"
    r"|libc\s*::\s*(?:" + "|".join(sorted(C_ENDS)) + r"))\b"
)
_EXIT = "std::process::exit"
_PRINTERS = frozenset({"println", "print", "eprintln", "eprint", "write", "writeln", "format_args"})
_READERS = frozenset({"include_str", "include_bytes", "read_to_string", "read", "open"})
_STRINGS = frozenset({"string_literal", "raw_string_literal"})


def _in_use(node: ts.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "use_declaration":
            return True
        if parent.type.endswith(("_item", "block")):
            return False
        parent = parent.parent
    return False


def _unescaped(name: str) -> str:
    """A string literal's text with Rust's escapes read (`\\x5fexit` is `_exit`)."""
    try:
        return name.encode("latin-1", "replace").decode("unicode_escape")
    except UnicodeDecodeError:
        return name


def rust_claims(path: str, source: str, scope: Scope, role: Role) -> list[Claim] | None:
    file = open_file("rust", path, source, scope, role)
    if file is None:
        return None
    reader = _Rust(file)
    return [
        *reader.claims(),
        *reader.stack_conditions(),
        *asked(file, rust_asking(file, reader.resolve), skip=reader._never_tested),
        *cfg_claims(file, reader._test),
        *ts_equalities(file, "rust", reader._test),
        *_macro_equalities(file, reader),
    ]


def _impls_for_the_argument(expanded: TsFile) -> set[int]:
    """The lines of impls for the type a macro is given (`impl PartialEq for $name`): a family
    of marker types stamped out alike (syn's keywords and punctuation, equal by kind whatever
    their span), read like a unit struct compared with itself: not at all. An impl for a named
    type (`impl PartialEq<$t> for Sum`) is read."""
    lines: set[int] = set()
    for impl in expanded.nodes("impl_item"):
        if text(impl.child_by_field_name("type")) == _ARGUMENT:
            lines.update(range(line(impl), impl.end_point[0] + 2))
    return lines


# A macro's metavariables (`$t`, `$name`) and repetition marks (`$(`, `)*`, `),+`).
_METAVARIABLE = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*")
_ARGUMENT = "MacroArg"
_REPETITION = re.compile(r"\$\(|\)\s*[^\s)]?\s*[*+?]")


def _macro_equalities(file: TsFile, reader: _Rust) -> Iterator[Claim]:
    """The comparisons a `macro_rules!` writes: each rule's expansion read as the items it
    expands to (metavariables as a type name), so an `impl PartialEq` a macro stamps out is read
    like one written out."""
    for rule in file.nodes("macro_rule"):
        if reader._test(rule):
            continue
        body = rule.child_by_field_name("right")
        if body is None or body.type != "token_tree":
            continue
        source = _REPETITION.sub(" ", _METAVARIABLE.sub(_ARGUMENT, text(body)[1:-1]))
        expanded = open_file("rust", file.path, source, file.scope, file.role)
        if expanded is None:
            continue
        offset = line(body) - 1
        given = _impls_for_the_argument(expanded)
        for claim in ts_equalities(expanded, "rust"):
            if claim.line in given:
                continue
            at = claim.line + offset
            message = claim.message.split(" ", 1)[1]
            yield Claim(claim.kind, at, f"{file.path}:{at} {message} (in a macro)", claim.key)


class _Rust:
    def __init__(self, file: TsFile) -> None:
        self.file = file
        self.uses: dict[str, str] = {}
        for node in file.nodes("use_declaration"):
            argument = node.child_by_field_name("argument")
            if argument is not None:
                self._use(argument, "")
        self.whole_test = (
            file.role == "test"
            or file.path.startswith(("tests/", "benches/"))
            or "/tests/" in file.path
        )
        self.entry = file.path.endswith(("main.rs", "build.rs")) or "/bin/" in file.path

    def _use(self, node: ts.Node, prefix: str) -> None:
        def join(part: str) -> str:
            return f"{prefix}::{part}" if prefix else part

        kind = node.type
        if kind in ("scoped_identifier", "identifier"):
            full = join(text(node))
            self.uses[full.rsplit("::", 1)[-1]] = full
        elif kind == "use_as_clause":
            self.uses[text(node.child_by_field_name("alias"))] = join(
                text(node.child_by_field_name("path"))
            )
        elif kind == "scoped_use_list":
            path = node.child_by_field_name("path")
            inner = join(text(path)) if path is not None else prefix
            listed = node.child_by_field_name("list")
            for child in listed.named_children if listed is not None else []:
                if child.type == "self":
                    self.uses[inner.rsplit("::", 1)[-1]] = inner
                else:
                    self._use(child, inner)
        elif kind == "use_list":
            for child in node.named_children:
                self._use(child, prefix)

    def resolve(self, node: ts.Node) -> str:
        parts = text(node).replace(" ", "").split("::")
        first = parts[0].removeprefix("::")
        if first in self.uses:
            parts = [*self.uses[first].split("::"), *parts[1:]]
        return "::".join(parts).removeprefix("::")

    def _test(self, node: ts.Node) -> bool:
        if self.whole_test:
            return True
        parent = node.parent
        while parent is not None:
            if parent.type in ("mod_item", "function_item") and _attributed(parent):
                return True
            parent = parent.parent
        return False

    def _named_call(self, node: ts.Node) -> bool:
        """`libc::syscall(libc::SYS_pivot_root, …)`: a system call the crate names, not one that
        ends or signals the process."""
        call = node.parent
        args = call.child_by_field_name("arguments") if call is not None else None
        first = args.named_children[0] if args is not None and args.named_children else None
        number = text(first).rsplit("::", 1)[-1] if first is not None else ""
        return number.startswith("SYS_") and not re.search(r"exit|kill", number)

    def _in_main(self, node: ts.Node) -> bool:
        parent = node.parent
        while parent is not None:
            if (
                parent.type == "function_item"
                and text(parent.child_by_field_name("name")) == "main"
            ):
                return True
            parent = parent.parent
        return False

    def claims(self) -> Iterator[Claim]:
        for node in self.file.nodes("scoped_identifier", "identifier"):
            if node.parent is not None and node.parent.type == "scoped_identifier":
                continue  # part of a longer path
            if _in_use(node):
                continue  # an import names the function; its calls are read where they are made
            named = self.resolve(node)
            if named in _KILLS and not self._kills_itself(node):
                continue
            if named == "libc::syscall" and self._named_call(node):
                continue
            test = self._test(node)
            exits = named == _EXIT and (test or not (self.entry or self._in_main(node)))
            libc = (
                (named or "").startswith("libc::") and named[6:] in C_ENDS and named not in _KILLS
            )
            if (named in _HARD or exits or libc) and _in_forked_child(node):
                continue  # the child of a fork ends itself, not the runner's process
            if named in _HARD or named in _KILLS or exits or libc:
                yield self.file.claim(HARNESS_MODIFIED, node, M.ended(named))
        yield from self._foreign_ends()
        for body in self.file.nodes("macro_definition"):
            found = _ENDING_PATH.search(text(body))
            if found is not None:
                named = re.sub(r"\s+", "", found.group(0))
                yield self.file.claim(HARNESS_MODIFIED, body, M.ended(f"{named} (in a macro)"))
        for macro in self.file.nodes("macro_invocation"):
            yield from self._macro(macro)
        for literal in self.file.nodes(*_STRINGS):
            value = unquote(literal) or ""
            runner = names_runner(value)
            if runner is not None:
                yield self.file.claim(
                    HARNESS_MODIFIED,
                    literal,
                    M.runner(runner),
                )
            where = reveals_environment(value) if self._test(literal) else None
            if where is not None:
                yield self.file.claim(TEST_INSPECTS_ENVIRONMENT, literal, M.looks_at(where))
        for call in self.file.nodes("call_expression"):
            yield from self._call(call)

    def stack_conditions(self) -> Iterator[Claim]:
        """A condition of test code that depends on where code lies (a panic's location, a
        backtrace: stacks.py) or on the clock (clocks.py)."""
        calls = list(self.file.nodes("call_expression"))
        reads = [
            call
            for call in calls
            if (function := call.child_by_field_name("function")) is not None
            and _reads_stack(function, text(function).rsplit("::", 1)[-1].rsplit(".", 1)[-1])
        ]
        clocked = [call for call in calls if rust_clock(call)]
        listed = [call for call in calls if rust_listing(call)]
        if not reads and not clocked and not listed:
            return
        stacks = stack_reads(self.file.root, "rust", reads)
        clocks = stack_reads(self.file.root, "rust", clocked)
        listings = stack_reads(self.file.root, "rust", listed)
        for node in self.file.nodes("if_expression", "match_expression"):
            condition = node.child_by_field_name("condition") or node.child_by_field_name("value")
            if condition is None or not self._test(node):
                continue
            if stacks.decide(condition):
                message = M.stack(text(condition))
            elif rust_chooses(node) and clocks.decide(condition):
                message = M.clock(text(condition))
            elif rust_chooses(node) and listings.decide(condition):
                message = M.listing(text(condition))
            else:
                continue
            yield self.file.claim(TEST_INSPECTS_ENVIRONMENT, condition, message)

    def _foreign_ends(self) -> Iterator[Claim]:
        """A C function the file declares itself (`extern "C" { fn exit(code: i32) -> !; }`, or
        any name with `#[link_name = "_exit"]`): the C library's exit, bound without libc."""
        for block in self.file.nodes("foreign_mod_item"):
            linked: str | None = None
            for item in descendants(
                block, frozenset({"attribute_item", "function_signature_item"})
            ):
                if item.type == "attribute_item":
                    found = re.search(r'link_name\s*=\s*"([^"]+)"', text(item))
                    linked = _unescaped(found.group(1)) if found else linked
                    continue
                name = linked or text(item.child_by_field_name("name"))
                linked = None
                if name in C_ENDS:
                    yield self.file.claim(HARNESS_MODIFIED, item, M.ended(f"C's {name}"))

    def _never_tested(self, node: ts.Node) -> bool:
        """Test code, or a program's `fn main`, which `cargo test` never runs."""
        return self._test(node) or (self.entry and self._in_main(node))

    def _kills_itself(self, node: ts.Node) -> bool:
        call = node.parent
        args = call.child_by_field_name("arguments") if call is not None else None
        first = args.named_children[0] if args is not None and args.named_children else None
        return first is not None and (
            "getpid" in text(first)
            or "Pid::this" in text(first)
            or "pthread_self" in text(first)
            or text(first) == "0"
        )

    def _macro(self, macro: ts.Node) -> Iterator[Claim]:
        name = text(macro.child_by_field_name("macro")).rsplit("::", 1)[-1]
        literals = [n for n in descendants(macro, _STRINGS)]
        first = unquote(literals[0]) if literals else None
        if name in ("asm", "global_asm") and re.search(r"\bsyscall\b|\bint\s+0x80\b", text(macro)):
            # A system call made by hand: whatever its number, no reader can say it does not
            # end the process.
            yield self.file.claim(HARNESS_MODIFIED, macro, M.ended("a system call in asm!"))
        # A program's `fn main` never runs under `cargo test`: what it prints is its own output.
        if name in _PRINTERS and first is not None and not (self.entry and self._in_main(macro)):
            # `concat!` inside: the pieces are one literal line.
            whole = "".join(unquote(n) or "" for n in literals) if "concat!" in text(macro) else ""
            line = protocol_line(first) or (protocol_line(whole) if whole else None)
            if line is not None:
                yield self.file.claim(
                    HARNESS_MODIFIED,
                    macro,
                    M.printed(line),
                )
        if name in _READERS and first is not None and self._test(macro):
            yield from self._read(macro, first)

    def _call(self, call: ts.Node) -> Iterator[Claim]:
        function = call.child_by_field_name("function")
        if function is None:
            return
        name = text(function).rsplit("::", 1)[-1].rsplit(".", 1)[-1]
        literals = list(descendants(call, _STRINGS))
        if name == "exec" and "Command" in text(call):
            # CommandExt::exec: the test binary becomes another program, which exits as it likes.
            yield self.file.claim(HARNESS_MODIFIED, call, M.ended("CommandExt::exec"))
        if name in ("dlsym", "dlvsym") and any(
            (unquote(s) or "").rstrip("\\0").rstrip("\x00") in C_ENDS for s in literals
        ):
            yield self.file.claim(HARNESS_MODIFIED, call, M.ended("the C library's exit by dlsym"))
        if name in ("write_all", "write") and literals:
            line = protocol_line(unquote(literals[0]) or "")
            if line is not None:
                yield self.file.claim(
                    HARNESS_MODIFIED,
                    call,
                    M.printed(line),
                )
        elif name in _READERS and literals and self._test(call):
            yield from self._read(call, unquote(literals[0]) or "")

    def _read(self, node: ts.Node, path: str) -> Iterator[Claim]:
        module = names_source(path, self.file.scope, self.file.path)
        if module is not None:
            yield self.file.claim(
                TEST_INSPECTS_ENVIRONMENT,
                node,
                M.reads(module.path),
            )


def _reads_stack(function: ts.Node, name: str) -> bool:
    """Where code lies: `Location::caller()`, a `Backtrace`, or a panic's `.location()` in a
    panic hook (the file and line of the code under test that panicked)."""
    called = text(function)
    if (name == "caller" and "Location" in called) or (
        name in ("capture", "force_capture") and "Backtrace" in called
    ):
        return True
    if name != "location" or function.type != "field_expression":
        return False
    parent = function.parent
    while parent is not None:
        if parent.type == "call_expression":
            outer = parent.child_by_field_name("function")
            if outer is not None and text(outer).endswith("set_hook"):
                return True
        parent = parent.parent
    return False


def _in_forked_child(node: ts.Node) -> bool:
    """In the child's branch of a fork: the arm `ForkResult::Child` of a match on `fork()`, or
    `if pid == 0` where `pid` was bound from `fork()`. A child must end without unwinding into the
    test runner's code it inherited (`libc::_exit`), and its end is not the runner's."""
    child = node
    parent = node.parent
    while parent is not None:
        if parent.type == "match_arm":
            pattern = parent.child_by_field_name("pattern")
            match = _enclosing(parent, "match_expression")
            value = match.child_by_field_name("value") if match is not None else None
            if pattern is not None and re.search(r"\bChild\b", text(pattern)) and value:
                return "fork" in text(value)
        if parent.type == "if_expression" and child == parent.child_by_field_name("consequence"):
            condition = text(parent.child_by_field_name("condition"))
            found = re.fullmatch(r"\s*(\w+)\s*==\s*0\s*", condition)
            function = _enclosing(parent, "function_item")
            if found and function is not None:
                bound = rf"let\s+(?:mut\s+)?{found.group(1)}\b[^;]*\bfork\s*\("
                return re.search(bound, text(function)) is not None
        child, parent = parent, parent.parent
    return False


def _enclosing(node: ts.Node, kind: str) -> ts.Node | None:
    parent = node.parent
    while parent is not None and parent.type != kind:
        parent = parent.parent
    return parent


def _attributed(item: ts.Node) -> bool:
    """`#[cfg(test)]` on a module, `#[test]` (or `#[tokio::test]` …) on a function."""
    sibling = item.prev_named_sibling
    while sibling is not None and sibling.type == "attribute_item":
        value = text(sibling).replace(" ", "")
        if "cfg(test)" in value or value.endswith("test]") or "::test" in value:
            return True
        sibling = sibling.prev_named_sibling
    return False
