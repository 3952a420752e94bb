"""What of a test edit runs as the file loads: additive edits and new test files.

An edit that only adds tests, and a new test file that holds only imports, data and tests, spare
the run of the base's tests in their base form. Anything that runs code at load time (a default,
an annotation, a mark's argument, a class body or base, a metaclass, a describe body, a title's
substitution, a setup file, an import of a helper the change added) must not.
"""

from __future__ import annotations

import pytest

from referee.tools.tampering.additive import only_adds_tests
from referee.tools.tampering.inert import inert_new_file

PY_BASE = "import pytest\nfrom calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
FIX = "globals().update(add=lambda a, b: a + b)"

PY_ADDITIVE = {
    "plain": "\n\ndef test_more():\n    assert add(2, 2) == 4\n",
    "typed-fixture": "\n\ndef test_more(tmp_path: Path, x: int | None = None) -> None:\n    pass\n",
    "parametrized": (
        "\n\n@pytest.mark.parametrize('a', [1, 2, pytest.param(3, id='t')])\n"
        "def test_more(a):\n    pass\n"
    ),
    "class": "\n\nclass TestMore:\n    '''More.'''\n\n    def test_x(self):\n        pass\n",
}
PY_ACTING = {
    "default": f"\n\ndef test_more(x={FIX}):\n    pass\n",
    "kw-default": f"\n\ndef test_more(*, x={FIX}):\n    pass\n",
    "annotation": f"\n\ndef test_more(x: {FIX} = None):\n    pass\n",
    "return-annotation": f"\n\ndef test_more() -> {FIX}:\n    pass\n",
    "mark-argument": f"\n\n@pytest.mark.parametrize('x', [{FIX}])\ndef test_more(x):\n    pass\n",
    "walrus": "\n\n@pytest.mark.parametrize('x', [(add := 1)])\ndef test_more(x):\n    pass\n",
    "lambda-in-mark": (
        "\n\n@pytest.mark.parametrize('x', [lambda: 1])\ndef test_more(x):\n    pass\n"
    ),
    "comprehension": (
        "\n\n@pytest.mark.parametrize('x', [i for i in range(2)])\ndef test_more(x):\n    pass\n"
    ),
    "class-body": f"\n\nclass TestMore:\n    {FIX}\n\n    def test_x(self):\n        pass\n",
    "class-base": f"\n\nclass TestMore(({FIX}, object)[1]):\n    def test_x(self):\n        pass\n",
    "metaclass": "\n\nclass TestMore(metaclass=Meta):\n    def test_x(self):\n        pass\n",
    "method-default": f"\n\nclass TestMore:\n    def test_x(self, y={FIX}):\n        pass\n",
    "f-string-mark": (
        "\n\n@pytest.mark.parametrize('x', [f'{add.__code__}'])\ndef test_more(x):\n    pass\n"
    ),
    "skip-mark": "\n\n@pytest.mark.skipif(True, reason='x')\ndef test_more():\n    pass\n",
    "other-decorator": "\n\n@functools.lru_cache\ndef test_more():\n    pass\n",
}


@pytest.mark.parametrize("form", sorted(PY_ADDITIVE))
def test_python_additions_of_plain_tests_are_additive(form: str) -> None:
    assert only_adds_tests("tests/test_calc.py", PY_BASE, PY_BASE + PY_ADDITIVE[form])


@pytest.mark.parametrize("form", sorted(PY_ACTING))
def test_python_additions_that_run_code_at_import_are_not(form: str) -> None:
    assert not only_adds_tests("tests/test_calc.py", PY_BASE, PY_BASE + PY_ACTING[form])


JS_BASE = "const calc = require('../src/calc');\n\ntest('adds', () => {\n  calc.add(1, 2);\n});\n"
JS_FIX = "(calc.add = (a, b) => a + b)"
JS_ADDITIVE = {
    "test": "test('more', () => {});\n",
    "it-function": "it('more', function () {});\n",
    "template-title": "test(`more`, async () => {});\n",
    "describe-of-tests": (
        "describe('more', () => {\n  it('x', () => {});\n  test('y', () => {});\n});\n"
    ),
}
JS_ACTING = {
    "describe-body": f"describe('more', () => {{\n  {JS_FIX};\n  test('x', () => {{}});\n}});\n",
    "describe-expression-body": f"describe('more', () => {JS_FIX});\n",
    "second-argument": f"test('more', ({JS_FIX}, () => {{}}));\n",
    "template-substitution": f"test(`more ${{{JS_FIX}.name}}`, () => {{}});\n",
    "options-argument": f"test('more', {{ skip: !{JS_FIX} }}, () => {{}});\n",
    "computed-title": f"test(String({JS_FIX}), () => {{}});\n",
    "test-skip": "test.skip('more', () => {});\n",
    "describe-each": "describe.each([[1]])('more %i', () => {});\n",
    "statement": f"{JS_FIX};\n",
    "nested-describe-body": (
        f"describe('a', () => {{\n  describe('b', () => {{\n    {JS_FIX};\n  }});\n}});\n"
    ),
}


@pytest.mark.parametrize("form", sorted(JS_ADDITIVE))
def test_script_additions_of_plain_tests_are_additive(form: str) -> None:
    assert only_adds_tests("test/calc.test.js", JS_BASE, JS_BASE + JS_ADDITIVE[form])


@pytest.mark.parametrize("form", sorted(JS_ACTING))
def test_script_additions_that_run_code_while_collecting_are_not(form: str) -> None:
    assert not only_adds_tests("test/calc.test.js", JS_BASE, JS_BASE + JS_ACTING[form])


JS_GROUP = "describe('calc', () => {\n  it('adds', () => {\n    calc.add(1, 2);\n  });\n});\n"
JS_GROUP_GROWN = {
    "an it": JS_GROUP.replace("\n});\n", "\n  it('more', () => {});\n});\n"),
    "a nested group of tests": JS_GROUP.replace(
        "\n});\n", "\n  describe('more', () => {\n    test('x', () => {});\n  });\n});\n"
    ),
}
JS_GROUP_ACTING = {
    "a hook": JS_GROUP.replace("\n});\n", "\n  beforeEach(() => {});\n});\n"),
    "a statement": JS_GROUP.replace("\n});\n", f"\n  {JS_FIX};\n}});\n"),
    "a renamed group": JS_GROUP.replace("describe('calc'", "describe('calculator'")
    + "it('more', () => {});\n",
    "an edited base test": JS_GROUP.replace("add(1, 2)", "add(2, 2)").replace(
        "\n});\n", "\n  it('more', () => {});\n});\n"
    ),
    "a skipped group": JS_GROUP.replace("describe(", "describe.skip("),
}


@pytest.mark.parametrize("form", sorted(JS_GROUP_GROWN))
def test_a_group_that_only_gained_tests_is_additive(form: str) -> None:
    assert only_adds_tests("test/calc.test.js", JS_GROUP, JS_GROUP_GROWN[form])


@pytest.mark.parametrize("form", sorted(JS_GROUP_ACTING))
def test_a_group_that_changed_otherwise_is_not(form: str) -> None:
    assert not only_adds_tests("test/calc.test.js", JS_GROUP, JS_GROUP_ACTING[form])


NEW_INERT = {
    "tests/test_more.py": (
        '"""More."""\nimport pytest\nfrom calc import add\n\nCASES = [(1, 2, 3)]\n\n\n'
        "@pytest.mark.parametrize('a, b, total', CASES)\ndef test_more(a, b, total):\n"
        "    assert add(a, b) == total\n"
    ),
    "test/more.test.js": (
        "const calc = require('../src/calc');\nimport { test } from 'vitest';\n\n"
        "test('more', () => {\n  calc.add(1, 2);\n});\n"
    ),
    "tests/__init__.py": "",
}
NEW_ACTING = {
    "tests/test_more.py": "import calc\n\ncalc.add = lambda a, b: a + b\n",
    "tests/test_setattr.py": "import calc\nsetattr(calc, 'add', sum)\n\ndef test_x():\n    pass\n",
    "tests/__init__.py": "import calc\n\ncalc.add = lambda a, b: a + b\n",
    "tests/conftest.py": "import pytest\n",
    "tests/test_helper_import.py": "from fixup import patched\n\ndef test_x():\n    pass\n",
    "tests/test_call.py": "import calc\n\nCASES = calc.patch()\n\ndef test_x():\n    pass\n",
    "test/more.test.js": "const calc = require('../src/calc');\ncalc.add = (a, b) => a + b;\n",
    "test/helper.test.js": "const fix = require('./fixup');\n\ntest('x', () => {});\n",
    "test/setup.test.ts": "import '../src/calc';\nbeforeAll(() => {});\n",
    "calc_more_test.go": "package calc\n\nfunc init() {}\n",
}


@pytest.mark.parametrize("path", sorted(NEW_INERT))
def test_new_test_files_of_imports_data_and_tests_are_inert(path: str) -> None:
    assert inert_new_file(path, NEW_INERT[path], added=[path])


@pytest.mark.parametrize("path", sorted(NEW_ACTING))
def test_new_test_files_that_act_at_load_time_are_not(path: str) -> None:
    added = [path, "fixup.py", "test/fixup.js"]
    assert not inert_new_file(path, NEW_ACTING[path], added=added)


PATH_SETUP = {
    "os-path": (
        "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))\n"
        "from calc import add\n\n\ndef test_x():\n    assert add(1, 2) == 3\n"
    ),
    "pathlib": (
        "import sys\nfrom pathlib import Path\nROOT = Path(__file__).resolve().parents[1]\n"
        "sys.path.insert(0, str(ROOT / 'src'))\nfrom calc import add\n\n\ndef test_x():\n    pass\n"
    ),
    "append-abspath": (
        "import os.path\nimport sys\nsys.path.append(os.path.abspath(os.path.dirname(__file__)))\n"
    ),
}
PATH_ACTING = {
    "call-into-the-code": "import sys, calc\nsys.path.insert(0, calc.patch())\n",
    "os-system": "import os, sys\nsys.path.insert(0, os.system('x'))\n",
    "path-from-the-code": (
        "import sys\nfrom calc import Path\nsys.path.insert(0, str(Path(__file__)))\n"
    ),
    "os-rebound": (
        "import os, sys\nos = __import__('calc')\nsys.path.insert(0, os.path.join('a'))\n"
    ),
    "str-rebound": "import sys\nstr = print\nsys.path.insert(0, str('x'))\n",
    "os-imported-from-the-code": (
        "import os, sys\nfrom calc import os\nsys.path.insert(0, os.path.join('a'))\n"
    ),
    "lambda": "import sys\nsys.path.insert(0, (lambda: 1)())\n",
    "sys-modules": "import sys\nimport os.path\nsys.modules['calc'] = os.path.join('x')\n",
    "keyword": "import os, sys\nsys.path.insert(0, os.path.join('a', strict=print()))\n",
    "unimported-os": "import sys\nsys.path.insert(0, os.path.join('a'))\n",
}


@pytest.mark.parametrize("form", sorted(PATH_SETUP))
def test_a_new_test_file_may_put_its_own_folders_on_sys_path(form: str) -> None:
    assert inert_new_file("tests/test_more.py", PATH_SETUP[form], added=[])


@pytest.mark.parametrize("form", sorted(PATH_ACTING))
def test_code_dressed_as_sys_path_set_up_is_not_inert(form: str) -> None:
    assert not inert_new_file("tests/test_more.py", PATH_ACTING[form], added=[])
