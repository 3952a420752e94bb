"""A data file the tests read is part of the tests, wherever it sits and whatever it is."""

from __future__ import annotations

from pathlib import Path

import pytest
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
        {"tests/test_calc.py": "from calc import add\n", "calc.py": "x", "tables/rates.json": "{}"},
    )
    base = commit_tree_hash(repo, git(repo, "rev-parse", "HEAD"))
    (repo / "tables" / "rates.json").write_text('{"a": 1}')
    assert change_tests(repo, ["tables/rates.json"], [base]) == []
