"""A data file the tests read is part of the tests, wherever it sits and whatever it is."""

from __future__ import annotations

from pathlib import Path

import pytest
from change_data import changed
from gitrepo import git, make_repo

from referee.tools.evaluate.change_tests import change_tests
from referee.tools.repo import commit_tree_hash, working_tree_hash

# (test file, its text, the data file it reads)
READERS: dict[str, tuple[str, str, str]] = {
    "python-json": ("tests/test_calc.py", "CASES = 'data/cases.json'\n", "data/cases.json"),
    "python-path-join": (
        "tests/test_calc.py",
        "p = Path(__file__).parent.parent / 'expected' / 'sums.yaml'\n",
        "expected/sums.yaml",
    ),
    "python-csv": ("test_calc.py", "open('golden/table.csv')\n", "golden/table.csv"),
    "python-txt": (
        "tests/test_out.py",
        "read('output.expected.txt')\n",
        "resources/output.expected.txt",
    ),
    "js-require": (
        "test/calc.test.js",
        "const c = require('../cases/sums.json');\n",
        "cases/sums.json",
    ),
    "ts-import": (
        "src/calc.spec.ts",
        "import sums from './sums.fixture.json';\n",
        "src/sums.fixture.json",
    ),
    "go-golden": ("calc_test.go", 'os.ReadFile("golden.out")\n', "golden.out"),
    "rust-include": ("tests/sums.rs", 'include_str!("../data/sums.toml")\n', "data/sums.toml"),
    "php-fixture": ("tests/CalcTest.php", "file_get_contents('sums.xml');\n", "res/sums.xml"),
    "java-resource": (
        "src/test/java/CalcTest.java",
        'getResource("/sums.properties")\n',
        "src/main/resources/sums.properties",
    ),
}


@pytest.mark.parametrize("form", sorted(READERS))
def test_a_changed_data_file_a_test_names_is_test_side(form: str, tmp_path: Path) -> None:
    test, text, data = READERS[form]
    repo = make_repo(tmp_path / "r", {test: text, data: "1 2 3\n", "calc.py": "x = 1\n"})
    base = commit_tree_hash(repo, git(repo, "rev-parse", "HEAD"))
    (repo / data).write_text("1 2 -1\n")
    (repo / "calc.py").write_text("x = 2\n")
    now = working_tree_hash(repo)
    assert change_tests(repo, [data, "calc.py"], [base, now]) == [data]


def test_a_data_file_no_test_names_stays_with_the_code(tmp_path: Path) -> None:
    """The code's own data (a table the fix corrects) goes with the code, not the tests."""
    repo = make_repo(
        tmp_path / "r",
        {
            "tests/test_calc.py": "from calc import add\n",
            "calc.py": "RATES = 'tables/rates.json'\n",
            "tables/rates.json": "{}",
        },
    )
    base = commit_tree_hash(repo, git(repo, "rev-parse", "HEAD"))
    (repo / "tables" / "rates.json").write_text('{"a": 1}')
    assert change_tests(repo, ["tables/rates.json"], [base]) == []


# A module of values that only the base's tests read, in each language: (files, the module).
DATA_MODULES: dict[str, tuple[dict[str, str], str]] = {
    "python": (
        {
            "calc.py": "def add(a, b):\n    return a + b\n",
            "calc_cases.py": '"""Cases."""\nCASES: list = [(1, 2, 3), (-1, 1, 0)]\nN = -len_\n',
            "tests/test_calc.py": "from calc_cases import CASES\n",
        },
        "calc_cases.py",
    ),
    "go": (
        {
            "calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
            "cases.go": "package calc\n\n// Cases.\nvar (\n\tCases = [][3]int{{1, 2, 3}}\n"
            '\tMore  = map[string]int{"a": 1}\n)\n\nconst Limit = 10\n',
            "calc_test.go": "package calc\n\nfunc TestX() { _ = More }\n",
        },
        "cases.go",
    ),
    "java": (
        {
            "src/main/java/d/Calc.java": "package d;\nclass Calc { int add(int a, int b) {"
            " return a + b; } }\n",
            "src/main/java/d/Golden.java": "package d;\n\npublic final class Golden {\n"
            "    // expected sums\n    public static final int[][] ALL = {{1, 2, 3}};\n"
            '    static final String NAME = "sums";\n}\n',
            "src/test/java/d/CalcTest.java": (
                "package d;\nclass CalcTest { int[][] c = Golden.ALL; }\n"
            ),
        },
        "src/main/java/d/Golden.java",
    ),
    "javascript": (
        {
            "src/calc.js": "export const add = (a, b) => a + b;\n",
            "src/expected.js": "// sums\nexport const SUMS = [[1, 2, 3], { a: `x` }];\n",
            "test/calc.test.js": "import { SUMS } from '../src/expected.js';\n",
        },
        "src/expected.js",
    ),
    "typescript": (
        {
            "src/calc.ts": "export const add = (a: number, b: number) => a + b;\n",
            "src/golden.ts": "export const SUMS: number[][] = [[1, 2, 3]];\nexport default SUMS;\n",
            "src/calc.spec.ts": "import SUMS from './golden';\n",
        },
        "src/golden.ts",
    ),
}


@pytest.mark.parametrize("language", sorted(DATA_MODULES))
def test_a_module_of_values_only_the_tests_read_is_test_side(language: str, tmp_path: Path) -> None:
    files, module = DATA_MODULES[language]
    assert changed(tmp_path, files, {module: files[module].replace("1", "7")}) == [module]


# The same modules as the code's: read by the code too, or computing something.
NOT_DATA: dict[str, tuple[dict[str, str], str]] = {
    "python-read-by-the-code": (
        {
            "calc.py": "from calc_cases import CASES\n",
            **{k: v for k, v in DATA_MODULES["python"][0].items() if k != "calc.py"},
        },
        "calc_cases.py",
    ),
    "python-with-a-lambda": (
        {
            "calc_cases.py": "CASES = [(1, 2, 3)]\nKEY = lambda case: case[0]\n",
            "tests/test_calc.py": "from calc_cases import CASES\n",
        },
        "calc_cases.py",
    ),
    "python-a-function-only-the-tests-call": (
        {
            "calc_cases.py": "def add(a, b):\n    return a + b\n",
            "tests/test_calc.py": "from calc_cases import add\n",
        },
        "calc_cases.py",
    ),
    "python-relative-import": (
        {
            "pkg/__init__.py": "",
            "pkg/cases.py": "from .table import ROWS\n\nCASES = ROWS\n",
            "tests/test_calc.py": "from pkg.cases import CASES\n",
        },
        "pkg/cases.py",
    ),
    "python-imported-by-the-code-under-another-name": (
        {
            "calc.py": "import calc_cases as c\n",
            "calc_cases.py": "CASES = [(1, 2, 3)]\n",
            "tests/test_calc.py": "from calc_cases import CASES\n",
        },
        "calc_cases.py",
    ),
    "python-class-extending-the-code": (
        {
            "faker/providers/person/__init__.py": "class Provider:\n    formats = ()\n",
            "faker/providers/person/en_ng/__init__.py": "from faker.providers.person import"
            " Provider as Base\n\n\nclass Provider(Base):\n    prefixes = ('Mr', 'Mr')\n",
            "tests/test_person.py": "from faker.providers.person.en_ng import Provider\n",
        },
        "faker/providers/person/en_ng/__init__.py",
    ),
    "typescript-index-imported-by-its-folder": (
        {
            "src/constants/index.ts": "export const RATE = 1;\n",
            "src/price.ts": "import { RATE } from './constants';\n",
            "test/price.test.ts": "import { RATE } from '../src/constants/index';\n",
        },
        "src/constants/index.ts",
    ),
    "python-package-constant-read-relatively": (
        {
            "pkg/__init__.py": "DEFAULT_TIMEOUT = 5\n",
            "pkg/client.py": "from . import DEFAULT_TIMEOUT\n",
            "tests/test_client.py": "import pkg\n",
        },
        "pkg/__init__.py",
    ),
    "python-module-read-relatively-from-a-subpackage": (
        {
            "pkg/__init__.py": "",
            "pkg/limits.py": "LIMIT = 10\n",
            "pkg/sub/__init__.py": "",
            "pkg/sub/use.py": "from ..limits import LIMIT\n",
            "tests/test_limits.py": "from pkg.limits import LIMIT\n",
        },
        "pkg/limits.py",
    ),
    "python-named-by-the-code-in-a-string": (
        {
            "manage.py": "import os\nos.environ['SETTINGS'] = 'proj.calc_cases'\n",
            "proj/calc_cases.py": "DEBUG = True\n",
            "tests/test_calc.py": "from proj import calc_cases\n",
        },
        "proj/calc_cases.py",
    ),
    "go-read-by-another-package": (
        {
            "cases.go": "package calc\n\nvar Cases = []int{1}\n",
            "calc_test.go": "package calc\n\nvar _ = Cases\n",
            "cmd/main.go": "package main\n\nvar _ = calc.Cases\n",
        },
        "cases.go",
    ),
    "go-with-a-function": (
        {
            "cases.go": "package calc\n\nvar Cases = []int{1}\n\nfunc Sum() int { return 1 }\n",
            "calc_test.go": "package calc\n\nvar _ = Cases\n",
        },
        "cases.go",
    ),
    "java-with-a-method": (
        {
            "src/main/java/d/Golden.java": "package d;\nclass Golden {\n"
            "    static final int A = 1;\n    static int twice() { return 2; }\n}\n",
            "src/test/java/d/GoldenTest.java": "class GoldenTest { int a = Golden.A; }\n",
        },
        "src/main/java/d/Golden.java",
    ),
    "javascript-with-a-function": (
        {
            "src/expected.js": "export const SUMS = [1];\nexport function sum() { return 1; }\n",
            "test/x.test.js": "import { SUMS } from '../src/expected.js';\n",
        },
        "src/expected.js",
    ),
    "typescript-re-exports": (
        {
            "src/index.ts": "export * from './calc';\nexport { SUMS } from './sums';\n",
            "test/calc.test.ts": "import { add } from '../src/index';\n",
        },
        "src/index.ts",
    ),
    "javascript-configuration": (
        {
            "babel.config.js": "module.exports = { presets: ['1'] };\n",
            "test/x.test.js": "// babel.config\n",
        },
        "babel.config.js",
    ),
    "javascript-computed": (
        {
            "src/expected.js": "export const SUMS = [1].map((x) => x);\n",
            "test/x.test.js": "import { SUMS } from '../src/expected.js';\n",
        },
        "src/expected.js",
    ),
}


@pytest.mark.parametrize("form", sorted(NOT_DATA))
def test_a_module_the_code_reads_or_that_computes_stays_code(form: str, tmp_path: Path) -> None:
    files, module = NOT_DATA[form]
    assert changed(tmp_path, files, {module: files[module].replace("1", "7")}) == []


# Rust modules compiled for tests alone, in a file of their own: (lib.rs, the module's file).
RUST_MODULES: dict[str, tuple[str, str]] = {
    "default-file": ("#[cfg(test)]\nmod helpers;\n", "src/helpers.rs"),
    "default-mod-rs": ("#[cfg(test)]\nmod helpers;\n", "src/helpers/mod.rs"),
    "path-attribute": ('#[cfg(test)]\n#[path = "checks.rs"]\nmod tests;\n', "src/checks.rs"),
    "path-before-cfg": ('#[path = "../fixtures/t.rs"]\n#[cfg(test)]\nmod t;\n', "fixtures/t.rs"),
    "cfg-all": ("#[cfg(all(test, unix))]\npub(crate) mod unix_tests;\n", "src/unix_tests.rs"),
    "inside-an-inline-module": (
        "mod ops {\n    #[cfg(test)]\n    mod checks;\n}\n",
        "src/ops/checks.rs",
    ),
}


@pytest.mark.parametrize("form", sorted(RUST_MODULES))
def test_a_rust_module_compiled_for_tests_alone_is_test_side(form: str, tmp_path: Path) -> None:
    lib, module = RUST_MODULES[form]
    files = {"Cargo.toml": "[package]\n", "src/lib.rs": "pub fn f() {}\n" + lib, module: "// t\n"}
    assert changed(tmp_path, files, {module: "// t2\n"}) == [module]


def test_a_rust_module_declared_for_every_build_stays_code(tmp_path: Path) -> None:
    files = {
        "src/lib.rs": '#[cfg(unix)]\nmod sys;\n#[path = "x.rs"]\nmod helpers;\n',
        "src/sys.rs": "// s\n",
        "src/x.rs": "// x\n",
    }
    assert changed(tmp_path, files, {"src/sys.rs": "// 2\n", "src/x.rs": "// 3\n"}) == []


# Data files a test reads by a name it builds, and the same files as the code's.
BY_STEM: dict[str, tuple[dict[str, str], str, bool]] = {
    "stem-in-a-test": (
        {
            "calc.py": "def add(a, b):\n    return a + b\n",
            "data/cases.json": "[]\n",
            "tests/test_calc.py": "KIND = 'cases'\nopen(ROOT / 'data' / (KIND + '.json'))\n",
        },
        "data/cases.json",
        True,
    ),
    "the-code-spells-the-stem": (
        {
            "calc.py": "TABLE = 'cases'\n",
            "data/cases.json": "[]\n",
            "tests/test_calc.py": "KIND = 'cases'\n",
        },
        "data/cases.json",
        False,
    ),
    "beside-the-code-that-names-its-folder": (
        {
            "src/pkg/calc.py": "LOCALES = files(__package__) / 'locale'\n",
            "src/pkg/locale/german.po": "msgid ''\n",
            "tests/test_calc.py": "activate('german')\n",
        },
        "src/pkg/locale/german.po",
        False,
    ),
    # Beside the code, but named by no string of it: the tests' (a test globs it).
    "beside-code-that-never-names-it": (
        {
            "src/pkg/calc.py": "x = 1\n",
            "src/pkg/cases/german.json": "[]\n",
            "tests/test_calc.py": "glob('**/*.json')\n",
        },
        "src/pkg/cases/german.json",
        True,
    ),
    # The code's identifiers and docstrings are no names it reads a file by.
    "stem-spelled-only-as-an-identifier": (
        {
            "calc.py": '"""Adds two numbers."""\n\n\ndef add(a, b):\n    return a + b\n',
            "expect/add.json": "[]\n",
            "tests/test_calc.py": "glob('**/*.json')\n",
        },
        "expect/add.json",
        True,
    ),
    # A configuration file the code reads names the table: the code's.
    "named-by-the-configuration": (
        {
            "calc.py": "SETTINGS = 'settings.toml'\n",
            "settings.toml": "rates = 'tables/rates.csv'\n",
            "tables/rates.csv": "a,1\n",
            "tests/test_calc.py": "import calc\n",
        },
        "tables/rates.csv",
        False,
    ),
    "stem-too-short-and-no-code-reads-it": (
        {"calc.py": "x = 1\n", "data/de.json": "{}\n", "tests/test_calc.py": "load('de')\n"},
        "data/de.json",
        True,
    ),
    "stem-too-short-and-the-code-reads-the-folder": (
        {
            "calc.py": "FOLDER = 'data'\n",
            "data/de.json": "{}\n",
            "tests/test_calc.py": "load('de')\n",
        },
        "data/de.json",
        False,
    ),
}


@pytest.mark.parametrize("form", sorted(BY_STEM))
def test_a_data_file_named_at_run_time_is_the_tests_when_only_they_spell_it(
    form: str, tmp_path: Path
) -> None:
    files, data, tests_side = BY_STEM[form]
    assert changed(tmp_path, files, {data: "[1]\n"}) == ([data] if tests_side else [])


def test_prose_with_doctest_examples_is_the_tests(tmp_path: Path) -> None:
    """A README a doctest runner reads (`--doctest-glob='*.md'`): its examples are tests (and
    prose no code reads goes with them: the base's version costs the base's tests nothing)."""
    files = {
        "calc.py": "x = 1\n",
        "README.md": "# calc\n\n>>> 1 + 2\n3\n",
        "docs/use.rst": "Use.\n",
    }
    edits = {"README.md": "# calc\n\n>>> 1 + 2\n-1\n", "docs/use.rst": "Use it.\n"}
    assert changed(tmp_path, files, edits) == ["README.md", "docs/use.rst"]


# Expected values a test finds by a glob, a walk or a suffix: no code reads the file by name.
FOUND_BY_TESTS: dict[str, tuple[str, str]] = {
    "recursive-glob": ("glob.glob('**/*.json', recursive=True)\n", "expect/addition.json"),
    "walk-and-suffix": ("os.walk(ROOT) if name.endswith('.case')\n", "sample/adding.case"),
    "pathlib-rglob": ("Path(ROOT).rglob('*.yaml')\n", "golden/sums.yaml"),
    "node-readdir": ("fs.readdirSync(dir, { recursive: true })\n", "fixtures-2/out.txt"),
}


@pytest.mark.parametrize("form", sorted(FOUND_BY_TESTS))
def test_data_only_tests_find_is_the_tests(form: str, tmp_path: Path) -> None:
    text, data = FOUND_BY_TESTS[form]
    files = {"calc.py": "def add(a, b):\n    return a + b\n", "tests/test_calc.py": text, data: "1"}
    assert changed(tmp_path, files, {data: "2"}) == [data]


def test_code_spelling_a_base_data_file_after_the_fact_does_not_keep_it(tmp_path: Path) -> None:
    """The change writes the data file's folder into its own code: the base's code decides."""
    files = {"calc.py": "x = 1\n", "tests/test_calc.py": "glob('**')\n", "expect/sums.json": "1"}
    edits = {"expect/sums.json": "2", "calc.py": "EXPECT = 'expect'\n"}
    assert changed(tmp_path, files, edits) == ["expect/sums.json"]


def test_new_data_the_new_code_reads_stays_with_the_code(tmp_path: Path) -> None:
    add = "def add(a, b):\n    return a + b\n"
    files = {"calc.py": add, "tests/test_calc.py": "import calc\n"}
    edits = {"schemas/card.json": "{}", "calc.py": add + "SCHEMA = 'schemas/card.json'\n"}
    assert changed(tmp_path, files, edits) == []
