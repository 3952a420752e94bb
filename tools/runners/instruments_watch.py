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


class Watch:
    """The instruments as they were at `start`, and the names found replaced since."""

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}
        self.found: list[str] = []

    def start(self) -> None:
        import doctest  # noqa: F401  (imported now, so that its instruments are watched from here)
        import unittest  # noqa: F401

        with contextlib.suppress(Exception):  # the watch is never what breaks a run
            self.seen.update(current())

    def replaced(self) -> list[str]:
        """The instruments replaced since `start` and not reported before."""
        new: list[str] = []
        with contextlib.suppress(Exception):
            for name, value in current().items():
                if name in self.seen and self.seen[name] is not value and name not in self.found:
                    self.found.append(name)
                    new.append(name)
        return new


def current() -> dict[str, Any]:
    """Each instrument of the modules loaded now, by its dotted name."""
    found: dict[str, Any] = {}
    for module_name, names in INSTRUMENTS.items():
        module = sys.modules.get(module_name)
        if module is None:
            continue
        for name in names:
            value: Any = module
            with contextlib.suppress(AttributeError, KeyError):
                for part in name.split("."):
                    value = _static(value, part)
                found[f"{module_name}.{name}"] = value
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
