"""Pins: every evaluated tree kept under a ref of referee's own, so it can be restored.

The tree hash of an evaluation is a real tree object (tree.py writes its blobs), but nothing
refers to it, so `git gc` would eventually drop it, and the working tree only ever holds the last
attempt. Each evaluation therefore wraps its tree in a commit (parent: the commit it was evaluated
on) and points `refs/referee/<contract>/<iteration>` at it. `restore` writes a pinned tree back
into the working tree, byte for byte, refusing to overwrite content that is neither committed nor
pinned; `drop_pins` removes a contract's refs. All of it through referee's hardened git.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from referee.tools.errors import RefereeError
from referee.tools.repo.git import GitError, git
from referee.tools.repo.gitdir import GitDirError, repository_git_dir
from referee.tools.repo.info import head_commit, repository_root
from referee.tools.repo.objects import commit_trees, read_blobs, tree_listing
from referee.tools.repo.tree import commit_tree_hash, tree_entries, working_tree_hash
from referee.tools.text import counted

__all__ = [
    "PIN_PREFIX",
    "Pin",
    "RestoreRefused",
    "Restored",
    "checkout_command",
    "drop_pins",
    "pin_ref",
    "pin_tree",
    "pins",
    "restore_tree",
    "start_branch",
]

PIN_PREFIX = "refs/referee"
_IDENTITY = ("referee", "referee@localhost")


class RestoreRefused(RefereeError):
    """The working tree holds work that restoring would lose, or the target cannot be written."""


@dataclass(frozen=True)
class Pin:
    iteration: int
    ref: str
    commit: str
    tree: str


@dataclass
class Restored:
    """What `restore_tree` changed in the working tree."""

    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def pin_ref(contract_id: str, iteration: int) -> str:
    return f"{PIN_PREFIX}/{contract_id}/{iteration}"


def checkout_command(contract_id: str, iteration: int) -> str:
    """The command line that restores a pinned iteration."""
    return f"referee checkout {contract_id} --iteration {iteration}"


def pin_tree(
    repo: Path, contract_id: str, iteration: int, tree: str, parent: str | None, when: datetime
) -> str:
    """Point `refs/referee/<contract>/<iteration>` at a commit wrapping `tree`; returns the ref.

    Raises:
        GitError: git refused (e.g. a read-only repository).
    """
    stamp = f"{int(when.timestamp())} +0000"
    env = {
        "GIT_AUTHOR_NAME": _IDENTITY[0],
        "GIT_AUTHOR_EMAIL": _IDENTITY[1],
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_NAME": _IDENTITY[0],
        "GIT_COMMITTER_EMAIL": _IDENTITY[1],
        "GIT_COMMITTER_DATE": stamp,
    }
    message = f"referee: {contract_id} iteration {iteration}, the tree it evaluated"
    args = ["commit-tree", "--no-gpg-sign", tree, "-m", message]
    commit = git(repo, *args, *(["-p", parent] if parent else []), env=env).strip()
    ref = pin_ref(contract_id, iteration)
    _write_ref(repo, ref, commit)
    return ref


def _write_ref(repo: Path, ref: str, commit: str) -> None:
    """Point `ref` at `commit` in the repository's own git folder, written by referee as git
    writes a loose ref (a lock file renamed into place).

    Not `git update-ref`: git follows a symbolic link on the way (`refs/referee` planted to point
    elsewhere), and would write wherever the player pointed it. Here each folder on the way is
    opened from the one before without following links (O_NOFOLLOW), so a link planted before or
    during the write fails it instead (the evaluation then says the tree could not be pinned).

    Raises:
        GitError: the ref cannot be written there.
    """
    *folders, name = ref.split("/")
    if any(part in ("", ".", "..") for part in (*folders, name)):
        raise GitError(f"{ref!r} is not a ref name referee writes")
    root = repository_root(repo) or repo
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    try:
        fd = os.open(repository_git_dir(root), os.O_RDONLY | os.O_DIRECTORY)
    except (OSError, GitDirError) as exc:
        raise GitError(f"cannot write {ref}: {exc}") from exc
    try:
        for part in folders:
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, dir_fd=fd)
            inner = os.open(part, flags, dir_fd=fd)
            os.close(fd)
            fd = inner
        lock = os.open(
            f"{name}.lock", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666, dir_fd=fd
        )
        try:
            os.write(lock, f"{commit}\n".encode("ascii"))
        finally:
            os.close(lock)
        os.rename(f"{name}.lock", name, src_dir_fd=fd, dst_dir_fd=fd)
    except OSError as exc:
        raise GitError(f"cannot write {ref}: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)


def pins(repo: Path, contract_id: str) -> list[Pin]:
    """The pinned iterations of a contract, in iteration order.

    Raises:
        BadObject: a pin's commit does not hash to its name.
    """
    named = _pin_refs(repo, contract_id)
    # The tree of each pin from its verified commit: git's %(tree) reads the object unchecked.
    trees = commit_trees(repo, sorted({commit for _, commit in named.values()}))
    found = [
        Pin(iteration=number, ref=ref, commit=commit, tree=trees[commit])
        for ref, (number, commit) in named.items()
        if commit in trees
    ]
    return sorted(found, key=lambda p: p.iteration)


def _pin_refs(repo: Path, contract_id: str) -> dict[str, tuple[int, str]]:
    """Each pin ref of a contract: (iteration, commit), as the refs say."""
    prefix = f"{PIN_PREFIX}/{contract_id}/"
    out = git(repo, "for-each-ref", "--format=%(refname) %(objectname)", prefix)
    named = {}
    for line in out.splitlines():
        ref, commit = line.split(" ")
        number = ref.removeprefix(prefix)
        if number.isdigit():
            named[ref] = (int(number), commit)
    return named


def drop_pins(repo: Path, contract_id: str) -> list[int]:
    """Delete every pin of a contract (its objects are not read); returns the iterations
    dropped."""
    named = _pin_refs(repo, contract_id)
    if named:
        script = "".join(f"delete {ref} {commit}\n" for ref, (_, commit) in named.items())
        git(repo, "update-ref", "--stdin", input_data=script.encode("utf-8"))
    return sorted(number for number, _ in named.values())


def start_branch(repo: Path, name: str, pin: Pin) -> None:
    """A new branch at the pin's commit (its parent is the commit the iteration was evaluated on).

    Raises:
        RestoreRefused: the name is not a valid branch name, or the branch exists.
    """
    try:
        git(repo, "check-ref-format", "--branch", name)
    except GitError as exc:
        raise RestoreRefused(f"{name!r} is not a valid branch name") from exc
    try:
        git(repo, "branch", "--no-track", name, pin.commit)
    except GitError as exc:
        raise RestoreRefused(f"cannot create branch {name}: {exc}") from exc


def restore_tree(repo: Path, target: str, safe_trees: set[str], force: bool) -> Restored:
    """Write the tree `target` into the working tree of `repo`: changed and new files written,
    files it does not hold deleted; ignored files (not part of any evaluated tree) are untouched.

    Args:
        repo: The repository root.
        target: The tree to restore.
        safe_trees: Trees whose content is kept elsewhere (the pins); a working tree equal to one
            of them, or to HEAD's tree, may be overwritten without `force`.
        force: Overwrite whatever the working tree holds.

    Raises:
        RestoreRefused: the working tree holds content that is neither committed nor pinned.
    """
    current = working_tree_hash(repo)
    if current == target:
        return Restored()
    head = head_commit(repo)
    kept = safe_trees | ({commit_tree_hash(repo, head)} if head else set())
    if current not in kept and not force:
        raise RestoreRefused(
            "the working tree holds uncommitted work that no pin keeps; commit or stash it, restore"
            " to a new branch with --branch NAME, or overwrite it with --force"
        )
    now = {path: (mode, sha) for mode, sha, path in tree_entries(repo)}
    wanted = tree_listing(repo, target)
    changed = {p: e for p, e in wanted.items() if now.get(p) != e}
    files = {sha: p for p, (mode, sha) in changed.items() if mode != "160000"}
    blobs = read_blobs(repo, files, files)
    for sha, path in files.items():
        if sha not in blobs:
            raise RestoreRefused(f"cannot restore {path}: its blob {sha} is missing")
    done = Restored()
    try:
        for path in sorted(set(now) - set(wanted), reverse=True):
            _delete(repo, path)
            done.deleted.append(path)
        for path, (mode, sha) in sorted(changed.items()):
            if mode == "160000":
                done.skipped.append(path)  # a submodule's commit: `git submodule update` does it
                continue
            _write(repo, path, mode, blobs[sha])
            done.written.append(path)
    except OSError as exc:
        raise RestoreRefused(
            f"stopped after {counted(len(done.deleted), 'deletion')} and"
            f" {counted(len(done.written), 'write')}:"
            f" {exc.filename or ''}: {exc.strerror or exc}; fix that and run checkout again"
        ) from exc
    return done


def _inside(repo: Path, path: str) -> Path:
    """The file's place in the working tree; refuses any parent that is a symlink (it could lead
    out of the repository) and anything under .git."""
    parts = Path(path).parts
    if not parts or parts[0] == ".git" or ".." in parts or Path(path).is_absolute():
        raise RestoreRefused(f"refusing to write {path!r}: not a path inside the working tree")
    here = repo
    for part in parts[:-1]:
        here = here / part
        if here.is_symlink():
            raise RestoreRefused(f"refusing to write {path}: {here.relative_to(repo)} is a symlink")
    return repo / path


def _delete(repo: Path, path: str) -> None:
    target = _inside(repo, path)
    if target.is_symlink() or target.is_file():
        target.unlink()
    parent = target.parent
    while parent != repo and parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent


def _write(repo: Path, path: str, mode: str, content: bytes) -> None:
    target = _inside(repo, path)
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        target.unlink()
    elif target.is_dir():
        raise RestoreRefused(f"cannot restore {path}: a folder stands in its place")
    target.parent.mkdir(parents=True, exist_ok=True)
    if mode == "120000":
        os.symlink(os.fsdecode(content), target)
        return
    target.write_bytes(content)
    executable = stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH
    current = target.stat().st_mode
    target.chmod(current | executable if mode == "100755" else current & ~executable)
