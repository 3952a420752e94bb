"""Tiny real projects, one per test runner, each with three suites in folders of its own:

    pass/   two passing tests (one is skipped by `skip_edit` after the contract is written)
    fail/   one passing and one failing test (`failing_id` is the failing test's runnable id)
    empty/  a suite that runs no test at all

The checks are written as the runner's users write them (`["npx", "jest"]`, `["go", "test",
"./..."]` …), with `cwd` naming the folder.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
JS_CACHE = ROOT / ".cache" / "js-runners" / "node_modules"
PY = sys.executable
MAVEN_REPO = Path("/usr/share/maven-repo")


@dataclass(frozen=True)
class RunnerProject:
    name: str
    argv: list[str]
    suites: dict[str, dict[str, str]]  # folder -> files
    failing_id: str
    skip_edit: tuple[str, str, str]  # (file in pass/, old text, new text)
    needs: tuple[str, ...] = ()
    shared: dict[str, str] = field(default_factory=dict)  # files at the project root
    link_node_modules: bool = False
    timeout_s: float = 300

    def missing(self) -> list[str]:
        return missing_tools(self.needs, node_modules=self.link_node_modules)

    def write(self, root: Path) -> None:
        files = dict(self.shared)
        for folder, content in self.suites.items():
            files.update({f"{folder}/{name}": text for name, text in content.items()})
        for name, text in files.items():
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        if self.link_node_modules:
            for folder in self.suites:
                (root / folder / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)

    def check(self, folder: str) -> dict[str, Any]:
        return {"kind": "tests", "argv": self.argv, "cwd": folder, "timeout_s": self.timeout_s}

    def criteria(self) -> list[dict[str, Any]]:
        return [
            {
                "criterion": f"{self.name}: {folder}",
                "verification_method": "test",
                "check": self.check(folder),
            }
            for folder in ("pass", "fail", "empty")
        ]

    def apply_skip(self, root: Path) -> None:
        name, old, new = self.skip_edit
        target = root / "pass" / name
        text = target.read_text(encoding="utf-8")
        assert old in text, (self.name, old)
        target.write_text(text.replace(old, new, 1), encoding="utf-8")


def missing_tools(needs: tuple[str, ...], *, node_modules: bool = False) -> list[str]:
    """What a project's runs need that this machine lacks (a test skips naming it)."""
    absent = [tool for tool in needs if shutil.which(tool, path=tool_path()) is None]
    if node_modules and not JS_CACHE.is_dir():
        absent.append(f"{JS_CACHE} (scripts/setup.sh installs it)")
    if "mvn" in needs and not (MAVEN_REPO / "junit").is_dir():
        absent.append(f"{MAVEN_REPO} with junit (scripts/setup.sh installs it)")
    return absent


def tool_path() -> str:
    """PATH with this interpreter's folder first (cargo-nextest installs there from PyPI)."""
    return os.pathsep.join([str(Path(PY).parent), os.environ.get("PATH", os.defpath)])


GITIGNORE = "node_modules\ntarget/\nbuild/\n.gradle/\n__pycache__/\nvendor/\n"

# --- Python -------------------------------------------------------------------------------

_PYTEST_PASS = (
    "class TestMath:\n"
    "    def test_adds(self):\n        assert 1 + 1 == 2\n\n"
    "    def test_subtracts(self):\n        assert 2 - 1 == 1\n"
)
_PYTEST_FAIL = (
    "def test_fine():\n    assert True\n\n"
    "def test_wrong():\n    assert 2 + 2 == 5, 'deliberately wrong'\n"
)
PYTEST = RunnerProject(
    name="pytest",
    argv=[PY, "-m", "pytest", "-q"],
    suites={
        "pass": {"tests/test_math.py": _PYTEST_PASS},
        "fail": {"tests/test_calc.py": _PYTEST_FAIL},
        "empty": {"tests/test_nothing.py": "VALUE = 1\n"},
    },
    failing_id="tests/test_calc.py::test_wrong",
    skip_edit=(
        "tests/test_math.py",
        "    def test_subtracts",
        "    @__import__('pytest').mark.skip\n    def test_subtracts",
    ),
)

_UNITTEST_PASS = (
    "import unittest\n\n"
    "class TestMath(unittest.TestCase):\n"
    "    def test_adds(self):\n        self.assertEqual(1 + 1, 2)\n\n"
    "    def test_subtracts(self):\n        self.assertEqual(2 - 1, 1)\n"
)
_UNITTEST_FAIL = (
    "import unittest\n\n"
    "class TestCalc(unittest.TestCase):\n"
    "    def test_fine(self):\n        self.assertTrue(True)\n\n"
    "    def test_wrong(self):\n        self.assertEqual(2 + 2, 5, 'deliberately wrong')\n"
)
UNITTEST = RunnerProject(
    name="unittest",
    argv=[PY, "-m", "unittest", "discover", "-s", "tests", "-t", "."],
    suites={
        "pass": {"tests/__init__.py": "", "tests/test_math.py": _UNITTEST_PASS},
        "fail": {"tests/__init__.py": "", "tests/test_calc.py": _UNITTEST_FAIL},
        "empty": {"tests/__init__.py": "", "tests/test_nothing.py": "VALUE = 1\n"},
    },
    failing_id="tests.test_calc.TestCalc.test_wrong",
    skip_edit=(
        "tests/test_math.py",
        "    def test_subtracts",
        "    @unittest.skip('later')\n    def test_subtracts",
    ),
)

# --- JavaScript ---------------------------------------------------------------------------

_NODE_PASS = (
    "import { describe, it } from 'node:test';\nimport assert from 'node:assert/strict';\n\n"
    "describe('math', () => {\n"
    "  it('adds', () => { assert.equal(1 + 1, 2); });\n"
    "  it('subtracts', () => { assert.equal(2 - 1, 1); });\n"
    "});\n"
)
_NODE_FAIL = (
    "import { describe, it } from 'node:test';\nimport assert from 'node:assert/strict';\n\n"
    "describe('calc', () => {\n"
    "  it('is fine', () => { assert.ok(true); });\n"
    "  it('is wrong', () => { assert.equal(2 + 2, 5, 'deliberately wrong'); });\n"
    "});\n"
)
NODE = RunnerProject(
    name="node",
    argv=["node", "--test"],
    suites={
        "pass": {"test/math.test.mjs": _NODE_PASS},
        "fail": {"test/calc.test.mjs": _NODE_FAIL},
        "empty": {"test/nothing.test.mjs": "export const value = 1;\n"},
    },
    failing_id="calc > is wrong",
    skip_edit=("test/math.test.mjs", "it('subtracts'", "it.skip('subtracts'"),
    needs=("node",),
)

_JEST_LIKE_PASS = (
    "describe('math', () => {\n"
    "  test('adds', () => { expect(1 + 1).toBe(2); });\n"
    "  test('subtracts', () => { expect(2 - 1).toBe(1); });\n"
    "});\n"
)
_JEST_LIKE_FAIL = (
    "describe('calc', () => {\n"
    "  test('is fine', () => { expect(true).toBe(true); });\n"
    "  test('is wrong', () => { expect(2 + 2).toBe(5); });\n"
    "});\n"
)
_VITEST_IMPORT = "import { describe, test, expect } from 'vitest';\n"


def _package(script: str, kind: str = "commonjs", name: str = "test") -> str:
    scripts = json.dumps({name: script})
    return f'{{"name": "t", "private": true, "type": "{kind}", "scripts": {scripts}}}\n'


JEST = RunnerProject(
    name="jest",
    argv=["npx", "jest"],
    suites={
        "pass": {"package.json": _package("jest"), "math.test.js": _JEST_LIKE_PASS},
        "fail": {"package.json": _package("jest"), "calc.test.js": _JEST_LIKE_FAIL},
        "empty": {"package.json": _package("jest"), "nothing.test.js": "const value = 1;\n"},
    },
    failing_id="calc.test.js > calc > is wrong",
    skip_edit=("math.test.js", "test('subtracts'", "test.skip('subtracts'"),
    needs=("node", "npx"),
    link_node_modules=True,
)
VITEST = RunnerProject(
    name="vitest",
    argv=["npx", "vitest"],
    suites={
        "pass": {
            "package.json": _package("vitest", "module"),
            "math.test.js": _VITEST_IMPORT + _JEST_LIKE_PASS,
        },
        "fail": {
            "package.json": _package("vitest", "module"),
            "calc.test.js": _VITEST_IMPORT + _JEST_LIKE_FAIL,
        },
        "empty": {
            "package.json": _package("vitest", "module"),
            "vitest.config.js": "export default { test: { passWithNoTests: true } };\n",
            "nothing.test.js": "export const value = 1;\n",
        },
    },
    failing_id="calc.test.js > calc > is wrong",
    skip_edit=("math.test.js", "test('subtracts'", "test.skip('subtracts'"),
    needs=("node", "npx"),
    link_node_modules=True,
)
_MOCHA_PASS = (
    "const assert = require('node:assert/strict');\n\n"
    "describe('math', () => {\n"
    "  it('adds', () => { assert.equal(1 + 1, 2); });\n"
    "  it('subtracts', () => { assert.equal(2 - 1, 1); });\n"
    "});\n"
)
_MOCHA_FAIL = (
    "const assert = require('node:assert/strict');\n\n"
    "describe('calc', () => {\n"
    "  it('is fine', () => { assert.ok(true); });\n"
    "  it('is wrong', () => { assert.equal(2 + 2, 5, 'deliberately wrong'); });\n"
    "});\n"
)
MOCHA = RunnerProject(
    name="mocha",
    argv=["npx", "mocha"],
    suites={
        "pass": {"test/math.test.js": _MOCHA_PASS},
        "fail": {"test/calc.test.js": _MOCHA_FAIL},
        "empty": {"test/nothing.test.js": "const value = 1;\n"},
    },
    failing_id="test/calc.test.js > calc > is wrong",
    skip_edit=("test/math.test.js", "it('subtracts'", "it.skip('subtracts'"),
    needs=("node", "npx"),
    link_node_modules=True,
)


def _scripted(
    base: RunnerProject, name: str, argv: list[str], script: str, script_name: str = "test"
) -> RunnerProject:
    """The same suites, run through a package.json script as `argv` (npm test, pnpm test …)."""
    kind = "module" if base is VITEST else "commonjs"
    suites = {
        folder: {**files, "package.json": _package(script, kind, script_name)}
        for folder, files in base.suites.items()
    }
    return RunnerProject(
        name=name,
        argv=argv,
        suites=suites,
        failing_id=base.failing_id,
        skip_edit=base.skip_edit,
        needs=("node",),
        link_node_modules=base.link_node_modules,
    )


NPM_TEST = _scripted(JEST, "npm test (jest)", ["npm", "test"], "jest --silent")
PNPM_TEST = _scripted(VITEST, "pnpm test (vitest)", ["pnpm", "test"], "vitest run")
YARN_TEST = _scripted(MOCHA, "yarn test (mocha)", ["yarn", "test"], "mocha")
NPM_RUN = _scripted(
    NODE, "npm run unit (node --test)", ["npm", "run", "unit"], "echo unit && node --test", "unit"
)

# --- Go -----------------------------------------------------------------------------------

_GO_MOD = "module example.com/{name}\n\ngo 1.19\n"
_GO_PASS = (
    'package calc\n\nimport "testing"\n\n'
    'func TestAdds(t *testing.T) {\n\tif 1+1 != 2 {\n\t\tt.Fatal("1+1")\n\t}\n}\n\n'
    'func TestSubtracts(t *testing.T) {\n\tif 2-1 != 1 {\n\t\tt.Error("2-1")\n\t}\n}\n'
)
_GO_FAIL = (
    'package calc\n\nimport "testing"\n\n'
    "func TestFine(t *testing.T) {}\n\n"
    'func TestWrong(t *testing.T) {\n\tif 2+2 != 5 {\n\t\tt.Errorf("deliberately wrong")\n\t}\n}\n'
)
GO = RunnerProject(
    name="go test",
    argv=["go", "test", "./..."],
    suites={
        "pass": {"go.mod": _GO_MOD.format(name="pass"), "calc_test.go": _GO_PASS},
        "fail": {"go.mod": _GO_MOD.format(name="fail"), "calc_test.go": _GO_FAIL},
        "empty": {"go.mod": _GO_MOD.format(name="empty"), "calc.go": "package calc\n"},
    },
    failing_id="example.com/fail.TestWrong",
    skip_edit=(
        "calc_test.go",
        "func TestSubtracts(t *testing.T) {\n",
        'func TestSubtracts(t *testing.T) {\n\tt.Skip("later")\n',
    ),
    needs=("go",),
)

# --- Rust ---------------------------------------------------------------------------------

_CARGO = '[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'
_RUST_PASS = (
    "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n"
    "#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
    "    #[test]\n    fn adds() {\n        assert_eq!(add(1, 1), 2);\n    }\n\n"
    "    #[test]\n    fn subtracts() {\n        assert_eq!(add(2, -1), 1);\n    }\n}\n"
)
_RUST_FAIL = (
    "#[cfg(test)]\nmod tests {\n"
    "    #[test]\n    fn is_fine() {\n        assert!(true);\n    }\n\n"
    '    #[test]\n    fn is_wrong() {\n        assert_eq!(2 + 2, 5, "deliberately wrong");\n'
    "    }\n}\n"
)


def _crate(name: str, lib: str) -> dict[str, str]:
    return {"Cargo.toml": _CARGO.format(name=name), "src/lib.rs": lib}


def _rust(name: str, argv: list[str], needs: tuple[str, ...], failing_id: str) -> RunnerProject:
    return RunnerProject(
        name=name,
        argv=argv,
        suites={
            "pass": _crate("calc_pass", _RUST_PASS),
            "fail": _crate("calc_fail", _RUST_FAIL),
            "empty": _crate("calc_empty", "pub fn nothing() {}\n"),
        },
        failing_id=failing_id,
        skip_edit=(
            "src/lib.rs",
            "    #[test]\n    fn subtracts",
            "    #[test]\n    #[ignore]\n    fn subtracts",
        ),
        needs=needs,
    )


# cargo test names a test after its target's source; nextest after its binary (its JUnit suite).
CARGO = _rust("cargo test", ["cargo", "test"], ("cargo",), "src/lib.rs::tests::is_wrong")
NEXTEST = _rust(
    "cargo nextest", ["cargo", "nextest", "run"], ("cargo", "cargo-nextest"), "tests::is_wrong"
)

# --- Java ---------------------------------------------------------------------------------

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>demo</groupId>
  <artifactId>{name}</artifactId>
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
# Offline, from Debian's packaged Maven repository (CI reaches no Maven repository).
_MAVEN_CONFIG = f"-o -Dmaven.repo.local={MAVEN_REPO} -B\n"
# The same with the tests run in Maven's own JVM. Surefire 2.22 (the newest Debian packages) waits
# for its next ten-second ping after a forked JVM ends, so each forked `mvn test` costs ten seconds
# more than its tests; the runner tests above keep the fork a real project has, the attack and
# mutation projects that run Maven many times do not need it.
MAVEN_UNFORKED_CONFIG = _MAVEN_CONFIG.replace("-B", "-B -DforkCount=0")
_JAVA_PASS = (
    "package demo;\n\nimport static org.junit.Assert.assertEquals;\nimport org.junit.Test;\n\n"
    "public class MathTest {\n"
    "    @Test\n    public void adds() {\n        assertEquals(2, 1 + 1);\n    }\n\n"
    "    @Test\n    public void subtracts() {\n        assertEquals(1, 2 - 1);\n    }\n}\n"
)
_JAVA_FAIL = (
    "package demo;\n\nimport static org.junit.Assert.assertEquals;\nimport org.junit.Test;\n\n"
    "public class CalcTest {\n"
    "    @Test\n    public void isFine() {\n        assertEquals(1, 1);\n    }\n\n"
    "    @Test\n    public void isWrong() {\n"
    '        assertEquals("deliberately wrong", 5, 2 + 2);\n    }\n}\n'
)
_JAVA_SKIP = (
    "MathTest.java".join(("src/test/java/demo/", "")),
    "    @Test\n    public void subtracts",
    "    @org.junit.Ignore\n    @Test\n    public void subtracts",
)


def _maven(name: str, test: str | None) -> dict[str, str]:
    files = {"pom.xml": _POM.format(name=name), ".mvn/maven.config": _MAVEN_CONFIG}
    files["src/main/java/demo/Calc.java"] = "package demo;\n\npublic class Calc {}\n"
    if test:
        files[f"src/test/java/demo/{'MathTest' if 'adds' in test else 'CalcTest'}.java"] = test
    return files


MAVEN = RunnerProject(
    name="maven",
    argv=["mvn", "test"],
    suites={
        "pass": _maven("pass", _JAVA_PASS),
        "fail": _maven("fail", _JAVA_FAIL),
        "empty": _maven("empty", None),
    },
    failing_id="demo.CalcTest#isWrong",
    skip_edit=_JAVA_SKIP,
    needs=("mvn", "java"),
)

_GRADLE = (
    "apply plugin: 'java'\n"
    f"repositories {{ maven {{ url 'file://{MAVEN_REPO}' }} }}\n"
    "dependencies { testImplementation 'junit:junit:4.13.2' }\n"
)


def _gradle(test: str | None) -> dict[str, str]:
    files = {"build.gradle": _GRADLE, "settings.gradle": "rootProject.name = 'calc'\n"}
    files["src/main/java/demo/Calc.java"] = "package demo;\n\npublic class Calc {}\n"
    if test:
        files[f"src/test/java/demo/{'MathTest' if 'adds' in test else 'CalcTest'}.java"] = test
    return files


GRADLE = RunnerProject(
    name="gradle",
    argv=["gradle", "test", "--offline", "--no-daemon", "-q"],
    suites={"pass": _gradle(_JAVA_PASS), "fail": _gradle(_JAVA_FAIL), "empty": _gradle(None)},
    failing_id="demo.CalcTest.isWrong",
    skip_edit=_JAVA_SKIP,
    needs=("gradle", "java"),
)

# --- PHP ----------------------------------------------------------------------------------

_PHP_PASS = (
    "<?php\nuse PHPUnit\\Framework\\TestCase;\n\n"
    "final class MathTest extends TestCase\n{\n"
    "    public function testAdds(): void\n    {\n        $this->assertSame(2, 1 + 1);\n    }\n\n"
    "    public function testSubtracts(): void\n    {\n"
    "        $this->assertSame(1, 2 - 1);\n    }\n}\n"
)
_PHP_FAIL = (
    "<?php\nuse PHPUnit\\Framework\\TestCase;\n\n"
    "final class CalcTest extends TestCase\n{\n"
    "    public function testFine(): void\n    {\n        $this->assertTrue(true);\n    }\n\n"
    "    public function testWrong(): void\n    {\n"
    "        $this->assertSame(5, 2 + 2, 'deliberately wrong');\n    }\n}\n"
)
PHPUNIT = RunnerProject(
    name="phpunit",
    argv=["phpunit", "tests"],
    suites={
        "pass": {"tests/MathTest.php": _PHP_PASS},
        "fail": {"tests/CalcTest.php": _PHP_FAIL},
        "empty": {"tests/.keep": ""},
    },
    failing_id="CalcTest::testWrong",
    skip_edit=(
        "tests/MathTest.php",
        "$this->assertSame(1, 2 - 1);",
        "$this->markTestSkipped('later');",
    ),
    needs=("phpunit", "php"),
)

PROJECTS: list[RunnerProject] = [
    PYTEST,
    UNITTEST,
    NODE,
    VITEST,
    JEST,
    MOCHA,
    NPM_TEST,
    PNPM_TEST,
    YARN_TEST,
    NPM_RUN,
    GO,
    CARGO,
    NEXTEST,
    MAVEN,
    GRADLE,
    PHPUNIT,
]

Prepare = Callable[[Path], None]
