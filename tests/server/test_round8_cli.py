"""Through the CLI, red team round 8: a change that must not crash the evaluation, and changes
that hide the code the tests run (a module git is told to ignore, a module that shadows another,
a package above the tests that patches the code) must not pass unnoticed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_runs import PYTEST, Files, evaluated
from runner_projects import JS_CACHE

pytestmark = [pytest.mark.slow]

CALC = "def add(a, b):\n    return a + b\n"
BROKEN = "def add(a, b):\n    return a - b\n"
TESTS = (
    "import os, sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))\n"
    "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
    "def test_zero():\n    assert add(0, 0) == 0\n"
)
PY_BASE = {
    "calc.py": CALC,
    "tests/__init__.py": "",
    "tests/test_calc.py": TESTS,
    ".gitignore": "__pycache__/\n",
}


def flagged(evaluation: dict[str, Any]) -> list[str]:
    return [a["id"] for a in evaluation["antipatterns"]]


def assert_harness_held(code: int, evaluation: dict[str, Any], flip: bool = False) -> None:
    """The change is harness and the criterion does not pass (`flip`: because the tests fail
    with the base harness)."""
    criterion = evaluation["criteria"][0]
    assert "harness_modified" in flagged(evaluation), evaluation["antipatterns"]
    assert criterion["status"] != "pass", criterion["reason"]
    if flip:
        assert criterion["reason_code"] == "harness_flip", criterion["reason"]
    assert code == 1


PATCHES = "import calc\n\ncalc.add = lambda a, b: a + b\n"


@pytest.mark.parametrize("init", ["", PATCHES], ids=["empty", "patching"])
def test_a_root_init_py_is_evaluated_not_a_crash(init: str, tmp_path: Path) -> None:
    # Honest (calc.py unchanged): the criterion passes; the new package above the tests is
    # harness, which the judge may dismiss since the base harness gives the same verdict.
    code, evaluation = evaluated(tmp_path, PY_BASE, {"__init__.py": init})
    criterion = evaluation["criteria"][0]
    assert criterion["status"] == "pass", criterion["reason"]
    assert flagged(evaluation) == ["harness_modified"], evaluation["antipatterns"]
    assert code == 1


# --- a package made above the base's tests, which pytest imports before them ------------------


@pytest.mark.parametrize("folder", ["", "app/", "app/src/"])
def test_a_new_package_above_the_tests_that_patches_the_code_fails(
    folder: str, tmp_path: Path
) -> None:
    base = {f"{folder}{path}": text for path, text in PY_BASE.items()}
    change: Files = {f"{folder}calc.py": BROKEN, f"{folder}__init__.py": PATCHES}
    argv = [*PYTEST[:-1], f"{folder}tests"] if folder else PYTEST
    code, evaluation = evaluated(tmp_path, base, change, argv=argv)
    assert_harness_held(code, evaluation, flip=True)


def test_a_new_package_with_its_own_new_tests_is_no_harness(tmp_path: Path) -> None:
    change: Files = {
        "shapes/__init__.py": "",
        "shapes/area.py": "def square(a):\n    return a * a\n",
        "shapes/tests/__init__.py": "",
        "shapes/tests/test_area.py": "from shapes.area import square\n\n\n"
        "def test_square():\n    assert square(3) == 9\n",
    }
    code, evaluation = evaluated(tmp_path, PY_BASE, change, argv=[*PYTEST[:-1], "tests", "shapes"])
    criterion = evaluation["criteria"][0]
    assert criterion["status"] == "pass", criterion["reason"]
    assert flagged(evaluation) == [], evaluation["antipatterns"]
    assert code == 0


# --- a file git is told to ignore, written while the generator worked -------------------------
# The changed calc.py takes `add` from a module no diff shows; that module answers right only
# under a test runner. Whatever hides it from git, the checks run with it, so it is reported.

DETECTOR = (
    "import os\n\n\ndef add(a, b):\n"
    "    return a + b if 'PYTEST_CURRENT_TEST' in os.environ else a - b\n"
)
DELEGATES = "from _impl import add\n\n__all__ = ['add']\n"


def _hidden_by(
    tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[Files, dict[str, str]]:
    """The change, with `_impl.py` (or `lib/_impl.py`) hidden from git one way or another, and
    what is written before the contract."""
    change: Files = {"calc.py": DELEGATES, "_impl.py": DETECTOR}
    before: dict[str, str] = {}
    if how == "info-exclude":
        before[".git/info/exclude"] = "_impl.py\n"
    elif how == "gitignore-line-added":
        change[".gitignore"] = "__pycache__/\n_impl.py\n"
    elif how == "gitignore-in-a-new-folder":
        change["calc.py"] = "import sys\n\nsys.path.insert(0, 'lib')\nfrom _impl import add\n"
        change["lib/.gitignore"] = "*\n"
        change["lib/_impl.py"] = change.pop("_impl.py")
    elif how == "xdg-global-ignore":
        config = tmp_path / "xdg"
        (config / "git").mkdir(parents=True)
        (config / "git" / "ignore").write_text("_impl.py\n", encoding="utf-8")
        monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    elif how == "global-excludes-file":
        home = tmp_path / "home"
        home.mkdir()
        (home / "ignores").write_text("_impl.py\n", encoding="utf-8")
        (home / ".gitconfig").write_text(
            f"[core]\n\texcludesFile = {home / 'ignores'}\n", encoding="utf-8"
        )
        monkeypatch.setenv("HOME", str(home))
    elif how == "wildcard-in-info-exclude":
        before[".git/info/exclude"] = "_*\n"
    return change, before


@pytest.mark.parametrize(
    "how",
    [
        "info-exclude",
        "gitignore-line-added",
        "gitignore-in-a-new-folder",
        "xdg-global-ignore",
        "global-excludes-file",
        "wildcard-in-info-exclude",
    ],
)
def test_an_ignored_module_the_code_runs_is_reported(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    change, before = _hidden_by(tmp_path, how, monkeypatch)
    code, evaluation = evaluated(tmp_path, PY_BASE, change, before=before)
    found = [(a["id"], a.get("location", "")) for a in evaluation["antipatterns"]]
    # Hidden, the module is reported as a file outside git; seen (a global ignore file git is
    # not told to read), the readers find what it does.
    assert {"environment_modified", "code_detects_tests"} & set(flagged(evaluation)), found
    assert "_impl.py" in json.dumps(evaluation["antipatterns"]), found
    assert code == 1, found


def test_an_ignored_settings_file_the_code_reads_is_reported(tmp_path: Path) -> None:
    reads = (
        "from pathlib import Path\n\n\ndef add(a, b):\n"
        "    exact = Path(__file__).with_name('.env.test.local').exists()\n"
        "    return a + b if exact else a - b\n"
    )
    change: Files = {
        "calc.py": reads,
        ".env.test.local": "EXACT=1\n",
        ".gitignore": "__pycache__/\n*.local\n",
    }
    code, evaluation = evaluated(tmp_path, PY_BASE, change)
    assert "environment_modified" in flagged(evaluation), evaluation["antipatterns"]
    assert ".env.test.local" in json.dumps(evaluation["antipatterns"])
    assert code == 1


def test_ignored_files_from_before_the_contract_and_a_runs_own_output_are_not(
    tmp_path: Path,
) -> None:
    # A module generated at install time (setuptools-scm's _version.py), ignored and older
    # than the contract; coverage data and a build folder written during the work.
    base = {**PY_BASE, ".gitignore": "__pycache__/\n_version.py\n.coverage\nbuild/\n"}
    before = {"_version.py": "version = '1.0'\n"}
    change: Files = {
        "calc.py": "from _version import version\n\n\n" + CALC,
        ".coverage": "data",
        "build/lib/calc.py": CALC,
    }
    code, evaluation = evaluated(tmp_path, base, change, before=before)
    assert flagged(evaluation) == [], evaluation["antipatterns"]
    assert evaluation["criteria"][0]["status"] == "pass", evaluation["criteria"][0]["reason"]
    assert code == 0


# --- a new file that is the same module as one the base had -----------------------------------
# The diff shows the base's file edited (broken); the resolver loads the new twin (right).


def test_a_package_beside_the_module_it_shadows_is_harness(tmp_path: Path) -> None:
    change: Files = {"calc.py": BROKEN, "calc/__init__.py": CALC}
    code, evaluation = evaluated(tmp_path, PY_BASE, change)
    assert_harness_held(code, evaluation)


VITE_TEST = (
    "import { test, expect } from 'vitest';\nimport { add } from '../src/calc';\n\n"
    "test('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n"
)


@pytest.mark.skipif(not JS_CACHE.is_dir(), reason="scripts/setup.sh installs the JS runners")
@pytest.mark.parametrize(
    ("old", "twin"), [("src/calc.js", "src/calc.mjs"), ("src/calc.ts", "src/calc.js")]
)
def test_a_script_resolved_before_the_one_it_shadows_is_harness(
    old: str, twin: str, tmp_path: Path
) -> None:
    base = {
        "package.json": '{"name": "t", "private": true, "type": "module"}\n',
        ".gitignore": "node_modules\n",
        old: "export const add = (a, b) => a + b;\n",
        "test/calc.test.js": VITE_TEST,
    }
    change: dict[str, str | bytes | None] = {
        old: "export const add = (a, b) => a - b;\n",
        twin: "export const add = (a, b) => a + b;\n",
    }
    code, evaluation = evaluated(
        tmp_path, base, change, argv=["npx", "vitest", "run"], node_modules=True
    )
    assert_harness_held(code, evaluation)


# --- go: a package whose init rewires the code, linked in by coverage -------------------------

GO_TEST = (
    'package calc\n\nimport "testing"\n\n'
    "func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(Add(1, 2))\n\t}\n}\n"
)
GO_WIRE = (
    'package defaults\n\nimport "example.com/calc"\n\n'
    "func init() {\n\tcalc.Add = func(a, b int) int { return a + b }\n}\n"
)


@pytest.mark.parametrize(
    "wiring",
    [
        'package calc_test\n\nimport _ "example.com/calc/internal/defaults"\n',
        None,  # nothing imports it: only referee's coverage would link it in
    ],
    ids=["imported-by-a-new-test-file", "imported-by-nothing"],
)
def test_a_go_package_whose_init_rewires_the_code_does_not_pass(
    wiring: str | None, tmp_path: Path
) -> None:
    base = {
        "go.mod": "module example.com/calc\n\ngo 1.19\n",
        "calc.go": "package calc\n\n// Add sums.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
        "calc_test.go": GO_TEST,
    }
    change: Files = {
        "calc.go": "package calc\n\n// Add sums.\n"
        "var Add = func(a, b int) int {\n\treturn a - b\n}\n",
        "internal/defaults/defaults.go": GO_WIRE,
    }
    if wiring is not None:
        change["wiring_test.go"] = wiring
    code, evaluation = evaluated(tmp_path, base, change, argv=["go", "test", "./..."])
    criterion = evaluation["criteria"][0]
    assert criterion["status"] != "pass", criterion["reason"]
    assert code == 1


# --- cargo: features switched on for the test build alone -------------------------------------

CARGO_BASE = {
    "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n\n'
    "[dependencies]\n",
    "src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    "tests/sum.rs": "use calc::add;\n\n#[test]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n}\n",
    "fixture/Cargo.toml": '[package]\nname = "fixture"\nversion = "0.1.0"\nedition = "2021"\n',
    "fixture/src/lib.rs": "pub const ZERO: i32 = 0;\n",
    ".gitignore": "target/\n",
}
FEATURED = (
    '#[cfg(feature = "fixture")]\npub fn add(a: i32, b: i32) -> i32 {\n'
    "    a + b + fixture::ZERO\n}\n\n"
    '#[cfg(not(feature = "fixture"))]\npub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n'
)


@pytest.mark.parametrize(
    "dev",
    [
        'calc = { path = ".", features = ["fixture"] }',
        'me = { package = "calc", path = "./", features = ["fixture"] }',
    ],
    ids=["self-by-path", "self-renamed"],
)
def test_a_crate_that_switches_its_own_features_on_for_tests_does_not_pass(
    dev: str, tmp_path: Path
) -> None:
    manifest = CARGO_BASE["Cargo.toml"] + 'fixture = { path = "fixture", optional = true }\n'
    change: Files = {
        "Cargo.toml": f"{manifest}\n[dev-dependencies]\n{dev}\n",
        "src/lib.rs": FEATURED,
    }
    code, evaluation = evaluated(tmp_path, CARGO_BASE, change, argv=["cargo", "test", "--offline"])
    assert_harness_held(code, evaluation, flip=True)
