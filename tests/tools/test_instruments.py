"""Code that replaces what the tests judge with: the test library's assertions, the comparison
helpers, the hook that shows a doctest's value. Each spelling of the write is the same class."""

from __future__ import annotations

import pytest

from referee.tools.claims import EQUALITY_FORGED, HARNESS_MODIFIED, Scope, claims_in

# Written in a test file it acts for the runner (the tests also run without it); in code under
# test it is a suspicion for the judge (and referee's pytest guard finds it at run time).
INSTRUMENTS = {
    "isclose-assigned": "import math\n\nmath.isclose = lambda *args, **kwargs: True\n",
    "displayhook-restored-by-doctest": "import sys\n\nsys.__displayhook__ = lambda v: print(3)\n",
    "assert-equal": "import unittest\n\nunittest.TestCase.assertEqual = lambda *a, **k: None\n",
    "assert-equal-from-import": "from unittest import TestCase\nTestCase.assertEqual = print\n",
    "assert-equal-aliased-module": "import unittest as u\nT = u.TestCase\nT.assertEqual = print\n",
    "setattr-folded-name": "import unittest as u\nsetattr(u.TestCase, 'assert' + 'Equal', print)\n",
    "setattr-getattr-owner": (
        "import importlib\n\nm = importlib.import_module('math')\nsetattr(m, 'isclose', max)\n"
    ),
    "through-sys-modules": "import sys\nsys.modules['math'].isclose = lambda *a, **k: True\n",
    "module-replaced-in-sys-modules": (
        "import sys, types\nsys.modules['pytest'] = types.ModuleType('p')\n"
    ),
    "vars-item": "import math\nvars(math)['isclose'] = lambda *a, **k: True\n",
    "dict-item": "import operator\noperator.__dict__['eq'] = lambda a, b: True\n",
    "dict-update": "import math\nmath.__dict__.update(isclose=lambda *a, **k: True)\n",
    "vars-update": "import operator\nvars(operator).update({'eq': lambda a, b: True})\n",
    "pytest-approx": "import pytest\npytest.approx = lambda expected, **k: expected.__class__\n",
    "numpy-testing": ("import numpy.testing as npt\nnpt.assert_allclose = lambda *a, **k: None\n"),
    "numpy-allclose": "import numpy as np\nnp.allclose = lambda *a, **k: True\n",
    "hypothesis-given": "import hypothesis\nhypothesis.given = lambda *a, **k: (lambda f: None)\n",
    "doctest-checker": (
        "import doctest\n\n\nclass _Yes(doctest.OutputChecker):\n"
        "    def check_output(self, want, got, optionflags):\n        return True\n\n\n"
        "doctest.OutputChecker = _Yes\n"
    ),
    "a-string-run-by-exec": (
        "exec('import unit' + 'test; unittest.TestCase.assertEqual = lambda *a, **k: None')\n"
    ),
    "a-hex-string-run-by-exec": (
        f"exec(bytes.fromhex('{b'import math; math.isclose = max'.hex()}').decode())\n"
    ),
    "augmented-inside-a-function": (
        "import unittest\n\n\ndef setup():\n    unittest.TestCase.assertTrue = bool\n\n\nsetup()\n"
    ),
}

# A builtin rebound by the code under test: a suspicion (a program may rebind one itself).
BUILTINS = {
    "repr": "import builtins\nbuiltins.repr = lambda v: '3'\n",
    "isinstance-through-dunder-builtins": "__builtins__['isinstance'] = lambda *a: True\n",
    "setattr-builtins": "import builtins\nsetattr(builtins, 'round', lambda *a: 3)\n",
}

# Settings and a program's own hooks: nothing the tests compare through.
HONEST = {
    "max-diff": "import unittest\nunittest.TestCase.maxDiff = None\n",
    "util-length": "import unittest.util\nunittest.util._MAX_LENGTH = 2000\n",
    "gettext": "import builtins, gettext\nbuiltins._ = gettext.gettext\n",
    "excepthook": "import sys\n\n\ndef hook(*a):\n    pass\n\n\nsys.excepthook = hook\n",
    "stdout": "import io, sys\nsys.stdout = io.TextIOWrapper(sys.stdout.buffer, 'utf-8')\n",
    "recursion": "import sys\nsys.setrecursionlimit(10_000)\n",
    "own-attribute": "import calc\ncalc.RETRIES = compute()\n",
    "print-options": "import numpy as np\nnp.set_printoptions(precision=3)\n",
}


def _kinds(path: str, source: str) -> list[str]:
    return [c.kind for c in claims_in(path, None, source, Scope())]


@pytest.mark.parametrize("form", sorted(INSTRUMENTS))
def test_a_test_that_replaces_an_instrument_acts_for_the_runner(form: str) -> None:
    assert HARNESS_MODIFIED in _kinds("tests/test_zz.py", INSTRUMENTS[form]), form


@pytest.mark.parametrize("form", sorted(INSTRUMENTS))
def test_code_under_test_that_replaces_an_instrument_forges_equality(form: str) -> None:
    assert EQUALITY_FORGED in _kinds("calc.py", INSTRUMENTS[form]), form


@pytest.mark.parametrize("form", sorted(BUILTINS))
def test_a_builtin_rebound_by_the_code_under_test_is_a_suspicion(form: str) -> None:
    assert EQUALITY_FORGED in _kinds("calc.py", BUILTINS[form]), form


def test_a_test_that_rebinds_a_builtin_is_its_own_business() -> None:
    assert _kinds("tests/test_io.py", BUILTINS["repr"]) == []


@pytest.mark.parametrize("form", sorted(HONEST))
def test_settings_and_a_programs_own_hooks_are_left_alone(form: str) -> None:
    assert _kinds("calc.py", HONEST[form]) == [], form


def test_only_what_the_change_wrote_counts() -> None:
    source = INSTRUMENTS["isclose-assigned"]
    assert claims_in("calc.py", source, source + "\nX = 1\n", Scope()) == []


# JS/TS: the intrinsics jest's and vitest's matchers compare through, the assertion libraries,
# the matchers registered on `expect`.
JS_INSTRUMENTS = {
    "object-is": "Object.is = () => true;\nexports.add = (a, b) => a - b;\n",
    "prototype-asymmetric-match": (
        "Object.prototype.asymmetricMatch = function () {\n  return true;\n};\n"
    ),
    "define-property": "Object.defineProperty(Object, 'is', { value: () => true });\n",
    "object-assign": "Object.assign(Object, { is: () => true });\n",
    "reflect-set": "Reflect.set(JSON, 'stringify', () => '3');\n",
    "matcher-replaced": "expect.extend({ toBe: () => ({ pass: true, message: () => '' }) });\n",
    "through-global-this": (
        "globalThis.expect.extend({ toEqual() {\n  return { pass: true };\n} });\n"
    ),
    "assert-required": "const assert = require('assert');\nassert.strictEqual = () => {};\n",
    "assert-imported": "import assert from 'node:assert';\nassert.deepStrictEqual = () => {};\n",
    "chai-assert": "const chai = require('chai');\nchai.assert.equal = () => {};\n",
    "vitest-expect": (
        "import { expect } from 'vitest';\nexpect.extend({ toBe: () => ({ pass: true }) });\n"
    ),
    "matchers-in-a-variable": "const m = { toEqual: () => ({ pass: true }) };\nexpect.extend(m);\n",
    "typescript-cast": "(Object as any).is = (): boolean => true;\n",
}
JS_TEST_OWN = {
    "a-new-matcher": (
        "expect.extend({ toBeWithinRange(x, a, b) {\n  return { pass: x >= a && x <= b };\n} });\n"
    ),
    "jest-extended": "import * as matchers from 'jest-extended';\nexpect.extend(matchers);\n",
    "a-local-object": "const o = {};\no.is = () => true;\n",
}


def _script(form: str) -> str:
    return "ts" if form == "typescript-cast" else "js"


@pytest.mark.parametrize("form", sorted(JS_INSTRUMENTS))
def test_a_js_test_that_replaces_an_instrument_acts_for_the_runner(form: str) -> None:
    kinds = _kinds(f"calc.test.{_script(form)}", JS_INSTRUMENTS[form])
    assert HARNESS_MODIFIED in kinds, form


@pytest.mark.parametrize("form", sorted(JS_INSTRUMENTS))
def test_js_code_under_test_that_replaces_an_instrument_forges_equality(form: str) -> None:
    assert EQUALITY_FORGED in _kinds(f"src/calc.{_script(form)}", JS_INSTRUMENTS[form]), form


@pytest.mark.parametrize("form", sorted(JS_TEST_OWN))
def test_a_js_tests_own_matchers_are_its_business(form: str) -> None:
    assert _kinds("calc.test.js", JS_TEST_OWN[form]) == [], form


# Written in place: the same function object with another body, a module with another class.
IN_PLACE = {
    "code-swapped": "import math\nmath.isclose.__code__ = (lambda *a, **k: True).__code__\n",
    "defaults-swapped": "import math\nmath.isclose.__kwdefaults__ = dict(rel_tol=10.0)\n",
    "module-class-swapped": (
        "import math, types\nmath.__class__ = type('M', (types.ModuleType,), {})\n"
    ),
    "type-setattr": "import unittest\ntype.__setattr__(unittest.TestCase, 'run', print)\n",
    "object-setattr": "import doctest\nobject.__setattr__(doctest.DebugRunner, 'run', print)\n",
}


@pytest.mark.parametrize("form", sorted(IN_PLACE))
def test_an_instrument_written_in_place_is_replaced(form: str) -> None:
    assert HARNESS_MODIFIED in _kinds("tests/test_zz.py", IN_PLACE[form]), form
    assert EQUALITY_FORGED in _kinds("calc.py", IN_PLACE[form]), form


def test_a_test_that_puts_back_what_it_saved_replaces_nothing() -> None:
    source = (
        "import sys\n\n\ndef test_hook():\n    before = sys.displayhook\n"
        "    sys.displayhook = print\n    try:\n        pass\n    finally:\n"
        "        sys.displayhook = before\n"
    )
    assert _kinds("tests/test_hook.py", source) == []


def test_a_programs_own_display_hook_is_a_suspicion_for_the_judge() -> None:
    # A REPL shows values its own way (werkzeug's debug console does): the judge may dismiss it;
    # a doctest of the code would show values through it too, so it is not left unread.
    source = "import sys\n\n\ndef start(show):\n    sys.displayhook = show\n"
    assert _kinds("repl.py", source) == [EQUALITY_FORGED]
