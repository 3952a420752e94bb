"""Which files are harness is a rule (tools/harness): every way a file of the tree can steer the
toolchain or the runner is harness, whatever the tool's name, and ordinary work is not."""

from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from referee.tools.harness import (
    Layout,
    built_here,
    harness_reason,
    is_harness_file,
    runner_modules,
)
from referee.tools.repo import working_tree_hash
from referee.tools.repo.tree import tree_entries
from referee.tools.tampering.harness import harness_changes

# Files that steer a run, in every ecosystem referee runs and in spellings no list named.
STEERING = [
    ".pytest.ini",
    "pytest.toml",
    ".pytest.toml",
    "tests/pytest.ini",
    "tox.ini",
    "setup.cfg",
    "conftest.py",
    "tests/unit/conftest.py",
    "sitecustomize.py",
    "src/usercustomize.py",
    "src/zz_fix.pth",
    "pytest.py",
    "_pytest/__init__.py",
    "unittest.py",
    "typing.py",
    "site.py",
    "referee_guard.py",
    "coverage/__init__.py",
    "pluggy.py",
    "babel.config.js",
    "babel.config.json",
    ".babelrc",
    ".babelrc.js",
    "packages/app/.babelrc.cjs",
    "jest.config.mjs",
    "jest.setup.ts",
    "src/setupTests.js",
    "vitest.config.mts",
    "vitest.workspace.js",
    "vitest.workspace.json",
    "karma.conf.js",
    ".mocharc.yml",
    ".nycrc",
    ".npmrc",
    ".yarnrc.yml",
    ".yarn/plugins/x.cjs",
    ".pnp.cjs",
    ".env.test",
    ".config/vitest.ts",
    "tsconfig.json",
    "packages/app/tsconfig.json",
    "go.work",
    "go.env",
    ".cargo/config",
    ".cargo/config.toml",
    "crates/a/.cargo/config.toml",
    "rust-toolchain.toml",
    "rust-toolchain",
    "build.rs",
    ".mvn/maven.config",
    ".mvn/jvm.config",
    ".mvn/extensions.xml",
    "settings.gradle",
    "settings.gradle.kts",
    "gradle.properties",
    "ci/filter.gradle",
    "buildSrc/src/main/java/Filter.java",
    "gradle/wrapper/gradle-wrapper.properties",
    "src/test/resources/junit-platform.properties",
    "src/integrationTest/resources/junit-platform.properties",
    "src/test/resources/META-INF/services/org.junit.platform.launcher.TestExecutionListener",
    "phpunit.xml.dist",
    "setup.py",
    "Makefile",
    "justfile",
]
# What ordinary work touches.
ORDINARY = [
    "README.md",
    "docs/usage.rst",
    "LICENSE",
    "CHANGELOG",
    "src/calc.py",
    "src/calc/__init__.py",
    "src/config.ts",
    "src/setup.ts",
    "lib/index.js",
    "tests/test_calc.py",
    "test/calc.test.js",
    "src/test/java/demo/CalcTest.java",
    "tests/fixtures/case.yaml",
    "tests/data/expected.json",
    "src/locales/en.json",
    "src/main/resources/messages.properties",
    "requirements.txt",
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "Cargo.lock",
    "poetry.lock",
    "uv.lock",
    "go.sum",
    "gradle/libs.versions.toml",
    ".gitignore",
    ".gitattributes",
    "src/.gitkeep",
    ".github/workflows/ci.yml",
    "assets/logo.png",
    "web/index.html",
    "web/style.css",
    "tests/test.py",
    "tests/json_helpers.py",
    "server/cli/setup.py",
    "src/build.rs",
    "tests/options.preset.test.js",
    "test/app.config.spec.ts",
    "src/setup.test.ts",
]


@pytest.mark.parametrize("path", STEERING)
def test_a_file_that_steers_the_run_is_harness(path: str) -> None:
    layout = Layout([path, "packages/app/package.json", "crates/a/Cargo.toml"])
    assert harness_reason(path, layout), path


@pytest.mark.parametrize("path", ORDINARY)
def test_ordinary_work_is_not_harness(path: str) -> None:
    layout = Layout([path, "src/calc/__init__.py", "tests/test_calc.py"])
    assert harness_reason(path, layout) == "", path


def test_a_module_the_base_had_under_a_runners_name_is_the_projects_own() -> None:
    # pytest's own repository, or a project named like a plugin: its package is code under test.
    at_base = {"src/_pytest/__init__.py", "src/_pytest/python.py"}
    layout = Layout([*at_base, "src/_pytest/new.py"], at_base=at_base.__contains__)
    assert not is_harness_file("src/_pytest/python.py", layout)
    assert not is_harness_file("src/_pytest/new.py", layout)
    assert is_harness_file("src/pytest.py", layout)


def test_the_runners_modules_come_from_its_requirements_and_plugins() -> None:
    modules = runner_modules()
    assert {"pytest", "_pytest", "pluggy", "iniconfig", "referee_guard", "coverage"} <= modules
    assert "calc" not in modules and "json" not in modules


def test_a_standard_library_name_counts_when_new_and_outside_the_tests() -> None:
    assert is_harness_file("json.py")
    assert not is_harness_file("tests/json.py")  # on sys.path only after json is loaded
    layout = Layout(["json.py"], at_base={"json.py"}.__contains__)
    assert not is_harness_file("json.py", layout)  # the project's own, since before the change


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("src/calc.mjs", "src/calc.js"),  # vite resolves .mjs before .js
        ("src/calc.js", "src/calc.ts"),
        ("src/calc/index.ts", "src/calc.ts"),
        ("src/calc.cjs", "src/calc/index.js"),
        ("calc/__init__.py", "calc.py"),  # a package before a module
        ("pkg/calc.py", "pkg/calc/__init__.py"),
        ("src/ops/mod.rs", "src/ops.rs"),
        ("lib/util.tsx", "lib/util.jsx"),
        ("src/calc", "src/calc.js"),  # require('./calc') tries the bare name first
    ],
)
def test_a_new_file_that_is_the_same_module_as_a_base_file_is_harness(new: str, old: str) -> None:
    layout = Layout([old, new], at_base={old}.__contains__)
    assert "the same module as" in harness_reason(new, layout), new
    assert not is_harness_file(old, layout)
    # Moved (the base's file gone), or both new: no module stands in for another.
    assert not is_harness_file(new, Layout([new], at_base={old}.__contains__))
    moved = Layout([old, new], at_base={old}.__contains__, now={new}.__contains__)
    assert not is_harness_file(new, moved)
    assert not is_harness_file(new, Layout([old, new]))


def test_a_new_init_py_above_the_base_tests_is_harness_and_one_beside_them_is_not() -> None:
    at_base = {"app/calc.py", "app/tests/test_calc.py", "tests/test_x.py"}
    layout = Layout([*at_base, "app/__init__.py", "__init__.py"], at_base=at_base.__contains__)
    packs = "a folder of the base's tests or modules a package"
    assert packs in harness_reason("app/__init__.py", layout)
    assert packs in harness_reason("__init__.py", layout)
    for beside in ("app/tests/__init__.py", "tests/__init__.py"):
        there = Layout([*at_base, beside], at_base=at_base.__contains__)
        assert packs not in harness_reason(beside, there), beside
    # Beside the base's modules (a root calc.py that doctests run): imported before them too.
    doctested = Layout(["calc.py", "__init__.py"], at_base={"calc.py"}.__contains__)
    assert packs in harness_reason("__init__.py", doctested)
    # A new package whose tests are new too makes no base test a package's.
    fresh = Layout(["shapes/__init__.py", "shapes/tests/test_area.py"], at_base=set().__contains__)
    assert not is_harness_file("shapes/__init__.py", fresh)


def test_files_that_only_share_a_stem_are_other_modules() -> None:
    at_base = {"src/calc.ts", "src/calc.test.ts", "calc.py"}
    for new in ("src/calc.d.ts", "src/calc.spec.ts", "src/calc.json", "calc.pyi", "src/calcs.ts"):
        layout = Layout([*at_base, new], at_base=at_base.__contains__)
        assert "the same module" not in harness_reason(new, layout), new


def test_data_in_a_configuration_format_is_harness_only_at_a_configuration_place() -> None:
    layout = Layout(["src/app/package.json", "tests/test_a.py"])
    assert is_harness_file("src/app/settings.json", layout)  # a project root
    assert not is_harness_file("src/lib/settings.json", layout)
    assert is_harness_file("tests/setup.cfg", layout)  # where the runner looks from its tests
    assert not is_harness_file("tests/expected.json", layout)  # a test's data


# --- manifests: dependencies and metadata are trusted, the rest steers ------------------------

PACKAGE = {"name": "app", "version": "1.0.0", "scripts": {"test": "jest"}, "dependencies": {}}


def _package(**changes: object) -> str:
    return json.dumps({**PACKAGE, **changes}, indent=2) + "\n"


PYPROJECT = '[project]\nname = "app"\nversion = "1.0"\ndependencies = ["attrs"]\n'
CARGO = (
    '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nserde = "1"\n'
)
GO_MOD = "module example.com/app\n\ngo 1.21\n\nrequire (\n\tgolang.org/x/mod v0.14.0\n)\n"
POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <version>1.0</version>
  <properties><jackson.version>2.17.0</jackson.version></properties>
  <dependencies>
    <dependency><artifactId>junit</artifactId><version>4.13.2</version></dependency>
  </dependencies>
</project>
"""
GRADLE = (
    "plugins { id 'java' }\nversion = '1.0'\n\ndependencies {\n"
    "    implementation 'com.google.guava:guava:32.0.0-jre'\n"
    "    testImplementation(libs.junit)\n}\n"
)
COMPOSER = '{"name": "a/b", "require": {"php": ">=8.1"}, "autoload": {"psr-4": {"A\\\\": "src/"}}}'

# (manifest, base, a dependency or metadata edit, a steering edit)
MANIFEST_EDITS = [
    (
        "package.json",
        _package(),
        _package(dependencies={"left-pad": "^1.3.0"}, version="1.0.1"),
        _package(imports={"#calc": {"development": "./calc.debug.js"}}),
    ),
    (
        "package.json",
        _package(),
        _package(devDependencies={"jest": "^30.0.0"}, description="a calculator"),
        _package(babel={"plugins": ["./tools/minus.js"]}),
    ),
    (
        "pyproject.toml",
        PYPROJECT,
        PYPROJECT.replace('["attrs"]', '["attrs>=23", "httpx"]').replace("1.0", "1.1"),
        PYPROJECT + '\n[project.entry-points.pytest11]\nfix = "tools.fix"\n',
    ),
    (
        "pyproject.toml",
        PYPROJECT,
        PYPROJECT + '\n[dependency-groups]\ndev = ["pytest>=8"]\n',
        PYPROJECT + '\n[tool.coverage.run]\nomit = ["src/*"]\n',
    ),
    # A linter's settings steer no test run; the same table is the tests' when pytest runs the
    # linter as tests.
    (
        "pyproject.toml",
        PYPROJECT,
        PYPROJECT + "\n[tool.ruff]\nline-length = 120\n\n[tool.mypy]\nstrict = true\n",
        PYPROJECT
        + '\n[tool.pytest.ini_options]\naddopts = "--mypy"\n\n[tool.mypy]\nstrict = false\n',
    ),
    (
        "Cargo.toml",
        CARGO,
        CARGO.replace('serde = "1"', 'serde = "1.0.200"\nrand = "0.8"'),
        CARGO + '\n[features]\ndefault = ["checked"]\nchecked = []\n',
    ),
    (
        "Cargo.toml",
        CARGO,
        CARGO + '\n[dev-dependencies]\nproptest = "1"\n',
        CARGO + '\n[patch.crates-io]\nserde = { path = "vendor/serde" }\n',
    ),
    (
        "Cargo.toml",
        CARGO,
        CARGO + '\n[dev-dependencies]\nhelper = { path = "../helper" }\n',
        CARGO + '\n[dev-dependencies]\ncalc = { path = ".", features = ["exact"] }\n',
    ),
    (
        "Cargo.toml",
        CARGO,
        CARGO + "\n[target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n",
        CARGO
        + '\n[target.\'cfg(unix)\'.dev-dependencies]\nme = { package = "calc", path = "./" }\n',
    ),
    (
        "Cargo.toml",
        CARGO + '\n[dev-dependencies]\nhelper = { path = "../helper" }\n',
        CARGO + '\n[dev-dependencies]\nhelper = { path = "../helper", version = "0.2" }\n',
        CARGO + '\n[dev-dependencies]\nhelper = { path = "../helper", features = ["exact"] }\n',
    ),
    (
        "go.mod",
        GO_MOD,
        GO_MOD.replace("v0.14.0", "v0.15.0"),
        GO_MOD + "\nreplace golang.org/x/mod => ./fixed\n",
    ),
    (
        "pom.xml",
        POM,
        POM.replace("2.17.0", "2.17.1").replace("4.13.2", "4.13.3"),
        POM.replace("</properties>", "<skipTests>true</skipTests></properties>"),
    ),
    (
        "build.gradle",
        GRADLE,
        GRADLE.replace("32.0.0", "33.0.0"),
        GRADLE + "apply from: 'ci/filter.gradle'\n",
    ),
    (
        "composer.json",
        COMPOSER,
        COMPOSER.replace('"php": ">=8.1"', '"php": ">=8.2", "monolog/monolog": "^3"'),
        COMPOSER.replace('"src/"', '"fixed/"'),
    ),
    (
        "setup.cfg",
        "[metadata]\nname = a\n\n[options]\ninstall_requires = attrs\n",
        "[metadata]\nname = a\nversion = 2\n\n[options]\n"
        "install_requires =\n    attrs\n    httpx\n",
        "[metadata]\nname = a\n\n[options]\ninstall_requires = attrs\n\n[tool:pytest]\n"
        "python_files = check_*.py\n",
    ),
]


@pytest.mark.parametrize(
    ("name", "base", "trusted", "steering"),
    MANIFEST_EDITS,
    ids=[f"{m[0]}-{n}" for n, m in enumerate(MANIFEST_EDITS)],
)
def test_a_manifest_is_harness_except_its_dependencies_and_metadata(
    name: str, base: str, trusted: str, steering: str
) -> None:
    assert harness_changes([name], lambda p: base, lambda p: trusted) == []
    found = harness_changes([name], lambda p: base, lambda p: steering)
    assert [h.path for h in found] == [name]


# --- the tree: an ignored file that steers is part of it ---------------------------------------


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_an_ignored_steering_file_is_in_the_tree_and_an_ignored_secret_is_not(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    _git(repo, "init", "-q")
    (repo / "tests" / "test_a.py").write_text("def test_a():\n    pass\n", encoding="utf-8")
    (repo / ".gitignore").write_text(".pytest.ini\n.env\n.cargo/\nenv/\n", encoding="utf-8")
    exclude = repo / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    exclude.write_text("pytest.toml\n", encoding="utf-8")
    planted = {
        ".pytest.ini": "[pytest]\npython_files = check_*.py\n",
        "pytest.toml": "[pytest]\n",
        ".cargo/config.toml": "[build]\n",
        ".env": "API_TOKEN=s3cr3t\n",
        "env/pyvenv.cfg": "home = /usr\n",
        "env/lib/site-packages/_pytest/__init__.py": "",
    }
    for name, text in planted.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    paths = {path for _mode, _sha, path in tree_entries(repo)}
    assert {".pytest.ini", "pytest.toml", ".cargo/config.toml"} <= paths
    assert ".env" not in paths  # a machine's secrets are never hashed into the repository
    assert not any(p.startswith("env/") for p in paths)  # a virtualenv is the environment's
    assert working_tree_hash(repo)


def test_an_ignored_file_on_disk_before_the_contract_is_the_environments(tmp_path: Path) -> None:
    from referee.tools.evaluate.harness import _prepared_before
    from referee.tools.tampering.harness import HarnessFile
    from referee.tools.tampering.model import Tampering

    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / ".gitignore").write_text("*.local.toml\n", encoding="utf-8")
    (repo / "old.local.toml").write_text("x = 1\n", encoding="utf-8")
    (repo / "pytest.toml").write_text("[pytest]\n", encoding="utf-8")
    anchor = os.lstat(repo / "old.local.toml").st_ctime + 0.5

    def new(path: str) -> HarnessFile:
        return HarnessFile(path, None, Tampering("harness_modified", path, 1, "added"))

    ws = SimpleNamespace(repo=repo, workdir=repo)
    files = [new("old.local.toml"), new("pytest.toml")]
    kept = _prepared_before(ws, files, anchor)  # type: ignore[arg-type]
    assert [h.path for h in kept] == ["pytest.toml"]  # not ignored: the change's, whenever made
    assert _prepared_before(ws, files, None) == files  # no contract time: every file counts


# --- Go: which files this machine's build takes ------------------------------------------------

GO_ADD = "package calc\n\nfunc Add(a, b int) int { return a + b }\n"
WRONG = GO_ADD.replace("a + b", "a - b")
HERE = platform.system().lower()  # the tests run on linux; the rule asks the machine


@pytest.mark.parametrize(
    ("path", "text", "built"),
    [
        ("calc.go", GO_ADD, True),
        (f"calc_{HERE}.go", GO_ADD, True),
        ("calc_plan9.go", GO_ADD, False),
        ("calc_windows_amd64.go", GO_ADD, False),
        ("_calc.go", GO_ADD, False),
        ("calc.go", f"//go:build !{HERE}\n\n{GO_ADD}", False),
        ("calc.go", f"// +build !{HERE}\n\n{GO_ADD}", False),
        ("calc.go", f"// Copyright\n\n//go:build ignore\n\n{GO_ADD}", False),
        ("calc.go", f"//go:build ({HERE} || plan9) && !ignore\n\n{GO_ADD}", True),
        ("calc.go", f"//go:build go1.999\n\n{GO_ADD}", False),
        ("calc.go", f"//go:build go1.1\n\n{GO_ADD}", True),
        ("calc.go", f"// +build plan9 {HERE},!cgo_never\n\n{GO_ADD}", True),
        ("calc.go", f"{GO_ADD}\n//go:build ignore\n", True),  # below the package clause
        ("calc.go", f"//go:build {HERE} &&\n\n{GO_ADD}", None),
    ],
)
def test_go_build_takes_files_by_name_and_constraint(path: str, text: str, built: bool) -> None:
    assert built_here(path, text) is built


def _go(base: dict[str, str], now: dict[str, str]) -> list[str]:
    changed = sorted({p for p in base | now if base.get(p) != now.get(p)})
    return [h.path for h in harness_changes(changed, base.get, now.get)]


@pytest.mark.parametrize(
    "now",
    [
        {"calc.go": f"//go:build !{HERE}\n\n{WRONG}", f"calc_{HERE}.go": GO_ADD},
        {"calc.go": f"// +build !{HERE}\n\n{WRONG}", "calc_other.go": GO_ADD},
        {"calc.go": f"//go:build ignore\n\n{WRONG}", "add.go": GO_ADD},
        {"calc.go": f"//go:build go1.999\n\n{WRONG}", "add.go": GO_ADD},
        {"calc_plan9.go": WRONG, f"calc_{HERE}.go": GO_ADD},  # a move to another platform's name
        {"calc_windows.go": WRONG, "calc_other.go": f"//go:build {HERE}\n\n{GO_ADD}"},
    ],
)
def test_a_go_file_left_out_of_this_build_is_harness(now: dict[str, str]) -> None:
    found = _go({"calc.go": WRONG.replace("a - b", "a * b")}, now)
    assert found and all(p.endswith(".go") for p in found), found


def test_go_platform_files_the_base_had_are_edited_freely() -> None:
    base = {"calc_windows.go": GO_ADD, f"calc_{HERE}.go": GO_ADD}
    assert _go(base, {"calc_windows.go": WRONG, f"calc_{HERE}.go": GO_ADD}) == []
    # A platform's file added beside the base's, even declaring the same names.
    assert _go(base, {**base, "calc_plan9.go": WRONG}) == []


@pytest.mark.parametrize("name", ["coverage.xml", "junit.xml", "coverage.json", "lcov.info"])
def test_an_ignored_report_a_tool_wrote_is_no_harness(name: str) -> None:
    # `coverage xml` or `pytest --junitxml` left at the root by the developer's own runs.
    assert not is_harness_file(name, ignored=True)
    assert is_harness_file("phpunit.xml", ignored=True)
