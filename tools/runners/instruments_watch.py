"""What the tests judge with, and a watch that says when any of it was replaced in the process.

A test's verdict is made by its instruments: the test library's assertions, the comparison
helpers it calls, the hook doctest shows values through. Code that replaces one decides every
comparison made through it. referee's in-process helpers (the pytest guard, the unittest
reporter) take a snapshot once the runner is set up and compare identities afterwards: a
replacement, however spelled (`exec`, `setattr` on a computed name, `sys.modules`), leaves a
different object in place. One put back before the check is not seen.

Copied beside those helpers as `referee_instruments.py` and run on the project's interpreter
(Python 3.8+): standard library only.
"""

from __future__ import annotations

import contextlib
import sys
from types import FunctionType
from typing import Any

__all__ = ["INSTRUMENTS", "Watch"]

# Only names a project's own code has no reason to leave replaced: a test may patch
# `builtins.open` or `print` for itself (and the fixture puts it back).
INSTRUMENTS: dict[str, tuple[str, ...]] = {
    "math": ("isclose",),
    "cmath": ("isclose",),
    "operator": ("eq", "ne", "lt", "le", "gt", "ge", "is_", "is_not", "contains", "truth"),
    "builtins": ("repr", "isinstance", "issubclass", "abs", "round", "sorted", "len", "hash"),
    # doctest shows each example's value through `sys.__displayhook__` (IPython's shell replaces
    # `sys.displayhook` itself, and doctest puts that one back after each docstring).
    "sys": ("__displayhook__",),
    "doctest": ("OutputChecker", "DocTestRunner", "OutputChecker.check_output"),
    "unittest": ("TestCase", "case.TestCase._baseAssertEqual", "TestResult", "TextTestResult"),
    "pytest": ("approx", "raises", "fail", "warns", "skip", "xfail", "importorskip"),
    "_pytest.outcomes": ("fail", "skip", "xfail", "exit", "Failed", "Skipped"),
    "_pytest.python_api": ("approx",),
    "_pytest.reports": ("TestReport", "BaseReport", "TestReport.from_item_and_call"),
    "_pytest.runner": ("call_and_report", "runtestprotocol", "call_runtest_hook"),
}
# Methods of these classes are instruments by their names.
_METHODS: dict[str, tuple[str, ...]] = {
    "unittest.TestCase": ("assert", "fail", "_base", "_getAssert"),
    "unittest.TestResult": ("add", "wasSuccessful", "stop"),
}


# The runners' own code: every function and class of these modules (each class's own attributes
# too) makes verdicts, and nothing of a project's has a reason to leave one replaced.
_MACHINERY = ("pytest", "_pytest", "unittest", "doctest")
_NOT_MACHINERY = ("unittest.mock",)  # mocks make classes of their own as they are used
_PLAIN = (int, float, str, bytes, bool, type(None))
_CODE = (FunctionType, classmethod, staticmethod, property)


class Watch:
    """The instruments as they were first seen, and the names found replaced since."""

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}
        self.found: list[str] = []

    def start(self) -> None:
        import doctest  # noqa: F401  (imported now, so that its instruments are watched from here)
        import unittest  # noqa: F401

        with contextlib.suppress(Exception):  # the watch is never what breaks a run
            self.seen.update(current())
            self.seen.update(machinery())

    def replaced(self, deep: bool = False) -> list[str]:
        """The instruments replaced since first seen and not reported before; `deep` looks at the
        runners' whole machinery too (a module loaded since is first seen now)."""
        new: list[str] = []
        with contextlib.suppress(Exception):
            now = {**current(), **machinery()} if deep else current()
            for name, value in now.items():
                if name not in self.seen:
                    self.seen[name] = value
                elif not _same(self.seen[name], value) and name not in self.found:
                    self.found.append(name)
                    new.append(name)
        return new


def _same(before: Any, now: Any) -> bool:
    """Identity, or equal plain values (a tolerance, a class's names): never an object's own
    `__eq__`, which a replacement would write."""
    if before is now:
        return True
    kind = type(before)
    if kind is not type(now):
        return False
    if kind in _PLAIN:
        return bool(before == now)
    if kind is tuple:
        return all(type(v) is str for v in (*before, *now)) and bool(before == now)
    return False


def machinery() -> dict[str, Any]:
    """Every function and class the runners' modules define, with each function's code and each
    class's own attributes (and the names it has)."""
    found: dict[str, Any] = {}
    for module_name, module in list(sys.modules.items()):
        if module is None or not module_name.startswith(_MACHINERY):
            continue
        if module_name.split(".")[0] not in _MACHINERY or module_name.startswith(_NOT_MACHINERY):
            continue
        found[f"{module_name}.__class__"] = type(module)
        for attr, value in list(vars(module).items()):
            where = f"{module_name}.{attr}"
            if isinstance(value, type) and getattr(value, "__module__", None) == module_name:
                _class(found, where, value)
            elif isinstance(value, FunctionType):
                found[where] = value
                found[f"{where}.__code__"] = value.__code__
    return found


def _class(found: dict[str, Any], where: str, cls: type) -> None:
    found[where] = cls
    own = dict(vars(cls))
    # The methods it has: one added (an inherited `runtest` overridden) changes what it does;
    # runners set plain values on their classes as they go.
    methods = (k for k, v in own.items() if isinstance(v, _CODE) and isinstance(k, str))
    found[f"{where}.__methods__"] = tuple(sorted(methods))
    for attr, value in own.items():
        if attr in ("__dict__", "__weakref__", "__doc__") or not isinstance(attr, str):
            continue
        found[f"{where}.{attr}"] = value
        function = getattr(value, "__func__", value)  # a classmethod's or staticmethod's
        if isinstance(function, FunctionType):
            found[f"{where}.{attr}.__code__"] = function.__code__
        elif isinstance(value, property):
            for part in ("fget", "fset"):
                accessor = getattr(value, part)
                if isinstance(accessor, FunctionType):
                    found[f"{where}.{attr}.{part}.__code__"] = accessor.__code__


def current() -> dict[str, Any]:
    """Each instrument of the modules loaded now, by its dotted name."""
    found: dict[str, Any] = {}
    for module_name, names in INSTRUMENTS.items():
        module = sys.modules.get(module_name)
        if module is None:
            continue
        found[f"{module_name}.__class__"] = type(module)
        for name in names:
            value: Any = module
            with contextlib.suppress(AttributeError, KeyError):
                for part in name.split("."):
                    value = _static(value, part)
                found[f"{module_name}.{name}"] = value
                if isinstance(value, FunctionType):
                    found[f"{module_name}.{name}.__code__"] = value.__code__
    for owner_name, prefixes in _METHODS.items():
        module_name, _, class_name = owner_name.rpartition(".")
        owner = getattr(sys.modules.get(module_name), class_name, None)
        for attr in vars(owner) if isinstance(owner, type) else ():
            if attr.startswith(prefixes):
                found[f"{owner_name}.{attr}"] = vars(owner)[attr]
    return found


def _static(owner: Any, name: str) -> Any:
    """The attribute as stored (a class's own dict first): no descriptor or `__getattr__` runs."""
    if isinstance(owner, type):
        for klass in owner.__mro__:
            if name in vars(klass):
                return vars(klass)[name]
        raise AttributeError(name)
    return vars(owner)[name] if name in getattr(owner, "__dict__", {}) else getattr(owner, name)
