"""The evaluation target: exactly which content is judged, identified by a tree hash."""

from __future__ import annotations

import hashlib
import os
import re
import stat
import tempfile
from pathlib import Path

from referee.tools.harness import Layout, is_harness_file
from referee.tools.repo.git import git, git_bytes
from referee.tools.repo.info import is_git_repo
from referee.tools.repo.names import c_quoted
from referee.tools.repo.objects import root_tree, tree_diff, tree_listing

__all__ = [
    "STORE_DIR",
    "commit_tree_hash",
    "diff_tree_paths",
    "directory_hash",
    "harness_files",
    "tree_entries",
    "tree_files",
    "working_tree_hash",
]

STORE_DIR = ".referee"


def working_tree_hash(repo: Path) -> str:
    """Tree hash of the working tree as it is on disk.

    Every file is hashed from disk into a fresh temporary index (`git hash-object --no-filters`,
    then `update-index --index-info`), so nothing in the repository can make git report other
    content: not index flags (assume-unchanged, skip-worktree), not a stat cache doctored to look
    unchanged, not clean filters. Listed are the tracked and untracked-but-not-ignored files, plus
    every file that decides test outcomes (conftest.py, test files, runner configuration) even
    when an ignore rule (`.git/info/exclude` included) would hide it. `.referee/` is left out.
    """
    if not is_git_repo(repo):
        return directory_hash(repo)
    entries = tree_entries(repo)
    with tempfile.TemporaryDirectory(prefix="referee-index-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        lines = "".join(f"{mode} {sha}\t{path}\0" for mode, sha, path in entries)
        git_bytes(
            repo, "update-index", "-z", "--index-info", env=env, input_data=os.fsencode(lines)
        )
        return git(repo, "write-tree", env=env).strip()


def tree_entries(repo: Path) -> list[tuple[str, str, str]]:
    """(mode, blob sha, path) of every file of the working tree, hashed from disk."""
    listed, known_links = _listed(repo)
    regular, links, gitlinks = [], [], []
    for path in sorted(listed | harness_files(repo, listed)):
        if path == STORE_DIR or path.startswith(STORE_DIR + "/"):
            continue
        full = repo / path
        try:
            info = full.lstat()
        except OSError:
            continue  # deleted on disk: not part of the tree
        # Only what git stores: a FIFO, socket or device is no file of the tree (and git's open
        # of a FIFO would wait for a writer). A file referee cannot read cannot be hashed, and
        # git would refuse the whole tree for it: it is left out as a deleted file is (the
        # checks, run as the same user, cannot read it either).
        if stat.S_ISLNK(info.st_mode):
            links.append(path)
        elif stat.S_ISREG(info.st_mode) and os.access(full, os.R_OK):
            regular.append((path, info.st_mode))
        elif stat.S_ISDIR(info.st_mode) and path in known_links:
            gitlinks.append(("160000", known_links[path], path))  # a submodule: its commit
    return [*_hashed(repo, regular), *_hashed_links(repo, links), *gitlinks]


def _listed(repo: Path) -> tuple[set[str], dict[str, str]]:
    """Tracked and untracked-but-not-ignored paths, and the commits of submodules."""
    staged = git_bytes(repo, "ls-files", "-z", "-s", "--cached")
    gitlinks: dict[str, str] = {}
    names: set[str] = set()
    for entry in filter(None, staged.split(b"\0")):
        meta, _, name = entry.partition(b"\t")
        mode, sha, _stage = meta.decode().split(" ")
        path = os.fsdecode(name)
        names.add(path)
        if mode == "160000":
            gitlinks[path] = sha
    others = git_bytes(repo, "ls-files", "-z", "--others", "--exclude-standard")
    names.update(os.fsdecode(n) for n in filter(None, others.split(b"\0")))
    return names, gitlinks


def _hashed(repo: Path, files: list[tuple[str, int]]) -> list[tuple[str, str, str]]:
    if not files:
        return []
    # -w: the blobs are written, so the tree can be pinned and diffed later. hash-object has no
    # -z: each name goes C-quoted, which git unquotes, so a name holding a line break, a
    # carriage return or a leading quote is read as itself, never as another file's name.
    out = git(
        repo,
        "hash-object",
        "--no-filters",
        "-w",
        "--stdin-paths",
        input_data=b"".join(c_quoted(p) + b"\n" for p, _ in files),
    )
    shas = out.split()
    return [
        ("100755" if mode & stat.S_IXUSR else "100644", sha, path)
        for (path, mode), sha in zip(files, shas, strict=True)
    ]


def _hashed_links(repo: Path, links: list[str]) -> list[tuple[str, str, str]]:
    found = []
    for path in links:
        target = os.fsencode(os.readlink(repo / path))
        sha = git(repo, "hash-object", "-w", "--stdin", input_data=target).strip()
        found.append(("120000", sha, path))
    return found


# Test files are part of the tree hash even when an ignore rule would hide them, and so is every
# file the harness rule names (tools/harness): a conftest.py or a `.pytest.ini` excluded in
# .git/info/exclude still changes every outcome.
_TEST_NAME = re.compile(r"(^test_.*\.py$|_test\.py$|_test\.go$|\.(test|spec)\.[cm]?[jt]sx?$)")
_SKIP_DIRS = frozenset(
    {
        ".git",
        STORE_DIR,
        "node_modules",
        ".venv",
        "venv",
        ".tox",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        "target",
        "dist",
        "build",
        # where editors and tools keep their own state: no run of the tests reads it
        ".idea",
        ".vscode",
        ".gradle",
        ".cache",
        ".next",
        ".nuxt",
        ".svelte-kit",
        ".angular",
        ".turbo",
        ".parcel-cache",
        ".nyc_output",
        ".ruff_cache",
        ".hypothesis",
    }
)
# A folder that says what it is: a virtualenv (the environment check watches it) or a cache
# (https://bford.info/cachedir/): neither is the tree's content.
_FOLDER_MARKS = ("pyvenv.cfg", "CACHEDIR.TAG")


def harness_files(repo: Path, listed: set[str]) -> set[str]:
    """Files that decide test outcomes and are not already listed (ignored ones, that is)."""
    layout = Layout(listed, exists=lambda p: (repo / p).is_file())
    found = set()
    for folder, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
        if folder != str(repo) and any(mark in files for mark in _FOLDER_MARKS):
            dirs[:] = []
            continue
        rel = Path(folder).relative_to(repo)
        for name in files:
            path = (rel / name).as_posix()
            if path in listed:
                continue
            if _TEST_NAME.search(name) or is_harness_file(path, layout, ignored=True):
                found.add(path)
    return found


def tree_files(repo: Path, tree: str) -> list[str]:
    """Every file path of a tree object (empty for a folder outside git)."""
    if tree.startswith("dir:"):
        return []
    return sorted(tree_listing(repo, tree))


def commit_tree_hash(repo: Path, commit: str) -> str:
    """The tree of a commit, read from the verified commit object (objects.py)."""
    return root_tree(repo, commit)


def directory_hash(root: Path) -> str:
    """A content hash of a folder outside git (files sorted by path)."""
    digest = hashlib.sha1()
    for path in sorted(
        p for p in root.rglob("*") if p.is_file() and STORE_DIR not in p.relative_to(root).parts
    ):
        digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        digest.update(hashlib.sha1(path.read_bytes()).digest())
    return "dir:" + digest.hexdigest()


def diff_tree_paths(repo: Path, before: str, after: str) -> list[str]:
    """Paths that differ between two tree hashes (what running the checks wrote)."""
    if before.startswith("dir:") or after.startswith("dir:"):
        return [] if before == after else ["(outside git: content changed)"]
    return sorted({path for path, _, _ in tree_diff(repo, before, after)})
