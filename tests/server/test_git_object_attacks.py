"""referee reads the evaluated repository's objects as untrusted data: each one against its name.

The generator owns `.git/objects`: it can rewrite a loose or packed object of the base under its
old name, serve one from a store of its own, rewrite the base's trees or commit, plant an object
under the name referee's own hashing of the working tree will give, or hand over a tree no git
writes. Each variant below is refused (`bad_object`, naming the object and where it was reached)
or, for pins, `pin_mismatch`; none becomes a verdict. test_git_layout_attacks.py holds the first
three (a rewritten base test, an alternate store, a rewritten base source) and the pins' (a
rewritten loose ref, packed-refs line, symbolic ref or commit object).
"""

from __future__ import annotations

import hashlib
import subprocess
import zlib
from pathlib import Path

import pytest
from edits import (
    BREAK,
    PY_TESTS,
    agent_for,
    both,
    calc_contract,
    py_check,
    python_project,
    replaced,
)
from forged import (
    forge_blob,
    forge_object,
    forge_pack,
    loose,
    raw_object,
    refused_as_rewritten,
    refused_loop,
    tree_bytes,
)
from gitrepo import git, make_repo

from referee.tools.repo import (
    BadObject,
    blobs_at,
    changed_files,
    changed_lines,
    commit_tree_hash,
    file_at,
    tree_entry_map,
    working_tree_hash,
    write_tree,
)

pytestmark = pytest.mark.anyio

EDIT = replaced("tests/test_calc.py", "== 3", "== -1")


def unique_project(tmp_path: Path) -> Path:
    """python_project with a line of its own in the test file: a tree or commit referee read
    (and checked) before is known by its name, so a forgery of it would be read as the honest
    object (harmless, but not the refusal these tests look for)."""
    return python_project(tmp_path, {"tests/test_calc.py": PY_TESTS + f"# {tmp_path.name}\n"})


def objects(repo: Path) -> Path:
    return repo / ".git" / "objects"


def hashed(data: bytes, kind: str = "blob") -> str:
    return hashlib.sha1(b"%s %d\0" % (kind.encode(), len(data)) + data).hexdigest()


# --- through evaluate ------------------------------------------------------------------------


@pytest.mark.slow
async def test_a_rewritten_base_tree_is_refused(tmp_path: Path) -> None:
    """The base's `tests` tree rewritten to name the edited test file's blob (a real object):
    the blobs are honest, the tree lies."""
    repo = unique_project(tmp_path)
    folder = git(repo, "rev-parse", "HEAD:tests")

    def forge(root: Path) -> None:
        edited = git(root, "hash-object", "-w", "tests/test_calc.py")
        entries = [
            ("100644", "__init__.py", git(root, "rev-parse", "HEAD:tests/__init__.py")),
            ("100644", "test_calc.py", edited),
        ]
        forge_object(objects(root), folder, "tree", tree_bytes(entries))

    await refused_loop(repo, both(BREAK, EDIT, forge), py_check())


async def test_a_rewritten_base_commit_is_refused(tmp_path: Path) -> None:
    """The base commit itself rewritten to wrap a tree holding the edited test."""
    repo = unique_project(tmp_path)
    base = git(repo, "rev-parse", "HEAD")

    def forge(root: Path) -> None:
        git(root, "add", "-A")
        tree = git(root, "write-tree")
        body = raw_object(root, base).replace(
            b"tree " + git(root, "rev-parse", f"{base}^{{tree}}").encode(), b"tree " + tree.encode()
        )
        forge_object(objects(root), base, "commit", body)

    await refused_loop(repo, both(BREAK, EDIT, forge), py_check())


async def test_a_forged_pack_is_refused(tmp_path: Path) -> None:
    """The base's test file served, edited, by a pack (with its index) the generator wrote; the
    loose object is gone, so git reads the packed one."""
    repo = python_project(tmp_path)
    sha = git(repo, "rev-parse", "HEAD:tests/test_calc.py")

    def forge(root: Path) -> None:
        forge_pack(objects(root), {sha: ("blob", (root / "tests/test_calc.py").read_bytes())})
        loose(root, sha).unlink()
        assert git(root, "cat-file", "blob", sha) == (root / "tests/test_calc.py").read_text()[:-1]

    await refused_loop(repo, both(BREAK, EDIT, forge), py_check())


async def test_a_planted_object_for_the_edited_test_is_refused(tmp_path: Path) -> None:
    """An object planted under the name the edited test file will hash to, holding the base
    test plus one added test: referee's own hashing keeps the planted object (git does not
    rewrite an object it has), and the edit would read as one that only adds tests, so the base
    form would never run."""
    repo = python_project(tmp_path)
    edited = PY_TESTS.replace("== 3", "== -1").encode()
    additive = PY_TESTS + "\n\ndef test_more():\n    assert add(2, 2) == 4\n"

    def forge(root: Path) -> None:
        forge_blob(objects(root), hashed(edited), additive.encode())

    await refused_loop(repo, both(BREAK, EDIT, forge), py_check())


async def test_a_ref_whose_tree_leads_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    """A commit (hashes right) whose tree names an entry `..`: written out for `--ref`, it would
    land outside referee's folder. No git writes such a tree; referee refuses it."""
    repo = python_project(tmp_path)
    blob = git(repo, "hash-object", "-w", "--stdin")
    evil = tree_bytes([("100644", "..", blob)])
    tree = (
        subprocess.run(
            ["git", "hash-object", "-t", "tree", "--literally", "-w", "--stdin"],
            cwd=repo,
            input=evil,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    commit = git(repo, "commit-tree", tree, "-m", "evil")
    async with agent_for(repo) as agent:
        cid = await calc_contract(agent, py_check())
        done = await agent.call_tool("evaluate", {"contract_id": cid, "ref": commit})
    refused_as_rewritten(done)


# --- the cores: every read checks --------------------------------------------------------------


def _forged_base_test(tmp_path: Path) -> tuple[Path, str]:
    repo = python_project(tmp_path)
    base = git(repo, "rev-parse", "HEAD")
    sha = git(repo, "rev-parse", "HEAD:tests/test_calc.py")
    forge_blob(objects(repo), sha, PY_TESTS.replace("== 3", "== -1").encode())
    return repo, base


def test_file_at_refuses_a_rewritten_blob_rather_than_calling_it_absent(tmp_path: Path) -> None:
    repo, base = _forged_base_test(tmp_path)
    with pytest.raises(BadObject, match=r"\(tests/test_calc\.py\)"):
        file_at(repo, base, "tests/test_calc.py")
    with pytest.raises(BadObject, match="does not hash to its name"):
        blobs_at(repo, base, ["tests/test_calc.py", "calc.py"])
    assert file_at(repo, base, "calc.py") is not None  # the honest objects still read


def test_changed_lines_refuse_a_rewritten_base_blob(tmp_path: Path) -> None:
    repo, base = _forged_base_test(tmp_path)
    (repo / "tests" / "test_calc.py").write_text(PY_TESTS + "# one more line\n")
    with pytest.raises(BadObject):
        changed_lines(repo, base, working_tree_hash(repo))


def test_an_object_of_another_type_under_a_blobs_name_is_refused(tmp_path: Path) -> None:
    """The base's test blob rewritten as a tree object of the same bytes."""
    repo = python_project(tmp_path)
    base = git(repo, "rev-parse", "HEAD")
    sha = git(repo, "rev-parse", "HEAD:tests/test_calc.py")
    forge_object(objects(repo), sha, "tree", b"")
    with pytest.raises(BadObject, match="is a tree where a blob is named"):
        file_at(repo, base, "tests/test_calc.py")


def test_a_rewritten_subtree_is_refused_by_every_listing(tmp_path: Path) -> None:
    # A name of its own: a tree read (and checked) before is known by its name, and read right.
    repo = python_project(tmp_path, {"tests/test_calc.py": PY_TESTS + f"# {tmp_path.name}\n"})
    base = git(repo, "rev-parse", "HEAD")
    tree = commit_tree_hash(repo, base)
    folder = git(repo, "rev-parse", "HEAD:tests")
    forge_object(objects(repo), folder, "tree", tree_bytes([]))  # the tests "deleted" at base
    (repo / "tests" / "test_calc.py").write_text(PY_TESTS)
    now = working_tree_hash(repo)
    for read in (
        lambda: tree_entry_map(repo, tree),
        lambda: changed_files(repo, base, now),
        lambda: write_tree(repo, tree, tmp_path / "out"),
        lambda: file_at(repo, base, "tests/test_calc.py"),
    ):
        with pytest.raises(BadObject, match=f"the tree {folder} \\(tests/\\)"):
            read()


def test_a_tree_with_a_slash_in_a_name_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "a\n"})
    blob = git(repo, "rev-parse", "HEAD:a.txt")
    tree = (
        subprocess.run(
            ["git", "hash-object", "-t", "tree", "--literally", "-w", "--stdin"],
            cwd=repo,
            input=tree_bytes([("100644", "x/../../escape", blob)]),
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    with pytest.raises(BadObject, match="not a tree git would write"):
        write_tree(repo, tree, tmp_path / "out")
    assert not (tmp_path / "escape").exists()


def test_a_sha256_repository_is_read_and_checked(tmp_path: Path) -> None:
    repo = tmp_path / "r256"
    repo.mkdir()
    git(repo, "init", "-q", "--object-format=sha256", "-b", "main")
    (repo / "src").mkdir()
    (repo / "src" / "a.py").write_text("x = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one")
    base = git(repo, "rev-parse", "HEAD")
    assert len(base) == 64
    assert file_at(repo, base, "src/a.py") == "x = 1\n"
    (repo / "src" / "a.py").write_text("x = 2\n")
    assert changed_files(repo, base, working_tree_hash(repo)) == ["src/a.py"]
    sha = git(repo, "rev-parse", "HEAD:src/a.py")
    target = objects(repo) / sha[:2] / sha[2:]
    target.chmod(0o644)
    target.write_bytes(zlib.compress(b"blob 6\0x = 9\n"))
    with pytest.raises(BadObject, match=sha):
        file_at(repo, base, "src/a.py")


def test_verified_listings_agree_with_git_on_an_honest_tree(tmp_path: Path) -> None:
    """File to folder, folder to file, a symbolic link, an executable bit, a submodule entry:
    the verified tree walk lists and diffs as `git ls-tree -r` and `git diff-tree -r` do."""
    repo = make_repo(tmp_path / "r", {"a/b.txt": "1\n", "c": "2\n", "d/e/f.py": "3\n"})
    base = git(repo, "rev-parse", "HEAD")
    (repo / "a" / "b.txt").unlink()
    (repo / "a").rmdir()
    (repo / "a").write_text("now a file\n")
    (repo / "c").unlink()
    (repo / "c").mkdir()
    (repo / "c" / "x").write_text("now a folder\n")
    (repo / "link").symlink_to("d/e/f.py")
    (repo / "d" / "e" / "f.py").chmod(0o755)
    git(repo, "add", "-A")
    sub = git(repo, "rev-parse", "HEAD")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{sub},vendor/sub")
    tree = git(repo, "write-tree")
    listed = git(repo, "ls-tree", "-r", "--full-tree", tree).splitlines()
    expected = {
        line.split("\t")[1]: (line.split()[0], line.split()[2].split("\t")[0]) for line in listed
    }
    assert tree_entry_map(repo, tree) == expected
    diffed = git(repo, "diff-tree", "-r", "--name-only", "--no-renames", base, tree).split()
    assert changed_files(repo, base, tree) == sorted(diffed)
