"""Less noise on real code: test-framework blocks are tests, fixture credentials are LOW, a
repository's allowlists are honoured, and only source files are counted."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import make_repo

from referee.tools.graders.static import matches
from referee.tools.static import StaticReport, list_files, run_pipeline

GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
JWT_IO = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0"
    "IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


def run(repo: Path, rules: list[str] | None = None) -> StaticReport:
    return run_pipeline(repo, list_files(repo, "project", None), cache_path=None, rules=rules)


def lines(n: int, indent: str = "    ") -> str:
    return "\n".join(f"{indent}expect(value({i})).toBe({i});" for i in range(n))


def test_describe_it_and_test_callbacks_are_tests_not_functions_to_split(tmp_path: Path) -> None:
    spec = (
        "import { describe, it, test, expect } from 'vitest';\n"
        "describe('ms', () => {\n"
        "  describe('parse', function () {\n"
        f"    it('reads seconds', () => {{\n{lines(60, '      ')}\n    }});\n"
        f"    it.each([[1], [2]])('reads %s', (n) => {{\n{lines(60, '      ')}\n    }});\n"
        "  });\n"
        f"  test.concurrent('formats', async () => {{\n{lines(60)}\n  }});\n"
        f"  beforeEach(() => {{\n{lines(60)}\n  }});\n"
        "});\n"
        f"function helper() {{\n{lines(60)}\n}}\n"
    )
    repo = make_repo(tmp_path / "repo", {"test/ms.test.ts": spec})

    report = run(repo, ["function_length"])

    assert [f.message for f in report.findings] == ["function helper has 62 lines (limit 50)"]


def test_python_test_functions_and_parametrize_tables_are_tests(tmp_path: Path) -> None:
    table = ",\n".join(f"        ({i}, {i + 1})" for i in range(60))
    body = "\n".join(f"    assert add({i}, 1) == {i + 1}" for i in range(60))
    source = (
        "import pytest\n\n\n"
        f"@pytest.mark.parametrize(\n    'a, b',\n    [\n{table}\n    ],\n)\n"
        f"def check_pairs(a, b):\n{body}\n\n\n"
        f"def test_many():\n{body}\n\n\n"
        f"def long_helper():\n{body}\n"
    )
    repo = make_repo(tmp_path / "repo", {"tests/test_add.py": source})

    report = run(repo, ["function_length"])

    assert [f.message for f in report.findings] == ["function long_helper has 61 lines (limit 50)"]


def test_fixture_credentials_are_low_and_live_shapes_are_not(tmp_path: Path) -> None:
    fixtures = (
        f'export const user = {{ password: "peanuts" }};\nexport const token = "{JWT_IO}";\n'
        f'export const leaked = "{GITHUB_TOKEN}";\n'
    )
    repo = make_repo(
        tmp_path / "repo",
        {
            "test/fixtures/users.ts": fixtures,
            "src/config.ts": 'export const password = "peanuts";\n',
        },
    )

    report = run(repo, ["hardcoded_secrets"])

    found = {(f.location, f.severity) for f in report.findings}
    assert found == {
        ("test/fixtures/users.ts:1", "LOW"),
        ("test/fixtures/users.ts:2", "LOW"),
        ("test/fixtures/users.ts:3", "HIGH"),  # a GitHub token's shape: maybe live, fix it
        ("src/config.ts:1", "CRITICAL"),  # outside the tests a literal password is a secret
    }


def test_a_gitleaks_allow_comment_silences_its_line(tmp_path: Path) -> None:
    source = f'const a = "{GITHUB_TOKEN}"; // gitleaks:allow\nconst b = "{GITHUB_TOKEN[:-1]}X";\n'
    repo = make_repo(tmp_path / "repo", {"src/keys.js": source})

    report = run(repo, ["hardcoded_secrets"])

    assert [f.location for f in report.findings] == ["src/keys.js:2"]


def test_a_gitleaks_toml_allowlist_is_honoured(tmp_path: Path) -> None:
    config = (
        "[extend]\nuseDefault = true\n\n"
        "[allowlist]\ndescription = 'fixtures'\npaths = ['''^samples/''']\n"
        "stopwords = ['notreal']\n\n"
        "[[rules]]\nid = 'generic-password'\n[[rules.allowlists]]\nregexes = ['''^hunter''']\n"
    )
    files = {
        ".gitleaks.toml": config,
        "samples/demo.py": f'TOKEN = "{GITHUB_TOKEN}"\n',
        "src/a.py": f'password = "hunter2hunter2"\nOTHER = "ghp_notreal{"a1B2c3D4e5" * 3}"\n',
        "src/b.py": 'password = "s3cr3t-P4ssw0rd!x"\n',
    }
    repo = make_repo(tmp_path / "repo", files)
    report = run(repo, ["hardcoded_secrets"])

    assert [f.location for f in report.findings] == ["src/b.py:1"]
    assert report.by_rule["hardcoded_secrets"] == 1
    (repo / ".gitleaks.toml").unlink()
    unlisted = run(repo, ["hardcoded_secrets"])
    assert sorted(f.location for f in unlisted.findings) == [
        "samples/demo.py:1",
        "src/a.py:1",
        "src/a.py:2",
        "src/b.py:1",
    ]


def test_a_broken_gitleaks_toml_is_noted_and_allows_nothing(tmp_path: Path) -> None:
    files = {".gitleaks.toml": "[allowlist\n", "src/a.py": f'TOKEN = "{GITHUB_TOKEN}"\n'}
    report = run(make_repo(tmp_path / "repo", files), ["hardcoded_secrets"])

    assert [f.location for f in report.findings] == ["src/a.py:1"]
    assert any(".gitleaks.toml: not valid TOML" in e for e in report.errors)


def test_allowlist_patterns_run_in_linear_time_and_bad_ones_are_noted(tmp_path: Path) -> None:
    # A pattern that backtracks exponentially in a backtracking engine, against a long line.
    config = "[allowlist]\nregexes = ['(a+)+$', '(?<=x)y']\nregexTarget = 'line'\n"
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    files = {".gitleaks.toml": config, "src/a.py": f'TOKEN = "{secret}"  # {"a" * 3000}b\n'}
    # RE2 runs every pattern in linear time; a backtracking engine would not return here.
    report = run(make_repo(tmp_path / "repo", files), ["hardcoded_secrets"])

    assert [f.location for f in report.findings] == ["src/a.py:1"]
    assert any("(?<=x)y" in e and "ignored" in e for e in report.errors), report.errors


def test_only_source_files_are_counted(tmp_path: Path) -> None:
    files = {
        "src/a.py": "def f():\n    return 1\n",
        "docs/index.rst": "Title\n=====\n",
        "LICENSE": "MIT\n",
        "requirements.txt": "pyyaml\n",
    }
    report = run(make_repo(tmp_path / "repo", files))

    assert report.files_analysed == 1


@pytest.mark.parametrize(
    ("path", "patterns", "expected"),
    [
        ("src/a.py", ["src/**", "!src/vendored/**"], True),
        ("src/vendored/b.py", ["src/**", "!src/vendored/**"], False),
        ("test/a.test.js", ["!test/**"], False),
        ("lib/a.js", ["!test/**"], True),
        ("lib/a.js", ["!test/"], True),
        ("test/a.js", ["!test/"], False),
        ("lib/a.js", [], True),
    ],
)
def test_static_paths_support_exclusions(path: str, patterns: list[str], expected: bool) -> None:
    assert matches(path, patterns) is expected
