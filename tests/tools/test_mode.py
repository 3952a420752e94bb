"""When the tests run once more in production's mode (tools/graders/mode.py), and what a
difference between the two runs reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.tools.graders.mode import ModeRuns, mode_finding, production_mode
from referee.tools.models.evidence import TestOutcome as Outcome


@pytest.mark.parametrize(
    ("path", "text", "variable"),
    [
        ("src/a.ts", "const p = process.env.NODE_ENV;\n", "NODE_ENV"),
        ("src/a.js", "x\nconst e = process.env;\n", "NODE_ENV"),
        ("src/a.mjs", "if (import.meta.env.DEV) {}\n", "NODE_ENV"),
        ("src/a.js", "process['e' + 'nv']\n", "NODE_ENV"),
        ("src/a.js", "globalThis['process']\n", "NODE_ENV"),
        ("src/lib.rs", "#[cfg(not(debug_assertions))]\nfn f() {}\n", "DEBUG_ASSERTIONS"),
        ("src/lib.rs", "std::panic::catch_unwind(|| 1);\n", "DEBUG_ASSERTIONS"),
        # Any environment access, and any Rust source: the switch is the compiler's.
        ("src/a.js", "const url = process.env.API_URL;\n", "NODE_ENV"),
        ("src/a.js", "import { env } from 'node:process';\n", "NODE_ENV"),
        ("src/a.ts", "const m = import.meta['env'];\n", "NODE_ENV"),
        ("src/a.js", "fs.readFileSync('/proc/self/environ')\n", "NODE_ENV"),
        ("test/a.test.js", "process.env.NODE_ENV = 'production';\n", "NODE_ENV"),
        ("src/lib.rs", "pub fn add(a: i32) -> i32 { debug_assert!(a > 0); a }\n", "DEBUG"),
        ("src/lib.rs", "pub fn add(a: i32) -> i32 { is_release!(a) }\n", "DEBUG"),
    ],
)
def test_code_that_reads_the_mode_runs_once_more(
    path: str, text: str, variable: str, tmp_path: Path
) -> None:
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_text(text, encoding="utf-8")
    mode = production_mode(tmp_path, {path: None})
    assert mode is not None and variable in mode.shown
    assert (mode.path, mode.line) == (path, 2 if text.startswith("x\n") else 1)


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("src/a.js", "export const add = (a, b) => a + b;\n"),
        ("src/a.ts", "import { sum } from './sum';\nexport const add = sum;\n"),
        ("src/a.py", "import os\nos.environ['NODE_ENV']\n"),
        ("src/in_source.ts", "export const f = 1;\nif (import.meta.vitest) {}\n"),
        # Nothing in a plain function can tell the builds apart: no second build.
        (
            "src/lib.rs",
            "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n#[cfg(test)]\nmod t {}\n",
        ),
    ],
)
def test_code_that_does_not_read_the_mode_runs_once(path: str, text: str, tmp_path: Path) -> None:
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_text(text, encoding="utf-8")
    assert production_mode(tmp_path, {path: None}) is None


def _outcomes(**tests: str) -> list[Outcome]:
    return [Outcome.model_validate({"name": n, "outcome": o}) for n, o in tests.items()]


def test_a_test_that_passes_in_the_test_mode_only_is_reported(tmp_path: Path) -> None:
    (tmp_path / "calc.js").write_text("process.env.NODE_ENV\n", encoding="utf-8")
    mode = production_mode(tmp_path, {"calc.js": None})
    assert mode is not None
    now = _outcomes(adds="passed", subs="passed", skips="skipped")
    same = ModeRuns(now, _outcomes(adds="passed", subs="passed"), False)
    assert mode_finding(mode, same, None) is None
    broke = ModeRuns(now, _outcomes(adds="failed", subs="passed"), True)
    found = mode_finding(mode, broke, None)
    assert found is not None and found.kind == "code_detects_tests"
    assert "adds fails" in found.message and found.location == "calc.js:1"
    # A suite that does not build or report in production's mode is a difference too.
    assert mode_finding(mode, ModeRuns(now, [], True), None) is not None


def test_what_the_base_did_in_production_already_is_not_held_against_the_change(
    tmp_path: Path,
) -> None:
    (tmp_path / "calc.js").write_text("x\nprocess.env.NODE_ENV\n", encoding="utf-8")
    mode = production_mode(tmp_path, {"calc.js": {1}})
    assert mode is not None and (mode.line, mode.changed) == (2, False)
    now = _outcomes(adds="passed", warns="passed")
    there = _outcomes(adds="failed", warns="failed")
    # At base `warns` passed in the test mode and failed in production's; `adds` failed in both.
    base = ModeRuns(_outcomes(adds="failed", warns="passed"), there, True, False)
    found = mode_finding(mode, ModeRuns(now, there, True), base)
    assert found is not None and "adds fails" in found.message and "warns" not in found.message
    assert "may use the mode read at calc.js:2" in found.message
    honest = ModeRuns(_outcomes(adds="passed", warns="passed"), _outcomes(warns="failed"), True)
    assert mode_finding(mode, ModeRuns(now, _outcomes(warns="failed"), True), honest) is None


def test_a_read_on_a_changed_line_is_the_one_shown(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text("process.env.NODE_ENV\n\nprocess.env.NODE_ENV\n", "utf-8")
    mode = production_mode(tmp_path, {"a.js": {3}})
    assert mode is not None and (mode.line, mode.changed) == (3, True)
    assert mode.argv(["npx", "vitest", "run"]) == ["npx", "vitest", "run", "--mode=production"]
    assert mode.argv(["npx", "jest"]) == ["npx", "jest"]


def test_a_module_the_change_imports_is_read_too(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "env.js").write_text(
        "export const isProd = () => process.env.NODE_ENV === 'production';\n", "utf-8"
    )
    (tmp_path / "src" / "calc.js").write_text(
        "import { isProd } from './env';\nexport const add = (a, b) => isProd() ? a - b : a + b;\n",
        "utf-8",
    )
    mode = production_mode(tmp_path, {"src/calc.js": None})
    assert mode is not None and (mode.path, mode.line, mode.changed) == ("src/env.js", 1, False)
