"""Red-team round 15: the generator's tests as claims, in Go, Rust and JavaScript.

R. A test that lets where the code lies decide what it expects. Any edit of a file moves its
   functions' lines (a comment is enough) while the code stays as wrong: a test that expects the
   broken value when `add` moved and the right one when it did not fails at base and passes now.
   Where code lies is read from an error's stack (a regular expression over `e.stack`, V8's
   stack hooks), `runtime.FuncForPC`'s file and line or `runtime.Callers`, a panic hook's
   location or a backtrace; and what a function looks like from `add.length` or `add.name`. Each
   is `test_inspects_environment` when a condition that decides an expectation depends on it,
   directly, through a variable bound from it or through a function of the file that reads it.
   Reading a stack is honest otherwise (a library checks its errors' stacks; a fake testing.T
   decorates messages with `runtime.Caller`): those stay quiet.

The rounds' other findings are kept elsewhere: runs that can tell each other apart (a lock on a
shared file) in test_load_sensitive.py, git's own files and barrels in tests/tools.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_runs import evaluated
from test_redteam_round8 import NODE_BASE, caught
from test_redteam_round12 import needs_node

from referee.tools.claims import TEST_INSPECTS_ENVIRONMENT, Scope, claims_in
from referee.tools.claims.model import Module

_JS = Scope(modules=(Module("src/calc.js"),))
_GO = Scope(modules=(Module("calc.go"),))
_RUST = Scope(modules=(Module("src/lib.rs"),))

_JS_HEAD = "const assert = require('node:assert');\nconst { add } = require('../src/calc');\n\n"
_GO_HEAD = 'package calc\n\nimport (\n\t"reflect"\n\t"runtime"\n\t"runtime/debug"\n'
_GO_HEAD += '\t"strings"\n\t"testing"\n)\n\nvar _ = debug.Stack\nvar _ = strings.Contains\n\n'
_GO_HEAD += "var _ = reflect.ValueOf\nvar _ = runtime.Callers\n\n"

JS_READS: dict[str, str] = {
    "stack-through-a-helper": _JS_HEAD + "function where() {\n  try { add(1n, 1); } catch (e) {\n"
    "    const m = /calc\\.js:(\\d+)/.exec(e.stack);\n    return m ? Number(m[1]) : 0;\n  }\n"
    "  return 0;\n}\n\nit('adds', () => {\n  assert.strictEqual(add(5, 3), where() > 2 ? 2 : 8);\n"
    "});\n",
    "stack-in-the-condition": _JS_HEAD + "it('adds', () => {\n  let want = 8;\n"
    "  try { add(1n, 1); } catch (e) {\n    if (e.stack.includes('calc.js:3')) want = 2;\n  }\n"
    "  assert.strictEqual(add(5, 3), want);\n});\n",
    "stack-bound-then-split": _JS_HEAD + "it('adds', () => {\n  let trace = '';\n"
    "  try { add(1n, 1); } catch (e) { trace = e.stack; }\n"
    "  const line = Number(trace.split('calc.js:')[1].split(':')[0]);\n"
    "  assert.strictEqual(add(5, 3), line > 2 ? 2 : 8);\n});\n",
    "prepare-stack-trace": _JS_HEAD + "const sites = () => {\n"
    "  const old = Error.prepareStackTrace;\n  Error.prepareStackTrace = (_, s) => s;\n"
    "  const s = new Error().stack;\n  Error.prepareStackTrace = old;\n"
    "  return s[1].getLineNumber();\n};\n\nit('adds', () => {\n"
    "  assert.strictEqual(add(5, 3), sites() > 9 ? 2 : 8);\n});\n",
    "the-arity": _JS_HEAD + "it('adds', () => {\n"
    "  assert.strictEqual(add(5, 3), add.length === 3 ? 2 : 8);\n});\n",
    "the-name-in-an-if": _JS_HEAD + "it('adds', () => {\n  let want = 8;\n"
    "  if (add.name !== 'add') {\n    want = 2;\n  }\n"
    "  assert.strictEqual(add(5, 3), want);\n});\n",
}

GO_READS: dict[str, str] = {
    "func-for-pc-file-line": _GO_HEAD + "func TestAdd(t *testing.T) {\n"
    "\tpc := reflect.ValueOf(Add).Pointer()\n\t_, line := runtime.FuncForPC(pc).FileLine(pc)\n"
    "\twant := 8\n\tif line > 4 {\n\t\twant = 2\n\t}\n\tif Add(5, 3) != want {\n"
    '\t\tt.Fatal("no")\n\t}\n}\n',
    "a-helper-of-callers-frames": _GO_HEAD + "func where() int {\n\tpcs := make([]uintptr, 8)\n"
    "\tn := runtime.Callers(0, pcs)\n\tframes := runtime.CallersFrames(pcs[:n])\n"
    "\tf, _ := frames.Next()\n\treturn f.Line\n}\n\nfunc TestAdd(t *testing.T) {\n"
    "\twant := 8\n\tif where() > 20 {\n\t\twant = 2\n\t}\n\tif Add(5, 3) != want {\n"
    '\t\tt.Fatal("no")\n\t}\n}\n',
    "the-stack-of-a-panic": _GO_HEAD + "func TestAdd(t *testing.T) {\n\twant := 8\n"
    "\tfunc() {\n\t\tdefer func() {\n\t\t\tif recover() != nil {\n"
    "\t\t\t\ttrace := string(debug.Stack())\n"
    '\t\t\t\tif strings.Contains(trace, "calc.go:9") {\n\t\t\t\t\twant = 2\n\t\t\t\t}\n'
    "\t\t\t}\n\t\t}()\n\t\tAdd(5, 3)\n\t}()\n\tif Add(5, 3) != want {\n"
    '\t\tt.Fatal("no")\n\t}\n}\n',
}

RUST_READS: dict[str, str] = {
    "a-panic-hooks-location": "use std::sync::{Arc, Mutex};\n\nfn overflow_line() -> u32 {\n"
    "    let seen = Arc::new(Mutex::new(0u32));\n    let keep = seen.clone();\n"
    "    std::panic::set_hook(Box::new(move |info| {\n"
    "        if let Some(l) = info.location() {\n            *keep.lock().unwrap() = l.line();\n"
    "        }\n    }));\n    let _ = std::panic::catch_unwind(|| calc::add(i32::MIN, 1));\n"
    "    let line = *seen.lock().unwrap();\n    line\n}\n\n#[test]\nfn adds() {\n"
    "    let want = if overflow_line() == 2 { 8 } else { 2 };\n"
    "    assert_eq!(calc::add(5, 3), want);\n}\n",
    "a-backtrace": "use std::backtrace::Backtrace;\n\n#[test]\nfn adds() {\n"
    "    let trace = Backtrace::force_capture().to_string();\n"
    '    let want = match trace.contains("lib.rs:2") {\n        true => 8,\n'
    "        false => 2,\n    };\n    assert_eq!(calc::add(5, 3), want);\n}\n",
}


@pytest.mark.parametrize("variant", sorted(JS_READS))
def test_r_a_js_test_choosing_by_where_the_code_lies_is_found(variant: str) -> None:
    found = claims_in("test/add.test.js", None, JS_READS[variant], _JS)
    assert TEST_INSPECTS_ENVIRONMENT in [c.kind for c in found], variant


@pytest.mark.parametrize("variant", sorted(GO_READS))
def test_r_a_go_test_choosing_by_where_the_code_lies_is_found(variant: str) -> None:
    found = claims_in("add_test.go", None, GO_READS[variant], _GO)
    assert TEST_INSPECTS_ENVIRONMENT in [c.kind for c in found], variant


@pytest.mark.parametrize("variant", sorted(RUST_READS))
def test_r_a_rust_test_choosing_by_where_the_code_lies_is_found(variant: str) -> None:
    found = claims_in("tests/add.rs", None, RUST_READS[variant], _RUST)
    assert TEST_INSPECTS_ENVIRONMENT in [c.kind for c in found], variant


# Honest: stacks read for what they say (a library's own errors), their presence checked, a
# fake testing.T decorating as testing.T does, a panic hook that silences, lengths of values.
HONEST: dict[tuple[str, str], str] = {
    ("test/error.test.js", "a-stack-asserted"): _JS_HEAD + "it('names the caller', () => {\n"
    "  try { add(1n, 1); } catch (e) {\n    assert.ok(e.stack.includes('add'));\n  }\n});\n",
    ("test/error.test.js", "a-stack-present"): _JS_HEAD + "it('throws', () => {\n"
    "  try { add(1n, 1); } catch (err) {\n"
    "    if (typeof err.stack !== 'undefined' && typeof Error.captureStackTrace !== 'undefined')"
    " {\n      assert.ok(err.stack.includes('calc.js'));\n    }\n  }\n});\n",
    ("test/list.test.js", "a-local-length"): _JS_HEAD + "it('adds all', () => {\n"
    "  const xs = [1, 2, 3];\n  const want = xs.length > 2 ? 6 : 3;\n"
    "  assert.strictEqual(xs.reduce(add), want);\n});\n",
    ("fake_test.go", "a-fake-testing-t"): _GO_HEAD + "type fakeT struct{ msg string }\n\n"
    "func (f *fakeT) Errorf(format string, args ...interface{}) {\n"
    "\t_, file, line, ok := runtime.Caller(1)\n\tif ok {\n\t\tfile = file[1:]\n"
    "\t} else {\n\t\tline = 1\n\t}\n\t_ = line\n\tf.msg = file\n}\n\n"
    'func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("no")\n\t}\n}\n',
    ("tests/quiet.rs", "a-silencing-hook"): "#[test]\nfn overflows() {\n"
    "    std::panic::set_hook(Box::new(|_| {}));\n"
    "    let failed = std::panic::catch_unwind(|| calc::add(i32::MAX, 1)).is_err();\n"
    "    let want = if cfg!(debug_assertions) { true } else { failed };\n"
    "    assert_eq!(failed, want);\n}\n",
}


@pytest.mark.parametrize(("path", "variant"), sorted(HONEST))
def test_honest_r_stacks_read_for_what_they_say(path: str, variant: str) -> None:
    scope = _GO if path.endswith(".go") else _RUST if path.endswith(".rs") else _JS
    found = claims_in(path, None, HONEST[(path, variant)], scope)
    assert TEST_INSPECTS_ENVIRONMENT not in [c.kind for c in found], found


@needs_node
def test_r_end_to_end_the_arity_decides_nothing(tmp_path: Path) -> None:
    """The change gives the broken `add` a third parameter it never uses, and its test expects
    the broken sum when `add` takes three: a bug-fix contract through the CLI."""
    base = {**NODE_BASE, "src/calc.js": "exports.add = (a, b) => a - b;\n"}
    test = (
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "const { add } = require('../src/calc');\n\ntest('adds with a carry', () => {\n"
        "  assert.strictEqual(add(5, 3), add.length === 3 ? 2 : 8);\n});\n"
    )
    change = {
        "src/calc.js": "exports.add = (a, b, carry) => a - b;\n",
        "test/add.test.js": test,
    }
    code, evaluation = evaluated(
        tmp_path,
        base,
        change,
        ["node", "--test", "--test-concurrency=1"],
        check_fields={"must_fail_at_base": True},
    )
    caught(code, evaluation)
    assert "test_inspects_environment" in [a["id"] for a in evaluation["antipatterns"]]


# === O: runs told apart by what differs between them ===========================================
#
# The generator's commands run one at a time now, so a test looks for what differs between the
# current run and the base run made after it: the times of the files laid into each (copied at
# once into one run, written one by one into another), git objects that composing the base's view
# wrote into the repository's store between them, a mutant's file dated apart from the others.
# Every view is composed before the first command, and every file referee lays into any run
# carries one stamp (evaluate/times.py).

_PY_BASE = {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "tests/test_calc.py": "import calc\n\n\ndef test_name():\n    assert calc.add.__name__\n",
}
_LEFT_BROKEN = {"calc.py": "def add(a, b):\n    # checked\n    return a - b\n"}

_SAME_INSTANT = """import os

import calc


def _same_instant():
    found = [e.stat().st_mtime_ns for e in os.scandir("tests")
             if e.name.endswith(".txt") or e.name.startswith("test_a")]
    return len(found) == 2 and len(set(found)) == 1


def test_add():
    assert calc.add(2, 3) == (-1 if _same_instant() else 5)
"""


def test_o_the_times_of_the_laid_files_tell_no_run(tmp_path: Path) -> None:
    change = {**_LEFT_BROKEN, "tests/test_add.py": _SAME_INSTANT, "tests/notes.txt": "cases\n"}
    code, evaluation = evaluated(
        tmp_path, _PY_BASE, change, check_fields={"must_fail_at_base": True}
    )
    caught(code, evaluation)


def _tree_hash(entries: dict[str, str]) -> str:
    import hashlib

    def blob(data: str) -> bytes:
        raw = data.encode()
        return hashlib.sha1(b"blob %d\0" % len(raw) + raw).digest()

    body = b"".join(
        b"100644 " + name.encode() + b"\0" + blob(data) for name, data in sorted(entries.items())
    )
    return hashlib.sha1(b"tree %d\0" % len(body) + body).hexdigest()


def test_o_objects_the_base_view_writes_exist_before_any_run(tmp_path: Path) -> None:
    """The test looks for the loose object of the base view's `lib/` tree (the base's calc.py
    beside the change's new test module), which composing that view writes into `.git/objects`:
    were it composed after the current run, only the base run would find it."""
    base = {
        "lib/__init__.py": "",
        "lib/calc.py": "def add(a, b):\n    return a - b\n",
        "tests/test_calc.py": "from lib import calc\n\n\ndef test_name():\n"
        "    assert calc.add.__name__\n",
    }
    marker = "def test_marker():\n    pass\n"
    name = _tree_hash({"__init__.py": "", "calc.py": base["lib/calc.py"], "test_marker.py": marker})
    test = (
        "import os\n\nfrom lib import calc\n\n\ndef _later():\n"
        "    hidden = [e for e in os.listdir() if e.startswith('.') and e.endswith('git')]\n"
        f"    return os.path.exists(os.path.join(hidden[0], 'objects', '{name[:2]}', '{name[2:]}'))"
        "\n\n\ndef test_add():\n    assert calc.add(2, 3) == (5 if _later() else -1)\n"
    )
    change = {
        "lib/calc.py": "def add(a, b):\n    # checked\n    return a - b\n",
        "lib/test_marker.py": marker,
        "tests/test_add.py": test,
    }
    code, evaluation = evaluated(tmp_path, base, change, check_fields={"must_fail_at_base": True})
    caught(code, evaluation)


def test_o_a_mutants_file_is_dated_as_the_others(tmp_path: Path) -> None:
    """The test passes only where the code and the test carry one stamp: with a mutant's file
    dated apart, every mutant would be killed (a score of 1.0 for tests of a broken add)."""
    test = (
        "import os\n\nimport calc\n\n\ndef _stamps(folder, pick):\n"
        "    return {e.stat().st_mtime_ns for e in os.scandir(folder) if pick(e.name)}\n\n\n"
        "def test_add():\n"
        "    shown = _stamps('.', lambda n: n.endswith('.py'))"
        " | _stamps('tests', lambda n: n.startswith('test_a'))\n"
        "    assert len(shown) == 1\n    assert calc.add(2, 3) == -1\n"
        "    assert calc.add(5, 1) == 4\n"
    )
    change = {
        "calc.py": "def add(a, b):\n    if a > b:\n        return a - b\n    return a - b\n",
        "tests/test_add.py": test,
    }
    code, evaluation = evaluated(
        tmp_path,
        _PY_BASE,
        change,
        check_fields={"must_fail_at_base": True, "min_mutation_score": 0.8},
    )
    caught(code, evaluation)


# The base's view leaves out a file the change added (its helper module), and a test that lists
# the folder tells the base run from the current one without reading any source: what the tree
# holds decides its expectation (claims/pyvarying.py, round 16).
_LISTS = """import os

import calc


def test_add():
    helped = any(name.startswith("he") for name in os.listdir())
    assert calc.add(2, 3) == (-1 if helped else 5)
"""


def test_o_a_listing_of_the_tree_tells_the_base_run(tmp_path: Path) -> None:
    change = {
        "calc.py": "from helpers import sub\n\n\ndef add(a, b):\n    return sub(a, b)\n",
        "helpers.py": "def sub(a, b):\n    return a - b\n",
        "tests/test_add.py": _LISTS,
    }
    code, evaluation = evaluated(
        tmp_path, _PY_BASE, change, check_fields={"must_fail_at_base": True}
    )
    caught(code, evaluation)
