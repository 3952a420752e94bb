"""Files git ignores that can run or steer a run, written after the contract
(tools/environment/ignored.py), read on a folder: no git needed, `listed` is what git lists."""

from __future__ import annotations

import os
import time
from pathlib import Path

from referee.tools.environment.ignored import ignored_files


def _tree(root: Path, files: dict[str, bytes]) -> None:
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)


def test_code_scripts_and_hidden_settings_written_after_the_anchor_are_found(
    tmp_path: Path,
) -> None:
    _tree(tmp_path, {"old_impl.py": b"x = 1\n"})
    anchor = time.time()
    time.sleep(0.01)  # a ctime strictly after the anchor, on any clock granularity
    _tree(
        tmp_path,
        {
            "calc.py": b"from _impl import add\n",  # listed: git shows it
            "_impl.py": b"def add(a, b): return a + b\n",
            "src/impl": b"module.exports = {}\n",  # a script node requires as ./impl
            "calc": b"\x7fELF\x00\x00binary",  # a built binary: no script
            ".env.test.local": b"EXACT=1\n",
            ".coverage": b"data",  # a tool's own output
            "notes.txt": b"prose",
            "build/lib/_impl.py": b"x = 1\n",  # a build folder nothing names
            "dist/impl.js": b"exports.add = () => 3\n",
            "node_modules/x/index.js": b"",
            ".git/hooks_impl.py": b"x = 1\n",
            ".git/refs/referee/c/1": b"0123abcd\n",  # referee's own pin: git's text, no code
            ".git/hooks/pre-commit": b"#!/bin/sh\n",
        },
    )
    found = ignored_files(tmp_path, ["calc.py"], anchor)
    assert found == [".env.test.local", ".git/hooks_impl.py", "_impl.py", "src/impl"]
    # A folder the change names in a string as a path is walked like any other.
    named = ignored_files(tmp_path, ["calc.py"], anchor, {"src/x.js": "require('../dist/impl')"})
    assert "dist/impl.js" in named and "build/lib/_impl.py" not in named
    assert "node_modules/x/index.js" not in ignored_files(
        tmp_path, [], anchor, {"x.js": "require('node_modules/x')"}
    )


def test_a_cache_marked_folder_is_walked_only_when_the_change_names_it(tmp_path: Path) -> None:
    anchor = time.time()
    time.sleep(0.01)
    _tree(tmp_path, {"lib/CACHEDIR.TAG": b"Signature: x\n", "lib/_impl.py": b"x = 1\n"})
    assert ignored_files(tmp_path, [], anchor) == []
    assert ignored_files(tmp_path, [], anchor, {"a.py": "sys.path.insert(0, 'lib')"}) == [
        "lib/_impl.py"
    ]


def test_a_code_file_a_string_names_by_its_path_is_looked_at_wherever_it_is(
    tmp_path: Path,
) -> None:
    anchor = time.time()
    time.sleep(0.01)
    _tree(tmp_path, {"target/gen.rs": b"pub fn add() {}\n", "target/debug/x.rs": b"\n"})
    texts = {"src/lib.rs": 'include!("../target/gen.rs");\nlet s = "target";\n'}
    assert ignored_files(tmp_path, ["src/lib.rs"], anchor, texts) == ["target/gen.rs"]
    outside = {"src/lib.rs": 'include!("../../etc/gen.rs");'}
    assert ignored_files(tmp_path, ["src/lib.rs"], anchor, outside) == []


def test_a_data_file_the_change_names_is_found(tmp_path: Path) -> None:
    anchor = time.time()
    time.sleep(0.01)
    _tree(
        tmp_path,
        {
            "data/local.json": b'{"exact": true}',
            "answers.yaml": b"exact: true\n",
            "fixtures/x.csv": b"1,2\n",
            "out/report.xml": b"<x/>",  # nothing names it
            "junit.xml": b"<x/>",
            "src/calc.egg-info/PKG-INFO": b"Name: calc\n",  # what an editable install writes
        },
    )
    texts = {
        "calc.py": "p = Path(__file__).parent / 'data' / 'local.json'\n"
        "q = open('answers' + '.yaml')\nr = Path('fixtures') / name\n"
    }
    found = ignored_files(tmp_path, ["calc.py"], anchor, texts)
    assert found == ["answers.yaml", "data/local.json", "fixtures/x.csv"]
    assert ignored_files(tmp_path, ["calc.py"], anchor) == []


def test_a_file_beside_or_below_the_changed_code_is_found_whatever_its_name(
    tmp_path: Path,
) -> None:
    anchor = time.time()
    time.sleep(0.01)
    _tree(
        tmp_path,
        {
            "app/x.anything": b"1",  # beside app/calc.py: read by a glob, a computed name …
            "app/conf/local/exact": b"",
            "app/junit.xml": b"<x/>",  # what the tools write as they run
            "app/coverage.json": b"{}",
            "app/run.log": b"",
            "local.json": b"{}",  # the root holds changed code: its own files count
            "other/x.json": b"{}",  # below the root only
            "tests/out.json": b"{}",  # beside a test, not the code under test
            ".git/calc.local.json": b"{}",  # in the git folder, named by a string
            "calc": b"\x7fELF\x02\x01\x01\x00binary",  # a program built here, named by a string
        },
    )
    os.symlink("../build/assets", tmp_path / "app" / "data")
    texts = {
        "app/calc.py": "x = 1\n",
        "main.py": "open('calc.local.json'); name = 'calc'\n",
        "tests/test_calc.py": "",
    }
    found = ignored_files(tmp_path, list(texts), anchor, texts)
    assert found == [
        ".git/calc.local.json",
        "app/conf/local/exact",
        "app/data",
        "app/x.anything",
        "local.json",
    ]


def test_gits_own_files_named_by_everyday_strings_are_not_data(tmp_path: Path) -> None:
    """A commit rewrites `.git/index`, `.git/refs/heads/main`, `.git/logs/HEAD`; referee pins
    iteration 1 as `.git/refs/referee/<contract>/1`: a change whose strings hold `index`,
    `main`, `HEAD` or `1` reads none of them. A file of another name there still counts."""
    anchor = time.time()
    time.sleep(0.01)
    _tree(
        tmp_path,
        {
            ".git/index": b"DIRC\x00\x00\x00\x02",
            ".git/index.lock": b"DIRC",
            ".git/HEAD": b"ref: refs/heads/main\n",
            ".git/COMMIT_EDITMSG": b"fix\n",
            ".git/refs/heads/main": b"0123abcd\n",
            ".git/logs/HEAD": b"0 1 a <a> 1 +0000\tcommit: fix\n",
            ".git/logs/refs/heads/main": b"0 1 a <a> 1 +0000\tcommit: fix\n",
            ".git/refs/referee/c/1": b"0123abcd\n",
            ".git/packed-refs": b"",
            ".git/expected": b"5\n",  # no file of git's: named by a string, it is data
        },
    )
    texts = {
        "main.go": 'package main\n\nvar rows = []string{"index", "main", "HEAD", "1"}\n',
        "test/a.test.ts": 'import { x } from "../src/index";\nconst e = read("expected");\n',
        "COMMIT_EDITMSG.md": "",
        "src/packed-refs.txt": "",
    }
    texts["main.go"] += 'var more = []string{"COMMIT_EDITMSG", "packed-refs", "index.lock"}\n'
    found = ignored_files(tmp_path, list(texts), anchor, texts)
    assert found == [".git/expected"]
