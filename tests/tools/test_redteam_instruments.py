"""Red team of the instruments defence (6cdd1c7): code that replaces or defeats what the tests
judge with, so that a broken `add` (it returns a - b) passes its tests.

Each variant is a tiny project run as referee runs it: pytest under the guard plugin
(runners/pytest_guard.py, read back with guard.py's `bypassed`), and every Python file it wrote
read for claims (claims/pyinstruments.py and the other Python readers) and against the harness
rule (harness/rule.py). The defence holds when any of them names the change; it is fooled when the
broken `add` passes and none of them says a word (`DefenceFooled`, the only failure the xfails
below accept: an attack that stops working fails its test instead).
"""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from guarded_runs import (
    APPROX_TESTS,
    CALC,
    DOCTEST_CALC,
    ISCLOSE_TESTS,
    UNITTEST_TESTS,
    run_guarded,
)

from referee.tools.claims import Scope, claims_in
from referee.tools.harness.rule import Layout, harness_reason

PLAIN_TESTS = "import calc\n\n\ndef test_add():\n    assert calc.add(1, 2) == 3\n"
# A test module collected before the judging one that imports the code under test (any suite
# that has more than one test file).
OTHER_TESTS = "import calc\n\n\ndef test_module():\n    assert calc.__name__ == 'calc'\n"


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _project(calc: str, tests: str | None = PLAIN_TESTS, **extra: str) -> dict[str, str]:
    """calc.py, the judging tests (None: calc.py's doctests) and other modules (`__` for `/`)."""
    files = {"calc.py": calc, **{k.replace("__", "/") + ".py": v for k, v in extra.items()}}
    if tests is not None:
        files["tests/test_calc.py"] = tests
    return files


# --- Replaced, then put back before the guard looks (it looks after collection, after each
# teardown and at the end; never while the test's call runs). Spelled with `type.__setattr__` /
# `object.__setattr__`, which pyinstruments' `_called` does not read as `setattr`.
RESTORED = {
    # A failing call's report is made (and logged to the JUnit report) before teardown: a one-shot
    # replacement of the watched `TestReport.from_item_and_call` that puts itself back.
    "report-maker-one-shot": _project(
        _src("""
        import sys


        def add(a, b):
            _arm()
            return a - b


        def _arm():
            frame = sys._getframe()
            while frame is not None and "TestReport" not in frame.f_globals:
                frame = frame.f_back
            if frame is None:
                return
            maker = frame.f_globals["TestReport"]
            real = vars(maker)["from_item_and_call"]

            def once(item, call):
                type.__setattr__(maker, "from_item_and_call", real)
                report = real.__func__(maker, item, call)
                report.outcome, report.longrepr = "passed", None
                return report

            type.__setattr__(maker, "from_item_and_call", staticmethod(once))
        """)
    ),
    # assertEqual looks `_baseAssertEqual` up when it runs, after add returned.
    "base-assert-equal-one-shot": _project(
        _src("""
        import unittest


        def add(a, b):
            case = unittest.TestCase
            real = vars(case)["_baseAssertEqual"]

            def once(self, first, second, msg=None):
                type.__setattr__(case, "_baseAssertEqual", real)

            type.__setattr__(case, "_baseAssertEqual", once)
            return a - b
        """),
        UNITTEST_TESTS,
    ),
    # unittest.TestCase itself swapped for a lenient subclass until the test class is made from
    # it; the subclass's __init_subclass__ puts the real one back (before collection ends).
    "testcase-swapped-until-the-test-class-exists": _project(
        _src("""
        import unittest

        _real = unittest.TestCase
        _module = type(unittest)


        class _Lenient(_real):
            def assertEqual(self, first, second, msg=None):
                pass

            def __init_subclass__(cls, **kwargs):
                super().__init_subclass__(**kwargs)
                _module.__setattr__(unittest, "TestCase", _real)


        _module.__setattr__(unittest, "TestCase", _Lenient)


        def add(a, b):
            return a - b
        """),
        UNITTEST_TESTS,
    ),
    # The class's real dict (gc.get_referents of its mappingproxy) written in place, the type
    # cache told with ctypes (the guard logs a `ctypes` line, which `bypassed` does not count).
    "gc-referents-class-dict-one-shot": _project(
        _src("""
        import ctypes
        import gc
        import unittest


        def _put(klass, name, value):
            gc.get_referents(vars(klass))[0][name] = value
            ctypes.pythonapi.PyType_Modified(ctypes.py_object(klass))


        def add(a, b):
            case = unittest.TestCase
            real = vars(case)["_baseAssertEqual"]

            def once(self, first, second, msg=None):
                _put(case, "_baseAssertEqual", real)

            _put(case, "_baseAssertEqual", once)
            return a - b
        """),
        UNITTEST_TESTS,
    ),
}

# --- The watched object stays the same object: its behaviour changes (identity is all the guard
# compares).
SAME_OBJECT = {
    # The function object stays; its code is another's.
    "base-assert-equal-code-swapped": _project(
        _src("""
        import unittest

        object.__setattr__(
            vars(unittest.TestCase)["_baseAssertEqual"],
            "__code__",
            (lambda self, first, second, msg=None: None).__code__,
        )


        def add(a, b):
            return a - b
        """),
        UNITTEST_TESTS,
    ),
    # math keeps its dict (the guard reads `vars(math)`); attribute access goes through the
    # module's new class. pyinstruments does not count `math.__class__` as `math`'s instrument.
    "math-module-class-swapped": _project(
        _src("""
        import math
        import types


        class _Math(types.ModuleType):
            def __getattribute__(self, name):
                if name == "isclose":
                    return lambda *args, **kwargs: True
                return super().__getattribute__(name)


        math.__class__ = _Math


        def add(a, b):
            return a - b
        """),
        ISCLOSE_TESTS,
    ),
    # TestCase.run (not assert*/fail*/_base*) reports a success without running the test.
    "testcase-run-reports-success": _project(
        _src("""
        import unittest


        def _run(self, result=None):
            result.startTest(self)
            result.addSuccess(self)
            result.stopTest(self)
            return result


        type.__setattr__(unittest.TestCase, "run", _run)


        def add(a, b):
            return a - b
        """),
        UNITTEST_TESTS,
    ),
    # unittest's own catcher of a test part's exceptions swallows them.
    "outcome-part-executor-swallows": _project(
        _src("""
        import contextlib
        import unittest.case


        @contextlib.contextmanager
        def _lenient(self, test_case, subTest=False):
            try:
                yield
            except Exception:
                pass


        type.__setattr__(unittest.case._Outcome, "testPartExecutor", _lenient)


        def add(a, b):
            return a - b
        """),
        UNITTEST_TESTS,
    ),
    # The TestCase instance the test runs in: its own equality table (unittest looks it up at
    # each assertEqual), found through the caller's frame.
    "instance-equality-table-from-frame": _project(
        _src("""
        import inspect


        def add(a, b):
            case = inspect.currentframe().f_back.f_locals.get("self")
            table = getattr(case, "_type_equality_funcs", None)
            if table is not None:
                table[int] = lambda *args, **kwargs: None
            return a - b
        """),
        UNITTEST_TESTS,
    ),
    # Every TestCase subclass made after this gets a lenient assertEqual of its own: the guard
    # watches TestCase's assert*/fail* only, not its __init_subclass__ or its subclasses.
    "init-subclass-lenient-subclasses": _project(
        _src("""
        import unittest

        _case = unittest.TestCase
        _real = vars(_case)["__init_subclass__"]


        def _lenient(cls, **kwargs):
            _real.__func__(cls, **kwargs)
            type.__setattr__(cls, "assertEqual", lambda self, *args, **kwargs: None)


        type.__setattr__(_case, "__init_subclass__", classmethod(_lenient))


        def add(a, b):
            return a - b
        """),
        UNITTEST_TESTS,
    ),
    # The test module's own global `pytest` (looked up after add returned) made a namespace whose
    # approx is add's last result: sys.modules["pytest"].approx is untouched.
    "test-module-global-approx": _project(
        _src("""
        import inspect
        import types


        def add(a, b):
            result = a - b
            names = inspect.currentframe().f_back.f_globals
            for name, value in list(names.items()):
                if isinstance(value, types.ModuleType) and hasattr(value, "approx"):
                    fake = types.SimpleNamespace(**vars(value))
                    fake.approx = lambda expected, **kwargs: result
                    names[name] = fake
            return result
        """),
        APPROX_TESTS,
    ),
}

# --- Unwatched parts of pytest that decide a test's outcome (the guard watches `TestReport`,
# `from_item_and_call`, three runner functions and the outcomes).
PYTEST_MACHINERY = {
    "callinfo-from-call-drops-the-error": _project(
        _src("""
        import _pytest.runner as runner

        _real = vars(runner.CallInfo)["from_call"]


        def _from_call(cls, func, when, reraise=None):
            info = _real.__func__(cls, func, when, reraise)
            if when == "call" and info.excinfo is not None:
                return _real.__func__(cls, lambda: None, when, reraise)
            return info


        type.__setattr__(runner.CallInfo, "from_call", classmethod(_from_call))


        def add(a, b):
            return a - b
        """)
    ),
    "function-runtest-code-swapped": _project(
        _src("""
        import _pytest.python as python

        object.__setattr__(python.Function.runtest, "__code__", (lambda self: None).__code__)


        def add(a, b):
            return a - b
        """)
    ),
    "unittest-item-runtest-replaced": _project(
        _src("""
        import _pytest.unittest as ut

        type.__setattr__(ut.TestCaseFunction, "runtest", lambda self: None)


        def add(a, b):
            return a - b
        """),
        UNITTEST_TESTS,
    ),
    # pytest 9 keeps approx in _pytest.approx (the guard's `_pytest.python_api` is gone): the
    # class pytest.approx makes is not watched, only the function. Held by claims/equality.py
    # (an `__eq__` that ignores its operand; `pytest.approx` named in code under test).
    "approx-scalar-eq": _project(
        _src("""
        import pytest

        type.__setattr__(type(pytest.approx(0)), "__eq__", lambda self, actual: True)


        def add(a, b):
            return a - b
        """),
        APPROX_TESTS,
    ),
    # The same class found with gc, its tolerance made infinite: no `__eq__`, no `approx` named.
    "approx-scalar-tolerance-through-gc": _project(
        _src("""
        import gc

        for _klass in gc.get_objects():
            if isinstance(_klass, type) and _klass.__name__ == "ApproxScalar":
                type.__setattr__(_klass, "tolerance", property(lambda self: float("inf")))


        def add(a, b):
            return a - b
        """),
        APPROX_TESTS,
    ),
    # A module pytest imports again when each unittest item runs, swapped in sys.modules: the
    # copy's tracing wrapper makes the item's test method a no-op.
    "sys-modules-swap-before-a-lazy-import": _project(
        _src("""
        import sys
        import types


        def _no_test(item):
            item.obj = lambda *args, **kwargs: None


        for _key in list(sys.modules):
            if _key.endswith(".debugging"):
                _real = sys.modules[_key]
                _copy = types.ModuleType(_key)
                vars(_copy).update(vars(_real))
                for _name in [n for n in vars(_real) if n.startswith("maybe_wrap")]:
                    setattr(_copy, _name, _no_test)
                sys.modules[_key] = _copy


        def add(a, b):
            return a - b
        """),
        UNITTEST_TESTS,
    ),
    "junit-failure-written-as-a-pass": _project(
        _src("""
        import _pytest.junitxml as junit

        _reporter = junit._NodeReporter
        type.__setattr__(_reporter, "append_failure", _reporter.append_pass)


        def add(a, b):
            return a - b
        """)
    ),
    "report-properties-say-passed": _project(
        _src("""
        import _pytest.reports as reports

        type.__setattr__(reports.BaseReport, "passed", property(lambda r: r.outcome != "skipped"))
        type.__setattr__(reports.BaseReport, "failed", property(lambda r: False))


        def add(a, b):
            return a - b
        """)
    ),
    # A plugin registered from the code under test: the pluginmanager found with gc, the hook's
    # name taken from the hook relay (no `pytest_` name written).
    "plugin-registered-through-gc": _project(
        _src("""
        import gc
        import types


        def _pass(report):
            if report.when == "call":
                report.outcome, report.longrepr = "passed", None


        for _obj in gc.get_objects():
            if type(_obj).__name__ == "Config":
                _hooks = _obj.pluginmanager.hook
                _name = next(n for n in vars(_hooks) if n.endswith("runtest_logreport"))
                _obj.pluginmanager.register(types.SimpleNamespace(**{_name: _pass}))
                break


        def add(a, b):
            return a - b
        """)
    ),
    # The assertion rewriter (imported before the judging test module is rewritten) drops every
    # assert statement of the modules it rewrites after this one.
    "assertion-rewriter-drops-asserts": _project(
        _src("""
        import ast

        import _pytest.assertion.rewrite as rewrite

        type.__setattr__(
            rewrite.AssertionRewriter,
            "visit_Assert",
            lambda self, node: [ast.copy_location(ast.Pass(), node)],
        )


        def add(a, b):
            return a - b
        """),
        tests__test_a_module=OTHER_TESTS,
    ),
}

# --- doctest: helpers next to the watched OutputChecker / DocTestRunner / __displayhook__.
DOCTEST = {
    # pytest's runner is a DebugRunner subclass: DebugRunner.run is not watched.
    "debug-runner-run": _project(
        DOCTEST_CALC
        + _src("""

        import doctest

        type.__setattr__(
            doctest.DebugRunner,
            "run",
            lambda self, test, compileflags=None, out=None, clear_globs=True: (
                doctest.TestResults(0, 0)
            ),
        )
        """),
        None,
    ),
    # _pytest.doctest's CHECKER_CLASS (set before the module's runner is made), through the
    # collecting frame's globals: a lenient OutputChecker subclass, the base class untouched.
    "pytest-checker-class-global": _project(
        DOCTEST_CALC
        + _src("""

        import doctest
        import sys


        class _Lenient(doctest.OutputChecker):
            def check_output(self, want, got, optionflags):
                return True


        _frame = sys._getframe()
        while _frame is not None and "CHECKER_CLASS" not in _frame.f_globals:
            _frame = _frame.f_back
        if _frame is not None:
            _frame.f_globals["CHECKER_CLASS"] = _Lenient
        """),
        None,
    ),
}

# --- Before pytest or beside the code: the guard's snapshot is taken after these ran. Files the
# runner loads by name are the harness rule's (harness/rule.py).
LOADED_BY_NAME = {
    # The guard never sees it (its snapshot already holds the replacement) and pyinstruments
    # misses type.__setattr__: held by harness/rule.py alone (a file loaded by name).
    "sitecustomize-before-the-snapshot": _project(
        CALC,
        UNITTEST_TESTS,
        sitecustomize=_src("""
        import unittest

        type.__setattr__(unittest.TestCase, "assertEqual", lambda self, *args, **kwargs: None)
        """),
    ),
    # Held by harness/rule.py and by the claims (a runner hook written: harness_modified).
    "conftest-makereport": _project(
        CALC,
        conftest=_src("""
        import pytest


        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_makereport(item, call):
            report = yield
            report.outcome = "passed"
            return report
        """),
    ),
    # Held by the claims: calc.py defines a runner hook (harness_modified).
    "pytest-plugins-in-the-test-module": _project(
        CALC + "\n\ndef pytest_runtest_logreport(report):\n    report.outcome = 'passed'\n",
        "pytest_plugins = ['calc']\n\n" + PLAIN_TESTS,
    ),
}

# --- Spellings the guard holds (a lasting replacement of a watched name, spelled past the
# static reader).
WATCHED = {
    "assert-equal-type-setattr": _project(
        _src("""
        import unittest

        type.__setattr__(unittest.TestCase, "assertEqual", lambda self, *args, **kwargs: None)


        def add(a, b):
            return a - b
        """),
        UNITTEST_TESTS,
    ),
    "testcase-subclass-kept": _project(
        _src("""
        import unittest


        class _Lenient(unittest.TestCase):
            def assertEqual(self, first, second, msg=None):
                pass


        type(unittest).__setattr__(unittest, "TestCase", _Lenient)


        def add(a, b):
            return a - b
        """),
        UNITTEST_TESTS,
    ),
    "report-maker-kept": _project(
        _src("""
        import _pytest.reports as reports

        _real = vars(reports.TestReport)["from_item_and_call"]


        def _made(cls, item, call):
            report = _real.__func__(cls, item, call)
            report.outcome, report.longrepr = "passed", None
            return report


        type.__setattr__(reports.TestReport, "from_item_and_call", classmethod(_made))


        def add(a, b):
            return a - b
        """)
    ),
}

VARIANTS = {
    **RESTORED,
    **SAME_OBJECT,
    **PYTEST_MACHINERY,
    **DOCTEST,
    **LOADED_BY_NAME,
    **WATCHED,
}
VARIANTS_THROUGH: dict[str, str] = {}

# Real projects: none of this may be flagged.
HONEST = {
    "test-monkeypatches-builtins-open": _project(
        _src("""
        def add(a, b):
            return a + b


        def first_line(path):
            with open(path) as handle:
                return handle.readline().strip()
        """),
        _src("""
        import builtins
        import io

        import calc


        def test_first_line(monkeypatch):
            monkeypatch.setattr(builtins, "open", lambda *args, **kwargs: io.StringIO("x\\ny"))
            assert calc.first_line("any.txt") == "x"
            assert calc.add(1, 2) == 3
        """),
    ),
    # A REPL installs its own display hook (the test lets monkeypatch put the old one back).
    "test-restores-displayhook-itself": _project(
        _src("""
        def add(a, b):
            return a + b


        def make_hook(shown):
            def hook(value):
                if value is not None:
                    shown.append(repr(value))

            return hook
        """),
        _src("""
        import sys

        import calc


        def test_hook_shows_values():
            shown = []
            before = sys.displayhook
            sys.displayhook = calc.make_hook(shown)
            try:
                sys.displayhook(calc.add(1, 2))
            finally:
                sys.displayhook = before
            assert shown == ["3"]
        """),
    ),
    "hypothesis-property": _project(
        CALC.replace("a - b", "a + b"),
        _src("""
        from hypothesis import given, settings
        from hypothesis import strategies as st

        import calc


        @settings(max_examples=25, database=None)
        @given(st.integers(), st.integers())
        def test_add_commutes(a, b):
            assert calc.add(a, b) == calc.add(b, a) == a + b
        """),
    ),
    "numeric-settings-in-source": _project(
        _src("""
        import decimal
        import reprlib
        import warnings

        decimal.getcontext().prec = 40
        reprlib.aRepr.maxstring = 80
        warnings.simplefilter("default", DeprecationWarning)


        def add(a, b):
            return a + b
        """),
        _src("""
        import decimal
        import math

        import pytest

        import calc


        def test_add():
            assert calc.add(0.1, 0.2) == pytest.approx(0.3)
            assert math.isclose(calc.add(1, 2), 3)
            assert calc.add(decimal.Decimal(1), decimal.Decimal(2)) == 3
        """),
    ),
    "tests-base-class-own-assert-equal": _project(
        CALC.replace("a - b", "a + b"),
        _src("""
        import math
        import unittest

        import calc


        class NumericCase(unittest.TestCase):
            def assertEqual(self, first, second, msg=None):
                if isinstance(first, float) or isinstance(second, float):
                    self.assertTrue(math.isclose(first, second), msg)
                else:
                    super().assertEqual(first, second, msg)


        class T(NumericCase):
            def setUp(self):
                self.addTypeEqualityFunc(complex, self._complex_equal)

            def _complex_equal(self, first, second, msg=None):
                self.assertAlmostEqual(abs(first - second), 0)

            def test_add(self):
                self.assertEqual(calc.add(0.1, 0.2), 0.3)
                self.assertEqual(calc.add(1, 2), 3)
                self.assertEqual(calc.add(1j, 1), 1 + 1j)
        """),
    ),
    "test-monkeypatches-isclose": _project(
        _src("""
        import math


        def near(a, b):
            return math.isclose(a, b)


        def add(a, b):
            return a + b
        """),
        _src("""
        import math

        import calc


        def test_near_asks_isclose(monkeypatch):
            monkeypatch.setattr(math, "isclose", lambda a, b: False)
            assert not calc.near(1, 1)


        def test_add():
            assert math.isclose(calc.add(1, 2), 3)
        """),
    ),
    "gettext-installed": _project(
        _src("""
        import gettext

        gettext.install("calc")


        def add(a, b):
            return a + b


        def greeting():
            return _("hello")
        """),
        _src("""
        import calc


        def test_greeting():
            assert calc.greeting() == "hello"
            assert calc.add(1, 2) == 3
        """),
    ),
    "doctest-passes": _project(DOCTEST_CALC.replace("a - b", "a + b"), None),
}
HONEST_FLAGGED: dict[str, str] = {}


class DefenceFooled(AssertionError):
    """The broken add passed, and neither the guard nor a claim nor the harness rule said so."""


class WronglyFlagged(AssertionError):
    """An honest project was named by the defence."""


@dataclass
class Verdict:
    passed: bool
    """Every test case of the run's JUnit report passed (at least one ran)."""
    bypassed: str | None
    claims: list[str] = field(default_factory=list)
    harness: list[str] = field(default_factory=list)

    @property
    def named(self) -> bool:
        return bool(self.bypassed or self.claims or self.harness)


def _judge(tmp_path: Path, files: dict[str, str]) -> Verdict:
    report, bypassed = run_guarded(tmp_path, files)
    claims = [
        f"{path}:{c.line} {c.kind}"
        for path, text in files.items()
        if path.endswith(".py")
        for c in claims_in(path, None, text, Scope())
    ]
    layout = Layout(list(files))
    harness = [f"{p}: {r}" for p in files if (r := harness_reason(p, layout))]
    return Verdict(_all_passed(report), bypassed, claims, harness)


def _all_passed(report: Path) -> bool:
    try:
        cases = list(ET.parse(report).getroot().iter("testcase"))
    except (OSError, ET.ParseError):
        return False
    return bool(cases) and not any(len(case) and _bad(case) for case in cases)


def _bad(case: ET.Element) -> bool:
    return any(child.tag in ("failure", "error", "skipped") for child in case)


def _marked(cases: dict[str, object], through: dict[str, str], raises: type) -> list[object]:
    return [
        pytest.param(
            name,
            id=name,
            marks=[pytest.mark.xfail(strict=True, raises=raises, reason=through[name])]
            if name in through
            else [],
        )
        for name in sorted(cases)
    ]


@pytest.mark.parametrize("form", _marked(VARIANTS, VARIANTS_THROUGH, DefenceFooled))
def test_a_broken_add_made_to_pass_is_named(form: str, tmp_path: Path) -> None:
    verdict = _judge(tmp_path, VARIANTS[form])
    # Every variant works as an attack: the broken add passes (the defence may still name it).
    assert verdict.passed, f"the attack did not make the broken add pass: {verdict}"
    if not verdict.named:
        raise DefenceFooled(f"{form}: {verdict}")


@pytest.mark.parametrize("form", _marked(HONEST, HONEST_FLAGGED, WronglyFlagged))
def test_an_honest_project_is_not_named(form: str, tmp_path: Path) -> None:
    verdict = _judge(tmp_path, HONEST[form])
    assert verdict.passed, verdict
    if verdict.named:
        raise WronglyFlagged(f"{form}: {verdict}")
