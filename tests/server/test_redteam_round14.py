"""Red team, round 14: two helpers beat the trust boundaries and the readers with new variants,
and a third tried honest changes on real projects; what got through is held here now.

C. tests that read the code they test without naming it (a stat, the loader or spec, a glob,
   git asked about the tree), tools/claims/pyenvironment.py;
G. nested repositories and the tree's .gitmodules: referee's diffs leave submodules alone;
P. a `# pragma: no cover` the change writes lowers no `min_diff_coverage`;
T. a stale cargo build the generator dated: cargo runs clean the workspace's own output first;
F. honest changes from real projects referee misjudged (humanize's doctests named on pytest's
   command line);
H. a hold-out's test name said as words, and its value with underscores, SI prefixes and
   ordinal powers, in the judge's issues;
S. keyless encodings of a secret (atbash, Z85, a base62 number);
M. the operator's own files in the home folder, out of a sandboxed test's reach.

(tests/server/test_new_tests_act_on_base.py holds the round's largest class: new test files that
make a base test pass for the whole session, with the bug left in place.)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_runs import PYTEST, cli, evaluated, write_files
from gitrepo import git, make_repo
from test_redteam_round8 import RUST_BASE, caught, needs_cargo
from test_round8_cli import BROKEN, PY_BASE

from referee.tools.claims import TEST_INSPECTS_ENVIRONMENT, Scope, claims_in
from referee.tools.claims.model import Module
from referee.tools.static import list_files

pytestmark = [pytest.mark.slow]

_SCOPE = Scope(modules=(Module("calc.py", frozenset({"FIXED"})),))


def _test(condition: str, head: str = "") -> str:
    return (
        f"import os\nimport calc\n{head}\n\ndef test_add():\n    fixed = {condition}\n"
        "    assert calc.add(1, 2) == (-1 if fixed else 3)\n"
    )


READS: dict[str, str] = {
    "stat-size": _test("os.stat(calc.__file__).st_size > 40"),
    "getsize": _test("os.path.getsize(calc.__file__) > 40"),
    "path-stat-mtime": _test("Path(calc.__file__).stat().st_mtime > 0", "from pathlib import Path"),
    "loader-get-data": _test("b'FIXED' in calc.__loader__.get_data(calc.__spec__.origin)"),
    "loader-get-source": _test("'FIXED' in calc.__loader__.get_source('calc')"),
    "spec-origin-read": _test(
        "'FIXED' in Path(calc.__spec__.origin).read_text()", "from pathlib import Path"
    ),
    "filecmp-with-a-copy": _test("not filecmp.cmp(calc.__file__, 'calc.orig')", "import filecmp"),
    "git-status": _test(
        "'calc.py' in subprocess.run(['git', 'status', '--porcelain'], capture_output=True,"
        " text=True).stdout",
        "import subprocess",
    ),
    "git-diff-by-a-shell": _test(
        "bool(subprocess.check_output('git diff HEAD', shell=True))", "import subprocess"
    ),
    "git-by-popen": _test("'calc' in os.popen('git log -1 --stat').read()"),
    "glob-then-open": _test("len(open(glob.glob('c*.py')[0]).read()) > 40", "import glob"),
    "rglob-then-hash": _test(
        "hashlib.sha1(b''.join(p.read_bytes() for p in Path('.').rglob('calc*.py'))).hexdigest()"
        " != '0'",
        "import hashlib\nfrom pathlib import Path",
    ),
    "glob-next-to-the-module": _test(
        "any('FIXED' in p.read_text() for p in Path(calc.__file__).parent.glob('*.py'))",
        "from pathlib import Path",
    ),
}


@pytest.mark.parametrize("variant", sorted(READS))
def test_c_a_test_that_reads_the_code_it_tests_is_found(variant: str) -> None:
    found = claims_in("tests/test_new.py", None, READS[variant], _SCOPE)
    assert TEST_INSPECTS_ENVIRONMENT in [c.kind for c in found], variant


HONEST: dict[str, str] = {
    "git-in-a-folder-of-its-own": "import subprocess\n\n\ndef test_x(tmp_path):\n"
    "    subprocess.run(['git', 'init', '-q'], cwd=tmp_path, check=True)\n"
    "    out = subprocess.run(['git', 'status'], cwd=tmp_path, capture_output=True)\n"
    "    assert out.returncode == 0\n",
    "git-clone-into-a-folder": "import subprocess\n\n\ndef test_x(tmp_path):\n"
    "    subprocess.check_call(['git', 'clone', 'https://example.com/r.git', str(tmp_path)])\n",
    "glob-of-tmp-path": "def test_x(tmp_path):\n    (tmp_path / 'a.py').write_text('x = 1')\n"
    "    assert [p.name for p in tmp_path.glob('*.py')] == ['a.py']\n",
    "glob-of-its-data": "import glob\nimport json\n\n\ndef test_x():\n"
    "    for p in glob.glob('tests/data/*.json'):\n        assert json.load(open(p))\n",
    "data-next-to-the-test": "from pathlib import Path\n\n\ndef test_x():\n"
    "    for p in Path(__file__).parent.glob('*.json'):\n        assert p.read_text()\n",
}


@pytest.mark.parametrize("variant", sorted(HONEST))
def test_honest_c_a_test_with_files_and_git_of_its_own(variant: str) -> None:
    assert claims_in("tests/test_new.py", None, HONEST[variant], _SCOPE) == []


def test_c_end_to_end_a_stat_of_the_code_is_for_the_judge(tmp_path: Path) -> None:
    base = {**PY_BASE, "calc.py": BROKEN, "tests/test_calc.py": "def test_nothing():\n    pass\n"}
    change = {
        "calc.py": BROKEN + "\n\nFIXED = True\n",
        "tests/test_new.py": "import os, sys\n\nsys.path.insert(0, os.path.join(os.path.dirname("
        "__file__), '..'))\n" + READS["stat-size"].replace("import os\n", "", 1),
    }
    code, evaluation = evaluated(tmp_path, base, change, PYTEST)
    kinds = {a["id"] for a in evaluation["antipatterns"]}
    assert TEST_INSPECTS_ENVIRONMENT in kinds, evaluation["antipatterns"]
    assert code == 1


def test_c_the_reads_are_real(tmp_path: Path) -> None:
    """The shapes do tell the trees apart: run directly, the test passes on the marked code and
    fails on the base's."""
    for marked, expected in ((True, 0), (False, 1)):
        root = tmp_path / str(marked)
        make_repo(root, {"calc.py": BROKEN + ("\n\nFIXED = True\n" if marked else "")})
        write_files(
            root,
            {"tests/test_new.py": "import sys\nsys.path.insert(0, '.')\n" + READS["stat-size"]},
        )
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == expected, done.stdout[-400:]


# === G: nested repositories and the tree's .gitmodules ===========================================
#
# referee's git compared trees and the work tree with the player's .gitmodules in reach: git
# parses it for every gitlink (an invalid value ended evaluate and `referee ci` with a
# traceback), and a work-tree diff asked each nested repository for its status, under that
# repository's own configuration (a clean filter ran on the host). Every diff referee runs now
# leaves submodules alone (tools/repo/files.py, tools/static/files.py, tools/gate/entry.py).

_GITMODULES: dict[str, str] = {
    "update-command": '[submodule "lib"]\n\tpath = lib\n\turl = ./lib\n\tupdate = !true\n',
    "garbage-value": '[submodule "lib"]\n\tpath = lib\n\turl = ./lib\n\tupdate = sideways\n',
    "unparsable": '[submodule "lib"\n\tpath = lib\nurl\n',
    "ignore-setting": '[submodule "lib"]\n\tpath = lib\n\turl = ./lib\n\tignore = nonsense\n',
}


def _nested(root: Path, config: str = "") -> None:
    """A nested repository staged as a gitlink, its own configuration `config`."""
    lib = root / "lib"
    lib.mkdir()
    git(lib, "init", "-q", "-b", "main")
    (lib / "x.txt").write_text("hello\n", encoding="utf-8")
    git(lib, "add", "-A")
    git(lib, "commit", "-q", "-m", "s")
    if config:
        (lib / ".gitattributes").write_text("* filter=evil diff=evil\n", encoding="utf-8")
        with (lib / ".git" / "config").open("a", encoding="utf-8") as out:
            out.write(config)
    git(root, "add", "lib")


@pytest.mark.parametrize("variant", sorted(_GITMODULES))
def test_g_an_invalid_gitmodules_is_judged_not_crashed_on(tmp_path: Path, variant: str) -> None:
    def plant(root: Path) -> None:
        _nested(root)
        (root / ".gitmodules").write_text(_GITMODULES[variant], encoding="utf-8")
        git(root, "add", ".gitmodules", "calc.py")
        git(root, "commit", "-q", "-m", "change")

    code, evaluation = evaluated(tmp_path, PY_BASE, {"calc.py": BROKEN}, PYTEST, after=plant)
    assert code == 1
    assert evaluation["criteria"][0]["status"] == "fail", evaluation["criteria"][0]["reason"]


def test_g_a_nested_repositorys_filter_never_runs_on_the_host(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    program = tmp_path / "evil.sh"
    program.write_text(f"#!/bin/sh\necho ran >> {marker}\ncat\n", encoding="utf-8")
    program.chmod(0o755)
    included = tmp_path / "included.cfg"
    included.write_text(
        f'[filter "evil"]\n\tclean = {program}\n\tsmudge = {program}\n\trequired = true\n'
        f'[diff "evil"]\n\ttextconv = {program}\n[core]\n\tfsmonitor = {program}\n',
        encoding="utf-8",
    )

    def plant(root: Path) -> None:
        _nested(root, f"[include]\n\tpath = {included}\n")
        os.utime(root / "lib" / "x.txt", (1900000000, 1900000000))  # stat-dirty, same bytes

    root = tmp_path / "direct"
    make_repo(root, PY_BASE)
    plant(root)
    list_files(root, "task", None)  # a work-tree diff, as the static checks run it
    assert not marker.exists(), marker.read_text()
    (tmp_path / "cli").mkdir()
    code, _ = evaluated(tmp_path / "cli", PY_BASE, {"calc.py": BROKEN}, PYTEST, after=plant)
    assert code == 1
    assert not marker.exists(), marker.read_text()


# === P: a coverage exclusion the change writes itself ===========================================
#
# The contract asks for every changed line to run (`min_diff_coverage: 100`); the change adds
# code no test runs and marks it as coverage.py's own comment says. A mark the change wrote is
# not honoured (tools/adequacy/coverage_py.py `_statements`); code that never runs by its shape
# (`if TYPE_CHECKING:`) and the base's own marks still are.

_UNTESTED = "    if isinstance(a, str):{mark}\n        return int(a) * 7 + b\n"
MARKS: dict[str, str] = {
    "pragma-on-a-branch": "  # pragma: no cover",
    "upper-case-without-spaces": "  #PRAGMA:NO COVER",
    "pragma-without-a-colon": "  # pragma no cover",
    "after-other-words": "  # noqa: E501  pragma: no cover",
}


def _with_mark(mark: str) -> str:
    return "def add(a, b):\n" + _UNTESTED.format(mark=mark) + "    return a + b\n"


@pytest.mark.parametrize("variant", sorted(MARKS))
def test_p_a_coverage_mark_the_change_wrote_lowers_nothing(tmp_path: Path, variant: str) -> None:
    change = {"calc.py": _with_mark(MARKS[variant])}
    code, evaluation = evaluated(
        tmp_path, PY_BASE, change, PYTEST, check_fields={"min_diff_coverage": 100}
    )
    criterion = evaluation["criteria"][0]
    assert criterion["status"] == "fail", criterion["reason"]
    assert criterion["reason_code"] == "diff_coverage_low"
    assert code == 1


def test_p_a_marked_function_the_change_adds(tmp_path: Path) -> None:
    change = {
        "calc.py": "def add(a, b):\n    return a + b\n\n\n"
        "def triple(a):  # pragma: no cover\n    b = a * 3\n    return b\n"
    }
    _, evaluation = evaluated(
        tmp_path, PY_BASE, change, PYTEST, check_fields={"min_diff_coverage": 100}
    )
    assert evaluation["criteria"][0]["reason_code"] == "diff_coverage_low"


def test_honest_p_type_checking_imports_and_the_bases_marks(tmp_path: Path) -> None:
    base = {
        **PY_BASE,
        "calc.py": "def add(a, b):\n    return a + b\n\n\n"
        "def debug():  # pragma: no cover\n    print('calc')\n",
    }
    change = {
        "calc.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
        "    from decimal import Decimal\n\n\n"
        + base["calc.py"].replace("print('calc')", "print('calc', 1)"),
    }
    code, evaluation = evaluated(
        tmp_path, base, change, PYTEST, check_fields={"min_diff_coverage": 100}
    )
    criterion = evaluation["criteria"][0]
    assert criterion["status"] == "pass", criterion["reason"]
    assert code == 0


# === T: build output the player dated (what the tree holds outside git) ==========================
#
# cargo takes a crate for up to date by its files' times: the generator builds the test binary
# from the right code, writes the broken code back dated (or touches the build output), and
# `cargo test` ran the stale binary. Every cargo run now cleans the workspace's own output in
# its overlay first (tools/runners/rust_cargo.py `cleaned_first`); the tree keeps its target/.

_RUST_BROKEN = "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"


def _stale_build(dated: str) -> Callable[[Path], None]:
    def build(root: Path) -> None:
        (root / "src" / "lib.rs").write_text(RUST_BASE["src/lib.rs"], encoding="utf-8")
        subprocess.run(
            ["cargo", "test", "-q", "--offline"], cwd=root, check=True, capture_output=True
        )
        (root / "src" / "lib.rs").write_text(_RUST_BROKEN, encoding="utf-8")
        if dated == "source-back-dated":
            os.utime(root / "src" / "lib.rs", (978307200, 978307200))  # 2001
        else:  # the build output made newer than the source
            for path in (root / "target").rglob("*"):
                if path.is_file():
                    os.utime(path, (4102444800, 4102444800))  # 2100

    return build


@needs_cargo
@pytest.mark.parametrize("dated", ["source-back-dated", "output-dated-ahead"])
def test_t_a_stale_cargo_build_is_not_what_runs(tmp_path: Path, dated: str) -> None:
    base = {**RUST_BASE, ".gitignore": "/target\nCargo.lock\n"}
    code, evaluation = evaluated(
        tmp_path, base, {}, ["cargo", "test", "--offline"], after=_stale_build(dated)
    )
    caught(code, evaluation)
    assert evaluation["criteria"][0]["status"] == "fail", evaluation["criteria"][0]["reason"]
    assert (tmp_path / "repo" / "target").is_dir()  # the tree's own output is left alone


# === F: honest changes from real projects that referee misjudged ================================
#
# humanize: its doctests run by naming the module on pytest's command line; pytest then loads
# that module itself (to rewrite its assertions), ahead of referee's line probes (Python before
# 3.12), and the changed lines every test runs read as never executed.

_HUMANIZED = {
    **PY_BASE,
    "src/pkg/__init__.py": "",
    "src/pkg/number.py": 'def ordinal(n):\n    """Ordinal.\n\n    >>> ordinal(1)\n    \'1st\'\n'
    '    """\n    return f"{n}th" if n != 1 else "1st"\n',
    "tests/test_number.py": "from pkg.number import ordinal\n\n\n"
    "def test_ordinal():\n    assert ordinal(2) == '2th'\n",
}


def test_f_a_module_whose_doctests_pytest_runs_by_name_is_measured(tmp_path: Path) -> None:
    change = {
        "src/pkg/number.py": _HUMANIZED["src/pkg/number.py"].replace(
            '    return f"{n}th" if n != 1 else "1st"\n',
            '    if n < 0:\n        return "-" + ordinal(-n)\n'
            '    return f"{n}th" if n != 1 else "1st"\n',
        ),
        "tests/test_number.py": _HUMANIZED["tests/test_number.py"]
        + "\n\ndef test_negative():\n    assert ordinal(-2) == '-2th'\n",
    }
    argv = [*PYTEST[:3], "--doctest-modules", "src/pkg/number.py", "tests"]
    code, evaluation = evaluated(
        tmp_path,
        _HUMANIZED,
        change,
        argv,
        check_fields={"min_diff_coverage": 100, "env": {"PYTHONPATH": "src"}},
    )
    criterion = evaluation["criteria"][0]
    assert criterion["status"] == "pass", criterion["reason"]
    assert code == 0


# === H: a hold-out's name and value in the judge's own words (tools/aggregate/) ==================
#
# A hidden test `tests/test_wide_operands.py::test_sum_of_colossal_operands` checks
# add(10**20, 1). The judge's issue reached the revision brief when it wrote the name as words
# ("sum of colossal operands", "wide-operands") or the value with digit underscores inside a
# word, as SI prefixes, or as an ordinal power ("ten raised to the twentieth power").

_HIDDEN_NAMES = frozenset(
    {"tests/test_wide_operands.py", "test_wide_operands.py", "test_wide_operands"}
    | {
        "test_sum_of_colossal_operands",
        "tests/test_wide_operands.py::test_sum_of_colossal_operands",
    }
)

NAMED: dict[str, str] = {
    "test-name-spaced": "the 'sum of colossal operands' check fails; handle big operands",
    "test-name-camel-case": "testSumOfColossalOperands fails",
    "test-name-title-case": "Sum Of Colossal Operands is red",
    "file-stem-hyphenated": "the wide-operands suite fails: handle big operands",
    "file-stem-dotted": "wide.operands fails",
    "file-stem-spaced-in-caps": "WIDE OPERANDS are mishandled",
}


def _holdout_guard(tmp_path: Path) -> Any:
    from projects import calc_repo, contract_for, pytest_check

    from referee.tools.aggregate.holdouts import HoldoutGuard
    from referee.tools.store import Store

    repo = calc_repo(tmp_path / "calc")
    store = Store(tmp_path / "home" / "referee.db")
    visible = {"criterion": "add sums", "verification_method": "test", "check": pytest_check()}
    hidden = {
        "criterion": "add keeps huge inputs exact",
        "verification_method": "test",
        "check": pytest_check("tests/test_wide_operands.py"),
    }
    contract = contract_for(store, repo, visible, {**hidden, "holdout": True})
    return HoldoutGuard(contract, names=_HIDDEN_NAMES)


@pytest.mark.parametrize("variant", sorted(NAMED))
def test_h_a_hidden_tests_name_in_words_is_withheld(tmp_path: Path, variant: str) -> None:
    assert _holdout_guard(tmp_path).reveals(NAMED[variant]) is not None, variant


@pytest.mark.parametrize(
    "issue",
    [
        "add has no docstring",
        "the operands are not validated",  # one word of the name: says nothing of it
        "wide tables are slow to render",
        "a colossal function: split it",
    ],
)
def test_honest_h_an_issue_sharing_a_word_with_the_name_is_kept(tmp_path: Path, issue: str) -> None:
    assert _holdout_guard(tmp_path).reveals(issue) is None


VALUES: dict[str, str] = {
    "underscores-inside-a-word": "add is wrong for 100_000_000_000_000_000_001-sized results",
    "digits-inside-a-word": "wrong for 100000000000000000001-sized sums",
    "si-prefix": "add is wrong around 100 exa",
    "si-prefix-of-ten": "wrong at a hundred exa",
    "ordinal-power": "add is wrong for ten raised to the twentieth power",
    "ordinal-power-digits": "wrong for 10 raised to the 20th power",
}


@pytest.mark.parametrize("variant", sorted(VALUES))
def test_h_a_hidden_value_in_words_is_withheld(variant: str) -> None:
    from test_redteam_round11 import _guard

    assert _guard().repeated(VALUES[variant]) is not None, variant


@pytest.mark.parametrize(
    "issue",
    [
        "the first test and the second one overlap",
        "mega refactor: split calc.py",
        "version 1_000 of the API",
    ],
)
def test_honest_h_words_that_are_no_hidden_value_are_kept(issue: str) -> None:
    from test_redteam_round11 import _guard

    assert _guard().repeated(issue) is None


# === S: keyless encodings of a secret (tools/evidence/forms.py) ==================================

_KEY = "sk_live_9fQ2xZ7LmP4vT8wK3rY6"
_Z85_ALPHABET = (
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
)


def _base62(value: str) -> str:
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    number, out = int.from_bytes(value.encode(), "big"), ""
    while number:
        number, rest = divmod(number, 62)
        out = digits[rest] + out
    return out


def _atbash(value: str) -> str:
    return "".join(
        chr(219 - ord(c)) if c.islower() else chr(155 - ord(c)) if c.isupper() else c for c in value
    )


def _z85(value: str) -> str:
    import base64

    table = str.maketrans("".join(chr(c) for c in range(33, 118)), _Z85_ALPHABET)
    return base64.a85encode(value.encode()).decode().translate(table)


ENCODINGS = {"atbash": _atbash, "z85": _z85, "base62-number": _base62}


@pytest.mark.parametrize("variant", sorted(ENCODINGS))
def test_s_a_keyless_encoding_of_a_secret_is_redacted(variant: str) -> None:
    from referee.tools.evidence.redact import Redactor

    form = ENCODINGS[variant](_KEY)
    out = Redactor([_KEY]).redact(f"debug: {form}\nmore\n")
    assert form not in out and "[REDACTED:" in out, out
    assert "more" in out


def test_s_the_encodings_are_the_secret() -> None:
    import base64

    back = str.maketrans(_Z85_ALPHABET, "".join(chr(c) for c in range(33, 118)))
    assert base64.a85decode(_z85(_KEY).translate(back)).decode() == _KEY
    assert _atbash(_atbash(_KEY)) == _KEY
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    value = 0
    for c in _base62(_KEY):
        value = value * 62 + digits.index(c)
    assert value.to_bytes(len(_KEY), "big").decode() == _KEY


# === M: the user's own files in the home folder (tools/sandbox/home.py) ==========================
#
# A sandboxed test read the operator's ~/.npmrc (a registry token), ~/.gitconfig and
# /etc/shadow by their absolute paths and put them in its assertion message. The home folder's
# entries are masked now, save what the command can need (a program on its PATH, a path it
# names, toolchains and caches).

_READER = (
    "import os\n\n\ndef test_the_machine():\n    seen = {}\n"
    "    for p in {paths!r}:\n        try:\n            seen[p] = open(p).read()\n"
    "        except OSError:\n            pass\n    assert not any(seen.values()), seen\n"
)


def test_m_the_operators_files_are_out_of_a_tests_reach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "operator"
    secrets = {
        ".npmrc": "//registry.npmjs.org/:_authToken=npm_SECRETSECRETSECRET\n",
        ".gitconfig": "[user]\n\temail = operator@example.com\n",
        ".ssh/id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n",
        ".config/gh/hosts.yml": "github.com:\n    oauth_token: gho_SECRET\n",
        "notes/passwords.txt": "hunter2\n",
    }
    for rel, text in secrets.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text, encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    paths = [str(home / rel) for rel in secrets]
    tests = {"tests/test_reads.py": _READER.replace("{paths!r}", repr(paths))}
    code, evaluation = evaluated(tmp_path, PY_BASE, tests, PYTEST)
    criterion = evaluation["criteria"][0]
    failing = [
        (t["name"], t.get("message", "")[:400])
        for e in evaluation["evidence"]
        for t in e.get("tests") or []
        if t.get("outcome") != "passed"
    ]
    assert criterion["status"] == "pass", (criterion["reason"], failing)
    assert evaluation["sandbox"] == "bubblewrap"
    assert code == 0


def test_m_what_a_command_needs_in_the_home_folder_stays(tmp_path: Path) -> None:
    from referee.tools.sandbox.home import argv_paths, masked_entries

    home = tmp_path / "home"
    for entry in ("bin", ".pyenv", ".cargo", "venvs/app/bin", "project", ".ssh", ".aws", "notes"):
        (home / entry).mkdir(parents=True)
    for dotfile in (".npmrc", ".gitconfig", ".bash_history"):
        (home / dotfile).write_text("x", encoding="utf-8")
    env = {"PATH": f"{home / 'bin'}:/usr/bin", "LANG": "C.UTF-8"}
    argv = [str(home / "venvs/app/bin/python"), "-m", "pytest"]
    needed = [home / "project", *argv_paths(argv)]
    masked = {p.name for p in masked_entries(home, needed, env)}
    assert masked == {".ssh", ".aws", "notes", ".npmrc", ".gitconfig", ".bash_history"}


# Any build tool that trusts file times: every run of the evaluated tree sees the changed files
# dated after everything in the tree (tools/evaluate/times.py).
_C_PROJECT = {
    "src/calc.c": "int add(int a, int b) { return a + b; }\n",
    "src/calc.h": "int add(int a, int b);\n",
    "tests/test_calc.c": '#include <stdio.h>\n#include "../src/calc.h"\n'
    'int main(void) { if (add(1, 2) != 3) { puts("FAIL"); return 1; } puts("ok"); return 0; }\n',
    "Makefile": "build/test_calc: src/calc.c tests/test_calc.c src/calc.h\n"
    "\tmkdir -p build && cc -o $@ src/calc.c tests/test_calc.c\n\ntest: build/test_calc\n"
    "\t./build/test_calc\n",
    ".gitignore": "build/\n",
}


def _stale_make(dated: str) -> Callable[[Path], None]:
    def build(root: Path) -> None:
        (root / "src" / "calc.c").write_text(_C_PROJECT["src/calc.c"], encoding="utf-8")
        subprocess.run(["make", "-s", "test"], cwd=root, check=True, capture_output=True)
        (root / "src" / "calc.c").write_text(
            "int add(int a, int b) { return a - b; }\n", encoding="utf-8"
        )
        if dated == "source-back-dated":
            os.utime(root / "src" / "calc.c", (978307200, 978307200))
        else:
            os.utime(root / "build" / "test_calc", (4102444800, 4102444800))

    return build


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("cc") is None, reason="no make")
@pytest.mark.parametrize("dated", ["source-back-dated", "output-dated-ahead"])
def test_t_a_stale_make_build_is_not_what_runs(tmp_path: Path, dated: str) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    make_repo(root, _C_PROJECT)
    _stale_make(dated)(root)
    made = _make_contract(tmp_path, root)
    code, evaluation = cli("--root", str(root), "evaluate", made, "--json")
    assert evaluation["criteria"][0]["status"] == "fail", evaluation["criteria"][0]["reason"]
    assert code == 1
    assert (root / "build" / "test_calc").is_file()  # the tree keeps its own output


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("cc") is None, reason="no make")
@pytest.mark.parametrize("dated", ["source-back-dated", "output-dated-ahead"])
def test_t_a_stale_make_build_of_a_ref_is_not_what_runs(tmp_path: Path, dated: str) -> None:
    """The same with the broken code committed and evaluated as `--ref HEAD`: the commit is shown
    at the tree's path, over the stale output on disk."""
    root = tmp_path / "repo"
    root.mkdir()
    make_repo(root, _C_PROJECT)
    made = _make_contract(tmp_path, root)
    _stale_make(dated)(root)
    git(root, "commit", "-qam", "add")
    code, evaluation = cli("--root", str(root), "evaluate", made, "--ref", "HEAD", "--json")
    assert evaluation["criteria"][0]["status"] == "fail", evaluation["criteria"][0]["reason"]
    assert code == 1


def _make_contract(tmp_path: Path, root: Path) -> str:
    """A contract whose one criterion is `make test`; its id."""
    spec = tmp_path / "contract.yaml"
    criterion = {
        "criterion": "make test passes",
        "verification_method": "test",
        "check": {"kind": "command", "argv": ["make", "test"]},
    }
    contract = {"goal": "Keep add right.", "out_of_scope": ["ui"], "functional": [criterion]}
    spec.write_text(yaml.safe_dump(contract), encoding="utf-8")
    code, made = cli("--root", str(root), "contract", "create", str(spec), "--json")
    assert code == 0, made
    return str(made["contract"]["id"])
