"""referee's line probes (Python before 3.12) report the same changed lines as coverage.py.

A sample with branches, loops, comprehensions, decorators, multi-line statements, exception
handlers and `match` is run twice by the same driver: under coverage.py's tracer and with the
probes; both data files are read by referee's `measure_python`, which must give the same result.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.tools.adequacy import changed_statements
from referee.tools.adequacy import coverage_probes as probes_module
from referee.tools.adequacy import coverage_shim as shim_module
from referee.tools.adequacy.coverage_py import instrument_python, measure_python
from referee.tools.adequacy.coverage_shim import PROBES
from referee.tools.models.adequacy import DiffCoverage
from referee.tools.runners import Plan, Report

SAMPLE = '''"""A module docstring."""
from __future__ import annotations

import functools

X = 1; Y = 2
TOTAL = (X +
         Y)
if False:
    never = 1


def tagged(tag):
    def wrap(f):
        @functools.wraps(f)
        def inner(*a, **k):
            return f(*a, **k)
        return inner
    return wrap


@tagged("a")
@tagged(
    "b",
)
def loops(n, default=[
        1, 2]):
    """Doc."""
    total = 0
    for i in range(n):
        if i % 2:
            continue
        elif i > 100:
            break
        else:
            total += i
    else:
        total -= 1
    while total > 10:
        total //= 2
    return total


def handlers(kind):
    try:
        if kind == 1:
            raise ValueError
        if kind == 2:
            raise KeyError
    except TypeError:
        return "type"
    except (ValueError,
            IndexError):
        return "value"
    except:
        return "other"
    else:
        return "none"
    finally:
        done = True


def comprehensions(n):
    squares = [i * i for i in range(n)]
    pairs = {
        i: j
        for i in range(n)
        for j in range(i)
        if j
    }
    lazy = (x * 2
            for x in squares)
    first = next(lazy, None)
    bump = lambda v: (
        v + 1)
    return squares, pairs, first, bump(1)


def never_called(x):
    if x:
        return [y for y in x]
    return None


class Box(
        object):
    """Doc."""
    items = [i for i in
             range(3)]

    @property
    def size(self):
        return len(self.items)

    @staticmethod
    def unused():
        return None

    def walk(self):
        yield 1
        yield from range(2)


def closing():
    count = 0
    def bump():
        nonlocal count
        count += 1
        return count
    bump()
    return bump()


def after_return():
    return 1
    unreachable = 2


try:
    @tagged(1 // 0)
    def broken():
        pass
except ZeroDivisionError:
    pass
'''
MATCH = """

def matching(v):
    match v:
        case 1:
            return "one"
        case [a, b] if a > b:
            return "descending"
        case [a, b]:
            return "pair"
        case {"k": x}:
            return "mapping"
        case str() | bytes():
            return "text"
    return "none"


def matching_all(v):
    match v:
        case 0:
            return 0
        case _:
            return 1
"""
DRIVER = """import sample
assert sample.__doc__ == "A module docstring." and sample.loops.__doc__ == "Doc."
assert not [name for name in vars(sample) if "referee" in name]  # its globals are a bare run's
sample.loops(7)
for kind in (1, 2, 0):
    sample.handlers(kind)
sample.comprehensions(4)
box = sample.Box()
box.size
list(box.walk())
sample.closing()
sample.after_return()
if hasattr(sample, "matching"):
    sample.matching([2, 1]), sample.matching({"k": 1}), sample.matching_all(0)
"""


def _sample(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    tree.mkdir()
    text = SAMPLE + (MATCH if sys.version_info >= (3, 10) else "")
    (tree / "sample.py").write_text(text, encoding="utf-8")
    (tree / "driver.py").write_text(DRIVER, encoding="utf-8")
    return tree


def _run(argv: list[str], cwd: Path, **env: str) -> None:
    done = subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, timeout=120, env={**os.environ, **env}
    )
    assert done.returncode == 0, done.stderr


def _by_probes(tree: Path, reports: Path, changed: dict[str, set[int] | None]) -> DiffCoverage:
    reports.mkdir()
    statements = changed_statements(tree, changed, ["sample.py"])
    plan = Plan("unittest", (sys.executable, "driver.py"), Report("junit", lambda _: []))
    assert instrument_python(plan, reports, ["sample.py"], None, statements) is not None
    # The probes themselves, whichever interpreter runs this test (the shim sends 3.12+ to
    # coverage.py's sys.monitoring instead).
    _run([sys.executable, str(reports / PROBES), str(reports / "probes.json"), "driver.py"], tree)
    found = measure_python(reports / "coverage.data", tree, changed, ["sample.py"])
    assert found is not None
    return found


def _by_coverage(tree: Path, data: Path, changed: dict[str, set[int] | None]) -> DiffCoverage:
    argv = [sys.executable, "-m", "coverage", "run", f"--data-file={data}", "driver.py"]
    _run(argv, tree, COVERAGE_CORE="ctrace" if sys.version_info < (3, 12) else "sysmon")
    found = measure_python(data, tree, changed, ["sample.py"])
    assert found is not None
    return found


# The whole file new; and a change of single lines, some inside multi-line statements (8: TOTAL's
# second line, 24: a decorator's argument, 53: an except's second line, 66: a comprehension's).
CHANGES: list[set[int] | None] = [None, {6, 8, 9, 10, 24, 31, 47, 53, 56, 66, 80, 133}]


@pytest.mark.parametrize("lines", CHANGES, ids=["new-file", "changed-lines"])
def test_the_probes_report_the_lines_coverage_py_reports(
    tmp_path: Path, lines: set[int] | None
) -> None:
    tree = _sample(tmp_path)
    changed = {"sample.py": lines}
    probed = _by_probes(tree, tmp_path / "reports", changed)
    assert "line probes" in probed.tool
    # A probed module is compiled afresh: no bytecode with probes in it outlives the run.
    assert not list(tree.glob("__pycache__/sample*"))
    traced = _by_coverage(tree, tmp_path / "coverage.data", changed)
    assert traced.tool.startswith("coverage.py")
    assert probed.files == traced.files
    assert (probed.changed, probed.covered) == (traced.changed, traced.covered)
    assert 0 < traced.covered < traced.changed  # the sample has lines of both kinds


def test_only_the_changed_statements_get_a_probe(tmp_path: Path) -> None:
    source = "def f(x):\n    y = x + 1\n    return (y,\n            x)\n\n\nz = f(1)\n"
    probes = probes_module.Probes(str(tmp_path / "data"))
    code = probes.compile(source.encode(), "m.py", {3})
    assert probes.lines == [("m.py", (3,))]
    namespace: dict[str, object] = {probes_module.HIT: probes.hits}
    exec(code, namespace)
    assert namespace["z"] == (2, 1) and probes.hits == [1]


def test_a_run_with_probes_keeps_the_programs_exit_status_and_arguments(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text(
        "import sys\nprint(sys.argv[1:], sys.path[0])\nsys.exit(3)\n", encoding="utf-8"
    )
    config = tmp_path / "probes.json"
    config.write_text(json.dumps({"data": str(tmp_path / "out"), "files": {}}), encoding="utf-8")
    probes = Path(probes_module.__file__)
    done = subprocess.run(
        [sys.executable, str(probes), str(config), "prog.py", "a", "b"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3
    assert done.stdout.strip() == f"['a', 'b'] {tmp_path}"
    assert json.loads((tmp_path / "out").read_text(encoding="utf-8"))["files"] == {}


def test_a_data_file_that_is_not_the_probes_shape_counts_nothing_as_executed(
    tmp_path: Path,
) -> None:
    (tmp_path / "cart.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    data = tmp_path / "coverage.data"
    for forged in ('{"files": [1, 2]}', '{"python": "3.11.7", "files": {"/x/cart.py": "12"}}'):
        data.write_text(forged, encoding="utf-8")
        found = measure_python(data, tmp_path, {"cart.py": None}, ["cart.py"])
        assert found is not None and (found.changed, found.covered) == (2, 0), forged


def test_a_file_the_probes_could_not_compile_is_unmeasured_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "cart.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    data = tmp_path / "coverage.data"
    record = {"python": "3.10.13", "files": {}, "failed": {"/t/cart.py": "RecursionError: deep"}}
    data.write_text(json.dumps(record), encoding="utf-8")
    found = measure_python(data, tmp_path, {"cart.py": None}, ["cart.py"])
    assert found is not None and found.unmeasured == ["cart.py"] and found.percent is None
    assert found.note and "cart.py: RecursionError: deep" in found.note
    assert found.tool.startswith("referee's line probes on Python 3.10.13")


@pytest.mark.parametrize(
    ("module", "oldest"), [(probes_module, (3, 8)), (shim_module, (3, 6))], ids=["probes", "shim"]
)
def test_what_runs_on_the_projects_interpreter_parses_on_the_oldest_it_supports(
    module: object, oldest: tuple[int, int]
) -> None:
    # The shim must start everywhere, to run the tests and say why nothing was measured.
    source = Path(str(getattr(module, "__file__", ""))).read_text(encoding="utf-8")
    ast.parse(source, feature_version=oldest)
    if oldest < (3, 7):
        assert "from __future__ import annotations" not in source
