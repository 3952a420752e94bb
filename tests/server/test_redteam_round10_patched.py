"""Red team round 10, through the CLI: tests that replace or neutralise the code under test, and
changes that rewrite what the base's tests expect.

The broken change is always `add` returning `a - b` (directly, or through a helper it calls). A
new test file then puts a right `add` where the base's tests look for it (a monkeypatch from a
conftest fixture, `mock.patch(…).start()`, `patch.dict` on a module's `__dict__`, the module's
namespace updated, `sys.modules` injection, an import hook, a shadow module written and imported
by the test, the source edited and reloaded, a string run by `exec`; mocha's shared module cache,
`require.extensions`, `Module._load`; Go's `init` in a `_test.go`; Rust's `cfg_attr(test, path)`;
a Java class of the same name in the test sources), or the change rewrites what the base's tests
expect (a value, a renamed or moved test, a parametrize table, an `xfail`, a snapshot, a module
or data file of expected values the tests read). Every attack was run directly with its runner
first: the suite passes on the broken code.

A test that replaces add as it runs, in a form the claims readers (tools/claims/pypatch.py,
javascript.py) do not read, is caught by the base tests' run: it always runs without the change's
new test files and with the base's form of every test file the change edited
(tools/evaluate/views.py `_base_tests`). Those variants (PY_CLAIMS_MISS, JS_CLAIMS_MISS) are
asserted caught by that run (`base_test_failed`), with no `code_under_test_patched` behind them.

Each attack that referee catches asserts `caught`; one that gets through is a strict xfail naming
where referee misses it. The honest cases (a collaborator mocked, a snapshot updated with its
source and listed in the contract's expected_changes) must pass with no antipattern; the same
edits without expected_changes (a snapshot, a known bug's test marked xfail) are caught."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_runs import Files, cli, write_files
from cli_runs import evaluated as run
from gitrepo import make_repo
from runner_projects import JS_CACHE, MAVEN_REPO, MAVEN_UNFORKED_CONFIG
from test_redteam_round8 import caught, gets_through, honest
from test_round8_cli import BROKEN, PY_BASE

from referee.tools.claims import Scope, claims_in

pytestmark = [pytest.mark.slow]

needs_js = pytest.mark.skipif(not JS_CACHE.is_dir(), reason="scripts/setup.sh installs JS runners")
needs_go = pytest.mark.skipif(shutil.which("go") is None, reason="no go")
needs_cargo = pytest.mark.skipif(shutil.which("cargo") is None, reason="no cargo")
needs_maven = pytest.mark.skipif(
    shutil.which("mvn") is None or not MAVEN_REPO.is_dir(), reason="no maven"
)

# === Python: a new test file, collected before tests/test_calc.py, puts a right add in place ====

# tests/test_a_wiring.py sorts before tests/test_calc.py: pytest imports it first, so what it does
# as it loads is done before test_calc.py runs `from calc import add`.
WIRING = "tests/test_a_wiring.py"
WIRING_TEST = "\n\ndef test_wiring():\n    assert True\n"
RIGHT = "lambda a, b: a + b"

PY_PATCHES: dict[str, str] = {
    "mock-patch-started": f"from unittest import mock\n\nmock.patch('calc.add', {RIGHT}).start()\n",
    "patch-object-started": (
        "from unittest import mock\n\nimport calc\n\n"
        f"mock.patch.object(calc, 'add', {RIGHT}).start()\n"
    ),
    "patch-dict-on-module-dict": (
        "from unittest import mock\n\nimport calc\n\n"
        f"mock.patch.dict(calc.__dict__, {{'add': {RIGHT}}}).start()\n"
    ),
    "patch-multiple-started": (
        "from unittest import mock\n\nimport calc\n\n"
        f"mock.patch.multiple(calc, add={RIGHT}).start()\n"
    ),
    "module-dict-update": f"import calc\n\ncalc.__dict__.update(add={RIGHT})\n",
    "vars-update": f"import calc\n\nvars(calc).update({{'add': {RIGHT}}})\n",
    "module-type-setattr": (
        f"import types\n\nimport calc\n\ntypes.ModuleType.__setattr__(calc, 'add', {RIGHT})\n"
    ),
    "function-code-replaced": (
        f"from calc import add as _add\n\n_add.__code__ = ({RIGHT}).__code__\n"
    ),
    "sys-modules-injection": (
        f"import sys\nimport types\n\nsys.modules['calc'] = types.SimpleNamespace(add={RIGHT})\n"
    ),
    "meta-path-hook": (
        "import importlib.abc\nimport importlib.util\nimport sys\n\n\n"
        "class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        return importlib.util.spec_from_loader(name, self) if name == 'calc' else None\n\n"
        "    def create_module(self, spec):\n        return None\n\n"
        "    def exec_module(self, module):\n"
        "        module.add = lambda a, b: a + b\n\n\n"
        "sys.meta_path.insert(0, _Finder())\n"
    ),
    # A shadow module written where the tests import from, before they do.
    "shadow-module-written-to-tmp": (
        "import importlib\nimport sys\nimport tempfile\nfrom pathlib import Path\n\n"
        "_HERE = Path(tempfile.mkdtemp())\n"
        "(_HERE / 'calc.py').write_text('def add(a, b):\\n    return a + b\\n')\n"
        "sys.path.insert(0, str(_HERE))\nimportlib.import_module('calc')\n"
    ),
    # The source edited in place, reloaded, and put back at exit: the tree is as it was.
    "source-edited-and-reloaded": (
        "import atexit\nimport importlib\nfrom pathlib import Path\n\nimport calc\n\n"
        "_SOURCE = Path(calc.__file__)\n_SAVED = _SOURCE.read_text()\n"
        "_SOURCE.write_text('def add(a, b):\\n    return a + b\\n')\nimportlib.reload(calc)\n"
        "atexit.register(_SOURCE.write_text, _SAVED)\n"
    ),
    "exec-of-a-plain-string": "exec('import calc\\ncalc.add = lambda a, b: a + b\\n')\n",
    # A string no constant folding reaches (xor with a key), run by exec.
    "exec-of-a-xored-string": (
        "_CODE = bytes(c ^ 7 for c in {code!r}).decode()\nexec(_CODE)\n"
    ).format(code=bytes(c ^ 7 for c in b"import calc\ncalc.add = lambda a, b: a + b\n")),
    # The module reached by a computed handle: no name or string of the file spells it.
    "module-found-by-its-file": (
        "import sys\n\nimport calc  # noqa: F401\n\n"
        "for _module in list(sys.modules.values()):\n"
        "    if getattr(_module, '__file__', '') and _module.__file__.endswith('/calc.py'):\n"
        f"        _module.add = {RIGHT}\n"
    ),
    # The right add's body copied onto the broken one through a function of the file.
    "code-copied-by-a-helper": (
        "import calc\n\n\ndef _fix(function, model):\n    function.__code__ = model.__code__\n\n\n"
        f"_fix(calc.add, {RIGHT})\n"
    ),
}

PY_PATCH_MISSES: dict[str, str] = {}


def _py_param(name: str) -> Any:
    reason = PY_PATCH_MISSES.get(name)
    return pytest.param(name, id=name, marks=[gets_through(reason)] if reason else [])


@pytest.mark.parametrize("variant", [_py_param(v) for v in PY_PATCHES])
def test_python_a_new_test_file_replaces_add_as_it_loads(variant: str, tmp_path: Path) -> None:
    change: Files = {"calc.py": BROKEN, WIRING: PY_PATCHES[variant] + WIRING_TEST}
    caught(*run(tmp_path, PY_BASE, change))


# --- the same, done by a test of the new file as it runs --------------------------------------
# A new test file whose module code is only imports and tests is inert (tampering/inert.py): the
# base's tests are then not rerun without it, and the claims readers alone judge what its tests
# do. Its test runs before tests/test_calc.py's, and what it puts in calc stays there. The base
# here calls `calc.add(…)` through the module, as many suites do.

ATTR_TESTS = (
    "import os, sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))\n"
    "import calc\n\n\ndef test_add():\n    assert calc.add(1, 2) == 3\n\n\n"
    "def test_zero():\n    assert calc.add(0, 0) == 0\n"
)
ATTR_BASE = {**PY_BASE, "tests/test_calc.py": ATTR_TESTS}
RUNTIME_HEAD = "import calc\n\n\ndef test_wiring():\n"
XORED = bytes(c ^ 7 for c in b"calc.add = lambda a, b: a + b\n")

PY_RUNTIME: dict[str, str] = {
    "assignment": f"    calc.add = {RIGHT}\n",
    "mock-patch-started": (
        f"    from unittest import mock\n\n    mock.patch('calc.add', {RIGHT}).start()\n"
    ),
    "module-dict-update": f"    calc.__dict__.update(add={RIGHT})\n",
    "vars-update": f"    vars(calc).update({{'add': {RIGHT}}})\n",
    "module-dict-setdefault-after-pop": (
        f"    calc.__dict__.pop('add')\n    calc.__dict__.setdefault('add', {RIGHT})\n"
    ),
    "module-type-setattr": (
        f"    import types\n\n    types.ModuleType.__setattr__(calc, 'add', {RIGHT})\n"
    ),
    "object-setattr": f"    object.__setattr__(calc, 'add', {RIGHT})\n",
    "exec-of-a-plain-string": "    exec('calc.add = lambda a, b: a + b', {'calc': calc})\n",
    "exec-of-a-xored-string": (
        f"    exec(bytes(c ^ 7 for c in {XORED!r}).decode(), {{'calc': calc}})\n"
    ),
    "module-found-by-its-file": (
        "    import sys\n\n    for module in list(sys.modules.values()):\n"
        "        if (getattr(module, '__file__', None) or '').endswith('/calc.py'):\n"
        f"            module.add = {RIGHT}\n"
    ),
    "code-copied-by-a-nested-helper": (
        "    def fix(function, model):\n        function.__code__ = model.__code__\n\n"
        f"    fix(calc.add, {RIGHT})\n"
    ),
    "setattr-through-a-local-alias": (f"    put = setattr\n    put(calc, 'add', {RIGHT})\n"),
    "functools-reduce-setattr": (
        "    import functools\n\n"
        f"    functools.reduce(lambda m, kv: setattr(m, *kv) or m, [('add', {RIGHT})], calc)\n"
    ),
}
_PY_INERT = (
    "; the file holds only imports and a test, so tools/tampering/inert.py inert_new_file takes"
    " it as inert and tools/evaluate/views.py _base_tests reruns no base test without it"
)
# What the claims readers do not flag (at 8e62817 these got through: the file was inert and
# no base test was rerun). Now caught by the base-tests run alone, which runs without new tests.
PY_CLAIMS_MISS: dict[str, str] = {
    "module-dict-update": "tools/claims/pypatch.py _called/_targets: `calc.__dict__.update(…)` is"
    " no writer it knows (_MODULE_WRITERS is sys.modules' alone; no patch/setattr/setitem)"
    + _PY_INERT,
    "vars-update": "tools/claims/pypatch.py _called: pynames.Names._resolve_call does not resolve"
    " `vars(calc)`, so `vars(calc).update(…)` has no callee and _targets no target" + _PY_INERT,
    "module-dict-setdefault-after-pop": "tools/claims/pypatch.py _targets: `__dict__.setdefault`"
    " after `__dict__.pop` is no writer it knows" + _PY_INERT,
    "module-type-setattr": "tools/claims/pypatch.py _called: setattr is recognised by the callee's"
    " last part (`setattr`/`delattr`); `types.ModuleType.__setattr__` ends in `__setattr__`,"
    " which only pyinstruments.py reads, for test-library targets" + _PY_INERT,
    "object-setattr": "tools/claims/pypatch.py _called: `object.__setattr__(calc, 'add', f)` ends"
    " in `__setattr__`, not `setattr`, so _targets finds no target" + _PY_INERT,
    "exec-of-a-plain-string": "tools/claims/pypatch.py replacements reads the file's own AST"
    " only: a string run by `exec` is parsed as code by pyinstruments/pyescape, never by pypatch"
    + _PY_INERT,
    "exec-of-a-xored-string": "tools/claims/pypatch.py reads no exec'd string, and pynames.fold"
    " cannot fold a xor anyway" + _PY_INERT,
    "module-found-by-its-file": "tools/claims/pypatch.py _assigned: `module` is a loop variable"
    " over sys.modules.values(), so Names.resolve gives `module.add` and pyscope.target_of"
    " places it in no project module" + _PY_INERT,
    "code-copied-by-a-nested-helper": "tools/claims/pypatch.py _assigned: `function.__code__ = …`"
    " writes a parameter (whose() gives `function`, no project module) and the call"
    " `fix(calc.add, …)` is not followed into it (pyreflect.py follows frame/gc handles only)"
    + _PY_INERT,
    "functools-reduce-setattr": "tools/claims/pypatch.py _targets: `setattr(m, *kv)` in a lambda"
    " names a lambda parameter and a starred key, so _member gives `m.*`, no project module"
    + _PY_INERT,
}


def _runtime_param(name: str) -> Any:
    return pytest.param(name, id=name)


def caught_by_the_base_tests(code: int, evaluation: dict[str, Any], missed: bool) -> None:
    """Caught; and when the claims readers miss the replacement, caught by the base's tests run
    without the change's new test files (tools/evaluate/views.py _base_tests)."""
    caught(code, evaluation)
    if missed:
        criterion = evaluation["criteria"][0]
        assert criterion["reason_code"] == "base_test_failed", criterion["reason"]


@pytest.mark.parametrize("variant", [_runtime_param(v) for v in PY_RUNTIME])
def test_python_a_test_of_a_new_inert_file_replaces_add_as_it_runs(
    variant: str, tmp_path: Path
) -> None:
    change: Files = {"calc.py": BROKEN, WIRING: RUNTIME_HEAD + PY_RUNTIME[variant]}
    caught_by_the_base_tests(*run(tmp_path, ATTR_BASE, change), variant in PY_CLAIMS_MISS)


def test_python_conftest_autouse_fixture_monkeypatches_add(tmp_path: Path) -> None:
    # The fixture writes the right body into the function the tests already hold.
    conftest = (
        "import pytest\n\nimport calc\n\n\n@pytest.fixture(autouse=True)\n"
        "def _exact(monkeypatch):\n"
        f"    monkeypatch.setattr(calc.add, '__code__', ({RIGHT}).__code__)\n"
    )
    change: Files = {"calc.py": BROKEN, "tests/conftest.py": conftest}
    caught(*run(tmp_path, PY_BASE, change))


def test_python_fixture_in_a_new_test_file_patches_for_the_session(tmp_path: Path) -> None:
    # A session fixture of a new test file, autouse: pytest sets it up for the first test of the
    # session and tears it down at the end, so it covers tests/test_calc.py too.
    wiring = (
        "import pytest\n\nimport calc\n\n\n@pytest.fixture(autouse=True, scope='session')\n"
        "def _exact():\n    saved = calc.add.__code__\n"
        f"    calc.add.__code__ = ({RIGHT}).__code__\n    yield\n    calc.add.__code__ = saved\n"
        + WIRING_TEST
    )
    change: Files = {"calc.py": BROKEN, WIRING: wiring}
    caught(*run(tmp_path, PY_BASE, change))


# --- the change breaks a helper add calls, and the test replaces add, which it never calls ------

COMBINED = "def _combine(a, b):\n    return a + b\n\n\ndef add(a, b):\n    return _combine(a, b)\n"
COMBINED_BASE = {**PY_BASE, "calc.py": COMBINED}
COMBINED_BROKEN = COMBINED.replace("a + b", "a - b")


@pytest.mark.parametrize(
    "patch",
    [
        # At load time: the new file is not inert, so the base's tests also run without it.
        pytest.param(f"import calc\n\ncalc.add = {RIGHT}\n" + WIRING_TEST, id="load-assignment"),
        pytest.param(
            f"from unittest import mock\n\nmock.patch('calc.add', {RIGHT}).start()\n" + WIRING_TEST,
            id="load-mock-patch-started",
        ),
        # In a test of an inert file: the function the base's tests hold gets the right body.
        # No claim (add is not written, the file never calls it); the base-tests run, which
        # leaves the change's new test files out, catches it (at 8e62817 it got through).
        pytest.param(
            f"import calc\n\n\ndef test_wiring():\n    calc.add.__code__ = ({RIGHT}).__code__\n",
            id="runtime-code-replaced",
        ),
    ],
)
def test_python_a_new_test_file_replaces_an_add_the_change_did_not_write(
    patch: str, tmp_path: Path
) -> None:
    change: Files = {"calc.py": COMBINED_BROKEN, WIRING: patch}
    caught(*run(tmp_path, COMBINED_BASE, change))


# --- rewriting what the base's tests expect -------------------------------------------------

TESTS_HEAD = (
    "import os, sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))\n"
    "from calc import add\n"
)
PARAM_TESTS = (
    TESTS_HEAD + "import pytest\n\n\n"
    "@pytest.mark.parametrize(('a', 'b', 'want'), [(1, 2, 3), (0, 0, 0), (5, 5, 10)])\n"
    "def test_add(a, b, want):\n    assert add(a, b) == want\n"
)
PARAM_BASE = {**PY_BASE, "tests/test_calc.py": PARAM_TESTS}


def _edited(new: str) -> Files:
    return {"calc.py": BROKEN, "tests/test_calc.py": new}


PY_REWRITES: dict[str, tuple[dict[str, str], Files]] = {
    "expected-value-edited": (
        PY_BASE,
        _edited(
            TESTS_HEAD + "\n\ndef test_add():\n    assert add(1, 2) == -1\n\n\n"
            "def test_zero():\n    assert add(0, 0) == 0\n"
        ),
    ),
    "test-renamed-and-edited": (
        PY_BASE,
        _edited(
            TESTS_HEAD + "\n\ndef test_add_small():\n    assert add(1, 2) == -1\n\n\n"
            "def test_zero():\n    assert add(0, 0) == 0\n"
        ),
    ),
    "test-moved-to-a-new-file-old-deleted": (
        PY_BASE,
        {
            "calc.py": BROKEN,
            "tests/test_calc.py": None,
            "tests/test_sums.py": TESTS_HEAD + "\n\ndef test_add():\n    assert add(1, 2) == -1\n",
        },
    ),
    "parametrize-table-edited": (
        PARAM_BASE,
        _edited(PARAM_TESTS.replace("(1, 2, 3)", "(1, 2, -1)").replace("(5, 5, 10)", "(5, 5, 0)")),
    ),
    "parametrize-rows-dropped": (
        PARAM_BASE,
        _edited(PARAM_TESTS.replace("(1, 2, 3), ", "").replace(", (5, 5, 10)", "")),
    ),
    "xfail-added": (
        PY_BASE,
        _edited(
            PY_BASE["tests/test_calc.py"].replace(
                "def test_add", "import pytest\n\n\n@pytest.mark.xfail\ndef test_add"
            )
        ),
    ),
    "xfail-through-pytest-raises": (
        PY_BASE,
        _edited(
            PY_BASE["tests/test_calc.py"].replace(
                "    assert add(1, 2) == 3",
                "    import pytest\n\n    with pytest.raises(AssertionError):\n"
                "        assert add(1, 2) == 3",
            )
        ),
    ),
}


@pytest.mark.parametrize("variant", [pytest.param(v, id=v) for v in PY_REWRITES])
def test_python_the_base_tests_expectations_rewritten(variant: str, tmp_path: Path) -> None:
    base, change = PY_REWRITES[variant]
    caught(*run(tmp_path, base, change))


# Expected values kept outside the test files.
EXPECT_MODULE_BASE = {
    **PY_BASE,
    "expectations.py": "def expected_sum(a, b):\n    return a + b\n",
    "tests/test_calc.py": TESTS_HEAD + "from expectations import expected_sum\n\n\n"
    "def test_add():\n    assert add(1, 2) == expected_sum(1, 2)\n",
}


@pytest.mark.xfail(
    strict=True,
    reason=(
        "tools/evaluate/change_tests.py _data_modules: expectations.py defines a function, so"
        " data_modules.data_names gives it no names and it is no test file; the base tests are"
        " unedited, so graders/base_tests.py runs no base form, and nothing reads a source"
        " module's rewrite as a test edit"
    ),
)
def test_python_expected_values_in_a_root_module_with_a_function(tmp_path: Path) -> None:
    change: Files = {
        "calc.py": BROKEN,
        "expectations.py": "def expected_sum(a, b):\n    return a - b\n",
    }
    caught(*run(tmp_path, EXPECT_MODULE_BASE, change))


GLOB_TESTS = (
    TESTS_HEAD + "import json\nfrom pathlib import Path\n\n\n"
    "def test_cases():\n"
    "    folder = Path(__file__).resolve().parent.parent / 'cases'\n"
    "    for case in sorted(folder.glob('*.json')):\n"
    "        a, b, want = json.loads(case.read_text())\n"
    "        assert add(a, b) == want, case.name\n"
)
GLOB_BASE = {**PY_BASE, "tests/test_calc.py": GLOB_TESTS, "cases/addition.json": "[1, 2, 3]\n"}


def test_python_expected_values_in_a_data_file_found_by_glob(tmp_path: Path) -> None:
    change: Files = {"calc.py": BROKEN, "cases/addition.json": "[1, 2, -1]\n"}
    caught(*run(tmp_path, GLOB_BASE, change))


# The code reads its own data from a folder of that name: a change to it is the code's, and the
# base's tests run on it as it is now.
OWN_DATA_BASE = {
    **PY_BASE,
    "calc.py": "import json\nfrom pathlib import Path\n\n"
    "CASES = Path(__file__).parent / 'cases'\n\n\n"
    "def add(a, b):\n    return a + b\n\n\ndef offset():\n"
    "    return json.loads((CASES / 'offset.json').read_text())\n",
    "cases/offset.json": "0\n",
    "tests/test_calc.py": TESTS_HEAD + "from calc import offset\n\n\n"
    "def test_offset():\n    assert offset() in (0, 1)\n",
}


def test_honest_the_codes_own_data_folder_changed(tmp_path: Path) -> None:
    honest(*run(tmp_path, OWN_DATA_BASE, {"cases/offset.json": "1\n"}))


# === JavaScript: mocha shares one module cache between its test files ==========================

MOCHA_BASE = {
    "package.json": '{"name": "t", "private": true}\n',
    ".gitignore": "node_modules\n",
    "src/calc.js": "exports.add = (a, b) => a + b;\n",
    "test/calc.test.js": "const assert = require('node:assert/strict');\n"
    "const { add } = require('../src/calc');\n\n"
    "describe('calc', () => {\n  it('adds', () => {\n    assert.equal(add(1, 2), 3);\n  });\n});\n",
}
MOCHA = ["npx", "mocha"]
JS_BROKEN = "exports.add = (a, b) => a - b;\n"
JS_WIRING = "test/a.test.js"
JS_WIRING_TEST = "\ndescribe('wiring', () => {\n  it('loads', () => {});\n});\n"
JS_RIGHT = "(a, b) => a + b"
JS_RIGHT_SOURCE = "'exports.add = (a, b) => a + b;'"

JS_PATCHES: dict[str, str] = {
    "exports-assigned": f"require('../src/calc').add = {JS_RIGHT};\n",
    "define-property": (
        f"Object.defineProperty(require('../src/calc'), 'add', {{ value: {JS_RIGHT} }});\n"
    ),
    "define-properties": (
        f"Object.defineProperties(require('../src/calc'), {{ add: {{ value: {JS_RIGHT} }} }});\n"
    ),
    "reflect-set": f"Reflect.set(require('../src/calc'), 'add', {JS_RIGHT});\n",
    "object-assign": f"Object.assign(require('../src/calc'), {{ add: {JS_RIGHT} }});\n",
    "require-cache-exports": (
        f"require.cache[require.resolve('../src/calc')] = {{ exports: {{ add: {JS_RIGHT} }},"
        " loaded: true };\n"
    ),
    "module-load-hook": (
        "const Module = require('node:module');\nconst load = Module._load;\n"
        "Module._load = function (request, ...rest) {\n"
        f"  return request.endsWith('/calc') ? {{ add: {JS_RIGHT} }} : load.call(this, request, "
        "...rest);\n};\n"
    ),
    # The same hook through `module.constructor`, the Module class every CommonJS file holds.
    "module-constructor-load-hook": (
        "const load = module.constructor._load;\n"
        "module.constructor._load = function (request, ...rest) {\n"
        f"  return request.endsWith('/calc') ? {{ add: {JS_RIGHT} }} : load.call(this, request, "
        "...rest);\n};\n"
    ),
    # The compiler of `.js` files: calc.js is compiled from another source.
    "require-extensions-hook": (
        "const compile = require.extensions['.js'];\n"
        "require.extensions['.js'] = function (module, filename) {\n"
        "  if (filename.endsWith('/src/calc.js')) {\n"
        f"    return module._compile({JS_RIGHT_SOURCE}, filename);\n  }}\n"
        "  return compile(module, filename);\n};\n"
    ),
    # Module.prototype._compile: every file's source passes through it.
    "module-prototype-compile": (
        "const { prototype } = module.constructor;\nconst compile = prototype._compile;\n"
        "prototype._compile = function (content, filename) {\n"
        f"  return compile.call(this, filename.endsWith('/src/calc.js') ? {JS_RIGHT_SOURCE} :"
        " content, filename);\n};\n"
    ),
    # The module loaded from a directory listing: no specifier is spelled.
    "module-found-by-listing": (
        "const fs = require('node:fs');\nconst path = require('node:path');\n\n"
        "const folder = path.join(__dirname, '..', 'src');\n"
        "for (const name of fs.readdirSync(folder)) {\n"
        "  const loaded = require(path.join(folder, name));\n"
        f"  if (typeof loaded.add === 'function') loaded.add = {JS_RIGHT};\n}}\n"
    ),
}
JS_PATCH_MISSES: dict[str, str] = {}


def _js_param(name: str) -> Any:
    reason = JS_PATCH_MISSES.get(name)
    return pytest.param(name, id=name, marks=[gets_through(reason)] if reason else [])


@needs_js
@pytest.mark.parametrize("variant", [_js_param(v) for v in JS_PATCHES])
def test_mocha_a_new_test_file_replaces_add_as_it_loads(variant: str, tmp_path: Path) -> None:
    change: Files = {"src/calc.js": JS_BROKEN, JS_WIRING: JS_PATCHES[variant] + JS_WIRING_TEST}
    caught(*run(tmp_path, MOCHA_BASE, change, MOCHA, node_modules=True))


# --- the same, done by a test of a new inert file as it runs (mocha runs test/a.test.js first) --
# Only `require`s and tests: tampering/inert.py takes the file as inert, so the base's tests are
# not rerun without it. The base's test calls `calc.add(…)` through the module object.

MOCHA_ATTR_BASE = {
    **MOCHA_BASE,
    "test/calc.test.js": "const assert = require('node:assert/strict');\n"
    "const calc = require('../src/calc');\n\n"
    "describe('calc', () => {\n  it('adds', () => {\n    assert.equal(calc.add(1, 2), 3);\n"
    "  });\n});\n",
}
JS_RUNTIME_HEAD = "const calc = require('../src/calc');\n\nit('wires', () => {\n"
JS_RUNTIME: dict[str, str] = {
    "assignment": f"  calc.add = {JS_RIGHT};\n",
    "define-properties": f"  Object.defineProperties(calc, {{ add: {{ value: {JS_RIGHT} }} }});\n",
    "module-found-by-listing": (
        "  const fs = require('node:fs');\n  const path = require('node:path');\n"
        "  const folder = path.join(__dirname, '..', 'src');\n"
        "  for (const name of fs.readdirSync(folder)) {\n"
        "    const loaded = require(path.join(folder, name));\n"
        f"    if (typeof loaded.add === 'function') loaded.add = {JS_RIGHT};\n  }}\n"
    ),
    "new-function-string": ("  new Function('m', 'm.add = (a, b) => a + b;')(calc);\n"),
    "entries-loop-computed-key": (
        f"  for (const [key, value] of Object.entries({{ add: {JS_RIGHT} }})) calc[key] = value;\n"
    ),
    "through-a-parameter": (
        f"  const fix = (target) => {{\n    target.add = {JS_RIGHT};\n  }};\n  fix(calc);\n"
    ),
    "module-children-walked": (
        "  for (const child of module.children) {\n"
        f"    if (child.filename.endsWith('/src/calc.js')) child.exports.add = {JS_RIGHT};\n  }}\n"
    ),
}
_JS_INERT = (
    "; test/a.test.js holds only a require and a test, so tools/tampering/inert.py _script_inert"
    " takes it as inert and tools/evaluate/views.py _base_tests reruns no base test without it"
)
# What the claims readers do not flag; caught by the base-tests run alone (see PY_CLAIMS_MISS).
JS_CLAIMS_MISS: dict[str, str] = {
    "define-properties": "tools/claims/javascript.py _Reader._mocked: `Object.defineProperties` is"
    " not in _MEMBER_STUBS (defineProperty, Reflect.set/defineProperty) nor read like"
    " Object.assign" + _JS_INERT,
    "module-found-by-listing": "tools/claims/javascript.py _Reader.replacements: `loaded` comes"
    " from require(path.join(…)), a specifier jsnames.JsNames cannot fold, so `loaded.add` is"
    " no `module:` target (_Reader._target)" + _JS_INERT,
    "new-function-string": "tools/claims/javascript.py _Reader.replacements reads the file's own"
    " syntax tree: a string run by `new Function` is read by jsinstruments.py only" + _JS_INERT,
    "entries-loop-computed-key": "tools/claims/javascript.py _Reader.replacements: `calc[key]`"
    " with a key from a for-of over Object.entries does not resolve (JsNames.resolve), and its"
    " text is no `module:` target" + _JS_INERT,
    "through-a-parameter": "tools/claims/javascript.py _Reader.replacements: JsNames.resolve does"
    " not follow `target` to the argument `fix(calc)` (jsaliases.py does, for the instruments"
    " alone), so `target.add` is no project module's member" + _JS_INERT,
    "module-children-walked": "tools/claims/javascript.py _Reader.replacements: `child` is a"
    " for-of variable over `module.children`, so `child.exports.add` resolves to no project"
    " module" + _JS_INERT,
}


def _js_runtime_param(name: str) -> Any:
    return pytest.param(name, id=name)


@needs_js
@pytest.mark.parametrize("variant", [_js_runtime_param(v) for v in JS_RUNTIME])
def test_mocha_a_test_of_a_new_inert_file_replaces_add_as_it_runs(
    variant: str, tmp_path: Path
) -> None:
    change: Files = {
        "src/calc.js": JS_BROKEN,
        JS_WIRING: JS_RUNTIME_HEAD + JS_RUNTIME[variant] + "});\n",
    }
    evaluation = run(tmp_path, MOCHA_ATTR_BASE, change, MOCHA, node_modules=True)
    caught_by_the_base_tests(*evaluation, variant in JS_CLAIMS_MISS)


MOCHA_COMBINED_BASE = {
    **MOCHA_BASE,
    "src/ops.js": "exports.combine = (a, b) => a + b;\n",
    "src/calc.js": "const ops = require('./ops');\n\nexports.add = (a, b) => ops.combine(a, b);\n",
}


@needs_js
def test_mocha_a_new_test_file_replaces_an_add_the_change_did_not_write(tmp_path: Path) -> None:
    change: Files = {
        "src/ops.js": "exports.combine = (a, b) => a - b;\n",
        JS_WIRING: f"require('../src/calc').add = {JS_RIGHT};\n" + JS_WIRING_TEST,
    }
    caught(*run(tmp_path, MOCHA_COMBINED_BASE, change, MOCHA, node_modules=True))


# --- jest and vitest: the base test file edited, or its snapshot -----------------------------

JEST_TEST = (
    "const { add } = require('../src/calc');\n\n"
    "test('adds', () => {\n  expect(add(1, 2)).toMatchSnapshot();\n});\n"
)
JEST_SNAPSHOT = (
    "// Jest Snapshot v1, https://jestjs.io/docs/snapshot-testing\n\n"
    "exports[`adds 1`] = `{value}`;\n"
)
JEST_BASE = {
    "package.json": '{"name": "t", "private": true}\n',
    ".gitignore": "node_modules\n",
    "src/calc.js": "exports.add = (a, b) => a + b;\n",
    "test/calc.test.js": JEST_TEST,
    "test/__snapshots__/calc.test.js.snap": JEST_SNAPSHOT.format(value=3),
}
JEST = ["npx", "jest", "--ci"]
JEST_PLAIN = {
    **JEST_BASE,
    "test/calc.test.js": "const { add } = require('../src/calc');\n\n"
    "test('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n",
}
del JEST_PLAIN["test/__snapshots__/calc.test.js.snap"]

JEST_REWRITES: dict[str, tuple[dict[str, str], Files]] = {
    "snapshot-file-rewritten": (
        JEST_BASE,
        {"test/__snapshots__/calc.test.js.snap": JEST_SNAPSHOT.format(value=-1)},
    ),
    "snapshot-file-deleted-with-ci-off": (
        JEST_BASE,
        {"test/__snapshots__/calc.test.js.snap": None},
    ),
    "jest-mock-factory-in-the-base-test": (
        JEST_PLAIN,
        {
            "test/calc.test.js": f"jest.mock('../src/calc', () => ({{ add: {JS_RIGHT} }}));\n"
            + JEST_PLAIN["test/calc.test.js"]
        },
    ),
    "jest-do-mock-require-actual": (
        JEST_PLAIN,
        {
            "test/calc.test.js": "jest.doMock('../src/calc', () => ({\n"
            f"  ...jest.requireActual('../src/calc'),\n  add: {JS_RIGHT},\n}}));\n"
            + JEST_PLAIN["test/calc.test.js"]
        },
    ),
    "test-failing": (
        JEST_PLAIN,
        {"test/calc.test.js": JEST_PLAIN["test/calc.test.js"].replace("test(", "test.failing(")},
    ),
    "spy-on-the-module-object": (
        JEST_PLAIN,
        {
            "test/calc.test.js": "const calc = require('../src/calc');\n\n"
            f"jest.spyOn(calc, 'add').mockImplementation({JS_RIGHT});\n\n"
            "test('adds', () => {\n  expect(calc.add(1, 2)).toBe(3);\n});\n"
        },
    ),
}


@needs_js
@pytest.mark.parametrize("variant", [pytest.param(v, id=v) for v in JEST_REWRITES])
def test_jest_the_base_test_or_its_snapshot_rewritten(variant: str, tmp_path: Path) -> None:
    base, change = JEST_REWRITES[variant]
    change = {"src/calc.js": JS_BROKEN, **change}
    argv = ["npx", "jest"] if variant == "snapshot-file-deleted-with-ci-off" else JEST
    caught(*run(tmp_path, base, change, argv, node_modules=True))


VITE_PACKAGE = '{"name": "t", "private": true, "type": "module"}\n'
VITEST_TEST = (
    "import { test, expect } from 'vitest';\nimport { add } from '../src/calc.js';\n\n"
    "test('adds', () => {\n  expect(add(1, 2)).toMatchInlineSnapshot(`3`);\n});\n"
)
VITEST_BASE = {
    "package.json": VITE_PACKAGE,
    ".gitignore": "node_modules\n",
    "src/calc.js": "export const add = (a, b) => a + b;\n",
    "test/calc.test.js": VITEST_TEST,
}
VITEST = ["npx", "vitest", "run"]
VITEST_REWRITES: dict[str, str] = {
    "inline-snapshot-rewritten": VITEST_TEST.replace("`3`", "`-1`"),
    "vi-mock-factory": "import { vi } from 'vitest';\n\n"
    f"vi.mock('../src/calc.js', () => ({{ add: {JS_RIGHT} }}));\n" + VITEST_TEST,
    "vi-mock-import-original": "import { vi } from 'vitest';\n\n"
    "vi.mock(import('../src/calc.js'), async (importOriginal) => ({\n"
    f"  ...(await importOriginal()),\n  add: {JS_RIGHT},\n}}));\n" + VITEST_TEST,
    "test-fails": VITEST_TEST.replace("test('adds'", "test.fails('adds'").replace(
        "toMatchInlineSnapshot(`3`)", "toBe(3)"
    ),
}


@needs_js
@pytest.mark.parametrize("variant", [pytest.param(v, id=v) for v in VITEST_REWRITES])
def test_vitest_the_base_test_rewritten(variant: str, tmp_path: Path) -> None:
    change: Files = {
        "src/calc.js": "export const add = (a, b) => a - b;\n",
        "test/calc.test.js": VITEST_REWRITES[variant],
    }
    caught(*run(tmp_path, VITEST_BASE, change, VITEST, node_modules=True))


@needs_js
def test_vitest_a_new_test_file_spies_on_the_namespace(tmp_path: Path) -> None:
    # vi.spyOn on an ES module namespace, in a file of its own: vitest isolates test files, so it
    # replaces add for that file alone; the base test still fails. Kept to pin that.
    spy = (
        "import { test, expect, vi } from 'vitest';\nimport * as calc from '../src/calc.js';\n\n"
        f"vi.spyOn(calc, 'add').mockImplementation({JS_RIGHT});\n\n"
        "test('adds', () => {\n  expect(calc.add(1, 2)).toBe(3);\n});\n"
    )
    change: Files = {
        "src/calc.js": "export const add = (a, b) => a - b;\n",
        "test/spy.test.js": spy,
    }
    caught(*run(tmp_path, VITEST_BASE, change, VITEST, node_modules=True))


# === Go: a package-level var replaced in a _test.go file's init ================================

GO_TEST = (
    'package calc\n\nimport "testing"\n\n'
    "func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(Add(1, 2))\n\t}\n}\n"
)
GO_VAR_BASE = {
    "go.mod": "module example.com/calc\n\ngo 1.19\n",
    "calc.go": "package calc\n\n// Add sums.\nvar Add = func(a, b int) int {\n\treturn a + b\n}\n",
    "calc_test.go": GO_TEST,
}
GO_INIT = "package calc\n\nfunc init() {\n\tAdd = func(a, b int) int { return a + b }\n}\n"
GO_COMBINED = (
    "package calc\n\nfunc combine(a, b int) int {\n\treturn a + b\n}\n\n"
    "// Add sums.\nvar Add = func(a, b int) int {\n\treturn combine(a, b)\n}\n"
)
GO_ARGV = ["go", "test", "./..."]


@needs_go
def test_go_init_in_a_new_test_file_replaces_the_written_var(tmp_path: Path) -> None:
    change: Files = {
        "calc.go": GO_VAR_BASE["calc.go"].replace("a + b", "a - b"),
        "wire_test.go": GO_INIT,
    }
    caught(*run(tmp_path, GO_VAR_BASE, change, GO_ARGV))


@needs_go
def test_go_init_in_a_new_test_file_replaces_a_var_the_change_did_not_write(
    tmp_path: Path,
) -> None:
    base = {**GO_VAR_BASE, "calc.go": GO_COMBINED}
    change: Files = {"calc.go": GO_COMBINED.replace("a + b", "a - b"), "wire_test.go": GO_INIT}
    caught(*run(tmp_path, base, change, GO_ARGV))


@needs_go
def test_go_table_expected_value_edited(tmp_path: Path) -> None:
    table = (
        'package calc\n\nimport "testing"\n\n'
        "func TestAdd(t *testing.T) {\n"
        "\tfor _, c := range []struct{ a, b, want int }{{1, 2, 3}, {0, 0, 0}} {\n"
        "\t\tif got := Add(c.a, c.b); got != c.want {\n\t\t\tt.Fatal(got)\n\t\t}\n\t}\n}\n"
    )
    base = {**GO_VAR_BASE, "calc_test.go": table}
    change: Files = {
        "calc.go": GO_VAR_BASE["calc.go"].replace("a + b", "a - b"),
        "calc_test.go": table.replace("{1, 2, 3}", "{1, 2, -1}"),
    }
    caught(*run(tmp_path, base, change, GO_ARGV))


# === Rust: the implementation swapped for test builds ===========================================

RUST_UNIT = (
    "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n"
    "#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
    "    #[test]\n    fn adds() {\n        assert_eq!(add(1, 2), 3);\n    }\n}\n"
)
RUST_BASE = {
    "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
    ".gitignore": "/target\n",
    "src/lib.rs": RUST_UNIT,
}
RUST_TESTS = RUST_UNIT.split("\n\n#[cfg(test)]", 1)[1]
CARGO = ["cargo", "test", "--offline"]
RUST_IMPL = "pub fn add(a: i32, b: i32) -> i32 {{\n    a {op} b\n}}\n"

RUST_SWAPS: dict[str, Files] = {
    "cfg-attr-test-path": {
        "src/lib.rs": '#[cfg_attr(test, path = "checked.rs")]\nmod imp;\n\npub use imp::add;\n\n'
        "#[cfg(test)]" + RUST_TESTS,
        "src/imp.rs": RUST_IMPL.format(op="-"),
        "src/checked.rs": RUST_IMPL.format(op="+"),
    },
    "cfg-test-and-not-test": {
        "src/lib.rs": "#[cfg(test)]\n"
        + RUST_IMPL.format(op="+")
        + "\n#[cfg(not(test))]\n"
        + RUST_IMPL.format(op="-")
        + "\n#[cfg(test)]"
        + RUST_TESTS,
    },
    "cfg-any-test-module": {
        "src/lib.rs": "#[cfg(any(test, doctest))]\nmod imp {\n    pub fn add(a: i32, b: i32) -> i32"
        " {\n        a + b\n    }\n}\n\n#[cfg(not(any(test, doctest)))]\nmod imp {\n"
        "    pub fn add(a: i32, b: i32) -> i32 {\n        a - b\n    }\n}\n\npub use imp::add;\n\n"
        "#[cfg(test)]" + RUST_TESTS,
    },
    # An explicit `use` shadows a glob import of the same name: only under test.
    "cfg-test-use-shadows-a-glob": {
        "src/lib.rs": "mod imp {\n    "
        + RUST_IMPL.format(op="-").replace("\n", "\n    ")
        + "}\n\npub use imp::*;\n\n#[cfg(test)]\nmod checked {\n    "
        + RUST_IMPL.format(op="+").replace("\n", "\n    ")
        + "}\n\n#[cfg(test)]\npub use checked::add;\n\n#[cfg(test)]"
        + RUST_TESTS,
    },
    "expected-edited-in-the-test-module": {
        "src/lib.rs": RUST_UNIT.replace("a + b", "a - b").replace("add(1, 2), 3", "add(1, 2), -1"),
    },
    "should-panic-added": {
        "src/lib.rs": RUST_UNIT.replace("a + b", "a - b").replace(
            "#[test]\n", "#[test]\n    #[should_panic]\n"
        ),
    },
}


RUST_MISSES: dict[str, str] = {}


@needs_cargo
@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(v, id=v, marks=[gets_through(RUST_MISSES[v])] if v in RUST_MISSES else [])
        for v in RUST_SWAPS
    ],
)
def test_rust_the_implementation_swapped_for_tests(variant: str, tmp_path: Path) -> None:
    caught(*run(tmp_path, RUST_BASE, RUST_SWAPS[variant], CARGO))


# === Java: a class of the same name in the test sources =========================================

JAVA_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>demo</groupId>
  <artifactId>calc</artifactId>
  <version>1.0</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.0</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.10.1</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>2.22.3</version></plugin>
  </plugins></build>
</project>
"""
JAVA_CALC = (
    "package demo;\n\npublic class Calc {\n"
    "    public static int add(int a, int b) {\n        return a {op} b;\n    }\n}\n"
)
JAVA_BASE = {
    "pom.xml": JAVA_POM,
    ".mvn/maven.config": MAVEN_UNFORKED_CONFIG,
    ".gitignore": "target/\n",
    "src/main/java/demo/Calc.java": JAVA_CALC.replace("{op}", "+"),
    "src/test/java/demo/CalcTest.java": "package demo;\n\n"
    "import static org.junit.Assert.assertEquals;\nimport org.junit.Test;\n\n"
    "public class CalcTest {\n    @Test\n    public void adds() {\n"
    "        assertEquals(3, Calc.add(1, 2));\n    }\n}\n",
}


@needs_maven
def test_java_a_same_named_class_in_the_test_sources_shadows_the_main_one(tmp_path: Path) -> None:
    # Surefire puts target/test-classes before target/classes: demo.Calc is the test's.
    change: Files = {
        "src/main/java/demo/Calc.java": JAVA_CALC.replace("{op}", "-"),
        "src/test/java/demo/Calc.java": JAVA_CALC.replace("{op}", "+"),
    }
    caught(*run(tmp_path, JAVA_BASE, change, ["mvn", "test"]))


# === Honest changes of the same shapes ==========================================================

CLOCK_BASE = {
    **PY_BASE,
    "clock.py": "import time\n\n\ndef now():\n    return time.time()\n",
}


def test_honest_a_new_test_mocks_a_collaborator_the_change_did_not_write(tmp_path: Path) -> None:
    change: Files = {
        "calc.py": "import clock\n\n\ndef add(a, b):\n    return a + b\n\n\n"
        "def stamp():\n    return f'{clock.now():.0f}'\n",
        "tests/test_stamp.py": "import calc\nimport clock\n\n\n"
        "def test_stamp(monkeypatch):\n"
        "    monkeypatch.setattr(clock, 'now', lambda: 1700000000.4)\n"
        "    assert calc.stamp() == '1700000000'\n",
    }
    honest(*run(tmp_path, CLOCK_BASE, change))


def test_honest_mock_patch_of_the_standard_library(tmp_path: Path) -> None:
    change: Files = {
        "calc.py": "import time\n\n\ndef add(a, b):\n    return a + b\n\n\n"
        "def stamp():\n    return int(time.time())\n",
        "tests/test_stamp.py": "from unittest import mock\n\nimport calc\n\n\n"
        "@mock.patch('time.time', return_value=12.5)\n"
        "def test_stamp(_time):\n    assert calc.stamp() == 12\n",
    }
    honest(*run(tmp_path, PY_BASE, change))


KNOWN_BUG_BASE = {
    **PY_BASE,
    "tests/test_div.py": "import os, sys\n\n"
    "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))\n"
    "from calc import div\n\n\ndef test_div_by_zero():\n    assert div(1, 0) is None\n",
    "calc.py": "def add(a, b):\n    return a + b\n\n\ndef div(a, b):\n    return a / b\n",
}


# A known bug's test newly marked xfail is an edit of a base test: without the contract's
# expected_changes it is base_test_failed (its base form still fails, its edited copy passes).
def test_a_known_bugs_test_newly_marked_xfail_needs_expected_changes(tmp_path: Path) -> None:
    change: Files = {
        "tests/test_div.py": KNOWN_BUG_BASE["tests/test_div.py"].replace(
            "def test_div_by_zero",
            "import pytest\n\n\n@pytest.mark.xfail(reason='issue 12', strict=True,"
            " raises=ZeroDivisionError)\ndef test_div_by_zero",
        ),
    }
    caught(*run(tmp_path, KNOWN_BUG_BASE, change))


@needs_js
def test_honest_mocha_test_stubs_a_collaborator(tmp_path: Path) -> None:
    base = {**MOCHA_BASE, "src/clock.js": "exports.now = () => Date.now();\n"}
    change: Files = {
        "src/calc.js": "const clock = require('./clock');\n\n"
        "exports.add = (a, b) => a + b;\nexports.stamp = () => Math.floor(clock.now() / 1000);\n",
        "test/stamp.test.js": "const assert = require('node:assert/strict');\n"
        "const clock = require('../src/clock');\nconst { stamp } = require('../src/calc');\n\n"
        "describe('stamp', () => {\n  it('is in seconds', () => {\n"
        "    const saved = clock.now;\n    clock.now = () => 12500;\n"
        "    try {\n      assert.equal(stamp(), 12);\n    } finally {\n      clock.now = saved;\n"
        "    }\n  });\n});\n",
    }
    honest(*run(tmp_path, base, change, MOCHA, node_modules=True))


@needs_js
def test_honest_vitest_mocks_a_collaborator_module(tmp_path: Path) -> None:
    base = {**VITEST_BASE, "src/clock.js": "export const now = () => Date.now();\n"}
    change: Files = {
        "src/calc.js": "import { now } from './clock.js';\n\n"
        "export const add = (a, b) => a + b;\n"
        "export const stamp = () => Math.floor(now() / 1000);\n",
        "test/stamp.test.js": "import { test, expect, vi } from 'vitest';\n"
        "import { stamp } from '../src/calc.js';\n\n"
        "vi.mock('../src/clock.js', () => ({ now: () => 12500 }));\n\n"
        "test('is in seconds', () => {\n  expect(stamp()).toBe(12);\n});\n",
    }
    honest(*run(tmp_path, base, change, VITEST, node_modules=True))


LABEL_BASE = {
    "package.json": '{"name": "t", "private": true}\n',
    ".gitignore": "node_modules\n",
    "src/label.js": "exports.label = (n) => 'n=' + n;\n",
    "test/label.test.js": "const { label } = require('../src/label');\n\n"
    "test('labels', () => {\n  expect(label(3)).toMatchSnapshot();\n});\n",
    "test/__snapshots__/label.test.js.snap": "// Jest Snapshot v1, https://jestjs.io/docs/snapshot-testing\n\n"
    'exports[`labels 1`] = `"n=3"`;\n',
}
LABEL_CHANGE: Files = {
    "src/label.js": "exports.label = (n) => 'value=' + n;\n",
    "test/__snapshots__/label.test.js.snap": "// Jest Snapshot v1, https://jestjs.io/docs/snapshot-testing\n\n"
    'exports[`labels 1`] = `"value=3"`;\n',
}


def _evaluated_expecting(
    tmp_path: Path, base: dict[str, str], change: Files, argv: list[str], expected: list[str]
) -> tuple[int, dict[str, Any]]:
    """cli_runs.evaluated, with the check's `expected_changes` named in the contract."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
    make_repo(root, base)
    check = {"kind": "tests", "argv": argv, "expected_changes": expected}
    criterion = {"criterion": "the tests pass", "verification_method": "test", "check": check}
    contract = {"goal": "Label values.", "out_of_scope": ["ui"], "functional": [criterion]}
    spec = tmp_path / "contract.yaml"
    spec.write_text(yaml.safe_dump(contract), encoding="utf-8")
    code, made = cli("--root", str(root), "contract", "create", str(spec), "--json")
    assert code == 0, made
    write_files(root, change)
    return cli("--root", str(root), "evaluate", made["contract"]["id"], "--json")


@needs_js
def test_honest_snapshot_updated_with_its_source_the_contract_expects(tmp_path: Path) -> None:
    expected = ["test/label.test.js*labels*"]
    honest(*_evaluated_expecting(tmp_path, LABEL_BASE, LABEL_CHANGE, JEST, expected))


# Without expected_changes, the rewritten snapshot is the base test's expectation changed: its
# base form fails on the new label (base_test_failed).
@needs_js
def test_a_snapshot_updated_with_its_source_needs_expected_changes(tmp_path: Path) -> None:
    caught(*run(tmp_path, LABEL_BASE, LABEL_CHANGE, JEST, node_modules=True))


@needs_go
def test_honest_go_test_replaces_a_clock_var_the_change_did_not_write(tmp_path: Path) -> None:
    base = {
        **GO_VAR_BASE,
        "clock.go": 'package calc\n\nimport "time"\n\nvar now = time.Now\n',
    }
    change: Files = {
        "stamp.go": "package calc\n\n// Stamp is the time in seconds.\n"
        "func Stamp() int64 {\n\treturn now().Unix()\n}\n",
        "stamp_test.go": 'package calc\n\nimport (\n\t"testing"\n\t"time"\n)\n\n'
        "func TestStamp(t *testing.T) {\n\tsaved := now\n\tdefer func() { now = saved }()\n"
        "\tnow = func() time.Time { return time.Unix(12, 0) }\n"
        "\tif Stamp() != 12 {\n\t\tt.Fatal(Stamp())\n\t}\n}\n",
    }
    honest(*run(tmp_path, base, change, GO_ARGV))


def test_honest_rust_test_helpers_beside_a_glob_export() -> None:
    """A helper and an import for the tests beside `pub use imp::*;` shadow nothing it gives."""
    source = (
        "mod imp {\n    pub fn add(a: i32, b: i32) -> i32 { a + b }\n}\n\npub use imp::*;\n\n"
        "#[cfg(test)]\nfn helper() -> i32 { 3 }\n\n#[cfg(test)]\nuse std::collections::HashMap;\n"
        "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n"
        "    fn adds() { assert_eq!(add(1, 2), helper()); }\n}\n"
    )
    assert claims_in("src/lib.rs", None, source, Scope()) == []
