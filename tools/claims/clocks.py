"""Reads of the clock in JavaScript, TypeScript, Go and Rust test code.

Every run referee compares happens at another time (the base's before and after the run now, the
mutants' after it), so a test that lets the time decide what it expects can pass in one run and
fail in the next with the code unchanged: a test that sleeps to the end of a slot of the clock
puts each run in its own slot, and the second slot is the current run's. A condition that picks
an expectation by a clock read, through a name bound from one or a function of the file that
reads one (stacks.py carries them), is `test_inspects_environment`, and so is an assertion whose
expected side carries one. The clocks: the wall clock, the monotonic and process clocks, the
system's uptime, and a file's times (a file made now is dated now). Python's readers list their
own (pyenvironment.py).
"""

from __future__ import annotations

import tree_sitter as ts

from referee.tools.tampering.syntax import descendants, text

__all__ = ["go_clock", "js_clock", "rust_chooses", "rust_clock"]

_JS_CALLS = frozenset(
    {"Date.now", "performance.now", "process.hrtime", "process.hrtime.bigint", "process.uptime"}
    | {"os.uptime", "Temporal.Now.instant", "Temporal.Now.plainDateTimeISO"}
)
_FILE_TIMES = frozenset(
    {"mtime", "mtimeMs", "mtimeNs", "ctime", "ctimeMs", "ctimeNs", "atime", "atimeMs", "atimeNs"}
    | {"birthtime", "birthtimeMs", "birthtimeNs"}
)
_READ_AS_TIME = frozenset({"member_expression", "unary_expression", "binary_expression"})
_GO = frozenset(
    {("time", "Now"), ("time", "Since"), ("time", "Until"), ("syscall", "Sysinfo")}
    | {("syscall", "Gettimeofday"), ("syscall", "Times"), ("golang.org/x/sys/unix", "ClockGettime")}
    | {("golang.org/x/sys/unix", "Sysinfo")}
)
_GO_METHODS = frozenset({"ModTime"})
_RUST_CLOCKS = frozenset({"SystemTime", "Instant", "Utc", "Local", "OffsetDateTime"})
_RUST_METHODS = frozenset({"elapsed", "modified", "created", "accessed"})


def js_clock(node: ts.Node) -> bool:
    """`Date.now()`, `performance.now()`, `process.hrtime()`, `performance.timeOrigin`, a bare
    `new Date()` read as a time, a stat's `mtimeMs`."""
    if node.type == "call_expression":
        return text(node.child_by_field_name("function")) in _JS_CALLS
    if node.type == "member_expression":
        prop = node.child_by_field_name("property")
        return text(node) == "performance.timeOrigin" or text(prop) in _FILE_TIMES
    if node.type == "new_expression":
        args = node.child_by_field_name("arguments")
        bare = args is None or not args.named_children
        # Read as a time (`new Date().getTime()`, `+new Date()`), not kept as a value of its
        # own (a Date among the values a copy must keep).
        read = node.parent is not None and node.parent.type in _READ_AS_TIME
        return text(node.child_by_field_name("constructor")) == "Date" and bare and read
    return False


def go_clock(ref: tuple[str, str] | None, node: ts.Node) -> bool:
    """`time.Now()`, `time.Since(t)`, `syscall.Sysinfo`, a file's `ModTime()` (ref: the import
    path and name a selector resolves to, where it does)."""
    if ref is not None:
        return ref in _GO
    field = node.child_by_field_name("field")
    return node.type == "selector_expression" and text(field) in _GO_METHODS


def rust_clock(node: ts.Node) -> bool:
    """`SystemTime::now()`, `Instant::now()`, chrono's `Utc::now()`, `.elapsed()`, a file's
    `.modified()`."""
    if node.type != "call_expression":
        return False
    function = node.child_by_field_name("function")
    if function is None:
        return False
    if function.type == "field_expression":
        return text(function.child_by_field_name("field")) in _RUST_METHODS
    parts = text(function).split("::")
    return len(parts) >= 2 and parts[-1] == "now" and parts[-2] in _RUST_CLOCKS


def rust_chooses(node: ts.Node) -> bool:
    """An `if` or `match` that picks a value (`let want = if …`) or sets or asserts one in its
    arms; one that only panics (a timeout while waiting) chooses nothing."""
    if node.parent is not None and node.parent.type != "expression_statement":
        return True
    for inner in descendants(node):
        if inner.type in ("assignment_expression", "compound_assignment_expr"):
            return True
        if inner.type == "macro_invocation" and text(inner).startswith(("assert", "debug_assert")):
            return True
    return False
