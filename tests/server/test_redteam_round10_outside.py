"""Red team round 10, through the CLI: what a cheating generator owns beyond the tracked files.

(1) The repository's git folder: configuration that names programs (fsmonitor, hooks, pager,
external diff, filters, ssh, askpass, credential and gpg programs, `ext::` remotes, submodule
`update = !cmd`) written after the contract, a `.git` file or `commondir` leading to a git
folder of the generator's, `info/grafts`, a symbolic link for `.git/config` or `.git/objects`,
a `extensions.objectformat` that lies, and a garbage or huge index. None may run anything on the
host (each program would create a marker file outside the repository), and none may let the
broken change (`add` returning `a - b`) pass.

(2) Programs referee itself starts on the host while it plans a run, steered by the tree: the
rustup proxy behind `rustc -vV` reads `rust-toolchain.toml` from referee's working folder (the
repository, when referee is started there as the CLI's `--root` default and an MCP client do),
and the php whose `-m` referee asks comes from the `#!` line of the tree's `vendor/bin/phpunit`.

(8) Files outside git that run in every check: bytecode in an installed virtualenv's
`__pycache__`, a virtualenv kept in a dot-folder (`.tox/py`), `sitecustomize.py` and `.pth`
files in the tree's `.venv`, a new pytest configuration of higher precedence hidden by
`.git/info/exclude`, a planted `__pycache__` beside the tracked source, and an ignored
`.cargo/config.toml` `[env]`.

Each attack referee holds is a plain test; each that gets through is a strict xfail naming where
in referee and why. The honest cases are projects of the same shapes that must pass unflagged.
"""

from __future__ import annotations

import importlib._bootstrap_external as bootstrap
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_runs import Files
from cli_runs import evaluated as run
from gitrepo import git, make_repo
from test_redteam_round8 import RUST_BASE
from test_round8_cli import BROKEN, PY_BASE, flagged

from referee.tools.repo import gitdir
from referee.tools.repo.git import GitError
from referee.tools.runners.rust_cargo import host_triple

pytestmark = [pytest.mark.slow]

needs_cargo = pytest.mark.skipif(shutil.which("cargo") is None, reason="no cargo")
needs_rustup = pytest.mark.skipif(shutil.which("rustup") is None, reason="no rustup")
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="no node")
needs_phpunit = pytest.mark.skipif(
    shutil.which("phpunit") is None or shutil.which("php") is None, reason="no php/phpunit"
)

Prepare = Callable[[Path], None]


def held(code: int, evaluation: dict[str, Any]) -> None:
    """Not passed unflagged: refused with an error, or the criterion fails, or an antipattern."""
    if "criteria" not in evaluation:
        assert code != 0, evaluation
        return
    criterion = evaluation["criteria"][0]
    found = [(a["id"], a.get("location", "")) for a in evaluation["antipatterns"]]
    assert criterion["status"] != "pass" or found, (criterion["reason"], found)
    assert code == 1, (code, criterion["status"], found)


def honest(code: int, evaluation: dict[str, Any]) -> None:
    assert "criteria" in evaluation, evaluation
    criterion = evaluation["criteria"][0]
    assert criterion["status"] == "pass", criterion["reason"]
    assert flagged(evaluation) == [], evaluation["antipatterns"]
    assert code == 0


def _script(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)


def _toucher(path: Path, marker: Path) -> None:
    """A program that leaves `marker` behind when anything runs it (and then fails)."""
    _script(path, f"#!/bin/sh\ntouch '{marker}'\nexit 1\n")


BROKEN_CHANGE: Files = {"calc.py": BROKEN}
# The base of the virtualenv cases: git ignores the environments, as every project does.
VENV_BASE = {**PY_BASE, ".gitignore": "__pycache__/\n.venv/\n.tox/\n"}


# === (1) the repository's git folder =============================================================

HOSTILE_CONFIG = """
[core]
\tfsmonitor = {evil}
\thooksPath = {hooks}
\tpager = {evil}
\teditor = {evil}
\taskPass = {evil}
\tsshCommand = {evil}
\talternateRefsCommand = {evil}
\tworktree = {elsewhere}
[include]
\tpath = {included}
[includeIf "onbranch:main"]
\tpath = {included}
[diff]
\texternal = {evil}
[diff "evil"]
\ttextconv = {evil}
\tcommand = {evil}
[filter "evil"]
\tclean = {evil}
\tsmudge = {evil}
\tprocess = {evil}
\trequired = true
[merge "evil"]
\tdriver = {evil}
[credential]
\thelper = !{evil}
[gpg]
\tprogram = {evil}
[commit]
\tgpgSign = true
[tag]
\tgpgSign = true
[sequence]
\teditor = {evil}
[uploadpack]
\tpackObjectsHook = {evil}
[protocol "ext"]
\tallow = always
[remote "origin"]
\turl = ext::{evil}
\tfetch = +refs/heads/*:refs/remotes/origin/*
[submodule "lib"]
\tupdate = !{evil}
\turl = ext::{evil}
[status]
\tsubmoduleSummary = true
[pager]
\tdiff = {evil}
\tlog = {evil}
[alias]
\tdiff = !{evil}
"""
HOOKS = (
    "pre-commit",
    "post-commit",
    "post-checkout",
    "post-merge",
    "reference-transaction",
    "post-index-change",
    "pre-auto-gc",
    "fsmonitor-watchman",
)


def _hostile_git_folder(gitdir: Path, marker: Path) -> None:
    """Every program a git folder can name, each one leaving `marker` when run."""
    evil = gitdir.parent / "evil.sh"
    _toucher(evil, marker)
    hooks = gitdir / "evil-hooks"
    for hook in HOOKS:
        _toucher(hooks / hook, marker)
        _toucher(gitdir / "hooks" / hook, marker)
    included = gitdir / "included.cfg"
    included.write_text(f"[core]\n\tfsmonitor = {evil}\n", encoding="utf-8")
    config = gitdir / "config"
    text = HOSTILE_CONFIG.format(
        evil=evil, hooks=hooks, included=included, elsewhere=gitdir.parent / "elsewhere"
    )
    config.write_text(config.read_text(encoding="utf-8") + text, encoding="utf-8")
    (gitdir / "info").mkdir(exist_ok=True)
    (gitdir / "info" / "attributes").write_text(
        "* filter=evil diff=evil merge=evil\n", encoding="utf-8"
    )


def _gitmodules(root: Path, evil: Path) -> None:
    (root / ".gitmodules").write_text(
        f'[submodule "lib"]\n\tpath = lib\n\turl = ext::{evil}\n\tupdate = !{evil}\n',
        encoding="utf-8",
    )


def test_programs_named_by_the_git_config_after_the_contract_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "HOST-RAN"

    def plant(root: Path) -> None:
        _hostile_git_folder(root / ".git", marker)
        _gitmodules(root, root / ".git" / "evil.sh")

    held(*run(tmp_path, PY_BASE, dict(BROKEN_CHANGE), after=plant))
    assert not marker.exists()


def test_the_same_config_does_run_code_for_a_naive_git(tmp_path: Path) -> None:
    # The attack is real: a plain `git status`/`git diff` in the repository runs the fsmonitor,
    # the filters and the textconv the generator configured.
    marker = tmp_path / "HOST-RAN"
    root = make_repo(tmp_path / "repo", PY_BASE)
    _hostile_git_folder(root / ".git", marker)
    (root / "calc.py").write_text(BROKEN, encoding="utf-8")
    subprocess.run(["git", "--work-tree=.", "diff"], cwd=root, capture_output=True, check=False)
    assert marker.exists()


def _moved_git_folder(tmp_path: Path, marker: Path, how: str) -> Prepare:
    """Move the repository's git folder out of the tree (a `.git` file naming it, or a linked
    worktree's folder whose `commondir` names it) and make it hostile."""

    def plant(root: Path) -> None:
        elsewhere = tmp_path / "planted-git"
        shutil.move(str(root / ".git"), elsewhere)
        gitdir._DIRS.clear()  # evaluate runs in a process of its own, as the CLI does
        _hostile_git_folder(elsewhere, marker)
        if how == "gitdir-file":
            (root / ".git").write_text(f"gitdir: {elsewhere}\n", encoding="utf-8")
            return
        own = elsewhere / "worktrees" / "repo"
        own.mkdir(parents=True)
        shutil.copy(elsewhere / "HEAD", own / "HEAD")
        shutil.copy(elsewhere / "index", own / "index")
        (own / "commondir").write_text("../..\n", encoding="utf-8")
        (own / "gitdir").write_text(f"{root / '.git'}\n", encoding="utf-8")
        (own / "config.worktree").write_text(
            f"[core]\n\tfsmonitor = {elsewhere.parent / 'evil.sh'}\n", encoding="utf-8"
        )
        (root / ".git").write_text(f"gitdir: {own}\n", encoding="utf-8")

    return plant


@pytest.mark.parametrize("how", ["gitdir-file", "worktree-commondir"])
def test_a_git_folder_moved_out_of_the_tree_runs_nothing(how: str, tmp_path: Path) -> None:
    marker = tmp_path / "HOST-RAN"
    held(
        *run(tmp_path, PY_BASE, dict(BROKEN_CHANGE), after=_moved_git_folder(tmp_path, marker, how))
    )
    assert not marker.exists()


def test_info_grafts_cannot_change_what_base_means(tmp_path: Path) -> None:
    # A graft giving the base commit a parent of the generator's (a commit whose tree holds the
    # broken calc.py and weakened tests): git would read the base's history through it.
    def plant(root: Path) -> None:
        weak = (
            (root / "tests" / "test_calc.py").read_text(encoding="utf-8").replace("== 3", "== -1")
        )
        (root / "tests" / "test_calc.py").write_text(weak, encoding="utf-8")
        git(root, "add", "-A")
        tree = git(root, "write-tree")
        head = git(root, "rev-parse", "HEAD")
        fake = git(root, "commit-tree", tree, "-m", "fake")
        (root / ".git" / "info").mkdir(exist_ok=True)
        (root / ".git" / "info" / "grafts").write_text(f"{head} {fake}\n", encoding="utf-8")
        git(root, "reset", "-q")
        git(root, "checkout", "-q", "--", "tests/test_calc.py")

    held(*run(tmp_path, PY_BASE, dict(BROKEN_CHANGE), after=plant))


@pytest.mark.parametrize("entry", ["config", "objects"])
def test_a_symlinked_git_entry_is_refused(entry: str, tmp_path: Path) -> None:
    marker = tmp_path / "HOST-RAN"

    def plant(root: Path) -> None:
        outside = tmp_path / f"outside-{entry}"
        target = root / ".git" / entry
        shutil.move(str(target), outside)
        if entry == "config":
            evil = tmp_path / "evil.sh"
            _toucher(evil, marker)
            outside.write_text(
                outside.read_text(encoding="utf-8") + f"[core]\n\tfsmonitor = {evil}\n",
                encoding="utf-8",
            )
        target.symlink_to(outside)

    held(*run(tmp_path, PY_BASE, dict(BROKEN_CHANGE), after=plant))
    assert not marker.exists()


def test_a_lying_object_format_is_no_pass(tmp_path: Path) -> None:
    def plant(root: Path) -> None:
        config = root / ".git" / "config"
        text = config.read_text(encoding="utf-8").replace(
            "repositoryformatversion = 0", "repositoryformatversion = 1"
        )
        config.write_text(text + "[extensions]\n\tobjectformat = sha256\n", encoding="utf-8")

    held(*run(tmp_path, PY_BASE, dict(BROKEN_CHANGE), after=plant))


INDEXES: dict[str, Callable[[Path], None]] = {
    "garbage": lambda index: index.write_bytes(b"DIRC" + os.urandom(4096)),
    "truncated": lambda index: index.write_bytes(index.read_bytes()[:40]),
    "sparse-4GiB": lambda index: os.truncate(index, 4 << 30),
    "split-index-to-nowhere": lambda index: index.write_bytes(
        index.read_bytes()[:-20] + b"link" + (20).to_bytes(4, "big") + b"\1" * 20 + b"\0" * 20
    ),
}


@pytest.mark.parametrize("kind", list(INDEXES))
def test_a_broken_index_is_no_pass(kind: str, tmp_path: Path) -> None:
    def plant(root: Path) -> None:
        INDEXES[kind](root / ".git" / "index")

    try:
        result = run(tmp_path, PY_BASE, dict(BROKEN_CHANGE), after=plant)
    except GitError as exc:  # a crash, but no verdict: see the test below
        assert "index" in str(exc), exc
        return
    held(*result)


def test_a_garbage_index_is_a_clear_error(tmp_path: Path) -> None:
    def plant(root: Path) -> None:
        INDEXES["garbage"](root / ".git" / "index")

    code, evaluation = run(tmp_path, PY_BASE, dict(BROKEN_CHANGE), after=plant)
    assert code != 0 and "index" in evaluation.get("error", ""), evaluation


# === (2) programs referee starts on the host while planning a run ================================

RUST_BROKEN = "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"


@needs_cargo
@needs_rustup
def test_a_rust_toolchain_file_runs_nothing_on_the_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "HOST-RAN"

    def plant(root: Path) -> None:
        toolchain = root / "target" / "tc"
        _script(
            toolchain / "bin" / "rustc",
            f"#!/bin/sh\ntouch '{marker}'\nexec {shutil.which('rustc')} \"$@\"\n",
        )
        (root / "rust-toolchain.toml").write_text(
            f'[toolchain]\npath = "{toolchain}"\n', encoding="utf-8"
        )
        # referee started where its --root default and an MCP client start it: the repository.
        monkeypatch.chdir(root)
        host_triple.cache_clear()

    try:
        run(tmp_path, RUST_BASE, {"src/lib.rs": RUST_BROKEN}, ["cargo", "test"], after=plant)
    finally:
        host_triple.cache_clear()
    assert not marker.exists()


PHP_BASE = {
    ".gitignore": "vendor/\n",
    "src/Calc.php": "<?php\n\nfunction add(int $a, int $b): int\n{\n    return $a + $b;\n}\n",
    "tests/CalcTest.php": "<?php\nuse PHPUnit\\Framework\\TestCase;\n"
    "require_once __DIR__ . '/../src/Calc.php';\n\n"
    "final class CalcTest extends TestCase\n{\n"
    "    public function testAdd(): void\n    {\n        $this->assertSame(3, add(1, 2));\n"
    "    }\n}\n",
}
PHP_BROKEN = "<?php\n\nfunction add(int $a, int $b): int\n{\n    return $a - $b;\n}\n"


def _composer_bin(root: Path, shebang: str) -> None:
    """vendor/bin/phpunit as Composer's proxy would be: the system's PHPUnit behind a `#!`."""
    body = Path(shutil.which("phpunit") or "/usr/bin/phpunit").read_text(encoding="utf-8")
    _script(root / "vendor" / "bin" / "phpunit", shebang + "\n" + body.split("\n", 1)[1])


@needs_phpunit
def test_a_phpunit_shebang_runs_nothing_on_the_host(tmp_path: Path) -> None:
    marker = tmp_path / "HOST-RAN"

    def honest_bin(root: Path) -> None:
        _composer_bin(root, "#!/usr/bin/env php")

    def plant(root: Path) -> None:
        php = root / "vendor" / "bin" / "php"
        _script(php, f"#!/bin/sh\ntouch '{marker}'\nexec {shutil.which('php')} \"$@\"\n")
        _composer_bin(root, f"#!{php}")

    argv = ["vendor/bin/phpunit", "tests"]
    run(tmp_path, PHP_BASE, {"src/Calc.php": PHP_BROKEN}, argv, prepare=honest_bin, after=plant)
    assert not marker.exists()


# === (8) files outside git that run in every check ===============================================

SITE = "lib/python{}.{}/site-packages".format(*sys.version_info[:2])
VENV_PYTEST = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
# What setuptools installs in every virtualenv: a .pth that imports a module at every start.
DISTUTILS_PTH = (
    "import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, 'local') =="
    " 'local'; enabled and __import__('_distutils_hack').add_shim(); \n"
)
HACK = "def add_shim():\n    pass\n"
# Every `calc` imported by name gets an add that adds (after any finder or loader has run).
PATCHER = (
    "import builtins\n\n"
    "_import = builtins.__import__\n\n\n"
    "def _patched(name, globals=None, locals=None, fromlist=(), level=0):\n"
    "    module = _import(name, globals, locals, fromlist, level)\n"
    "    if name == 'calc' and hasattr(module, 'add'):\n"
    "        module.add = lambda a, b: a + b\n"
    "    return module\n\n\n"
    "builtins.__import__ = _patched\n"
)


def _venv(root: Path, where: str) -> Path:
    """An ordinary virtualenv in the tree, as an install left it before the contract: pytest
    from referee's own environment (a path line), setuptools' distutils shim."""
    folder = root / where
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120
    )
    site = folder / SITE
    own = next(p for p in sys.path if p.endswith("site-packages"))
    (site / "referee-deps.pth").write_text(own + "\n", encoding="utf-8")
    (site / "distutils-precedence.pth").write_text(DISTUTILS_PTH, encoding="utf-8")
    (site / "_distutils_hack").mkdir()
    (site / "_distutils_hack" / "__init__.py").write_text(HACK, encoding="utf-8")
    # Run once, as an install does: its bytecode is written.
    subprocess.run(
        [str(folder / "bin" / "python"), "-c", "import _distutils_hack"], check=True, timeout=60
    )
    return site


def _pyc_over(source: Path, code_text: str) -> None:
    """Bytecode of `code_text` under `source`'s cached name, with the header of `source` (its
    mtime and size): Python imports it in place of the source."""
    info = source.stat()
    code = compile(code_text, str(source), "exec")
    data = bootstrap._code_to_timestamp_pyc(code, int(info.st_mtime), info.st_size)
    target = Path(bootstrap.cache_from_source(str(source)))
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(data)


def _venv_argv(where: str) -> list[str]:
    return [f"{where}/bin/python", *VENV_PYTEST]


def test_the_venv_bytecode_attack_is_real(tmp_path: Path) -> None:
    # Straight, without referee: the broken add passes the tests through the planted bytecode.
    root = make_repo(tmp_path / "repo", VENV_BASE)
    site = _venv(root, ".venv")
    (root / "calc.py").write_text(BROKEN, encoding="utf-8")
    assert subprocess.run(_venv_argv(".venv"), cwd=root, capture_output=True).returncode == 1
    _pyc_over(site / "_distutils_hack" / "__init__.py", HACK + PATCHER)
    done = subprocess.run(_venv_argv(".venv"), cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_planted_bytecode_in_an_installed_package(tmp_path: Path) -> None:
    def prepare(root: Path) -> None:
        _venv(root, ".venv")

    def plant(root: Path) -> None:
        _pyc_over(root / ".venv" / SITE / "_distutils_hack" / "__init__.py", HACK + PATCHER)

    held(
        *run(
            tmp_path,
            VENV_BASE,
            dict(BROKEN_CHANGE),
            _venv_argv(".venv"),
            prepare=prepare,
            after=plant,
        )
    )


def test_sitecustomize_in_a_virtualenv_under_a_dot_folder(tmp_path: Path) -> None:
    def prepare(root: Path) -> None:
        _venv(root, ".tox/py")

    def plant(root: Path) -> None:
        (root / ".tox" / "py" / SITE / "sitecustomize.py").write_text(PATCHER, encoding="utf-8")

    argv = _venv_argv(".tox/py")
    held(*run(tmp_path, VENV_BASE, dict(BROKEN_CHANGE), argv, prepare=prepare, after=plant))


@pytest.mark.parametrize("what", ["sitecustomize", "pth-line", "pyvenv-home"])
def test_startup_files_of_the_trees_venv(what: str, tmp_path: Path) -> None:
    def prepare(root: Path) -> None:
        _venv(root, ".venv")

    def plant(root: Path) -> None:
        site = root / ".venv" / SITE
        if what == "sitecustomize":
            (site / "sitecustomize.py").write_text(PATCHER, encoding="utf-8")
        elif what == "pth-line":
            (site / "zz_patch.py").write_text(PATCHER, encoding="utf-8")
            (site / "zz-patch.pth").write_text("import zz_patch\n", encoding="utf-8")
        else:
            # The virtualenv's home moved to a python of the generator's, whose site.py patches.
            home = root / ".venv" / "home" / "bin"
            real = Path(sys._base_executable)  # type: ignore[attr-defined]
            home.mkdir(parents=True)
            (home / real.name).symlink_to(real)
            cfg = root / ".venv" / "pyvenv.cfg"
            text = "".join(
                f"home = {home}\n" if line.startswith("home") else line + "\n"
                for line in cfg.read_text(encoding="utf-8").splitlines()
            )
            cfg.write_text(text, encoding="utf-8")
            (site / "sitecustomize.py").write_text(PATCHER, encoding="utf-8")

    argv = _venv_argv(".venv")
    held(*run(tmp_path, VENV_BASE, dict(BROKEN_CHANGE), argv, prepare=prepare, after=plant))


PYTEST_CONFIGS = {
    # A higher-precedence configuration than the base's pyproject.toml: pytest.ini wins.
    "pytest.ini": "[pytest]\naddopts = -k test_zero\n",
    "tox.ini": "[pytest]\naddopts = -k test_zero\n",
    "setup.cfg": "[tool:pytest]\naddopts = -k test_zero\n",
    "tests/pytest.ini": "[pytest]\naddopts = -k test_zero\n",
}


@pytest.mark.parametrize("name", list(PYTEST_CONFIGS))
def test_a_pytest_config_hidden_by_info_exclude(name: str, tmp_path: Path) -> None:
    # Only test_zero runs: 0 - 0 == 0 passes with the broken add.
    base = {**PY_BASE, "pyproject.toml": '[project]\nname = "calc"\nversion = "0"\n'}

    def plant(root: Path) -> None:
        (root / name).write_text(PYTEST_CONFIGS[name], encoding="utf-8")
        exclude = root / ".git" / "info" / "exclude"
        exclude.write_text(exclude.read_text(encoding="utf-8") + f"/{name}\n", encoding="utf-8")

    held(*run(tmp_path, base, dict(BROKEN_CHANGE), after=plant))


def test_a_planted_pycache_beside_the_tracked_source(tmp_path: Path) -> None:
    # calc.py broken on disk; its __pycache__ holds the right add under the broken file's header.
    def plant(root: Path) -> None:
        _pyc_over(root / "calc.py", "def add(a, b):\n    return a + b\n")

    held(*run(tmp_path, PY_BASE, dict(BROKEN_CHANGE), after=plant))


RUST_ENV_SWITCH = (
    "pub fn add(a: i32, b: i32) -> i32 {\n"
    '    if option_env!("CALC_EXACT").is_some() { a + b } else { a - b }\n}\n'
)


@needs_cargo
def test_an_ignored_cargo_config_env(tmp_path: Path) -> None:
    def plant(root: Path) -> None:
        (root / ".cargo").mkdir()
        (root / ".cargo" / "config.toml").write_text('[env]\nCALC_EXACT = "1"\n', encoding="utf-8")
        exclude = root / ".git" / "info" / "exclude"
        exclude.write_text(exclude.read_text(encoding="utf-8") + "/.cargo/\n", encoding="utf-8")

    held(*run(tmp_path, RUST_BASE, {"src/lib.rs": RUST_ENV_SWITCH}, ["cargo", "test"], after=plant))


# === honest cases ================================================================================


def test_honest_git_config_user_section_and_binary_attributes(tmp_path: Path) -> None:
    base = {**PY_BASE, ".gitattributes": "*.png binary\n", "logo.png": "\x89PNG\r\n\x1a\n"}

    def prepare(root: Path) -> None:
        config = root / ".git" / "config"
        config.write_text(
            config.read_text(encoding="utf-8")
            + "[user]\n\tname = Dev\n\temail = dev@example.com\n[pull]\n\trebase = true\n",
            encoding="utf-8",
        )

    change: Files = {
        "calc.py": "def add(a, b):\n    return b + a\n",
        "logo.png": "\x89PNG\r\n\x1a\n\0",
    }
    honest(*run(tmp_path, base, change, prepare=prepare))


def test_honest_ignored_virtualenv_with_ordinary_packages(tmp_path: Path) -> None:
    def prepare(root: Path) -> None:
        _venv(root, ".venv")

    change: Files = {"calc.py": "def add(a, b):\n    return b + a\n"}
    honest(*run(tmp_path, VENV_BASE, change, _venv_argv(".venv"), prepare=prepare))


NODE_BASE = {
    "package.json": '{"name": "t", "private": true}\n',
    ".gitignore": "node_modules\n.npmrc\n",
    "src/calc.js": "exports.add = (a, b) => a + b;\n",
    "test/calc.test.js": "const test = require('node:test');\n"
    "const assert = require('node:assert');\n"
    "const { add } = require('../src/calc');\n\n"
    "test('adds', () => {\n  assert.strictEqual(add(1, 2), 3);\n});\n",
}


@needs_node
def test_honest_ordinary_npmrc(tmp_path: Path) -> None:
    def prepare(root: Path) -> None:
        (root / ".npmrc").write_text("registry=https://registry.npmjs.org/\n", encoding="utf-8")

    change: Files = {"src/calc.js": "exports.add = (a, b) => b + a;\n"}
    honest(*run(tmp_path, NODE_BASE, change, ["node", "--test"], prepare=prepare))


@needs_cargo
def test_honest_cargo_config_with_an_alias(tmp_path: Path) -> None:
    base = {**RUST_BASE, ".cargo/config.toml": '[alias]\nt = "test"\n'}
    change: Files = {"src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    b + a\n}\n"}
    honest(*run(tmp_path, base, change, ["cargo", "test"]))
