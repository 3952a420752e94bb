"""Reads of the clock, and listings of the tree, in JavaScript, TypeScript, Go and Rust test code.

Every run referee compares happens at another time (the base's before and after the run now, the
mutants' after it), so a test that lets the time decide what it expects can pass in one run and
fail in the next with the code unchanged: a test that sleeps to the end of a slot of the clock
puts each run in its own slot, and the second slot is the current run's. A condition that picks
an expectation by a clock read, through a name bound from one or a function of the file that
reads one (stacks.py carries them), is `test_inspects_environment`, and so is an assertion whose
expected side carries one. The clocks: the wall clock, the monotonic and process clocks, the
system's uptime, and a file's times (a file made now is dated now). What the tree holds differs
between runs as well (the base's view leaves out the change's new files, a hold-out's run has one
more): a listing of a folder of the tree (a relative path, or one built from the test's own
folder) is read the same way; a loop over its names reads data, not a count. Python's readers
list their own (pyvarying.py).
"""

from __future__ import annotations

import tree_sitter as ts

from referee.tools.tampering.syntax import descendants, text

__all__ = [
    "go_clock",
    "go_listing",
    "js_clock",
    "js_listing",
    "rust_chooses",
    "rust_clock",
    "rust_listing",
]

_JS_CALLS = frozenset(
    {"Date.now", "performance.now", "process.hrtime", "process.hrtime.bigint", "process.uptime"}
    | {"os.uptime", "Temporal.Now.instant", "Temporal.Now.plainDateTimeISO"}
    | {"process.resourceUsage", "process.cpuUsage"}  # CPU time, page faults: counters as clocks
)
_FILE_TIMES = frozenset(
    {"mtime", "mtimeMs", "mtimeNs", "ctime", "ctimeMs", "ctimeNs", "atime", "atimeMs", "atimeNs"}
    | {"birthtime", "birthtimeMs", "birthtimeNs"}
)
_READ_AS_TIME = frozenset({"member_expression", "unary_expression", "binary_expression"})
_GO = frozenset(
    {("time", "Now"), ("time", "Since"), ("time", "Until"), ("syscall", "Sysinfo")}
    | {("syscall", "Gettimeofday"), ("syscall", "Times"), ("golang.org/x/sys/unix", "ClockGettime")}
    | {("golang.org/x/sys/unix", "Sysinfo"), ("syscall", "Getrusage")}
    | {("golang.org/x/sys/unix", "Getrusage"), ("golang.org/x/sys/unix", "Mincore")}
)
_GO_METHODS = frozenset({"ModTime"})
_JS_LISTINGS = frozenset({"readdirSync", "readdir", "opendirSync", "opendir", "globSync"})
_GO_LISTINGS = frozenset(
    {("os", "ReadDir"), ("io/ioutil", "ReadDir"), ("path/filepath", "Glob")}
    | {("path/filepath", "Walk"), ("path/filepath", "WalkDir"), ("io/fs", "ReadDir")}
)
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


def js_listing(node: ts.Node, callee: str | None) -> bool:
    """`fs.readdirSync('src')`, `readdir(__dirname)`, `globSync('*.js')`: a folder of the tree
    (callee: what the call's function resolves to, where it does)."""
    if node.type != "call_expression":
        return False
    name = (callee or text(node.child_by_field_name("function"))).rsplit(".", 1)[-1]
    return name in _JS_LISTINGS and _of_tree(node, ("__dirname", "process.cwd", "import.meta"))


def go_listing(ref: tuple[str, str] | None, node: ts.Node) -> bool:
    """`os.ReadDir(".")`, `filepath.Glob("*.go")`: the package's folder, where tests run."""
    call = node.parent
    return ref in _GO_LISTINGS and call is not None and _of_tree(call, ("os.Getwd",))


def rust_listing(node: ts.Node) -> bool:
    """`std::fs::read_dir("src")`, or one under `env!("CARGO_MANIFEST_DIR")`."""
    if node.type != "call_expression":
        return False
    function = text(node.child_by_field_name("function"))
    return function.rsplit("::", 1)[-1] == "read_dir" and _of_tree(
        node, ("CARGO_MANIFEST_DIR", "current_dir")
    )


def _of_tree(call: ts.Node, here: tuple[str, ...]) -> bool:
    """The call's first argument names a place in the tree: a relative path written out, or one
    built from the test's own folder or the working folder."""
    args = call.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    if first is None:
        return False
    written = text(first)
    if any(h in written for h in here):
        return True
    if first.type in (
        "string",
        "interpreted_string_literal",
        "raw_string_literal",
        "string_literal",
    ):
        value = written.strip("'\"`")
        return not value.startswith(("/", "~"))
    return False
