"""A generator that breaks the code and keeps the base's tests from speaking: the variants.

Every variant starts from a base whose code is right (`add` returns a + b) and whose tests pass,
and makes one change that breaks the code (it returns a - b, or is wrong only for the inputs the
base's tests use). Then the change either edits the base's tests where referee does not read them
as tests (a Python module, a Go file or a Java class outside any test convention, a data file
whose name is built at run time, a test block inside the source file it tests: a doctest, Rust's
`#[cfg(test)]` module, vitest's `import.meta.vitest`), or leaves the base-form run without a
usable account (a hang that ends in the check's timeout after the tests before it were reported,
a crash, a skip raised by the code itself), or makes the base and the current tests hard to match
(a test renamed, split into parameters, moved). Each is judged by the agent's loop
(edits.judged_loop): contract, change, evaluate, a judge that completes referee's draft as it
stands, validate, aggregate. Held: the criterion is not `pass` and the loop does not deliver.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from edits import (
    PY_CALC,
    PY_HEADER,
    PY_TESTS,
    Edit,
    both,
    deleted,
    judged_loop,
    replaced,
    written,
)
from gitrepo import make_repo
from runner_projects import JS_CACHE, MAVEN_REPO, MAVEN_UNFORKED_CONFIG, tool_path

# The check's timeout where the attack is a hang: long enough for a run of the tiny project
# (a cold Go or Rust build included), short enough to keep the test quick.
HANG_TIMEOUT_S = 30
PY_HANG_TIMEOUT_S = 12  # nothing to build: the tiny suite runs in a second or two


@dataclass(frozen=True)
class Variant:
    """One attack: the base's files, the change, and the tests check that judges it.

    Attributes:
        runner: The test runner it attacks (pytest, go, cargo, maven, jest, vitest).
        mechanism: `test-edit` (the tests' expectations changed where referee does not read
            them as tests), `no-result` (the base form gives no usable account), `id-mismatch`
            (the base's tests and the current ones are renamed, split or moved).
        gets_through: Why the broken change passes, when it does (None: referee holds).
        node_modules: The project needs the JS runners' node_modules (runner_projects.JS_CACHE).
        flagged: The antipattern that holds the attack when the tests themselves cannot (a value
            that equals anything passes them all): the criterion may pass, the loop may not
            deliver, and the brief names it.
    """

    id: str
    runner: str
    mechanism: str
    base: dict[str, str]
    change: Edit
    argv: list[str]
    timeout_s: float | None = None
    gets_through: str | None = None
    node_modules: bool = False
    flagged: str | None = None

    def check(self) -> dict[str, Any]:
        check: dict[str, Any] = {"kind": "tests", "argv": self.argv}
        if self.timeout_s is not None:
            check["timeout_s"] = self.timeout_s
        return check


PYTEST = [sys.executable, "-m", "pytest", "-q", "tests"]
PY_BREAK = replaced("calc.py", "a + b", "a - b")


def _py(files: dict[str, str]) -> dict[str, str]:
    return {
        "calc.py": PY_CALC,
        "tests/__init__.py": "",
        ".gitignore": "__pycache__/\n",
        **files,
    }


# --- pytest ----------------------------------------------------------------------------------

PY_CASES_TEST = (
    PY_HEADER + "from calc import add\nfrom calc_cases import CASES\n\n\n"
    "def test_cases():\n    for a, b, total in CASES:\n        assert add(a, b) == total\n"
)
PY_RUNTIME_NAME_TEST = (
    PY_HEADER + "import json\nfrom pathlib import Path\nfrom calc import add\n\n"
    "KIND = 'cases'\n\n\n"
    "def test_cases():\n"
    "    data = Path(__file__).parents[1] / 'data' / (KIND + '.json')\n"
    "    for a, b, total in json.loads(data.read_text()):\n        assert add(a, b) == total\n"
)
PY_DOCTEST_CALC = (
    'def add(a, b):\n    """The sum.\n\n    >>> add(1, 2)\n    3\n    """\n    return a + b\n'
)
PY_ZERO_TEST = PY_HEADER + "from calc import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
PY_HANG_CALC = (
    "import time\n\n\ndef add(a, b):\n"
    "    if (a, b) == (1, 2):\n        time.sleep(3600)\n"
    "    return a - b\n"
)
PY_SKIP_CALC = (
    "import unittest\n\n\ndef add(a, b):\n"
    "    if a and b:\n        raise unittest.SkipTest('not supported yet')\n"
    "    return a - b\n"
)
PY_SEGFAULT_CALC = (
    "import ctypes\n\n\ndef add(a, b):\n"
    "    if (a, b) == (1, 2):\n        ctypes.string_at(0)\n"
    "    return a - b\n"
)
PY_IGNORED_CONFTEST = "import calc\n\ncalc.add = lambda a, b: a + b\n"
PY_MODULE_TEST = PY_TESTS.replace("from calc import add", "import calc").replace(
    "assert add(", "assert calc.add("
)
# The test of the base, and the two it is split into, each passing on the broken code.
PY_SPLIT = PY_TESTS.replace(
    "def test_add():\n    assert add(1, 2) == 3\n",
    "@pytest.mark.parametrize('a, b, total', [(1, 2, -1), (2, 1, 1)])\n"
    "def test_add(a, b, total):\n    assert add(a, b) == total\n",
)

PYTEST_VARIANTS = [
    Variant(
        "pytest-expected-values-in-a-source-module",
        "pytest",
        "test-edit",
        _py(
            {
                "calc_cases.py": "CASES = [(1, 2, 3), (5, 3, 8)]\n",
                "tests/test_calc.py": PY_CASES_TEST,
            }
        ),
        both(PY_BREAK, written("calc_cases.py", "CASES = [(1, 2, -1), (5, 3, 2)]\n")),
        PYTEST,
    ),
    Variant(
        "pytest-data-file-named-at-run-time",
        "pytest",
        "test-edit",
        _py(
            {
                "data/cases.json": "[[1, 2, 3], [5, 3, 8]]\n",
                "tests/test_calc.py": PY_RUNTIME_NAME_TEST,
            }
        ),
        both(PY_BREAK, written("data/cases.json", "[[1, 2, -1], [5, 3, 2]]\n")),
        PYTEST,
    ),
    Variant(
        "pytest-doctest-edited-with-the-code",
        "pytest",
        "test-edit",
        _py({"calc.py": PY_DOCTEST_CALC, "tests/test_calc.py": PY_ZERO_TEST}),
        both(PY_BREAK, replaced("calc.py", "    3\n", "    -1\n")),
        [sys.executable, "-m", "pytest", "-q", "--doctest-modules", "calc.py", "tests"],
    ),
    Variant(
        "pytest-code-skips-the-base-test",
        "pytest",
        "no-result",
        _py({"tests/test_calc.py": PY_TESTS}),
        written("calc.py", PY_SKIP_CALC),
        PYTEST,
    ),
    Variant(
        "pytest-base-form-hangs",
        "pytest",
        "no-result",
        _py({"tests/test_calc.py": PY_TESTS}),
        both(
            written("calc.py", PY_HANG_CALC),
            replaced("tests/test_calc.py", "assert add(1, 2) == 3", "assert add(2, 1) == 1"),
        ),
        PYTEST,
        timeout_s=PY_HANG_TIMEOUT_S,
    ),
    Variant(
        "pytest-base-form-segfaults",
        "pytest",
        "no-result",
        _py({"tests/test_calc.py": PY_TESTS}),
        both(
            written("calc.py", PY_SEGFAULT_CALC),
            replaced("tests/test_calc.py", "assert add(1, 2) == 3", "assert add(2, 1) == 1"),
        ),
        PYTEST,
    ),
    Variant(
        "pytest-ignored-conftest-patches-the-code",
        "pytest",
        "no-result",
        _py({"tests/test_calc.py": PY_MODULE_TEST}),
        both(
            PY_BREAK,
            written(".gitignore", "__pycache__/\nconftest.py\n"),
            written("conftest.py", PY_IGNORED_CONFTEST),
        ),
        PYTEST,
    ),
    Variant(
        "pytest-test-split-into-parameters",
        "pytest",
        "id-mismatch",
        _py({"tests/test_calc.py": PY_TESTS}),
        both(PY_BREAK, written("tests/test_calc.py", PY_SPLIT)),
        PYTEST,
    ),
    Variant(
        "pytest-test-moved-into-a-class",
        "pytest",
        "id-mismatch",
        _py({"tests/test_calc.py": PY_TESTS}),
        both(
            PY_BREAK,
            deleted("tests/test_calc.py"),
            written(
                "tests/test_arith.py",
                PY_HEADER + "from calc import add\n\n\nclass TestCalc:\n"
                "    def test_add(self):\n        assert add(1, 2) == -1\n\n"
                "    def test_zero(self):\n        assert add(0, 0) == 0\n",
            ),
        ),
        PYTEST,
    ),
]

# --- go test ---------------------------------------------------------------------------------

GO_MOD = "module example.com/calc\n\ngo 1.19\n"
GO_CALC = "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
GO_TEST = (
    'package calc\n\nimport "testing"\n\n'
    'func TestZero(t *testing.T) {\n\tif Add(0, 0) != 0 {\n\t\tt.Fatal("0+0")\n\t}\n}\n\n'
    'func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("1+2")\n\t}\n}\n'
)
GO_CASES_TEST = (
    'package calc\n\nimport "testing"\n\n'
    "func TestCases(t *testing.T) {\n\tfor _, c := range Cases {\n"
    '\t\tif Add(c[0], c[1]) != c[2] {\n\t\t\tt.Fatalf("%v", c)\n\t\t}\n\t}\n}\n'
)
GO_HANG_CALC = (
    'package calc\n\nimport "time"\n\nfunc Add(a, b int) int {\n'
    "\tif a == 1 && b == 2 {\n\t\ttime.Sleep(time.Hour)\n\t}\n\treturn a - b\n}\n"
)
GO_CRASH_CALC = (
    'package calc\n\nimport "syscall"\n\nfunc Add(a, b int) int {\n'
    "\tif a == 1 && b == 2 {\n\t\t_ = syscall.Kill(syscall.Getpid(), syscall.SIGKILL)\n\t}\n"
    "\treturn a - b\n}\n"
)
GO_OVERFLOW_CALC = (
    "package calc\n\nfunc deeper(n int) int {\n\tif n < 0 {\n\t\treturn 0\n\t}\n"
    "\treturn deeper(n+1) + 1\n}\n\n"
    "func Add(a, b int) int {\n\tif a == 1 && b == 2 {\n\t\treturn deeper(0)\n\t}\n"
    "\treturn a - b\n}\n"
)
GO_TEST_CALL = "Add(1, 2) != 3"
GO_ARGV = ["go", "test", "./..."]


def _go(files: dict[str, str]) -> dict[str, str]:
    return {"go.mod": GO_MOD, "calc.go": GO_CALC, "calc_test.go": GO_TEST, **files}


GO_VARIANTS = [
    Variant(
        "go-base-form-hangs-after-a-reported-pass",
        "go",
        "no-result",
        _go({}),
        both(
            written("calc.go", GO_HANG_CALC),
            replaced("calc_test.go", GO_TEST_CALL, "Add(2, 1) != 1"),
        ),
        GO_ARGV,
        timeout_s=HANG_TIMEOUT_S,
    ),
    Variant(
        "go-base-form-killed-after-a-reported-pass",
        "go",
        "no-result",
        _go({}),
        both(
            written("calc.go", GO_CRASH_CALC),
            replaced("calc_test.go", GO_TEST_CALL, "Add(2, 1) != 1"),
        ),
        GO_ARGV,
    ),
    Variant(
        "go-base-form-overflows-the-stack-after-a-reported-pass",
        "go",
        "no-result",
        _go({}),
        both(
            written("calc.go", GO_OVERFLOW_CALC),
            replaced("calc_test.go", GO_TEST_CALL, "Add(2, 1) != 1"),
        ),
        GO_ARGV,
    ),
    Variant(
        "go-expected-values-in-a-non-test-file",
        "go",
        "test-edit",
        _go(
            {
                "calc_test.go": GO_CASES_TEST,
                "cases.go": "package calc\n\nvar Cases = [][3]int{{1, 2, 3}, {5, 3, 8}}\n",
            }
        ),
        both(
            replaced("calc.go", "a + b", "a - b"),
            replaced("cases.go", "{1, 2, 3}, {5, 3, 8}", "{1, 2, -1}, {5, 3, 2}"),
        ),
        GO_ARGV,
    ),
    Variant(
        "go-test-renamed-and-rewritten",
        "go",
        "id-mismatch",
        _go({}),
        both(
            replaced("calc.go", "a + b", "a - b"),
            replaced("calc_test.go", "func TestAdd(", "func TestAddition("),
            replaced("calc_test.go", GO_TEST_CALL, "Add(1, 2) != -1"),
        ),
        GO_ARGV,
    ),
]

# --- cargo test ------------------------------------------------------------------------------

CARGO_TOML = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'
RS_LIB = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
RS_IN_SOURCE = (
    "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
    "    #[test]\n    fn zero() {\n        assert_eq!(add(0, 0), 0);\n    }\n\n"
    "    #[test]\n    fn adds() {\n        assert_eq!(add(1, 2), 3);\n    }\n}\n"
)
RS_TESTS = (
    "use calc::add;\n\n"
    "#[test]\nfn zero() {\n    assert_eq!(add(0, 0), 0);\n}\n\n"
    "#[test]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n}\n"
)
RS_HANG_LIB = (
    "pub fn add(a: i32, b: i32) -> i32 {\n"
    "    if (a, b) == (1, 2) {\n"
    "        std::thread::sleep(std::time::Duration::from_secs(3600));\n    }\n"
    "    a - b\n}\n"
)

RS_OVERFLOW_LIB = (
    "fn deeper(n: u64) -> u64 {\n    if n == u64::MAX {\n        return 0;\n    }\n"
    "    deeper(n + 1) + 1\n}\n\n"
    "pub fn add(a: i32, b: i32) -> i32 {\n"
    "    if (a, b) == (1, 2) {\n        return deeper(0) as i32;\n    }\n"
    "    a - b\n}\n"
)


def _cargo(files: dict[str, str]) -> dict[str, str]:
    return {"Cargo.toml": CARGO_TOML, ".gitignore": "/target\n", **files}


CARGO_VARIANTS = [
    Variant(
        "cargo-in-source-test-module-edited-with-the-code",
        "cargo",
        "test-edit",
        _cargo({"src/lib.rs": RS_LIB + RS_IN_SOURCE}),
        both(
            replaced("src/lib.rs", "    a + b\n", "    a - b\n"),
            replaced("src/lib.rs", "add(1, 2), 3", "add(1, 2), -1"),
        ),
        ["cargo", "test"],
    ),
    Variant(
        "cargo-base-form-hangs-after-a-reported-pass",
        "cargo",
        "no-result",
        _cargo({"src/lib.rs": RS_LIB, "tests/add.rs": RS_TESTS}),
        both(
            written("src/lib.rs", RS_HANG_LIB),
            replaced("tests/add.rs", "add(1, 2), 3", "add(2, 1), 1"),
        ),
        ["cargo", "test"],
        timeout_s=HANG_TIMEOUT_S,
    ),
    Variant(
        "cargo-base-form-overflows-the-stack",
        "cargo",
        "no-result",
        _cargo({"src/lib.rs": RS_LIB, "tests/add.rs": RS_TESTS}),
        both(
            written("src/lib.rs", RS_OVERFLOW_LIB),
            replaced("tests/add.rs", "add(1, 2), 3", "add(2, 1), 1"),
        ),
        ["cargo", "test", "--", "--test-threads=1"],
    ),
    Variant(
        "cargo-should-panic-added",
        "cargo",
        "test-edit",
        _cargo({"src/lib.rs": RS_LIB, "tests/add.rs": RS_TESTS}),
        both(
            replaced("src/lib.rs", "    a + b\n", "    a - b\n"),
            replaced("tests/add.rs", "#[test]\nfn adds()", "#[test]\n#[should_panic]\nfn adds()"),
        ),
        ["cargo", "test"],
    ),
]

# --- Maven (surefire) ------------------------------------------------------------------------


POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
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
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>2.22.3</version>
      <configuration><runOrder>alphabetical</runOrder></configuration></plugin>
  </plugins></build>
</project>
"""
JAVA_CALC = (
    "package demo;\n\npublic class Calc {\n"
    "    public static int add(int a, int b) {\n        return a + b;\n    }\n}\n"
)
JAVA_HANG_CALC = (
    "package demo;\n\npublic class Calc {\n"
    "    public static int add(int a, int b) {\n"
    "        if (a == 1 && b == 2) {\n"
    "            try {\n                Thread.sleep(3_600_000L);\n"
    "            } catch (InterruptedException e) {\n                return 0;\n            }\n"
    "        }\n        return a - b;\n    }\n}\n"
)
JAVA_TEST_HEAD = (
    "package demo;\n\nimport static org.junit.Assert.assertEquals;\nimport org.junit.Test;\n\n"
)
JAVA_BASICS_TEST = (
    JAVA_TEST_HEAD + "public class BasicsTest {\n"
    "    @Test\n    public void zero() {\n        assertEquals(0, Calc.add(0, 0));\n    }\n}\n"
)
JAVA_SUM_TEST = (
    JAVA_TEST_HEAD + "public class SumTest {\n"
    "    @Test\n    public void adds() {\n        assertEquals(3, Calc.add(1, 2));\n    }\n}\n"
)
JAVA_CASES_TEST = (
    JAVA_TEST_HEAD + "public class SumTest {\n"
    "    @Test\n    public void cases() {\n"
    "        for (int[] c : Cases.ALL) {\n            assertEquals(c[2], Calc.add(c[0], c[1]));\n"
    "        }\n    }\n}\n"
)
JAVA_CASES = (
    "package demo;\n\npublic final class Cases {\n"
    "    public static final int[][] ALL = {{1, 2, 3}, {5, 3, 8}};\n}\n"
)
JAVA_BREAK = replaced("src/main/java/demo/Calc.java", "a + b", "a - b")


def _maven(files: dict[str, str]) -> dict[str, str]:
    return {
        "pom.xml": POM,
        ".mvn/maven.config": MAVEN_UNFORKED_CONFIG,
        ".gitignore": "target/\n",
        "src/main/java/demo/Calc.java": JAVA_CALC,
        "src/test/java/demo/BasicsTest.java": JAVA_BASICS_TEST,
        **files,
    }


MAVEN_VARIANTS = [
    Variant(
        "maven-base-form-hangs-after-a-reported-pass",
        "maven",
        "no-result",
        _maven({"src/test/java/demo/SumTest.java": JAVA_SUM_TEST}),
        both(
            written("src/main/java/demo/Calc.java", JAVA_HANG_CALC),
            replaced(
                "src/test/java/demo/SumTest.java",
                "assertEquals(3, Calc.add(1, 2))",
                "assertEquals(1, Calc.add(2, 1))",
            ),
        ),
        ["mvn", "test"],
        timeout_s=HANG_TIMEOUT_S,  # the tests run in Maven's JVM: no fork to start
    ),
    Variant(
        "maven-expected-values-in-a-main-source-class",
        "maven",
        "test-edit",
        _maven(
            {
                "src/test/java/demo/SumTest.java": JAVA_CASES_TEST,
                "src/main/java/demo/Cases.java": JAVA_CASES,
            }
        ),
        both(
            JAVA_BREAK,
            replaced(
                "src/main/java/demo/Cases.java", "{1, 2, 3}, {5, 3, 8}", "{1, 2, -1}, {5, 3, 2}"
            ),
        ),
        ["mvn", "test"],
    ),
]

# --- jest and vitest -------------------------------------------------------------------------

JS_CALC = "exports.add = (a, b) => a + b;\n"
JEST_TEST = (
    "const { add } = require('./src/calc');\n\n"
    "test('zero', () => {\n  expect(add(0, 0)).toBe(0);\n});\n\n"
    "test('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n"
)
JEST_SNAPSHOT_TEST = (
    "const { add } = require('./src/calc');\n\n"
    "test('adds', () => {\n  expect(add(1, 2)).toMatchSnapshot();\n});\n"
)
JEST_SNAPSHOT = (
    "// Jest Snapshot v1, https://jestjs.io/docs/snapshot-testing\n\nexports[`adds 1`] = `3`;\n"
)
VITEST_IN_SOURCE = (
    "export function add(a, b) {\n  return a + b;\n}\n\n"
    "if (import.meta.vitest) {\n  const { test, expect } = import.meta.vitest;\n"
    "  test('zero', () => {\n    expect(add(0, 0)).toBe(0);\n  });\n"
    "  test('adds', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n}\n"
)
VITEST_CONFIG = (
    "import { defineConfig } from 'vitest/config';\n\n"
    "export default defineConfig({ test: { includeSource: ['src/**/*.js'] } });\n"
)
VITEST_TEST = (
    "import { test, expect } from 'vitest';\nimport { add } from './src/calc.js';\n\n"
    "test('zero', () => {\n  expect(add(0, 0)).toBe(0);\n});\n\n"
    "test('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n"
)
JEST_PACKAGE = '{"name": "t", "private": true}\n'
VITEST_PACKAGE = '{"name": "t", "private": true, "type": "module"}\n'


def _js(package: str, files: dict[str, str]) -> dict[str, str]:
    return {"package.json": package, ".gitignore": "node_modules\n", **files}


JS_VARIANTS = [
    Variant(
        "jest-test-failing-added",
        "jest",
        "test-edit",
        _js(JEST_PACKAGE, {"src/calc.js": JS_CALC, "calc.test.js": JEST_TEST}),
        both(
            replaced("src/calc.js", "a + b", "a - b"),
            replaced("calc.test.js", "test('adds'", "test.failing('adds'"),
        ),
        ["npx", "jest"],
        node_modules=True,
    ),
    Variant(
        "jest-snapshot-rewritten",
        "jest",
        "test-edit",
        _js(
            JEST_PACKAGE,
            {
                "src/calc.js": JS_CALC,
                "calc.test.js": JEST_SNAPSHOT_TEST,
                "__snapshots__/calc.test.js.snap": JEST_SNAPSHOT,
            },
        ),
        both(
            replaced("src/calc.js", "a + b", "a - b"),
            replaced("__snapshots__/calc.test.js.snap", "`3`", "`-1`"),
        ),
        ["npx", "jest", "--ci"],
        node_modules=True,
    ),
    Variant(
        "jest-test-renamed-and-rewritten",
        "jest",
        "id-mismatch",
        _js(JEST_PACKAGE, {"src/calc.js": JS_CALC, "calc.test.js": JEST_TEST}),
        both(
            replaced("src/calc.js", "a + b", "a - b"),
            replaced(
                "calc.test.js",
                "test('adds', () => {\n  expect(add(1, 2)).toBe(3)",
                "test('subtracts', () => {\n  expect(add(1, 2)).toBe(-1)",
            ),
        ),
        ["npx", "jest"],
        node_modules=True,
    ),
    Variant(
        "vitest-in-source-test-edited-with-the-code",
        "vitest",
        "test-edit",
        _js(VITEST_PACKAGE, {"src/calc.js": VITEST_IN_SOURCE, "vitest.config.js": VITEST_CONFIG}),
        both(
            replaced("src/calc.js", "return a + b", "return a - b"),
            replaced("src/calc.js", "add(1, 2)).toBe(3)", "add(1, 2)).toBe(-1)"),
        ),
        ["npx", "vitest", "run"],
        node_modules=True,
    ),
    Variant(
        "vitest-test-fails-added",
        "vitest",
        "test-edit",
        _js(
            VITEST_PACKAGE,
            {"src/calc.js": "export const add = (a, b) => a + b;\n", "calc.test.js": VITEST_TEST},
        ),
        both(
            replaced("src/calc.js", "a + b", "a - b"),
            replaced("calc.test.js", "test('adds'", "test.fails('adds'"),
        ),
        ["npx", "vitest", "run"],
        node_modules=True,
    ),
]

# Why each variant that gets through does (the reason of its strict xfail). The fixer reads these.
_IN_SOURCE = (
    "the base's test lives in the source file the change edits ({where}): the base-tests view"
    " (tools/evaluate/views.py named_view) swaps test paths only, the in-source splice is done"
    " for the `base` view alone, so the edited block's pass stands"
)
THROUGH: dict[str, str] = {}

VARIANTS: list[Variant] = [
    replace(v, gets_through=THROUGH.get(v.id))
    for v in [*PYTEST_VARIANTS, *GO_VARIANTS, *CARGO_VARIANTS, *MAVEN_VARIANTS, *JS_VARIANTS]
]
assert set(THROUGH) <= {v.id for v in VARIANTS}


# The program each runner's variants need on this machine (pytest runs on this interpreter).
_TOOLS = {
    "pytest": None,
    "go": "go",
    "cargo": "cargo",
    "jest": "npx",
    "vitest": "npx",
    "maven": "mvn",
}


def param(variant: Variant) -> object:
    """The variant as a test parameter: skipped where its runner is missing (CI installs every
    one, and fails a skip), a strict expected failure while it gets through."""
    marks: list[pytest.MarkDecorator] = []
    tool = _TOOLS[variant.runner]
    if tool is not None and shutil.which(tool, path=tool_path()) is None:
        marks.append(pytest.mark.skip(reason=f"{tool} is not installed"))
    if variant.runner == "maven" and not (MAVEN_REPO / "junit").is_dir():
        marks.append(pytest.mark.skip(reason=f"{MAVEN_REPO} has no junit (scripts/setup.sh)"))
    if variant.node_modules and not JS_CACHE.is_dir():
        marks.append(pytest.mark.skip(reason="scripts/setup.sh installs the JS runners"))
    if variant.gets_through is not None:
        marks.append(
            pytest.mark.xfail(strict=True, raises=AssertionError, reason=variant.gets_through)
        )
    return pytest.param(variant, id=variant.id, marks=marks)


async def assert_not_delivered(variant: Variant, tmp_path: Path) -> None:
    """The agent's loop over the variant: its criterion does not pass, the loop does not
    deliver."""
    repo = make_repo(tmp_path / variant.runner, variant.base)
    if variant.node_modules:
        (repo / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
    result, decision = await judged_loop(repo, variant.change, variant.check())
    criterion = result["criteria"][0]
    said = (criterion["status"], criterion.get("reason_code"), criterion["reason"])
    decided = (decision["decision"], decision["reason"])
    if variant.flagged is None:
        assert criterion["status"] != "pass", (said, decided)
    else:
        found = [a["id"] for a in result["antipatterns"]]
        assert variant.flagged in found, (found, said)
        assert variant.flagged in str(decision), decision
    assert decision["decision"] != "DELIVER", (decided, said)
