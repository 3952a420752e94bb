"""The static pipeline on real files in real git repositories (tools/static)."""

from __future__ import annotations

import base64
import bz2
import codecs
import gzip
import json
import lzma
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from gitrepo import git
from secrets_config import KEY_ID, KEYS

from referee.tools.errors import InvalidInput
from referee.tools.models.checks import STATIC_RULES
from referee.tools.models.evaluation import Finding
from referee.tools.static import (
    StaticConfig,
    StaticReport,
    findings_to_models,
    list_files,
    run_pipeline,
    to_sarif,
)
from referee.tools.static.files import blob_sha
from referee.tools.static.textchecks import todo_lines

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "static"
STRUCTURE = [
    "function_length",
    "nesting_depth",
    "cognitive_complexity",
    "todo_density",
    "file_length",
]
# Assembled at run time so that no scanner flags this repository for a token it only tests with.
TOKEN = "ghp_" + "1aB2cD3eF4gH5iJ6" + "kL7mN8oP9qR0sT1uV2wX"
LANGUAGE_FIXTURES = {
    "python": ("python/bad.py", "python/good.py"),
    "javascript": ("js/bad.js", "js/good.js"),
    "typescript": ("ts/bad.ts", "ts/good.ts"),
    "go": ("go/bad.go", "go/good.go"),
    "java": ("java/Bad.java", "java/Good.java"),
    "rust": ("rust/bad.rs", "rust/good.rs"),
}


def write(repo: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")


def make_repo(path: Path, files: dict[str, str | bytes], commit: bool = True) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    write(path, files)
    if commit:
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", "initial")
    return path


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def fixture_repo(tmp_path: Path, names: list[str]) -> Path:
    return make_repo(tmp_path / "repo", {name: fixture(name) for name in names})


def run(
    repo: Path, rules: list[str] | None = None, cache: Path | None = None, **kwargs: object
) -> StaticReport:
    files = list_files(repo, "project", None)
    return run_pipeline(repo, files, cache_path=cache, rules=rules, **kwargs)  # type: ignore[arg-type]


def rules_at(report: StaticReport) -> set[tuple[str, str]]:
    return {(f.rule, f.location) for f in report.findings}


def python_function(lines: int, name: str = "work") -> str:
    body = "\n".join("    total += 1" for _ in range(lines - 3))
    return f"def {name}():\n    total = 0\n{body}\n    return total\n"


# --- structure rules, per language ------------------------------------------------------------


@pytest.mark.parametrize("language", sorted(LANGUAGE_FIXTURES))
def test_each_structure_rule_fires_on_the_violating_fixture(tmp_path: Path, language: str) -> None:
    bad = LANGUAGE_FIXTURES[language][0]
    report = run(fixture_repo(tmp_path, [bad]), STRUCTURE)

    fired = {f.rule for f in report.findings}
    assert fired == {"function_length", "nesting_depth", "cognitive_complexity", "todo_density"}
    messages = " | ".join(f.message for f in report.findings)
    assert "has 51 lines (limit 50)" in messages
    assert "nests 5 levels deep (limit 4)" in messages
    assert "cognitive complexity 16 (limit 15)" in messages
    assert "6 TODO/FIXME/XXX/HACK comments (limit 5)" in messages
    assert report.errors == []


@pytest.mark.parametrize("language", sorted(LANGUAGE_FIXTURES))
def test_the_clean_fixture_at_every_limit_stays_quiet(tmp_path: Path, language: str) -> None:
    good = LANGUAGE_FIXTURES[language][1]
    report = run(fixture_repo(tmp_path, [good]), STRUCTURE)

    assert report.findings == []
    assert report.errors == []
    assert report.files_analysed == 1


def test_a_function_of_51_lines_fires_and_one_of_exactly_50_does_not(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo", {"long.py": python_function(51), "exact.py": python_function(50)}
    )

    report = run(repo, ["function_length"])

    assert [(f.location, f.message) for f in report.findings] == [
        ("long.py:1", "function work has 51 lines (limit 50)")
    ]


def test_a_function_beyond_twice_the_limit_is_high(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo", {"huge.py": python_function(101), "big.py": python_function(100)}
    )

    report = run(repo, ["function_length"])

    assert {f.path: f.severity for f in report.findings} == {"huge.py": "HIGH", "big.py": "MEDIUM"}


def test_else_if_chains_add_no_nesting_level(tmp_path: Path) -> None:
    goods = [pair[1] for pair in LANGUAGE_FIXTURES.values()]
    report = run(
        fixture_repo(tmp_path, goods), ["nesting_depth"], config=StaticConfig(max_nesting=3)
    )

    # Each good fixture chains four `else if`s around a switch: still only four levels deep.
    assert len(report.findings) == len(goods)
    assert all("nests 4 levels deep (limit 3)" in f.message for f in report.findings)


def test_a_file_of_801_lines_fires_and_one_of_800_does_not(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {
            "long.py": "x = 1\n" * 801,
            "exact.py": "x = 1\n" * 800,
            "notes.md": "text\n" * 2000,
        },
    )

    report = run(repo, ["file_length"])

    assert [(f.location, f.message, f.severity) for f in report.findings] == [
        ("long.py:1", "file has 801 lines (limit 800)", "MEDIUM")
    ]


def test_todo_markers_count_only_inside_comments() -> None:
    python = b'x = "TODO not a comment"\n# TODO one\ny = 1  # FIXME two\nTODOS = 3\n'
    go = b'// HACK one\ns := "XXX not a comment"\n/* TODO two\n * XXX three\n */\n'

    assert todo_lines(python, "python") == [2, 3]
    assert todo_lines(go, "go") == [1, 3, 4]


def test_todo_density_is_low_severity(tmp_path: Path) -> None:
    report = run(fixture_repo(tmp_path, ["python/bad.py"]), ["todo_density"])

    assert [(f.location, f.severity) for f in report.findings] == [("python/bad.py:3", "LOW")]


def test_thresholds_are_configurable_and_change_the_cache_key(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"mid.py": python_function(20)})
    strict = StaticConfig(max_function_lines=10)

    report = run(repo, ["function_length"], config=strict)

    assert [f.message for f in report.findings] == ["function work has 20 lines (limit 10)"]
    assert strict.key() != StaticConfig().key()


# --- duplicates ---------------------------------------------------------------------------------


def test_a_duplicated_block_is_reported_and_a_five_line_overlap_is_not(tmp_path: Path) -> None:
    names = ["duplicates/orders.py", "duplicates/invoices.py", "duplicates/refunds.py"]
    report = run(fixture_repo(tmp_path, names), ["near_duplicates"])

    assert len(report.findings) == 1
    finding = report.findings[0]
    assert finding.path in ("duplicates/orders.py", "duplicates/invoices.py")
    assert finding.severity == "MEDIUM"
    assert "lines duplicated in duplicates/" in finding.message
    assert "refunds" not in finding.message


def test_duplicates_are_reported_only_where_a_side_is_among_the_checked_files(
    tmp_path: Path,
) -> None:
    names = ["duplicates/orders.py", "duplicates/invoices.py", "duplicates/refunds.py"]
    repo = fixture_repo(tmp_path, names)

    changed = run_pipeline(
        repo, ["duplicates/orders.py"], cache_path=None, rules=["near_duplicates"], all_files=names
    )
    unrelated = run_pipeline(
        repo, ["duplicates/refunds.py"], cache_path=None, rules=["near_duplicates"], all_files=names
    )

    assert [(f.path, f.line) for f in changed.findings] == [("duplicates/orders.py", 4)]
    assert "duplicates/invoices.py (lines 4-" in changed.findings[0].message
    assert unrelated.findings == []


@pytest.mark.parametrize("name", ["go/bad.go", "ts/bad.ts", "js/good.js"])
def test_duplicates_are_found_in_other_languages_too(tmp_path: Path, name: str) -> None:
    copy = name.replace("/", "/copy_")
    repo = make_repo(tmp_path / "repo", {name: fixture(name), copy: fixture(name)})

    report = run_pipeline(
        repo, [copy], cache_path=None, rules=["near_duplicates"], all_files=[name, copy]
    )

    assert report.findings and {f.path for f in report.findings} == {copy}
    assert any(f"in {name} (lines" in f.message for f in report.findings)


# --- secrets --------------------------------------------------------------------------------------


def secret_repo(tmp_path: Path) -> Path:
    settings = fixture("secrets/settings.py.tmpl").replace("{token}", TOKEN)
    return make_repo(
        tmp_path / "repo", {"app/settings.py": settings, "tests/fixtures/creds.py": settings}
    )


def test_a_secret_is_reported_by_rule_and_line_never_by_value(tmp_path: Path) -> None:
    repo = secret_repo(tmp_path)
    cache = tmp_path / "cache" / "static.db"

    report = run(repo, ["hardcoded_secrets"], cache=cache)

    assert [(f.location, f.severity) for f in report.findings] == [
        ("app/settings.py:4", "CRITICAL"),
        ("tests/fixtures/creds.py:4", "HIGH"),
    ]
    assert all("github-pat" in f.message for f in report.findings)
    rendered = json.dumps([vars(f) for f in report.findings]) + json.dumps(
        to_sarif(report, "0.1.0")
    )
    assert TOKEN not in rendered and TOKEN[4:] not in rendered
    for stored in cache.parent.iterdir():
        assert TOKEN.encode() not in stored.read_bytes()


_KEYS_BYTES = KEYS.encode()


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


ENCODED_FORMS = {
    "rot13": f"BLOB = {codecs.encode(KEYS, 'rot13')!r}\n",
    "rot13 of one key": f"KEY = {codecs.encode(KEY_ID, 'rot13')!r}\n",
    "base85": f"BLOB = {base64.b85encode(_KEYS_BYTES).decode()!r}\n",
    "ascii85": f"BLOB = {'<~' + base64.a85encode(_KEYS_BYTES).decode() + '~>'!r}\n",
    "base85 of gzip": f"BLOB = {base64.b85encode(gzip.compress(_KEYS_BYTES)).decode()!r}\n",
    "base64 of rot13": (
        f"BLOB = {base64.b64encode(codecs.encode(KEYS, 'rot13').encode()).decode()!r}\n"
    ),
    "hex of base85": f"BLOB = {base64.b85encode(_KEYS_BYTES).hex()!r}\n",
    "a key id split over +": f"KEY = {KEY_ID[:10]!r} + {KEY_ID[10:]!r}\n",
    "base64 split over adjacent literals": "BLOB = ("
    + "\n    ".join(repr(c) for c in _chunks(base64.b64encode(_KEYS_BYTES).decode(), 12))
    + ")\n",
    "hex split over +": "BLOB = "
    + " + ".join(repr(c) for c in _chunks(_KEYS_BYTES.hex(), 20))
    + "\n",
    # Escapes inside a literal: every character, or one only to break the pattern.
    "python hex escapes": 'KEY = "' + "".join(f"\\x{ord(c):02x}" for c in KEY_ID) + '"\n',
    "one escaped character": f'KEY = "{KEY_ID[:5]}\\x{ord(KEY_ID[5]):02x}{KEY_ID[6:]}"\n',
    "js unicode escapes": "const KEY = '" + "".join(f"\\u{ord(c):04x}" for c in KEY_ID) + "';\n",
    "js code point escapes": "const KEY = `"
    + "".join(f"\\u{{{ord(c):x}}}" for c in KEY_ID)
    + "`;\n",
    "octal escapes": 'KEY = "' + "".join(f"\\{ord(c):03o}" for c in KEY_ID) + '"\n',
    "percent encoding": 'KEY = "' + "".join(f"%{ord(c):02X}" for c in KEY_ID) + '"\n',
    "html entities": 'KEY = "' + "".join(f"&#{ord(c)};" for c in KEY_ID) + '"\n',
    "quoted printable": 'KEY = "' + "".join(f"={ord(c):02X}" for c in KEY_ID) + '"\n',
    # Numbers standing for bytes or characters, in any list or call.
    "byte list": f"KEY = bytes({[ord(c) for c in KEY_ID]!r})\n",
    "hex byte list": "KEY = bytes([" + ", ".join(hex(ord(c)) for c in KEY_ID) + "])\n",
    "char codes over lines": "const KEY = String.fromCharCode("
    + ",\n  ".join(str(ord(c)) for c in KEY_ID)
    + "\n);\n",
    # A literal written backwards, and bytes in other alphabets and containers.
    "reversed": f"KEY = {KEY_ID[::-1]!r}[::-1]\n",
    "base32hex": f"BLOB = {base64.b32hexencode(_KEYS_BYTES).decode()!r}\n",
    "base64 of utf-16": f"BLOB = {base64.b64encode(KEYS.encode('utf-16-le')).decode()!r}\n",
    "hex of utf-16 with a mark": f"BLOB = {KEYS.encode('utf-16').hex()!r}\n",
    "base64 of bz2": f"BLOB = {base64.b64encode(bz2.compress(_KEYS_BYTES)).decode()!r}\n",
    "base64 of xz": f"BLOB = {base64.b64encode(lzma.compress(_KEYS_BYTES)).decode()!r}\n",
}


@pytest.mark.parametrize("form", sorted(ENCODED_FORMS))
def test_a_secret_in_an_encoded_literal_is_found(tmp_path: Path, form: str) -> None:
    source = "import base64, codecs\n\n" + ENCODED_FORMS[form]
    repo = make_repo(tmp_path / "repo", {"app/keys.py": source})
    report = run(repo, ["hardcoded_secrets"])
    assert [f.location for f in report.findings][:1] == ["app/keys.py:3"], (form, report.findings)


def test_code_and_prose_decode_to_no_secret(tmp_path: Path) -> None:
    # rot13 and base85 read every long word: ordinary code must stay free of findings.
    code = (
        "def compute_weighted_average_of_all_items(items_by_category_and_region):\n"
        "    total=(weights[a]+weights[b])*scale_factor_for_the_region;return total\n"
        "DOCUMENTATION_URL = 'https://example.org/docs/getting-started/configuration'\n"
        "SEARCH = 'https://example.org/search?q=hello%20world%2C%20again&lang=en'\n"
        "PATTERN = '^\\d{3}-\\w+\\s*\\x41\\u00e9$'\n"
        "CRC_TABLE = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 255]\n"
        "GREETING = 'dlrow olleh, dlrow olleh'\n"
    )
    repo = make_repo(tmp_path / "repo", {"app/code.py": code})
    assert run(repo, ["hardcoded_secrets"]).findings == []


# --- test existence -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "test"),
    [
        ("src/pkg/parser.py", "tests/test_parser.py"),
        ("src/pkg/parser.py", "tests/unit/test_parser.py"),
        ("src/pkg/parser.py", "src/pkg/parser_test.py"),
        ("web/src/button.ts", "web/src/button.test.ts"),
        ("web/src/button.tsx", "web/tests/button.spec.js"),
        ("web/src/widget.js", "web/src/__tests__/widget.js"),
        ("server/handler.go", "server/handler_test.go"),
        ("server/handler.go", "server/server_test.go"),
        ("src/main/java/com/x/Parser.java", "src/test/java/com/x/ParserTest.java"),
        ("tools/static/pipeline.py", "tests/tools/test_static.py"),
        ("src/_utils.ts", "test/utils.test.ts"),
        ("lib/picomatch.js", "test/api.picomatch.js"),
        ("src/parse-options.js", "test/parse_options.spec.js"),
        ("src/main/java/com/x/Parser.java", "src/test/java/com/x/TestParser.java"),
        ("src/main/java/com/x/Parser.java", "src/test/java/com/x/ParserIT.java"),
        ("index.js", "test/api.picomatch.js"),
    ],
)
def test_a_test_found_by_naming_convention_satisfies_test_existence(
    tmp_path: Path, source: str, test: str
) -> None:
    repo = make_repo(tmp_path / "repo", {source: LOGIC[source.rsplit(".", 1)[1]], test: "y = 2\n"})
    alone = run_pipeline(repo, [source], cache_path=None, rules=["test_existence"])
    assert [f.path for f in alone.findings] == [source]  # without the test it is reported

    report = run_pipeline(
        repo, [source], cache_path=None, rules=["test_existence"], all_files=[source, test]
    )

    assert report.findings == []


LOGIC = {
    "py": "def parse(text):\n    return text.split()\n",
    "ts": "export const parse = (text: string) => text.split(' ');\n",
    "tsx": "export const parse = (text: string) => text.split(' ');\n",
    "js": "module.exports = (text) => text.split(' ');\n",
    "go": "package server\n\nfunc Handle() int { return 1 }\n",
    "java": "class Parser { int parse() { return 1; } }\n",
}


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("src/types.ts", "import type { A } from './a';\nexport type B = A;\ninterface C {}\n"),
        ("src/index.ts", "export * from './a';\nexport { b } from './b';\n"),
        ("index.js", "'use strict';\nmodule.exports = require('./lib/picomatch');\n"),
        ("pkg/__init__.py", '"""Docs."""\nfrom .a import b\n\n__all__ = ["b"]\n'),
        ("src/index.d.ts", "export declare function f(): void;\n"),
        ("src/enumUtil.ts", "export namespace enumUtil {\n  export type Values = string[];\n}\n"),
    ],
)
def test_declaration_only_files_need_no_test(tmp_path: Path, path: str, text: str) -> None:
    report = run(make_repo(tmp_path / "repo", {path: text}), ["test_existence"])

    assert report.findings == []


def test_an_init_with_logic_needs_a_test(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "def helper():\n    return 1\n"}
    report = run(make_repo(tmp_path / "repo", files), ["test_existence"])

    assert [f.path for f in report.findings] == ["pkg/__init__.py"]


def test_a_changed_source_file_without_a_test_is_reported(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {
            "src/pkg/parser.py": "def parse(text):\n    return text.split()\n",
            "tests/test_lexer.py": "y = 2\n",
        },
    )

    report = run(repo, ["test_existence"])

    assert [(f.location, f.severity, f.message) for f in report.findings] == [
        (
            "src/pkg/parser.py:1",
            "MEDIUM",
            "no test found for parser.py (expected e.g. tests/test_parser.py)",
        )
    ]


def test_a_rust_file_with_a_test_module_counts_as_tested(tmp_path: Path) -> None:
    files = {
        "src/lib.rs": "pub fn f() {}\n#[cfg(test)]\nmod tests {}\n",
        "src/util.rs": "pub fn g() {}\n",
    }
    repo = make_repo(tmp_path / "repo", files)

    report = run(repo, ["test_existence"])

    assert [f.path for f in report.findings] == ["src/util.rs"]


def test_tests_config_docs_and_package_markers_need_no_test(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "setup.py": "x = 1\n",
        "docs/conf.py": "x = 1\n",
        "README.md": "# r\n",
        "vite.config.ts": "export default {}\n",
        "types.d.ts": "declare const x: number;\n",
        "include/api.h": "int f(void);\n",
        "tests/test_x.py": "y = 2\n",
        "data/items.json": "{}\n",
    }
    report = run(make_repo(tmp_path / "repo", files), ["test_existence"])

    assert report.findings == []


def test_only_changed_files_must_have_tests(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": LOGIC["py"], "b.py": LOGIC["py"]})
    files = ["a.py", "b.py"]

    report = run_pipeline(repo, files, cache_path=None, rules=["test_existence"], changed=["b.py"])

    assert [f.path for f in report.findings] == ["b.py"]


# --- listing files --------------------------------------------------------------------------------


def test_task_scope_lists_only_files_changed_since_base(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {
            "a.py": "a = 1\n",
            "b.py": "b = 1\n",
            "c.py": "c = 1\n",
            "same.py": "s = 1\n",
            ".gitignore": "*.log\n",
        },
    )
    base = git(repo, "rev-parse", "HEAD")
    write(repo, {"b.py": "b = 2\n"})
    git(repo, "commit", "-qam", "change b")
    write(
        repo,
        {
            "a.py": "a = 2\n",
            "d.py": "d = 1\n",
            "e.py": "e = 1\n",
            "f.log": "ignored\n",
            ".referee/static.db": "x",
        },
    )
    git(repo, "add", "e.py")
    (repo / "c.py").unlink()

    assert list_files(repo, "task", base) == ["a.py", "b.py", "d.py", "e.py"]
    assert list_files(repo, "task", None) == ["a.py", "d.py", "e.py"]
    assert list_files(repo, "project", None) == [
        ".gitignore",
        "a.py",
        "b.py",
        "d.py",
        "e.py",
        "same.py",
    ]


def test_files_are_listed_before_the_first_commit(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo", {"a.py": "a = 1\n", "lib/b.go": "package lib\n"}, commit=False
    )

    assert list_files(repo, "project", None) == ["a.py", "lib/b.go"]
    assert list_files(repo, "task", None) == ["a.py", "lib/b.go"]


def test_a_plain_directory_is_walked_without_hidden_and_vendored_folders(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "a.py": "",
            ".env": "K=v\n",
            "src/b.ts": "",
            ".git2/x.py": "",
            "node_modules/m/i.js": "",
            ".venv/lib/x.py": "",
            "src/__pycache__/b.pyc": b"\0",
            ".referee/static.db": "x",
        },
    )

    assert list_files(tmp_path, "project", None) == [".env", "a.py", "src/b.ts"]


def test_an_unknown_base_is_invalid_input(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "a = 1\n"})

    with pytest.raises(InvalidInput) as raised:
        list_files(repo, "task", "no-such-branch")

    assert raised.value.problems[0].code == "unknown_ref"


def test_an_unknown_rule_is_invalid_input_and_aliases_are_accepted(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "a = 1\n"})

    with pytest.raises(InvalidInput):
        run(repo, ["no_such_rule"])
    assert set(run(repo, ["secrets", "TODO/FIXME density"]).by_rule) == {
        "hardcoded_secrets",
        "todo_density",
    }


# --- cache ----------------------------------------------------------------------------------------


def cached_repo(tmp_path: Path) -> tuple[Path, Path]:
    names = [
        "python/bad.py",
        "python/good.py",
        "go/bad.go",
        "js/good.js",
        "duplicates/orders.py",
        "duplicates/invoices.py",
    ]
    return fixture_repo(tmp_path, names), tmp_path / "cache" / "static.db"


def test_the_second_run_is_served_from_the_cache(tmp_path: Path) -> None:
    repo, cache = cached_repo(tmp_path)

    first = run(repo, cache=cache)
    second = run(repo, cache=cache)

    assert first.cache_hits == 0
    assert second.cache_hits == second.files_analysed == 6
    assert second.findings == first.findings
    with sqlite3.connect(cache) as db:
        kinds = {row[0] for row in db.execute("SELECT DISTINCT analyser FROM static_cache")}
    db.close()
    assert "duplicates" in kinds and "secrets" in kinds


def test_another_rule_selection_reuses_the_per_file_results(tmp_path: Path) -> None:
    repo, cache = cached_repo(tmp_path)
    full = run(repo, cache=cache)

    subset = run(repo, ["function_length", "hardcoded_secrets"], cache=cache)

    assert subset.cache_hits == subset.files_analysed == 6
    assert subset.findings == [
        f for f in full.findings if f.rule in ("function_length", "hardcoded_secrets")
    ]


def test_the_cache_survives_a_new_process(tmp_path: Path) -> None:
    repo, cache = cached_repo(tmp_path)
    first = run(repo, cache=cache)
    script = (
        "import json, sys; from pathlib import Path; from referee.tools.static import list_files,"
        " run_pipeline\nrepo, cache = Path(sys.argv[1]), Path(sys.argv[2])\nr = run_pipeline(repo,"
        " list_files(repo, 'project', None), cache_path=cache)\nprint(json.dumps([r.cache_hits,"
        " r.files_analysed, len(r.findings)]))\n"
    )

    done = subprocess.run(
        [sys.executable, "-c", script, str(repo), str(cache)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )

    assert json.loads(done.stdout) == [6, 6, len(first.findings)]


def test_a_modified_file_is_analysed_again(tmp_path: Path) -> None:
    repo, cache = cached_repo(tmp_path)
    run(repo, cache=cache)
    original = fixture("python/good.py")
    write(repo, {"python/good.py": original + "\n\n" + python_function(60, "grown")})

    report = run(repo, cache=cache)

    assert report.cache_hits == report.files_analysed - 1
    grown_at = original.count("\n") + 3
    assert ("function_length", f"python/good.py:{grown_at}") in rules_at(report)


def test_an_unusable_cache_slows_the_run_but_does_not_stop_it(tmp_path: Path) -> None:
    repo, cache = cached_repo(tmp_path)
    cache.parent.mkdir(parents=True)
    cache.write_bytes(b"this is not a database" * 100)

    report = run(repo, STRUCTURE, cache=cache)

    assert report.files_analysed == 6 and report.cache_hits == 0 and len(report.findings) == 8
    assert any(e.startswith("static cache: could not open") for e in report.errors)


def test_worker_processes_find_what_in_process_analysis_finds(tmp_path: Path) -> None:
    repo = fixture_repo(tmp_path, [name for pair in LANGUAGE_FIXTURES.values() for name in pair])

    inline = run(repo, STRUCTURE + ["hardcoded_secrets"])
    pooled = run(
        repo, STRUCTURE + ["hardcoded_secrets"], config=StaticConfig(inline_bytes=0, jobs=2)
    )

    assert pooled.findings == inline.findings
    assert len(pooled.findings) == 24


def test_blob_sha_equals_git_hash_object(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"hello\r\nworld")

    assert blob_sha(b"hello\r\nworld") == git(tmp_path, "hash-object", "f.txt")


# --- robustness -----------------------------------------------------------------------------------


def test_a_file_with_syntax_errors_does_not_abort_the_run(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {
            "broken.py": "def broken(:\n    return\n",
            "broken.ts": "function (a { if ( }\n",
            "fine.py": python_function(51),
        },
    )

    report = run(repo, ["function_length", "cognitive_complexity", "nesting_depth"])

    assert [f.location for f in report.findings] == ["fine.py:1"]
    assert any(e.startswith("broken.py: ") for e in report.errors)
    assert any(e.startswith("broken.ts: syntax errors") for e in report.errors)
    assert report.files_analysed == 3


def test_paths_outside_the_repository_are_refused(tmp_path: Path) -> None:
    write(tmp_path, {"outside.py": python_function(60)})
    repo = make_repo(tmp_path / "repo", {"inside.py": "x = 1\n"})

    report = run_pipeline(
        repo, ["../outside.py", "inside.py"], cache_path=None, rules=["function_length"]
    )

    assert report.findings == []
    assert report.errors == ["../outside.py: not analysed: outside the repository"]
    assert report.files_analysed == 1


def test_binary_and_minified_files_are_skipped_except_for_secrets(tmp_path: Path) -> None:
    minified = "var a=1;" * 1000 + f'var t="{TOKEN}";'
    repo = make_repo(
        tmp_path / "repo",
        {
            "logo.png": b"\x89PNG\0\0" + TOKEN.encode(),
            "app.min.js": minified,
            "bundle.js": minified,
        },
    )

    report = run(repo)

    # A key hidden in a bundle or behind a binary header is still a leaked key: secret scanning
    # reads minified files and the printable runs of binary ones; nothing else does.
    found = [(f.rule, f.path) for f in report.findings if f.rule != "test_existence"]
    assert sorted(found) == [
        ("hardcoded_secrets", "app.min.js"),
        ("hardcoded_secrets", "bundle.js"),
        ("hardcoded_secrets", "logo.png"),
    ]
    # A .min. name is known by its path; a bundle without one, by its line lengths.
    assert report.excluded == {"minified": 1}
    assert sorted(report.errors) == ["bundle.js: not analysed: minified"]


# --- outputs --------------------------------------------------------------------------------------


def test_sarif_output_has_the_required_structure(tmp_path: Path) -> None:
    report = run(fixture_repo(tmp_path, ["python/bad.py"]), STRUCTURE)

    sarif = to_sarif(report, "0.1.0")

    assert sarif["version"] == "2.1.0" and "sarif-schema-2.1.0" in sarif["$schema"]
    (run_,) = sarif["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "referee" and driver["version"] == "0.1.0"
    assert [r["id"] for r in driver["rules"]] == list(STATIC_RULES)
    assert all(r["shortDescription"]["text"] for r in driver["rules"])
    assert len(run_["results"]) == len(report.findings) == 4
    for result, finding in zip(run_["results"], report.findings, strict=True):
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == finding.path
        assert location["region"]["startLine"] == finding.line
        assert result["level"] in ("error", "warning", "note") and result["message"]["text"]
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    assert {r["level"] for r in run_["results"]} == {"warning", "note"}
    json.dumps(sarif)


def test_findings_convert_to_evaluation_models(tmp_path: Path) -> None:
    report = run(fixture_repo(tmp_path, ["python/bad.py"]), ["todo_density"])

    assert findings_to_models(report) == [
        Finding(
            rule="todo_density",
            severity="LOW",
            location="python/bad.py:3",
            message="6 TODO/FIXME/XXX/HACK comments (limit 5)",
        )
    ]


def test_the_report_counts_findings_per_selected_rule(tmp_path: Path) -> None:
    report = run(fixture_repo(tmp_path, ["python/bad.py"]), STRUCTURE)

    assert report.by_rule == {
        "file_length": 0,
        "function_length": 1,
        "nesting_depth": 1,
        "cognitive_complexity": 1,
        "todo_density": 1,
    }
    assert report.duration_s > 0


def test_run_pipeline_needs_no_cache(tmp_path: Path) -> None:
    report = run(fixture_repo(tmp_path, ["go/bad.go"]), STRUCTURE)

    assert report.cache_hits == 0 and report.files_analysed == 1 and len(report.findings) == 4


def test_a_bare_aws_key_id_is_a_hardcoded_secret_but_the_documentation_example_is_not() -> None:
    from referee.tools.static.secrets import secret_items

    found = secret_items('KEY = "AKIA' + 'Z7XQ3MPLR4KWNB2T"\nDOC = "AKIAIOSFODNN7EXAMPLE"\n')
    assert [(i.line, i.rule) for i in found] == [(1, "hardcoded_secrets")]
    assert "Z7XQ3" not in found[0].message


def js_function(lines: int, name: str = "work") -> str:
    body = "\n".join("  total += 1;" for _ in range(lines - 4))
    return f"function {name}() {{\n  let total = 0;\n{body}\n  return total;\n}}\n"


def test_build_output_vendored_generated_and_ignored_files_are_not_analysed(
    tmp_path: Path,
) -> None:
    long = js_function(80)
    repo = make_repo(
        tmp_path / "repo",
        {
            ".gitignore": "/public/assets/\n",
            "src/app.js": long,
            "dist/base.js": long,
            "examples/vue/dist/assets/index-CO9Gq1IP.js": long,
            "build/out.js": long,
            ".next/server.js": long,
            "coverage/lcov-report/prettify.js": long,
            "vendor/lib.js": long,
            "static/vue.min.js": long,
            "src/api_pb.js": "// Code generated by protoc-gen-js. DO NOT EDIT.\n" + long,
            "src/schema.ts": "/* @generated */\n" + long.replace("function", "export function"),
        },
    )
    # Committed before the .gitignore rule matched it: tracked, yet ignored.
    write(repo, {"public/assets/chunk.js": long})
    git(repo, "add", "-f", "public/assets/chunk.js")
    git(repo, "commit", "-q", "-m", "build output")

    report = run(repo)

    assert {f.path for f in report.findings} == {"src/app.js"}
    assert report.excluded == {
        "build output": 5,
        "generated": 2,
        "ignored by .gitignore": 1,
        "minified": 1,
        "vendored": 1,
    }


def test_script_blocks_of_vue_and_svelte_components_are_analysed_at_their_lines(
    tmp_path: Path,
) -> None:
    template = "<template>\n  <ul>\n    <li v-for='t in todos'>{{ t }}</li>\n  </ul>\n</template>\n"
    vue = template + "<script setup>\n" + js_function(60, "addTodo") + "</script>\n"
    svelte = (
        '<script lang="ts">\n'
        + js_function(55, "toggle").replace("let total", "let total: number")
        + "</script>\n<h1>todos</h1>\n"
    )
    repo = make_repo(
        tmp_path / "repo",
        {"src/TodoList.vue": vue, "src/Toggle.svelte": svelte, "src/ok.vue": template},
    )

    report = run(repo, rules=["function_length"])

    assert [(f.location, f.message) for f in report.findings] == [
        ("src/TodoList.vue:7", "function addTodo has 60 lines (limit 50)"),
        ("src/Toggle.svelte:2", "function toggle has 55 lines (limit 50)"),
    ]


IMPORTING_TESTS = {
    "root-test-py": ("test.py", "import unittest\nfrom slugify import slugify\n"),
    "root-tests-py": ("tests.py", "from pkg.slugify import slugify\n"),
    "changed-test-imports": ("tests/test_api.py", "from src.slugify import slugify\n"),
    "changed-js-test-requires": ("test/api.test.js", "const s = require('../lib/slugify');\n"),
}


@pytest.mark.parametrize("form", sorted(IMPORTING_TESTS))
def test_a_test_that_imports_the_module_covers_it(form: str, tmp_path: Path) -> None:
    """A bare test.py, or a test the same change edits, covers what it imports whatever its name."""
    from referee.tools.static.testexist import missing_test_items

    test, text = IMPORTING_TESTS[form]
    source = "lib/slugify.js" if test.endswith(".js") else "slugify/slugify.py"
    body = (
        "module.exports = (x) => x;\n"
        if test.endswith(".js")
        else "def slugify(x):\n    return x\n"
    )
    for path, content in (
        (source, body),
        (test, text),
        ("other/other.py", "def f():\n    return 1\n"),
    ):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(content)
    changed = [source, test, "other/other.py"]
    missing = missing_test_items(tmp_path, changed, changed)
    assert [p for p, _ in missing] == ["other/other.py"]


@pytest.mark.parametrize(
    ("init", "covered"),
    [
        ("from ._manager import PluginManager\n", True),
        ("from pluggy._manager import PluginManager\n", True),
        ("from . import _hooks\n", False),  # another module re-exported: the test covers that
        ("", False),
    ],
)
def test_a_test_of_the_package_covers_a_module_it_re_exports(
    tmp_path: Path, init: str, covered: bool
) -> None:
    """pluggy: `src/pluggy/_manager.py` changed, and the changed test imports the package,
    whose `__init__.py` re-exports the class from it."""
    files = {
        "src/pluggy/__init__.py": init,
        "src/pluggy/_manager.py": "class PluginManager:\n    def register(self, x):\n"
        "        return x\n",
        "testing/test_pluginmanager.py": "from pluggy import PluginManager\n\n\n"
        "def test_register():\n    assert PluginManager().register(1) == 1\n",
    }
    changed = ["src/pluggy/_manager.py", "testing/test_pluginmanager.py"]
    assert _all_tested(tmp_path, files, changed) is covered


@pytest.mark.parametrize(
    ("index", "imported", "covered"),
    [
        ('export * from "./utils";\n', "../src/index", True),
        ("export { withoutHost, cleanPath } from './utils.ts';\n", "../src", True),
        ('import { withoutHost } from "./utils";\nexport { withoutHost };\n', "../src", True),
        ('export * from "./parse";\n', "../src", False),  # another module: the test covers that
        ('export * from "./utils";\n', "../lib", False),  # the test imports another package
    ],
)
def test_a_test_of_a_barrel_covers_a_module_it_re_exports(
    tmp_path: Path, index: str, imported: str, covered: bool
) -> None:
    """ufo: `src/utils.ts` changed, and the changed test imports the folder's `index.ts`,
    which re-exports it."""
    files = {
        "src/index.ts": index,
        "src/utils.ts": "export function withoutHost(input: string) {\n  return input;\n}\n",
        "test/utilities.test.ts": f'import {{ withoutHost }} from "{imported}";\n'
        'test("x", () => expect(withoutHost("?")).toBe("/"));\n',
    }
    changed = ["src/utils.ts", "test/utilities.test.ts"]
    assert _all_tested(tmp_path, files, changed) is covered


def _all_tested(root: Path, files: dict[str, str], changed: list[str]) -> bool:
    """Write `files` and say whether no changed file lacks a test (test_existence)."""
    from referee.tools.static.testexist import missing_test_items

    for path, content in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(content)
    return not missing_test_items(root, changed, list(files))


def test_a_docstring_makes_no_function_longer(tmp_path: Path) -> None:
    """humanize: a function of 12 lines of code under a 37-line docstring with doctests, one
    example added to it."""
    doc = '    """Ordinal.\n\n' + "    >>> f(1)\n    1\n" * 20 + '    """\n'
    code = "    x = 0\n" * 12 + "    return x\n"
    long_code = "    x = 0\n" * 50 + "    return x\n"
    repo = make_repo(
        tmp_path / "repo",
        {"doc.py": "def f(n):\n" + doc + code, "long.py": "def g(n):\n" + doc + long_code},
    )
    report = run(repo, ["function_length"])
    assert [(f.location, f.message) for f in report.findings] == [
        ("long.py:1", "function g has 52 lines (limit 50)")
    ]
