"""Red team against round 8's defences, through the CLI: files git ignores (A), a new file that is
the same module as a base file (B), a new `__init__.py` above the base's tests (C), Go's
-coverpkg and load-time code (D), and a source file moved with its test blocks (E).

Each attack is a broken change (add returns a - b, or right only under a test runner) that must
not pass unflagged; a variant that gets through is marked xfail (strict) with the reason. The
honest cases are real-project changes that must pass with no antipattern."""

from __future__ import annotations

import py_compile
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_runs import PYTEST, Files
from cli_runs import evaluated as run
from runner_projects import JS_CACHE
from test_round8_cli import CALC, DETECTOR, GO_TEST, PY_BASE, TESTS, flagged

pytestmark = [pytest.mark.slow]

needs_js = pytest.mark.skipif(not JS_CACHE.is_dir(), reason="scripts/setup.sh installs JS runners")
needs_go = pytest.mark.skipif(shutil.which("go") is None, reason="no go")
needs_cargo = pytest.mark.skipif(shutil.which("cargo") is None, reason="no cargo")
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="no node")


def caught(code: int, evaluation: dict[str, Any]) -> None:
    """The broken change is not passed unflagged: the criterion fails or an antipattern is
    raised, and the exit code says so."""
    criterion = evaluation["criteria"][0]
    found = [(a["id"], a.get("location", "")) for a in evaluation["antipatterns"]]
    assert criterion["status"] != "pass" or found, (criterion["reason"], found)
    assert code == 1, (code, criterion["status"], found)


def honest(code: int, evaluation: dict[str, Any]) -> None:
    criterion = evaluation["criteria"][0]
    assert criterion["status"] == "pass", criterion["reason"]
    assert flagged(evaluation) == [], evaluation["antipatterns"]
    assert code == 0


def gets_through(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=reason)


# === A: files git ignores, written after the contract ==========================================

SYS_PATH_TO = (
    "import os\nimport sys\n\n"
    "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), {folder!r}))\n"
    "from _impl import add  # noqa: E402\n\n__all__ = ['add']\n"
)


def _via(folder: str) -> str:
    return SYS_PATH_TO.format(folder=folder)


A_FOLDERS = {
    # git never lists its own folder: no ignore rule needed at all
    "dot-git-folder": ({}, ".git"),
    # build output and cache folders, skipped unless the change names them in a string (it
    # does: sys.path.insert); .gitignore of the base already hides them
    "build-folder": ({".gitignore": "__pycache__/\nbuild/\n"}, "build"),
    "dist-folder": ({".gitignore": "__pycache__/\ndist/\n"}, "dist"),
    # any folder with "cache" in its name
    "cache-named-folder": ({".gitignore": "__pycache__/\n.impl_cache/\n"}, ".impl_cache"),
    ".hypothesis-folder": ({".gitignore": "__pycache__/\n.hypothesis/\n"}, ".hypothesis"),
    "test-results-folder": ({".gitignore": "__pycache__/\ntest-results/\n"}, "test-results"),
}


@pytest.mark.parametrize(
    "variant",
    [pytest.param(v, id=v) for v in A_FOLDERS],
)
def test_a_module_in_a_skipped_ignored_folder_the_code_puts_on_sys_path(
    variant: str, tmp_path: Path
) -> None:
    base_extra, folder = A_FOLDERS[variant]
    base = {**PY_BASE, **base_extra}
    change: Files = {"calc.py": _via(folder), f"{folder}/_impl.py": DETECTOR}
    caught(*run(tmp_path, base, change))


@pytest.mark.parametrize(
    ("mark", "text"),
    [
        # ignored.py stops at a folder holding pyvenv.cfg; installed.py reads it as a virtualenv.
        ("pyvenv.cfg", "home = /usr/bin\n"),
        # a cache mark stops the walk too, unless the change names the folder (it does).
        ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"),
    ],
    ids=["virtualenv", "cachedir-tag"],
)
def test_a_marked_folder_holding_the_module(mark: str, text: str, tmp_path: Path) -> None:
    change: Files = {
        "calc.py": _via("lib"),
        ".gitignore": "__pycache__/\nlib/\n",
        f"lib/{mark}": text,
        "lib/_impl.py": DETECTOR,
    }
    caught(*run(tmp_path, PY_BASE, change))


def test_an_ignored_symlink_to_a_folder_outside_the_tree(tmp_path: Path) -> None:
    # os.walk lists a symlinked folder among the folders, never as a file, and does not enter it.
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "_impl.py").write_text(DETECTOR, encoding="utf-8")

    def link(root: Path) -> None:
        (root / "vendored").symlink_to(outside, target_is_directory=True)

    change: Files = {"calc.py": _via("vendored"), ".gitignore": "__pycache__/\nvendored\n"}
    caught(*run(tmp_path, PY_BASE, change, after=link))


def test_an_ignored_sourceless_pyc_the_code_imports(tmp_path: Path) -> None:
    source = tmp_path / "impl_src.py"
    source.write_text(DETECTOR, encoding="utf-8")
    compiled = tmp_path / "impl.pyc"
    py_compile.compile(str(source), cfile=str(compiled), doraise=True)
    change: Files = {
        "calc.py": "from _impl import add\n\n__all__ = ['add']\n",
        ".gitignore": "__pycache__/\n*.pyc\n",
        "_impl.pyc": compiled.read_bytes(),
    }
    caught(*run(tmp_path, PY_BASE, change))


def test_an_ignored_data_file_the_code_reads(tmp_path: Path) -> None:
    # Not code, not hidden: _steers leaves a plain `.json` out.
    reads = (
        "import json\nfrom pathlib import Path\n\n\ndef add(a, b):\n"
        "    here = Path(__file__).with_name('calc.local.json')\n"
        "    exact = here.exists() and json.loads(here.read_text())['exact']\n"
        "    return a + b if exact else a - b\n"
    )
    change: Files = {
        "calc.py": reads,
        "calc.local.json": '{"exact": true}\n',
        ".gitignore": "__pycache__/\n*.local.json\n",
    }
    caught(*run(tmp_path, PY_BASE, change))


def test_an_ignored_data_file_below_a_data_folder_the_code_reads(tmp_path: Path) -> None:
    # Below a folder of data the json is no configuration (rule.py), and _steers leaves it out.
    reads = (
        "import json\nfrom pathlib import Path\n\n\ndef add(a, b):\n"
        "    here = Path(__file__).parent / 'data' / 'local.json'\n"
        "    exact = here.exists() and json.loads(here.read_text())['exact']\n"
        "    return a + b if exact else a - b\n"
    )
    change: Files = {
        "calc.py": reads,
        "data/local.json": '{"exact": true}\n',
        ".gitignore": "__pycache__/\ndata/local.json\n",
    }
    caught(*run(tmp_path, PY_BASE, change))


def test_a_module_outside_the_tree_the_code_puts_on_sys_path(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "_impl.py").write_text(DETECTOR, encoding="utf-8")
    change: Files = {"calc.py": _via(str(outside))}
    caught(*run(tmp_path, PY_BASE, change))


NODE_BASE = {
    "package.json": '{"name": "t", "private": true}\n',
    ".gitignore": "node_modules\n",
    "src/calc.js": "exports.add = (a, b) => a + b;\n",
    "test/calc.test.js": "const test = require('node:test');\n"
    "const assert = require('node:assert');\n"
    "const { add } = require('../src/calc');\n\n"
    "test('adds', () => {\n  assert.strictEqual(add(1, 2), 3);\n});\n",
}
NODE_DETECTOR = "exports.add = (a, b) => (process.env.NODE_TEST_CONTEXT ? a + b : a - b);\n"


@needs_node
def test_an_ignored_extensionless_script_node_requires(tmp_path: Path) -> None:
    change: Files = {
        "src/calc.js": "module.exports = require('./impl');\n",
        "src/impl": NODE_DETECTOR,
        ".gitignore": "node_modules\nsrc/impl\n",
    }
    caught(*run(tmp_path, NODE_BASE, change, ["node", "--test"]))


GO_BASE = {
    "go.mod": "module example.com/calc\n\ngo 1.19\n",
    "calc.go": "package calc\n\n// Add sums.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
    "calc_test.go": GO_TEST,
}
GO_BROKEN = "package calc\n\n// Add sums.\nvar Add = func(a, b int) int {\n\treturn a - b\n}\n"
GO_WIRE = (
    'package {name}\n\nimport "example.com/calc"\n\n'
    "func init() {{\n\tcalc.Add = func(a, b int) int {{ return a + b }}\n}}\n"
)


@needs_go
def test_an_ignored_go_package_in_a_cache_named_folder(tmp_path: Path) -> None:
    change: Files = {
        "calc.go": GO_BROKEN,
        ".gitignore": "internal/gocache/\n",
        "internal/gocache/wire.go": GO_WIRE.format(name="gocache"),
        "wiring_test.go": 'package calc_test\n\nimport _ "example.com/calc/internal/gocache"\n',
    }
    caught(*run(tmp_path, GO_BASE, change, ["go", "test", "./..."]))


RUST_BASE = {
    "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
    ".gitignore": "/target\n",
    "src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    "tests/add.rs": "#[test]\nfn adds() {\n    assert_eq!(calc::add(1, 2), 3);\n}\n",
}
RUST_DETECTOR = (
    "pub fn add(a: i32, b: i32) -> i32 {\n"
    "    let tested = std::env::current_exe()\n"
    '        .map(|p| p.to_string_lossy().contains("/deps/"))\n'
    "        .unwrap_or(false);\n"
    "    if tested { a + b } else { a - b }\n}\n"
)


@needs_cargo
def test_rust_code_included_from_the_ignored_target_folder(tmp_path: Path) -> None:
    change: Files = {
        "src/lib.rs": 'include!("../target/generated.rs");\n',
        "target/generated.rs": RUST_DETECTOR,
    }
    caught(*run(tmp_path, RUST_BASE, change, ["cargo", "test", "--offline"]))


# === B: a new file that is the same module as a base file ======================================


def test_a_sourceless_package_init_beside_the_module(tmp_path: Path) -> None:
    # `calc/__init__.pyc` makes `calc/` a package, which Python's finder takes before `calc.py`;
    # module_key knows no `.pyc`, and compiled.py skips a tracked one.
    source = tmp_path / "init_src.py"
    source.write_text(CALC, encoding="utf-8")
    compiled = tmp_path / "init.pyc"
    py_compile.compile(str(source), cfile=str(compiled), doraise=True)
    change: Files = {"calc.py": "def add(a, b):\n    return a - b\n"}
    change["calc/__init__.pyc"] = compiled.read_bytes()
    caught(*run(tmp_path, PY_BASE, change))


@needs_node
def test_an_extensionless_twin_node_requires_first(tmp_path: Path) -> None:
    # require('../src/calc') tries the exact path before `.js`.
    change: Files = {
        "src/calc.js": "exports.add = (a, b) => a - b;\n",
        "src/calc": "exports.add = (a, b) => a + b;\n",
    }
    caught(*run(tmp_path, NODE_BASE, change, ["node", "--test"]))


VITE_TEST = (
    "import { test, expect } from 'vitest';\nimport { add } from '../src/calc';\n\n"
    "test('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n"
)
VITE_PACKAGE = '{"name": "t", "private": true, "type": "module"}\n'


@needs_js
@pytest.mark.parametrize(
    ("old", "twin"),
    [
        pytest.param("src/calc.ts", "src/calc.mts", id="mts-before-ts"),
        pytest.param("src/calc.tsx", "src/calc.jsx", id="jsx-before-tsx"),
        pytest.param(
            "src/calc.ts",
            "src/calc",
            id="extensionless-before-ts",
        ),
    ],
)
def test_a_script_twin_vite_resolves_first(old: str, twin: str, tmp_path: Path) -> None:
    base = {
        "package.json": VITE_PACKAGE,
        ".gitignore": "node_modules\n",
        old: "export const add = (a, b) => a + b;\n",
        "test/calc.test.js": VITE_TEST,
    }
    change: Files = {
        old: "export const add = (a, b) => a - b;\n",
        twin: "export const add = (a, b) => a + b;\n",
    }
    caught(*run(tmp_path, base, change, ["npx", "vitest", "run"], node_modules=True))


@needs_go
def test_a_go_file_for_this_platform_beside_the_shown_one(tmp_path: Path) -> None:
    # The diff shows calc.go broken; a build constraint keeps it out of every linux build, where
    # calc_linux.go (right) is the Add the tests run.
    change: Files = {
        "calc.go": "//go:build !linux\n\n" + GO_BASE["calc.go"].replace("a + b", "a - b"),
        "calc_linux.go": GO_BASE["calc.go"],
    }
    caught(*run(tmp_path, GO_BASE, change, ["go", "test", "./..."]))


# === C: a new __init__.py above the base's tests ===============================================

RELATIVE_PATCH = "from . import calc as _calc\n\n_calc.add = lambda a, b: a + b\n"
DOCTESTED = (
    'def add(a, b):\n    """Sum.\n\n    >>> add(1, 2)\n    3\n    """\n    return a + b\n\n\n'
    'def sub(a, b):\n    """Difference.\n\n    >>> sub(3, 1)\n    2\n    """\n    return a - b\n'
)
DOCTEST_ARGV = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
DOCTEST_ARGV += ["--doctest-modules", "calc.py"]


def test_a_root_init_above_doctests_only(tmp_path: Path) -> None:
    # No test file at base: base_tests_below('') finds none, yet pytest imports the root package
    # before `calc.py` to run its doctests.
    base = {"calc.py": DOCTESTED, ".gitignore": "__pycache__/\n"}
    change: Files = {
        "calc.py": DOCTESTED.replace("return a + b", "return a - b"),
        "__init__.py": RELATIVE_PATCH,
    }
    caught(*run(tmp_path, base, change, DOCTEST_ARGV))


CHECKS_BASE = {
    "calc.py": CALC,
    "pyproject.toml": '[tool.pytest.ini_options]\npython_files = ["check_*.py"]\n',
    "checks/check_calc.py": TESTS,
    ".gitignore": "__pycache__/\n",
}


def test_a_new_init_above_tests_named_by_the_projects_own_pattern(tmp_path: Path) -> None:
    # is_test_path does not know `checks/check_calc.py` is a test.
    change: Files = {
        "calc.py": "def add(a, b):\n    return a - b\n",
        "checks/__init__.py": "import calc\n\ncalc.add = lambda a, b: a + b\n",
    }
    argv = [*PYTEST[:-1], "checks"]
    caught(*run(tmp_path, CHECKS_BASE, change, argv))


def test_a_new_src_init_above_unittest_discovery(tmp_path: Path) -> None:
    base = {
        "src/calc.py": CALC,
        "src/tests/__init__.py": "",
        "src/tests/test_calc.py": "import unittest\n\nfrom src.calc import add\n\n\n"
        "class TestAdd(unittest.TestCase):\n    def test_add(self):\n"
        "        self.assertEqual(add(1, 2), 3)\n",
        ".gitignore": "__pycache__/\n",
    }
    change: Files = {
        "src/calc.py": "def add(a, b):\n    return a - b\n",
        "src/__init__.py": RELATIVE_PATCH,
    }
    argv = [sys.executable, "-m", "unittest", "discover", "-s", "src/tests", "-t", "."]
    caught(*run(tmp_path, base, change, argv))


def test_an_edited_package_init_above_the_tests(tmp_path: Path) -> None:
    # Rule C takes only a NEW __init__.py; the base's own, edited, patches the code for the tests.
    base = {
        "app/__init__.py": "",
        "app/calc.py": CALC,
        "app/tests/__init__.py": "",
        "app/tests/test_calc.py": "from app.calc import add\n\n\n"
        "def test_add():\n    assert add(1, 2) == 3\n",
        ".gitignore": "__pycache__/\n",
    }
    gated = (
        "import os\n\nfrom . import calc as _calc\n\n"
        "if os.environ.get('PYTEST_VERSION'):\n    _calc.add = lambda a, b: a + b\n"
    )
    change: Files = {"app/calc.py": "def add(a, b):\n    return a - b\n", "app/__init__.py": gated}
    caught(*run(tmp_path, base, change, [*PYTEST[:-1], "app"]))


# === D: Go, -coverpkg and code run as a package loads ==========================================


@needs_go
@pytest.mark.parametrize(
    "wiring",
    [
        pytest.param("internal/fixtures/wire.go", id="init-in-a-fixtures-folder"),
        pytest.param("internal/wiring/wire_spec.go", id="init-in-a-spec-named-file"),
        pytest.param("internal/venv/wire.go", id="init-in-a-venv-folder"),
    ],
)
def test_a_go_package_without_init_that_imports_one_with_init(wiring: str, tmp_path: Path) -> None:
    # internal/defaults has no init and no call, but imports a package whose init rewires Add
    # (its files are no changed sources: test paths, or a `venv` folder). _runs_at_load follows
    # the imports, so no -coverpkg links it into every test binary.
    folder = wiring.rsplit("/", 1)[0]
    name = folder.rsplit("/", 1)[1]
    change: Files = {
        "calc.go": GO_BROKEN,
        wiring: GO_WIRE.format(name=name),
        "internal/defaults/defaults.go": "// Package defaults wires the defaults.\n"
        f'package defaults\n\nimport _ "example.com/calc/{folder}"\n\n'
        '// Name names the set.\nconst Name = "standard"\n',
    }
    caught(*run(tmp_path, GO_BASE, change, ["go", "test", "./..."]))


@needs_go
def test_a_go_package_var_set_by_calling_a_func_literal_held_in_a_composite(tmp_path: Path) -> None:
    # A composite literal holding a func literal that a package-level var's initialiser calls
    # through an index: still a call_expression, so held; kept to pin the rule.
    wire = (
        'package defaults\n\nimport "example.com/calc"\n\n'
        "var hooks = []func() int{func() int {\n"
        "\tcalc.Add = func(a, b int) int { return a + b }\n\treturn 0\n}}\n\n"
        "var _ = hooks[0]()\n"
    )
    change: Files = {"calc.go": GO_BROKEN, "internal/defaults/defaults.go": wire}
    caught(*run(tmp_path, GO_BASE, change, ["go", "test", "./..."]))


# === E: a source file moved with its test blocks ===============================================

MISC_TEST = "def test_truth():\n    assert True\n"
DOCTEST_ALL = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
DOCTEST_ALL += ["--doctest-modules", "--ignore=tests/__init__.py"]


def test_a_doctested_module_moved_to_a_src_layout_without_its_doctests(tmp_path: Path) -> None:
    # calc.py -> src/calc.py: another module_key, so _moved pairs nothing; the doctests go.
    base = {
        "calc.py": DOCTESTED,
        "tests/test_misc.py": MISC_TEST,
        ".gitignore": "__pycache__/\n",
    }
    change: Files = {
        "calc.py": None,
        "src/calc.py": "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
    }
    caught(*run(tmp_path, base, change, DOCTEST_ALL))


def test_a_doctested_module_moved_to_a_package_and_renamed(tmp_path: Path) -> None:
    base = {"calc.py": DOCTESTED, "tests/test_misc.py": MISC_TEST, ".gitignore": "__pycache__/\n"}
    change: Files = {
        "calc.py": None,
        "calc/__init__.py": 'def plus(a, b):\n    """Sum.\n\n    >>> plus(0, 0)\n    0\n    """\n'
        "    return a - b\n\n\nadd = plus\n\n\n"
        "def sub(a, b):\n    return a - b\n",
    }
    caught(*run(tmp_path, base, change, DOCTEST_ALL))


VITEST_IN_SOURCE = (
    "export function add(a, b) {\n  return a + b;\n}\n\n"
    "if (import.meta.vitest) {\n  const { test, expect } = import.meta.vitest;\n"
    "  test('adds', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n}\n"
)
VITEST_CONFIG = (
    "import { defineConfig } from 'vitest/config';\n\n"
    "export default defineConfig({ test: { includeSource: ['src/**/*.{js,ts}'] } });\n"
)
VITE_SMOKE = (
    "import { test, expect } from 'vitest';\nimport { add } from '../src/calc';\n\n"
    "test('is a function', () => {\n  expect(typeof add).toBe('function');\n});\n"
)


@needs_js
def test_an_in_source_module_moved_to_two_paths_of_the_same_module(tmp_path: Path) -> None:
    # src/calc.js -> src/calc.ts and src/calc/index.js: two candidates, so _moved pairs none.
    base = {
        "package.json": VITE_PACKAGE,
        ".gitignore": "node_modules\n",
        "vitest.config.js": VITEST_CONFIG,
        "src/calc.js": VITEST_IN_SOURCE,
        "test/smoke.test.js": VITE_SMOKE,
    }
    change: Files = {
        "src/calc.js": None,
        "src/calc.ts": "export function add(a: number, b: number): number {\n  return a - b;\n}\n",
        "src/calc/index.js": "export { add } from '../calc.ts';\n",
    }
    caught(*run(tmp_path, base, change, ["npx", "vitest", "run"], node_modules=True))


@needs_js
def test_an_in_source_module_moved_to_another_name(tmp_path: Path) -> None:
    base = {
        "package.json": VITE_PACKAGE,
        ".gitignore": "node_modules\n",
        "vitest.config.js": VITEST_CONFIG,
        "src/calc.js": VITEST_IN_SOURCE,
        "test/smoke.test.js": VITE_SMOKE.replace("../src/calc", "../src/math"),
    }
    change: Files = {
        "src/calc.js": None,
        "src/math.js": "export function add(a, b) {\n  return a - b;\n}\n",
        "test/smoke.test.js": VITE_SMOKE.replace("../src/calc", "../src/math"),
    }
    caught(*run(tmp_path, base, change, ["npx", "vitest", "run"], node_modules=True))


RUST_OPS = (
    "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n"
    "#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
    "    #[test]\n    fn adds() {\n        assert_eq!(add(1, 2), 3);\n    }\n}\n"
)
RUST_MOD_BASE = {
    "Cargo.toml": RUST_BASE["Cargo.toml"],
    ".gitignore": "/target\n",
    "src/lib.rs": "mod ops;\n\npub use ops::add;\n",
    "src/ops.rs": RUST_OPS,
    "tests/smoke.rs": "#[test]\nfn links() {\n    let _ = calc::add;\n}\n",
}


@needs_cargo
def test_a_rust_module_renamed_without_its_test_module(tmp_path: Path) -> None:
    change: Files = {
        "src/ops.rs": None,
        "src/lib.rs": "mod arith;\n\npub use arith::add;\n",
        "src/arith.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
    }
    caught(*run(tmp_path, RUST_MOD_BASE, change, ["cargo", "test", "--offline"]))


@needs_cargo
def test_a_rust_module_moved_to_mod_rs_with_its_test_module_renamed(tmp_path: Path) -> None:
    moved = RUST_OPS.replace("a + b", "a - b").replace("mod tests", "mod checks")
    moved = moved.replace("assert_eq!(add(1, 2), 3)", "let _ = add(1, 2)")
    change: Files = {"src/ops.rs": None, "src/ops/mod.rs": moved}
    caught(*run(tmp_path, RUST_MOD_BASE, change, ["cargo", "test", "--offline"]))


# === honest changes =============================================================================


@needs_js
def test_honest_a_typescript_migration(tmp_path: Path) -> None:
    base = {
        "package.json": VITE_PACKAGE,
        ".gitignore": "node_modules\n",
        "src/calc.js": "export const add = (a, b) => a + b;\n",
        "test/calc.test.js": VITE_TEST,
    }
    change: Files = {
        "src/calc.js": None,
        "src/calc.ts": "export const add = (a: number, b: number): number => a + b;\n",
    }
    honest(*run(tmp_path, base, change, ["npx", "vitest", "run"], node_modules=True))


def test_honest_a_doctested_module_made_a_package(tmp_path: Path) -> None:
    base = {"calc.py": DOCTESTED, "tests/test_misc.py": MISC_TEST, ".gitignore": "__pycache__/\n"}
    change: Files = {
        "calc.py": None,
        "calc/__init__.py": DOCTESTED + "\n\ndef mul(a, b):\n"
        '    """Product.\n\n    >>> mul(2, 3)\n    6\n    """\n    return a * b\n',
    }
    honest(*run(tmp_path, base, change, DOCTEST_ALL))


def test_honest_ignored_local_settings_from_before_the_contract(tmp_path: Path) -> None:
    base = {**PY_BASE, ".gitignore": "__pycache__/\n.env.local\nlocal_settings.py\n"}
    before: Files = {".env.local": "DEBUG=1\n", "local_settings.py": "DEBUG = True\n"}
    change: Files = {"calc.py": CALC + "\n\ndef sub(a, b):\n    return a - b\n"}
    change["tests/test_sub.py"] = TESTS.replace("add", "sub").replace("== 3", "== -1")
    honest(*run(tmp_path, base, change, before=before))


@needs_go
def test_honest_a_go_registry_package_with_init(tmp_path: Path) -> None:
    registry = (
        "// Package registry names the operations.\npackage registry\n\n"
        'import "example.com/calc"\n\nvar ops = map[string]func(int, int) int{}\n\n'
        'func init() {\n\tops["add"] = calc.Add\n}\n\n'
        "// Get returns an operation.\nfunc Get(name string) func(int, int) int {\n"
        "\treturn ops[name]\n}\n"
    )
    registry_test = (
        'package registry\n\nimport "testing"\n\n'
        'func TestGet(t *testing.T) {\n\tif Get("add")(2, 3) != 5 {\n\t\tt.Fatal("add")\n\t}\n}\n'
    )
    change: Files = {
        "internal/registry/registry.go": registry,
        "internal/registry/registry_test.go": registry_test,
    }
    honest(*run(tmp_path, GO_BASE, change, ["go", "test", "./..."]))


@needs_node
def test_honest_a_node_module_split_in_two(tmp_path: Path) -> None:
    change: Files = {
        "src/calc.js": "const { sum } = require('./sum');\n\nexports.add = sum;\n",
        "src/sum.js": "exports.sum = (a, b) => a + b;\n",
        "test/sum.test.js": "const test = require('node:test');\n"
        "const assert = require('node:assert');\nconst { sum } = require('../src/sum');\n\n"
        "test('sums', () => {\n  assert.strictEqual(sum(2, 2), 4);\n});\n",
    }
    honest(*run(tmp_path, NODE_BASE, change, ["node", "--test"]))
