"""Line probes: which changed statements a Python run executes, recorded without a tracer.

Usage: python SCRIPT CONFIG -m MODULE ARGS… | python SCRIPT CONFIG PATH ARGS…

Before Python 3.12 coverage.py can only trace, and any trace function puts the interpreter loop
on its slow path for every frame: a suite whose hot loops sit in a changed file ran 2.5 to 4 times
slower. Diff coverage asks
less: did each changed statement run at least once? So the changed files are compiled, when they
are imported, with a probe in front of each changed statement (`__referee_hit__[k] = 1`, one store
into a list); every other line of every file runs as Python compiled it, untraced. At exit the
lines whose probes fired go to the data file (JSON) that referee reads.

CONFIG is JSON: {"data": the data file, "files": {tree-relative path: [lines]}}, the lines being
the first lines of the changed statements as coverage.py's parser finds them. A module is probed
when its file's path ends with one of those paths (as `*/path` in referee's coverage.py run).

A line counts as executed when coverage.py's tracer would see it run:
- a statement when it starts (its probe runs just before it);
- a decorator when its expression starts, and a decorated `def` or `class` line once the
  decorators have been evaluated (Python runs that line then);
- `except T:` when an exception is matched against it (T is evaluated then), a bare `except:` when
  it is entered;
- a `case` line when its pattern is tried: every case up to the one whose body runs, or all of
  them when none matches.

referee copies this file into the check's report folder; the project's interpreter (Python 3.8 or
newer) runs it, so it uses the standard library alone.
"""

from __future__ import annotations

import ast
import atexit
import builtins
import importlib.machinery
import json
import os
import runpy
import sys
import threading
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

FORMAT = "referee-line-probes/1"
# Names in builtins, so that a probed module's globals hold what a bare run's hold.
HIT = "__referee_hit__"  # the probes' flags: HIT[k] = 1
MARK = "__referee_mark__"  # MARK(k) or EXPR: marks k before EXPR is evaluated
AFTER = "__referee_after__"  # AFTER(k, EXPR): marks k once EXPR has been evaluated
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_Node = TypeVar("_Node", bound=ast.AST)
_OLDEST = (3, 8)


class Probes:
    """Every probe planted in this process: probe k fired when `hits[k]` is 1."""

    def __init__(self, data: str) -> None:
        self.data = data
        self.hits: list[int] = []
        self.lines: list[tuple[str, tuple[int, ...]]] = []  # per probe: its file and lines
        self.failed: dict[str, str] = {}
        self.lock = threading.Lock()
        self.pid = os.getpid()

    def mark(self, k: int) -> None:
        self.hits[k] = 1

    def after(self, k: int, value: Any) -> Any:
        self.hits[k] = 1
        return value

    def compile(self, source: bytes, path: str, targets: set[int]) -> Any:
        """`source` compiled with probes before the statements starting on `targets`."""
        tree = ast.parse(source, filename=path)
        with self.lock:
            first = len(self.lines)
            try:
                _Planter(self, path, targets).block(tree.body, scope=True, module=True)
                code = compile(ast.fix_missing_locations(tree), path, "exec", dont_inherit=True)
            except BaseException:
                del self.lines[first:]
                raise
            self.hits.extend([0] * (len(self.lines) - len(self.hits)))
        return code

    def executed(self) -> dict[str, list[int]]:
        found: dict[str, set[int]] = {}
        for k, hit in enumerate(self.hits):
            if hit:
                path, lines = self.lines[k]
                found.setdefault(path, set()).update(lines)
        return {path: sorted(lines) for path, lines in found.items()}

    def write(self) -> None:
        if os.getpid() != self.pid:  # a forked child exiting normally: its parent writes
            return
        record = {
            "format": FORMAT,
            "python": ".".join(map(str, sys.version_info[:3])),
            "files": self.executed(),
            "failed": self.failed,
        }
        with open(self.data, "w", encoding="utf-8") as out:
            json.dump(record, out)


class _Planter:
    """Plants the probes of one module's syntax tree."""

    def __init__(self, probes: Probes, path: str, targets: set[int]) -> None:
        self.probes, self.path, self.targets = probes, path, targets

    def _probe(self, lines: Iterable[int]) -> int:
        self.probes.lines.append((self.path, tuple(lines)))
        return len(self.probes.lines) - 1

    def _hit(self, lines: Iterable[int], where: ast.AST) -> ast.stmt:
        probe = ast.parse(f"{HIT}[{self._probe(lines)}] = 1").body[0]
        return _located(probe, where)

    def _before(self, line: int, expr: ast.expr) -> ast.expr:
        probe = ast.parse(f"{MARK}({self._probe([line])}) or _", mode="eval").body
        assert isinstance(probe, ast.BoolOp)
        probe.values[1] = expr
        return _located(probe, expr)

    def _after(self, line: int, expr: ast.expr) -> ast.expr:
        probe = ast.parse(f"{AFTER}({self._probe([line])}, _)", mode="eval").body
        assert isinstance(probe, ast.Call)
        probe.args[1] = expr
        return _located(probe, expr)

    def block(self, body: list[ast.stmt], *, scope: bool, module: bool = False) -> None:
        """Probes before the targeted statements of `body`, in place.

        A docstring stays first, and so do `from __future__` imports: theirs fires after them.
        """
        out: list[ast.stmt] = []
        held: list[int] = []
        for index, stmt in enumerate(body):
            self._inside(stmt)
            line = stmt.lineno
            if module and _is_future(stmt):
                held += [line] if line in self.targets else []
            elif scope and index == 0 and _is_docstring(stmt):
                pass
            else:
                if held:
                    out.append(self._hit(held, stmt))
                    held = []
                decorated = self._decorated(stmt)
                if line in self.targets and not decorated:
                    out.append(self._hit([line], stmt))
            out.append(stmt)
        if held:
            out.append(self._hit(held, body[-1]))
        body[:] = out

    def _inside(self, stmt: ast.stmt) -> None:
        for name, value in ast.iter_fields(stmt):
            if not isinstance(value, list) or not value:
                continue
            if isinstance(value[0], ast.stmt):
                self.block(value, scope=name == "body" and isinstance(stmt, _SCOPES))
            elif isinstance(value[0], ast.ExceptHandler):
                for handler in value:
                    self._handler(handler)
        if isinstance(stmt, getattr(ast, "Match", ())):
            self._cases(stmt)

    def _decorated(self, stmt: ast.stmt) -> bool:
        """Probes in the decorators of a decorated def or class (False: it has none)."""
        decorators: list[ast.expr] = getattr(stmt, "decorator_list", [])
        if not decorators:
            return False
        for i, decorator in enumerate(decorators):
            if decorator.lineno in self.targets:
                decorators[i] = self._before(decorator.lineno, decorator)
        if stmt.lineno in self.targets:
            decorators[-1] = self._after(stmt.lineno, decorators[-1])
        return True

    def _handler(self, handler: ast.ExceptHandler) -> None:
        self.block(handler.body, scope=False)
        if handler.lineno not in self.targets:
            return
        if handler.type is None:
            handler.body.insert(0, self._hit([handler.lineno], handler.body[0]))
        else:
            handler.type = self._before(handler.lineno, handler.type)

    def _cases(self, match: Any) -> None:
        """A case's pattern is tried when no case before it matched: each body marks its own case
        line and those above it, and a last catch-all marks them all."""
        cases = match.cases
        for case in cases:
            self.block(case.body, scope=False)
        lines = [case.pattern.lineno for case in cases]
        if not self.targets.intersection(lines):
            return
        for i, case in enumerate(cases):
            tried = [line for line in lines[: i + 1] if line in self.targets]
            if tried:
                case.body.insert(0, self._hit(tried, case.body[0]))
        if not (cases[-1].guard is None and _irrefutable(cases[-1].pattern)):
            wanted = [line for line in lines if line in self.targets]
            catch_all = ast.match_case(
                pattern=_located(ast.MatchAs(), cases[-1].pattern),
                guard=None,
                body=[self._hit(wanted, cases[-1].pattern)],
            )
            cases.append(catch_all)


def _located(node: _Node, where: ast.AST) -> _Node:
    for child in ast.walk(node):
        ast.copy_location(child, where)
    return node


def _is_future(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _irrefutable(pattern: Any) -> bool:
    """A pattern every subject matches (`_`, a bare name, an `|` with one of those)."""
    kind = type(pattern).__name__  # by name: the Match* nodes exist from Python 3.10
    if kind == "MatchAs":
        return pattern.pattern is None or _irrefutable(pattern.pattern)
    if kind == "MatchOr":
        return any(_irrefutable(p) for p in pattern.patterns)
    return False


class _Loader(importlib.machinery.SourceFileLoader):
    """Compiles a changed file with its probes, never through a bytecode cache (a cached .pyc
    has none, and one with probes must not outlive the run)."""

    def probing(self, probes: Probes, targets: set[int]) -> _Loader:
        self._probes, self._targets = probes, targets
        return self

    def get_code(self, fullname: str) -> Any:
        path = self.get_filename(fullname)
        source = self.get_data(path)
        try:
            return self._probes.compile(source, path, self._targets)
        except SyntaxError:
            raise  # the file's own error, as Python reports it
        except Exception as exc:
            # A run must never break because of its probes: the file runs unprobed, and referee
            # reads why it could not say which of its lines ran.
            self._probes.failed[path] = f"{type(exc).__name__}: {exc}"[:500]
            return self.source_to_code(source, path)


class _Finder:
    """Before the finders of sys.meta_path: a module found in a changed file gets a probing
    loader (found by the finders after this one, so editable installs and the like still work)."""

    def __init__(self, probes: Probes, files: dict[str, set[int]]) -> None:
        self.probes = probes
        self.files = {"/" + rel.lstrip("/"): lines for rel, lines in files.items() if lines}

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        finders = sys.meta_path
        after = finders[finders.index(self) + 1 :] if self in finders else []
        for finder in after:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                return self._probed(spec)
        return None

    def _probed(self, spec: Any) -> Any:
        origin = spec.origin
        if not isinstance(origin, str) or not _plain_source(spec.loader):
            return spec
        posix = os.path.abspath(origin).replace(os.sep, "/")
        for rel, targets in self.files.items():
            if posix.endswith(rel):
                spec.loader = _Loader(spec.name, origin).probing(self.probes, targets)
                break
        return spec

    def invalidate_caches(self) -> None:
        pass


def _plain_source(loader: Any) -> bool:
    """A loader that compiles a source file as it is: Python's own, or pytest's assertion
    rewriter (which loads every module named on pytest's command line, a changed module whose
    doctests it runs among them; its rewriting is for tests, and a probed source needs none)."""
    if type(loader) is importlib.machinery.SourceFileLoader:
        return True
    kind = type(loader)
    return kind.__name__ == "AssertionRewritingHook" and kind.__module__.startswith("_pytest")


class _MetaPath(list):  # type: ignore[type-arg]
    """sys.meta_path, keeping the probing finder first: pytest puts its assertion rewriter at
    position 0 once it starts, and a finder before the probing one loads changed files unprobed."""

    def insert(self, index: Any, finder: Any) -> None:
        if index == 0 and self and isinstance(self[0], _Finder):
            index = 1
        super().insert(index, finder)


def install(config: str) -> Probes:
    """Probes planted in the changed files imported from now on, written at exit."""
    if sys.version_info < _OLDEST:
        # Before 3.8 a decorated definition's position is its first decorator's line.
        raise RuntimeError("the line probes need Python 3.8 or newer")
    with open(config, encoding="utf-8") as handle:
        settings = json.load(handle)
    probes = Probes(str(settings["data"]))
    files = {str(rel): {int(n) for n in lines} for rel, lines in settings["files"].items()}
    setattr(builtins, HIT, probes.hits)
    setattr(builtins, MARK, probes.mark)
    setattr(builtins, AFTER, probes.after)
    sys.meta_path = _MetaPath([_Finder(probes, files), *sys.meta_path])
    # Registered before the program runs, so it runs after every handler the program adds.
    atexit.register(probes.write)
    return probes


def run(argv: Sequence[str]) -> None:
    """Run `-m MODULE ARGS…` or `PATH ARGS…` as `python` would, in this process."""
    safe_path = getattr(sys.flags, "safe_path", False)
    if argv[0] == "-m":
        sys.argv = ["-m", *argv[2:]]  # runpy puts the module's file in argv[0]
        if not safe_path:
            sys.path[0] = os.getcwd()
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return
    sys.argv = list(argv)
    if not safe_path:
        sys.path[0] = os.path.dirname(os.path.realpath(argv[0]))
    runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    install(sys.argv[1])
    run(sys.argv[2:])
