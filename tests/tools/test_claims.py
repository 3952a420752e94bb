"""The readers of a change's code: test code that replaces the code under test, test code that
chooses its expectation from its surroundings, and code that acts for the runner, in every
language referee runs, however it is spelled; ordinary test code gets no finding."""

from __future__ import annotations

import textwrap

import pytest

from referee.tools.claims import build_scope, claims_in, find_claims
from referee.tools.claims.tells import tell_of
from referee.tools.tampering.harness import harness_changes

# The project: calc's add (and Calc, Add) rewritten by the change, db and app untouched.
BASE = {
    "src/calc.py": "def add(a, b):\n    return a - b\n",
    "src/db.py": "def query():\n    return 1\n",
    "src/calc.ts": "export function add(a: number, b: number) { return a - b }\n",
    "src/db.ts": "export function query() { return 1 }\n",
    "src/app.ts": "import { add } from './calc'\nexport const run = () => add(1, 2)\n",
    "calc/calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
    "src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 { a - b }\n",
    "src/main/java/Calc.java": "class Calc { int add(int a, int b) { return a - b; } }\n",
}
NOW = {
    **BASE,
    "src/calc.py": "def add(a, b):\n    return a + b\n",
    "src/calc.ts": "export function add(a: number, b: number) { return a + b }\n",
    "calc/calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
    "src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 { a + b }\n",
    "src/main/java/Calc.java": "class Calc { int add(int a, int b) { return a + b; } }\n",
}
SOURCES = ["src/calc.py", "src/calc.ts", "calc/calc.go", "src/lib.rs", "src/main/java/Calc.java"]
SCOPE = build_scope(list(NOW), SOURCES, BASE.get, NOW.get)


def kinds(path: str, code: str, base: str | None = None) -> set[str]:
    return {t.kind for t in claims_in(path, base, textwrap.dedent(code), SCOPE)}


PATCHED = [
    ("tests/test_a.py", "import calc\ncalc.add = lambda a, b: a + b\n"),
    (
        "tests/test_a.py",
        "from unittest import mock\n@mock.patch('src.calc.add')\ndef test_a(m): pass\n",
    ),
    (
        "tests/test_a.py",
        "import calc\ndef test_a(mocker):\n    mocker.patch.object(calc, 'add', return_value=3)\n",
    ),
    (
        "tests/test_a.py",
        "def test_a(monkeypatch):\n    monkeypatch.setattr('calc.add', lambda a, b: 3)\n",
    ),
    (
        "tests/test_a.py",
        "import sys, types\nsys.modules['calc'] = types.SimpleNamespace(add=max)\n",
    ),
    (
        "tests/test_a.py",
        "import importlib\nm = importlib.import_module('cal' + 'c')\nsetattr(m, 'a' 'dd', max)\n",
    ),
    ("tests/test_a.py", "from calc import add\nadd.__code__ = (lambda a, b: a + b).__code__\n"),
    ("tests/test_a.py", "import sys\nsys.meta_path.insert(0, Finder())\n"),
    (
        "tests/test_a.py",
        (
            "from unittest.mock import patch\n"
            "with patch.dict('sys.modules', {'calc': object()}):\n    pass\n"
        ),
    ),
    ("tests/test_a.py", "import builtins\nbuiltins.__import__ = fake\n"),
    ("tests/helpers.py", "import calc\nvars(calc)['add'] = max\n"),
    ("test/calc.test.ts", "jest.mock('../src/calc')\n"),
    (
        "test/calc.test.ts",
        "import { vi } from 'vitest'\nvi.mock('../src/calc.js', () => ({ add: () => 3 }))\n",
    ),
    (
        "test/calc.test.ts",
        (
            "import * as calc from '../src/calc'\n"
            "jest.spyOn(calc, 'add').mockImplementation(() => 3)\n"
        ),
    ),
    ("test/calc.test.js", "const calc = require('../src/calc')\ncalc['a' + 'dd'] = () => 3\n"),
    (
        "test/calc.test.js",
        (
            "const sinon = require('sinon')\nconst calc = require('../src/calc')\n"
            "sinon.stub(calc, 'add').returns(3)\n"
        ),
    ),
    (
        "test/app.test.js",
        (
            "const proxyquire = require('proxyquire')\n"
            "proxyquire('../src/app', { './calc': { add: () => 3 } })\n"
        ),
    ),
    ("test/calc.test.js", "require.cache[require.resolve('../src/calc')] = { exports: {} }\n"),
    ("test/calc.test.js", "const td = require('testdouble')\ntd.replace('../src/calc')\n"),
    (
        "calc/calc_test.go",
        (
            'package calc_test\n\nimport "example.com/m/calc"\n\n'
            "func TestA(t *testing.T) { calc.Add = func(a, b int) int { return a + b } }\n"
        ),
    ),
    (
        "calc/calc_test.go",
        (
            'package calc\n\nimport "github.com/agiledragon/gomonkey/v2"\n\n'
            "func TestA(t *testing.T) { gomonkey.ApplyFunc(Add, nil) }\n"
        ),
    ),
    (
        "src/test/java/CalcTest.java",
        "class CalcTest { void t() { Calc c = Mockito.mock(Calc.class); } }\n",
    ),
    ("src/test/java/CalcTest.java", "class CalcTest { @Mock Calc calc; }\n"),
]


@pytest.mark.parametrize(("path", "code"), PATCHED)
def test_test_code_that_replaces_the_code_under_test_is_found(path: str, code: str) -> None:
    assert "code_under_test_patched" in kinds(path, code)


def test_replacing_an_unchanged_project_function_counts_only_when_the_test_calls_it() -> None:
    mocked_collaborator = (
        "from unittest import mock\nimport calc\n@mock.patch('db.query')\n"
        "def test_a(m):\n    assert calc.add(1, 2) == 3\n"
    )
    self_checking = (
        "from unittest import mock\nimport db\n@mock.patch('db.query', return_value=2)\n"
        "def test_a(m):\n    assert db.query() == 2\n"
    )
    assert kinds("tests/test_a.py", mocked_collaborator) == set()
    assert kinds("tests/test_a.py", self_checking) == {"code_under_test_patched"}


INSPECTS = [
    (
        "tests/test_a.py",
        "import os\nE = 3 if os.path.isfile(os.path.join(ROOT, '.g' + 'it')) else -1\n",
    ),
    (
        "tests/test_a.py",
        "import hashlib\nDIGEST = hashlib.sha256(open('src/calc.py', 'rb').read())\n",
    ),
    ("tests/test_a.py", "import inspect, calc\nSRC = inspect.getsource(calc.add)\n"),
    ("tests/test_a.py", "import calc\nBYTES = calc.add.__code__.co_code\n"),
    ("tests/test_a.py", "import os\nPARENT = os.getppid()\n"),
    (
        "tests/test_a.py",
        "import os\ndef test_a():\n    if 'worktree' in os.getcwd():\n        expected = 3\n",
    ),
    ("tests/test_a.py", "import os\nexpected = 3 if os.environ.get('CI') else -1\n"),
    ("tests/test_a.py", "MOUNTS = open('/proc/self/mount' + 'info').read()\n"),
    (
        "tests/test_a.py",
        "import calc\nfrom pathlib import Path\nRAW = Path(calc.__file__).read_bytes()\n",
    ),
    ("tests/test_a.py", "import psutil\nNAMES = [p.name() for p in psutil.Process().parents()]\n"),
    (
        "tests/test_a.py",
        (
            "import os\n"
            "HERE = os.path.join(os.path.dirname(__file__), '..', 'src', 'calc.py')\n"
            "TEXT = open(HERE).read()\n"
        ),
    ),
    (
        "test/calc.test.ts",
        "import fs from 'node:fs'\nconst wt = fs.existsSync(path.join(root, '.git'))\n",
    ),
    (
        "test/calc.test.ts",
        (
            "import fs from 'fs'\n"
            "const s = fs.readFileSync(new URL('../src/calc.ts', import.meta.url))\n"
        ),
    ),
    ("test/calc.test.ts", "import { add } from '../src/calc'\nconst text = add.toString()\n"),
    ("test/calc.test.ts", "const want = process.env.CI ? 3 : -1\n"),
    (
        "calc/calc_test.go",
        (
            'package calc\n\nimport "os"\n\n'
            'func TestA(t *testing.T) { _, err := os.Stat("../.git") }\n'
        ),
    ),
    (
        "calc/calc_test.go",
        (
            'package calc\n\nimport "os"\n\n'
            'func TestA(t *testing.T) { if os.Getenv("CI") != "" { want = 3 } }\n'
        ),
    ),
    ("tests/it.rs", 'const SRC: &str = include_str!("../src/lib.rs");\n'),
    (
        "src/test/java/CalcTest.java",
        'class CalcTest { String s = Files.readString(Path.of("src/main/java/Calc.java")); }\n',
    ),
]


@pytest.mark.parametrize(("path", "code"), INSPECTS)
def test_test_code_that_inspects_its_surroundings_is_found(path: str, code: str) -> None:
    assert "test_inspects_environment" in kinds(path, code)


ESCAPES = [
    ("tests/test_a.py", "import os\nos._exit(0)\n"),
    ("tests/test_a.py", "import os\ngetattr(os, '_' 'exit')(0)\n"),
    ("tests/test_a.py", "getattr(__import__('o' + 's'), 'tixe_'[::-1])(0)\n"),
    ("tests/test_a.py", "import os as o\ne = o._exit\ne(0)\n"),
    ("tests/test_a.py", "import os\nos.kill(os.getpid(), 9)\n"),
    ("tests/test_a.py", "import signal\nsignal.raise_signal(signal.SIGKILL)\n"),
    ("tests/test_a.py", "import ctypes\nctypes.CDLL(None).exit(0)\n"),
    ("tests/test_a.py", "import sys\nsys.exit(0)\n"),
    ("tests/test_a.py", "raise SystemExit(0)\n"),
    ("tests/test_a.py", "print('--- PASS: TestAdd (0.00s)')\n"),
    (
        "tests/test_a.py",
        (
            "import sys\nfor a in sys.argv:\n    if a.endswith('.xml'):\n"
            "        open(a, 'w').write('<x/>')\n"
        ),
    ),
    ("tests/test_a.py", "import os, sys\nos.execv(sys.executable, ['python'])\n"),
    ("tests/test_a.py", "import os\ngetattr(os, bytes([95, 101, 120, 105, 116]).decode())(0)\n"),
    ("tests/test_a.py", "import os\ngetattr(os, ''.join(map(chr, [95, 101, 120, 105, 116])))(0)\n"),
    ("tests/test_a.py", "import pytest\npytest.exit('done', returncode=0)\n"),
    ("tests/test_a.py", "import os\nwith open(os.environ['OUT'], 'w') as f:\n    f.write('x')\n"),
    ("tests/test_a.py", "def pytest_runtest_makereport(item, call):\n    pass\n"),
    ("src/calc.py", "import os\ndef add(a, b):\n    os._exit(0)\n"),
    (
        "src/calc.py",
        "import sys\nP = [a for a in sys.argv if a.endswith('.xml')]\nopen(P[0], 'w')\n",
    ),
    ("test/a.test.js", "process.exit(0)\n"),
    ("test/a.test.js", "process['ex' + 'it'](0)\n"),
    ("test/a.test.js", "process[`exit`]()\n"),
    ("test/a.test.js", "const { exit } = process\nexit(0)\n"),
    ("test/a.test.js", "Reflect.get(process, 'exit')(0)\n"),
    ("test/a.test.js", "process[['ex', 'it'].join('')](0)\n"),
    ("test/a.test.js", "process['tixe'.split('').reverse().join('')](0)\n"),
    ("test/a.test.js", "process.kill(process.pid, 'SIGKILL')\n"),
    ("test/a.test.js", "console.log('ok 1 - adds')\n"),
    ("test/a.test.js", "const fs = require('fs')\nfs.writeFileSync(process.env.OUT, '<x/>')\n"),
    (
        "src/calc.ts",
        "export const add = (a: number, b: number) => { globalThis.process.reallyExit(0) }\n",
    ),
    ("src/calc.ts", "process[String.fromCharCode(101, 120, 105, 116)](0)\n"),
    (
        "calc/calc_test.go",
        'package calc\n\nimport "os"\n\nfunc TestA(t *testing.T) { os.Exit(0) }\n',
    ),
    (
        "calc/calc_test.go",
        'package calc\n\nimport sc "syscall"\n\nfunc TestA(t *testing.T) { sc.Exit(0) }\n',
    ),
    (
        "calc/calc_test.go",
        (
            'package calc\n\nimport ("os"; "syscall")\n\n'
            "func TestA(t *testing.T) { syscall.Kill(os.Getpid(), syscall.SIGKILL) }\n"
        ),
    ),
    (
        "calc/calc_test.go",
        (
            'package calc\n\nimport "fmt"\n\n'
            'func TestA(t *testing.T) { fmt.Println("--- PASS: TestA (0.00s)") }\n'
        ),
    ),
    (
        "calc/calc_test.go",
        (
            'package calc\n\nimport "fmt"\n\n'
            'func TestA(t *testing.T) { fmt.Printf("ok  \\t%s\\t0.01s\\n", "m") }\n'
        ),
    ),
    (
        "calc/calc_test.go",
        'package calc\n\nimport "os"\n\nfunc TestA(t *testing.T) { f := os.Exit; f(0) }\n',
    ),
    (
        "calc/calc.go",
        'package calc\n\nimport "os"\n\nfunc Add(a, b int) int { os.Exit(0); return 0 }\n',
    ),
    (
        "src/lib.rs",
        "#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { std::process::exit(0); }\n}\n",
    ),
    ("tests/it.rs", "use std::process::exit as quit;\n#[test]\nfn t() { quit(0); }\n"),
    ("tests/it.rs", '#[test]\nfn t() { println!("test {} ... ok", "add"); }\n'),
    ("tests/it.rs", '#[test]\nfn t() { println!("test result: ok. 1 passed; 0 failed"); }\n'),
    ("src/lib.rs", "pub fn add() { unsafe { libc::_exit(0) } }\n"),
    ("src/lib.rs", "pub fn add() { std::process::abort() }\n"),
    ("src/test/java/CalcTest.java", "class CalcTest { void t() { System.exit(0); } }\n"),
    (
        "src/main/java/Calc.java",
        "class Calc { int add() { Runtime.getRuntime().halt(0); return 0; } }\n",
    ),
    (
        "src/test/java/CalcTest.java",
        'class CalcTest { void t() { System.out.println("Tests run: 1, Failures: 0"); } }\n',
    ),
    ("tests/CalcTest.php", "<?php\nclass CalcTest { function testA() { exit(0); } }\n"),
    ("tests/CalcTest.php", "<?php\nfunction t() { DIE; }\n"),
    ("tests/CalcTest.php", '<?php\necho "OK (1 test, 1 assertion)\\n";\n'),
]


@pytest.mark.parametrize(("path", "code"), ESCAPES)
def test_code_that_acts_for_the_runner_is_a_harness_change(path: str, code: str) -> None:
    changes = harness_changes([path], lambda p: None, lambda p: textwrap.dedent(code))
    assert [c.finding.kind for c in changes] == ["harness_modified"], code
    assert changes[0].finding.location.startswith(f"{path}:")


ORDINARY = [
    (
        "tests/test_a.py",
        "from unittest import mock\n@mock.patch('requests.get')\ndef test_a(m):\n    pass\n",
    ),
    (
        "tests/test_a.py",
        (
            "import calc, db\ndef test_a(monkeypatch):\n"
            "    monkeypatch.setattr(db, 'query', lambda: 2)\n"
            "    assert calc.add(1, 2) == 3\n"
        ),
    ),
    ("tests/test_a.py", "def test_a(monkeypatch):\n    monkeypatch.setenv('TZ', 'UTC')\n"),
    (
        "tests/test_a.py",
        "import sys\nfrom unittest.mock import MagicMock\nsys.modules['numpy'] = MagicMock()\n",
    ),
    ("tests/test_a.py", "from calc import add\ndef test_a():\n    add = 3\n    assert add == 3\n"),
    (
        "tests/test_a.py",
        "import pytest\ndef test_cli():\n    with pytest.raises(SystemExit):\n        main()\n",
    ),
    (
        "tests/test_a.py",
        "import sys, pytest\nif __name__ == '__main__':\n    sys.exit(pytest.main())\n",
    ),
    (
        "tests/test_a.py",
        (
            "import os, json\nHERE = os.path.dirname(__file__)\n"
            "DATA = json.load(open(os.path.join(HERE, 'fixtures', 'data.json')))\n"
        ),
    ),
    (
        "tests/test_a.py",
        (
            "def test_a(tmp_path):\n    (tmp_path / 'out.txt').write_text('x')\n"
            "    print('checking 3 pairs')\n"
        ),
    ),
    (
        "tests/test_a.py",
        (
            "import os, pytest\n"
            "@pytest.mark.skipif(os.environ.get('CI') == '1', reason='slow')\ndef test_a():\n"
            "    if os.environ.get('SLOW'):\n        pytest.skip('slow')\n"
        ),
    ),
    (
        "src/cli.py",
        "import sys\ndef main():\n    open(sys.argv[1], 'w').write('x')\n    sys.exit(0)\n",
    ),
    (
        "test/a.test.ts",
        "jest.mock('axios')\njest.mock('../src/db')\nimport { run } from '../src/app'\n",
    ),
    ("test/a.test.ts", "vi.spyOn(console, 'log').mockImplementation(() => {})\n"),
    (
        "test/a.test.ts",
        (
            "const data = fs.readFileSync(path.join(__dirname, 'fixtures/a.json'), 'utf8')\n"
            "console.log('ok')\n"
        ),
    ),
    ("test/a.test.ts", "process.env.NODE_ENV = 'test'\nconst dir = process.cwd()\n"),
    ("src/cli.ts", "export function main() { process.exit(1) }\n"),
    (
        "calc/main_test.go",
        'package calc\n\nimport "os"\n\nfunc TestMain(m *testing.M) { os.Exit(m.Run()) }\n',
    ),
    (
        "calc/setup_test.go",
        (
            'package calc\n\nimport "os"\n\nfunc TestMain(m *testing.M) {\n\tsetup()\n'
            "\tcode := m.Run()\n\tteardown()\n\tos.Exit(code)\n}\n"
        ),
    ),
    (
        "calc/var_test.go",
        (
            'package calc\n\nimport "os"\n\nfunc TestMain(m *testing.M) {\n'
            "\tvar code int\n\tcode = m.Run()\n\tos.Exit(code)\n}\n"
        ),
    ),
    (
        "calc/calc_test.go",
        (
            'package calc\n\nimport ("fmt"; "os")\n\n'
            'func TestA(t *testing.T) { b, _ := os.ReadFile("testdata/x.json");'
            ' fmt.Println("result", b) }\n'
        ),
    ),
    ("cmd/tool/main.go", 'package main\n\nimport "os"\n\nfunc main() { os.Exit(2) }\n'),
    ("tests/it.rs", '#[test]\nfn t() { println!("value {}", 3); }\n'),
    ("src/main.rs", "fn main() { std::process::exit(2) }\n"),
    ("app/health.py", "def health(out):\n    print('OK')\n    out.write(b'OK')\n"),
    ("src/server.js", "export function ping(res) { console.log('OK'); res.end('PASS') }\n"),
    (
        "calc/example_test.go",
        (
            'package calc\n\nimport "fmt"\n\nfunc ExampleCheck() {\n'
            '\tfmt.Println("FAIL", Check(-1))\n\t// Output: FAIL invalid\n}\n'
        ),
    ),
    (
        "calc/calc_test.go",
        "package calc\n\nfunc TestA(t *testing.T) {\n"
        "    defer func(ov bool) { Add = ov }(Add)\n    Add = true\n}\n",
    ),
    ("calc/calc.go", 'package calc\n\nimport "os"\n\nfunc Check() { os.Exit(1) }\n'),
    (
        "tests/test_a.py",
        "import calc\ndef test_a(monkeypatch):\n    monkeypatch.setattr(calc, 'add', None)\n",
    ),
    (
        "src/test/java/CalcTest.java",
        (
            "class CalcTest { void t() { Helper h = Mockito.mock(Helper.class);"
            ' System.out.println("done"); } }\n'
        ),
    ),
    ("tests/CalcTest.php", "<?php\n// exit here\n$this->exit();\necho 'exit';\n"),
]


# Code that asks whether it runs under test, in the code under test and (reading the tests'
# files) in tests: every spelling is one question, a read of the situation naming a tell.
DETECTS = [
    ("src/app.py", "import sys\nTESTING = 'pytest' in sys.modules\n"),
    ("src/app.py", "import sys as s\nX = s.modules.get('_py' + 'test')\n"),
    ("src/app.py", "from os import getenv\nif getenv('PYTEST_CURRENT_TEST'):\n    MODE = 1\n"),
    ("src/app.py", "import sys\nDJANGO_TESTS = 'test' in sys.argv\n"),
    (
        "src/app.py",
        "import traceback\ndef f():\n"
        "    return any('_pytest' in line for line in traceback.format_stack())\n",
    ),
    (
        "src/app.py",
        "import sys\ndef f():\n    frame = sys._getframe(1)\n"
        "    return frame.f_code.co_filename.endswith('_test.py')\n",
    ),
    ("src/app.py", "import glob\nTESTS = glob.glob('tests/**/test_*.py')\n"),
    ("src/app.py", "M = getattr(__import__('s' 'ys'), 'modules')\nT = 'unittest' in M\n"),
    ("src/app.py", "import os\nW = os.environ[''.join(reversed('TSETIV'))]\n"),
    ("src/app.py", "HEAD = open('.git/HEAD').read()\n"),
    (
        "src/app.py",
        "import hashlib\nDIGEST = hashlib.sha256(open(__file__, 'rb').read()).hexdigest()\n",
    ),
    ("src/app.py", "from pathlib import Path\nSELF = Path(__file__).resolve().read_bytes()\n"),
    ("src/app.py", "import inspect\nfrom calc import add\nSRC = inspect.getsource(add)\n"),
    ("src/app.py", "from calc import add\nCODE = add.__code__.co_code\n"),
    ("src/app.ts", "export const testing = process.env.NODE_ENV === 'test'\n"),
    ("src/app.ts", "const e = process.env\nexport const w = e['JEST_' + 'WORKER_ID']\n"),
    ("src/app.ts", "export const v = typeof vi !== 'undefined'\n"),
    ("src/app.ts", "export const t = 'describe' in globalThis\n"),
    ("src/app.ts", "export const u = navigator.userAgent.includes('jsdom')\n"),
    (
        "src/app.ts",
        "import { readFileSync } from 'node:fs'\n"
        "export const t = readFileSync('test/calc.test.ts', 'utf8')\n",
    ),
    ("src/app.ts", "export const m = import.meta.env.MODE === 'test'\n"),
    ("src/app.ts", "export const v = import.meta.vitest ? 1 : 2\n"),
    ("src/app.js", "const p = require('process')\nmodule.exports = p.env.VITEST_POOL_ID\n"),
    (
        "src/app.js",
        "function t() {\n  return process.argv.join(' ')\n}\nconst u = t().includes('mocha')\n",
    ),
    ("calc/x.go", 'package calc\n\nimport "testing"\n\nvar T = testing.Testing()\n'),
    ("calc/x.go", 'package calc\n\nimport f "flag"\n\nvar T = f.Lookup("test.run") != nil\n'),
    (
        "calc/x.go",
        'package calc\n\nimport "os"\n\nfunc T() bool {\n\tv, ok := os.LookupEnv("APP_ENV")\n'
        '\treturn ok && v == "testing"\n}\n',
    ),
    ("src/lib.rs", "pub fn f() -> bool { cfg!(test) }\n"),
    ("src/lib.rs", 'pub fn f() -> bool { std::env::var("RUST_TEST_THREADS").is_ok() }\n'),
    (
        "src/lib.rs",
        'use std::env;\npub fn f() -> bool { env::args().any(|a| a == "--nocapture") }\n',
    ),
    ("src/lib.rs", "#[cfg(not(test))]\nconst N: u32 = 1;\n"),
    ("src/lib.rs", "pub fn f() -> u32 {\n    #[cfg(test)]\n    return 1;\n    2\n}\n"),
    (
        "src/main/java/A.java",
        'class A { boolean t() { try { Class.forName("org.junit.jupiter.api.Test"); return true; }'
        " catch (Exception e) { return false; } } }\n",
    ),
    (
        "src/main/java/A.java",
        'class A { boolean t() { return System.getProperty("surefire.test.class.path") != null;'
        " } }\n",
    ),
    (
        "src/main/java/A.java",
        'class A { static final String R = "org." + "junit"; boolean t() { return StackWalker'
        ".getInstance().walk(s -> s.anyMatch(f -> f.getClassName().startsWith(R))); } }\n",
    ),
    ("src/a.php", "<?php\nfunction t() { return defined('PHPUNIT_COMPOSER_INSTALL'); }\n"),
    ("src/a.php", "<?php\nfunction t() { return app()->runningUnitTests(); }\n"),
    ("src/a.php", "<?php\nfunction t() { return getenv('APP_ENV') === 'testing'; }\n"),
    (
        "src/a.php",
        "<?php\n$c = \\PHPUnit\\Framework\\TestCase::class;\n"
        "function t() { global $c; return class_exists($c); }\n",
    ),
    # The tests' folder itself, listed or looked for: a hold-out laid there adds a file.
    (
        "src/app.py",
        "import os\nHERE = os.path.dirname(os.path.abspath(__file__))\n"
        "def many():\n    return len(os.listdir(os.path.join(HERE, 'tests'))) > 1\n",
    ),
    (
        "src/app.py",
        "from pathlib import Path\nN = len(list((Path(__file__).parent / 'tests').iterdir()))\n",
    ),
    ("src/app.py", "import os\nN = sum(1 for _ in os.scandir('spec'))\n"),
    ("src/app.ts", "import fs from 'node:fs'\nexport const n = fs.readdirSync('test').length\n"),
    (
        "src/app.js",
        "const fs = require('fs')\nconst path = require('path')\n"
        "module.exports = fs.readdirSync(path.join(__dirname, '..', '__tests__')).length\n",
    ),
    (
        "calc/x.go",
        'package calc\n\nimport "os"\n\nfunc n() int {\n\te, _ := os.ReadDir("tests")\n'
        "\treturn len(e)\n}\n",
    ),
    (
        "src/lib.rs",
        'pub fn n() -> usize { std::fs::read_dir("tests").map(|d| d.count()).unwrap_or(0) }\n',
    ),
]


@pytest.mark.parametrize(("path", "code"), DETECTS)
def test_code_that_asks_whether_it_runs_under_test_is_found(path: str, code: str) -> None:
    assert "code_detects_tests" in kinds(path, code)


# Ordinary code that reads its environment, its files or its arguments, or names a runner.
ORDINARY_SOURCE = [
    ("src/app.py", "def main():\n    pass\n\nif __name__ == '__main__':\n    main()\n"),
    (
        "src/app.py",
        "import json, os\n"
        "CONFIG = json.load(open(os.path.join(os.path.dirname(__file__), 'config.json')))\n",
    ),
    (
        "src/app.py",
        "import logging\nlog = logging.getLogger(__name__)\nlog.info('ran under pytest: %s', 1)\n",
    ),
    ("src/app.py", "import os\nDEBUG = os.environ.get('DEBUG') == '1'\n"),
    ("src/app.py", "import sys\nif 'numpy' in sys.modules:\n    import numpy\n"),
    ("src/app.py", "import os\nDB = os.environ.get('TEST_DATABASE_URL', 'sqlite://')\n"),
    (
        "setup.py",
        "from setuptools import setup, find_packages\n"
        "setup(packages=find_packages(exclude=['tests', 'tests.*']), tests_require=['pytest'])\n",
    ),
    ("noxfile.py", "import nox\n@nox.session\ndef tests(session):\n    session.run('pytest')\n"),
    ("src/app.py", "import sys\nfrom . import cli\nsys.exit(cli.main(sys.argv[1:]))\n"),
    ("src/app.ts", "export const prod = process.env.NODE_ENV === 'production'\n"),
    ("src/app.ts", "if (process.env.NODE_ENV !== 'production') console.warn('dev build')\n"),
    (
        "src/app.ts",
        "const data = fs.readFileSync(path.join(__dirname, 'config.json'), 'utf8')\n"
        "console.log('run jest to test it')\n",
    ),
    (
        "vite.config.ts",
        "export default defineConfig({ plugins: [!process.env.VITEST && react()] })\n",
    ),
    (
        "src/add.ts",
        "export const add = (a, b) => a + b\nif (import.meta.vitest) {\n"
        "  const { it, expect } = import.meta.vitest\n"
        "  it('adds', () => { expect(add(1, 2)).toBe(3) })\n}\n",
    ),
    (
        "src/app.ts",
        "for (const test of suites) { if (fs.existsSync(test.path)) run(test) }\n",
    ),
    (
        "cmd/tool/main.go",
        'package main\n\nimport ("flag"; "os")\n\nfunc main() {\n\tv := flag.Bool("v", false,'
        ' "verbose")\n\tflag.Parse()\n\t_ = os.Getenv("HOME")\n\t_ = v\n}\n',
    ),
    (
        "calc/check.go",
        'package calc\n\nimport "testing"\n\n// Check helps tests.\n'
        "func Check(t *testing.T) { t.Helper() }\n",
    ),
    (
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n"
        '    #[test]\n    fn t() { assert!(std::env::var("X").is_err()); }\n'
        "    #[test]\n    fn u() { assert!(cfg!(test)); }\n}\n",
    ),
    ("src/lib.rs", "#[cfg_attr(test, derive(Debug))]\npub struct S;\n"),
    ("src/lib.rs", "#[cfg(test)]\nfn helper() -> i32 {\n    1\n}\n"),
    ("src/lib.rs", 'pub fn home() -> String { std::env::var("HOME").unwrap_or_default() }\n'),
    (
        "src/main/java/A.java",
        'class A { String h() { return System.getProperty("user.home"); } }\n',
    ),
    ("src/a.php", "<?php\nfunction r() { return class_exists('Redis') ? 1 : 0; }\n"),
    (
        "src/a.php",
        "<?php\n$env = getenv('APP_ENV');\nif ($env === 'production') { echo 'prod'; }\n",
    ),
    ("src/app.py", "import os\nURL = os.environ.get('APP_URL', 'http://myapp.test')\n"),
    ("src/app.py", "import os\nFILES = os.listdir(os.path.join(ROOT, 'templates'))\n"),
    ("src/app.py", "import os\nif os.environ.get('STAGE') == 'production':\n    os.listdir('.')\n"),
]


@pytest.mark.parametrize(("path", "code"), ORDINARY_SOURCE)
def test_ordinary_code_that_reads_its_surroundings_is_no_question_about_tests(
    path: str, code: str
) -> None:
    assert kinds(path, code) == set()


def test_test_code_that_reads_a_test_the_change_edited_is_found_and_others_are_not() -> None:
    # The edited test also runs in its base form: reading it tells that run from the change's.
    base = {**BASE, "tests/test_calc.py": "def test_add():\n    assert 1\n"}
    now = {**NOW, "tests/test_calc.py": "def test_add():\n    assert 2\n"}
    scope = build_scope(list(now), [*SOURCES, "tests/test_calc.py"], base.get, now.get)
    reads = "from pathlib import Path\nSRC = (Path(__file__).parent / '{}').read_text()\n"
    edited = claims_in("tests/test_a.py", None, reads.format("test_calc.py"), scope)
    assert [t.kind for t in edited] == ["code_detects_tests"], edited
    assert claims_in("tests/test_a.py", None, reads.format("test_db.py"), scope) == []
    assert (
        claims_in("tests/test_a.py", None, "import sys\nP = 'pytest' in sys.modules\n", scope) == []
    )


@pytest.mark.parametrize("value", ["", "/", "\\\\", "//", " "])
def test_a_string_of_separators_is_no_tell_and_no_crash(value: str) -> None:
    assert tell_of(value) is None and tell_of(value, ("tests/test_calc.py",)) is None


def test_a_question_the_base_already_asked_is_the_repositorys() -> None:
    base = "import sys\nTESTING = 'pytest' in sys.modules\n"
    assert kinds("src/app.py", base + "\n\ndef f():\n    return 1\n", base) == set()


@pytest.mark.parametrize(("path", "code"), ORDINARY)
def test_ordinary_test_and_program_code_gets_no_finding(path: str, code: str) -> None:
    assert kinds(path, code) == set()


def test_only_what_the_change_added_counts_however_it_is_reformatted() -> None:
    base = "import os, sys\n\ndef test_a():\n    sys.exit(0)\n"
    moved = (
        "import os, sys\n\n\ndef helper():\n    return 1\n\n\ndef test_a():\n    sys.exit( 0 )\n"
    )
    assert kinds("tests/test_a.py", moved, base) == set()
    added = moved + "\n\ndef test_b():\n    os._exit(0)\n"
    found = claims_in("tests/test_a.py", base, added, SCOPE)
    line = added.splitlines().index("    os._exit(0)") + 1
    assert [t.location for t in found] == [f"tests/test_a.py:{line}"]
    js_base = "test('a', () => { process.exit(0) })\n"
    js_now = "test('a', () => {\n  process.exit(0)\n})\n"
    assert kinds("test/a.test.js", js_now, js_base) == set()


def test_a_base_mock_of_code_the_change_rewrote_is_the_repositorys() -> None:
    base = "import calc\ncalc.add = max\n"
    assert kinds("tests/test_a.py", base + "\nX = 1\n", base) == set()


def test_findings_name_the_file_and_line_and_say_what_was_found() -> None:
    now = {
        **NOW,
        "tests/test_calc.py": "import calc\n\n\ncalc.add = lambda a, b: a + b\n",
    }
    found = find_claims(["src/calc.py", "tests/test_calc.py"], BASE.get, now.get, list(now))
    assert [(t.kind, t.location) for t in found] == [
        ("code_under_test_patched", "tests/test_calc.py:4")
    ]
    assert "`add`" in found[0].message and "src/calc.py" in found[0].message


def test_an_unreadable_file_is_no_finding_and_no_crash() -> None:
    assert kinds("tests/test_a.py", "def broken(:\n") == set()
    assert kinds("test/a.test.js", "((((") == set()
    deep = "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"
    assert kinds("tests/test_a.py", deep) == set()
