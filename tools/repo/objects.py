"""The repository's objects read as untrusted data: each one checked against its name.

git reads a loose or packed object without checking that its content hashes to its name (only
`git fsck` does). The object folder, its packs and the alternate stores it names belong to the
player, who can rewrite the base's test file under its old name, serve another one from a store
of their own, or rewrite the base's tree to name other blobs. So referee reads every commit, tree
and blob it uses itself: requested through `git cat-file --batch` (one process per batch: one per
level of a tree, one per few hundred blobs), hashed as git hashes it (`<type> <size>\\0<content>`,
SHA-1 or SHA-256 by the length of the name) and compared with the name it was asked for. Trees are
parsed here from their binary form, never listed by git. A mismatch, or a tree no git would write
(an entry named `..` or holding a `/`), is `BadObject`: a refusal that names the object and
where it was reached, never content a verdict is built on.

A verified object's content is fixed by its name, so parsed trees (and the tree of a commit)
are cached by name, across calls and repositories.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Generic, TypeVar

from referee.tools.errors import InvalidInput, Problem
from referee.tools.repo.git import GitError, git, git_bytes

__all__ = [
    "BadObject",
    "Change",
    "Entry",
    "commit_trees",
    "read_blobs",
    "root_tree",
    "tree_diff",
    "tree_listing",
]

Entry = tuple[str, str]
"""(mode, sha) of a path in a tree."""

Change = tuple[str, Entry | None, Entry | None]
"""A path whose entry differs between two trees: (path, before, after); None where absent."""

TREE_MODE = "040000"
_NAME = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
_BLOB_BATCH = 512


class BadObject(InvalidInput):
    """An object of the repository whose content does not hash to its name, or that no git
    writes: the repository's `.git` was rewritten, and nothing read from it is judged."""

    def __init__(self, name: str, kind: str, where: str, why: str) -> None:
        message = (
            f"the {kind} {name} ({where}) {why}: the repository's objects were rewritten, so"
            " referee judges nothing read from them (`git fsck --full` names the damage;"
            " fetch or clone the repository again)"
        )
        super().__init__([Problem(path="", code="bad_object", message=message)], message)
        self.name = name


def read_blobs(
    repo: Path, shas: Collection[str], where: Mapping[str, str] | None = None
) -> dict[str, bytes]:
    """The verified content of each blob; blobs git does not have are left out.

    Args:
        where: A path for each sha, named in the refusal.

    Raises:
        BadObject: a blob does not hash to its name.
    """
    unique = sorted(set(shas))
    found: dict[str, bytes] = {}
    for start in range(0, len(unique), _BLOB_BATCH):  # bounded memory on a large tree
        found.update(_verified(repo, unique[start : start + _BLOB_BATCH], "blob", where or {}))
    return found


def root_tree(repo: Path, rev: str, *, fresh: bool = False) -> str:
    """The tree a commit, a tag or a tree names, every object on the way verified (`fresh`: read
    again even when this process verified it before, as when git has just refused it).

    Raises:
        GitError: `rev` names no object.
        BadObject: an object on the way does not hash to its name, or is not what it says.
    """
    name = _full_name(repo, rev)
    for _ in range(8):  # a tag of a tag …: bounded
        if not fresh and _TREES.get(name) is not None:
            return name
        tree = None if fresh else _COMMITS.get(name)
        if tree is not None:
            return tree
        kind, data = _any(repo, name, rev)
        if kind == "tree":
            _TREES.put(name, _parse_tree(name, data, rev))
            return name
        if kind == "commit":
            return _commit_tree(name, data, rev)
        if kind != "tag":
            raise BadObject(name, kind, rev, "is not a commit, a tag or a tree")
        name = _header(name, data, b"object", "tag", rev)
    raise GitError(f"{rev}: too many tags in a row")


def commit_trees(repo: Path, commits: Sequence[str]) -> dict[str, str]:
    """The tree of each commit (given by full name), read in one batch; absent ones left out."""
    found = {c: t for c in commits if (t := _COMMITS.get(c)) is not None}
    wanted = [c for c in commits if c not in found]
    for name, data in _verified(repo, wanted, "commit", {}).items():
        found[name] = _commit_tree(name, data, f"commit {name}")
    return found


def tree_listing(repo: Path, tree: str, paths: Collection[str] | None = None) -> dict[str, Entry]:
    """(mode, sha) of every file, symbolic link and submodule of a tree, or of `paths` only.

    Only the subtrees that can hold a wanted path are read (one batch per level).
    """
    wanted = None if paths is None else set(paths)
    folders = None if wanted is None else {f for p in wanted for f in _parents(p)}
    found: dict[str, Entry] = {}
    level = [("", root_tree(repo, tree))]
    while level:
        trees = _trees(repo, {sha: prefix or "the root" for prefix, sha in level})
        deeper = []
        for prefix, sha in level:
            for mode, name, child in trees[sha]:
                path = prefix + name
                if mode == TREE_MODE:
                    if folders is None or path in folders:
                        deeper.append((path + "/", child))
                elif wanted is None or path in wanted:
                    found[path] = (mode, child)
        level = deeper
    return found


def tree_diff(repo: Path, old: str, new: str) -> list[Change]:
    """Every file whose entry differs between two trees, as `git diff-tree -r` lists them (a
    file that became a folder is a deletion and additions); equal subtrees are not read."""
    changes: list[Change] = []
    level: list[tuple[str, str | None, str | None]] = [
        ("", root_tree(repo, old), root_tree(repo, new))
    ]
    while level:
        names = {s: p or "the root" for p, a, b in level for s in (a, b) if s is not None}
        trees = _trees(repo, names)
        deeper = []
        for prefix, a, b in level:
            left = {n: (m, s) for m, n, s in trees[a]} if a else {}
            right = {n: (m, s) for m, n, s in trees[b]} if b else {}
            for name in sorted(left.keys() | right.keys()):
                before, after = left.get(name), right.get(name)
                if before == after:
                    continue
                sub_a, file_a = _split(before)
                sub_b, file_b = _split(after)
                if sub_a or sub_b:
                    deeper.append((prefix + name + "/", sub_a, sub_b))
                if file_a or file_b:
                    changes.append((prefix + name, file_a, file_b))
        level = deeper
    return sorted(changes)


def _split(entry: Entry | None) -> tuple[str | None, Entry | None]:
    """A tree entry as (subtree sha, None) or (None, file entry)."""
    if entry is None:
        return None, None
    return (entry[1], None) if entry[0] == TREE_MODE else (None, entry)


# --- reading and checking ------------------------------------------------------------------


def _full_name(repo: Path, rev: str) -> str:
    if _NAME.fullmatch(rev):
        return rev
    out = git(repo, "rev-parse", "--verify", "-q", "--end-of-options", rev).strip()
    if not _NAME.fullmatch(out):
        raise GitError(f"{rev!r} names no object")
    return out


def _any(repo: Path, name: str, where: str) -> tuple[str, bytes]:
    found = _batch(repo, [name])
    if name not in found:
        raise GitError(f"{where}: the object {name} is missing")
    kind, data = found[name]
    _check(name, kind, data, where)
    return kind, data


def _verified(
    repo: Path, names: Sequence[str], kind: str, where: Mapping[str, str]
) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for name, (got, data) in _batch(repo, names).items():
        label = where.get(name, f"{kind} {name}")
        if got != kind:
            raise BadObject(name, got, label, f"is a {got} where a {kind} is named")
        _check(name, got, data, label)
        found[name] = data
    return found


def _batch(repo: Path, names: Sequence[str]) -> dict[str, tuple[str, bytes]]:
    """(type, content) of each named object git has, in one `cat-file --batch`."""
    for name in names:
        if not _NAME.fullmatch(name):  # a request line of its own making: only full names
            raise GitError(f"{name!r} is not an object name")
    if not names:
        return {}
    out = git_bytes(
        repo, "cat-file", "--batch", input_data="".join(f"{n}\n" for n in names).encode()
    )
    found: dict[str, tuple[str, bytes]] = {}
    at = 0
    for name in names:
        end = out.index(b"\n", at)
        header = out[at:end].split(b" ")
        at = end + 1
        if len(header) != 3:
            continue  # "<name> missing"
        size = int(header[2])
        found[name] = (header[1].decode("ascii", "replace"), out[at : at + size])
        at += size + 1
    return found


def _check(name: str, kind: str, data: bytes, where: str) -> None:
    algorithm = "sha1" if len(name) == 40 else "sha256"
    digest = hashlib.new(algorithm, b"%s %d\0" % (kind.encode(), len(data)) + data).hexdigest()
    if digest != name:
        why = f"does not hash to its name (its content hashes to {digest})"
        raise BadObject(name, kind, where, why)


def _commit_tree(name: str, data: bytes, where: str) -> str:
    tree = _header(name, data, b"tree", "commit", where)
    _COMMITS.put(name, tree)
    return tree


def _header(name: str, data: bytes, field: bytes, kind: str, where: str) -> str:
    """The object named on a commit's `tree` line or a tag's `object` line (the first line)."""
    first = data.split(b"\n", 1)[0]
    value = first.removeprefix(field + b" ").decode("ascii", "replace")
    if not first.startswith(field + b" ") or len(value) != len(name) or not _NAME.fullmatch(value):
        raise BadObject(name, kind, where, f"has no {field.decode()} line git would write")
    return value


# --- trees ---------------------------------------------------------------------------------

_Tree = tuple[tuple[str, str, str], ...]  # (mode, name, sha) of each entry


def _trees(repo: Path, wanted: Mapping[str, str]) -> dict[str, _Tree]:
    """Each tree (name -> where it was reached), parsed: from the cache, or one batch."""
    found: dict[str, _Tree] = {}
    for name in wanted:
        cached = _TREES.get(name)
        if cached is not None:
            found[name] = cached
    missing = [n for n in wanted if n not in found]
    read = _verified(repo, missing, "tree", wanted)
    for name in missing:
        if name not in read:
            raise GitError(f"the tree {name} ({wanted[name]}) is missing from the repository")
        found[name] = _TREES.put(name, _parse_tree(name, read[name], wanted[name]))
    return found


def _parse_tree(name: str, data: bytes, where: str) -> _Tree:
    raw = len(name) // 2
    entries = []
    at = 0
    try:
        while at < len(data):
            space = data.index(b" ", at)
            nul = data.index(b"\0", space)
            mode = int(data[at:space], 8)
            entry = data[space + 1 : nul]
            sha = data[nul + 1 : nul + 1 + raw]
            at = nul + 1 + raw
            if len(sha) != raw or entry in (b"", b".", b"..") or b"/" in entry:
                raise ValueError(entry)
            entries.append((_canonical(mode), os.fsdecode(entry), sha.hex()))
    except ValueError:
        raise BadObject(name, "tree", where, "is not a tree git would write") from None
    return tuple(entries)


def _canonical(mode: int) -> str:
    """The mode as git's tree walk reports it (tree-walk.c, canon_mode)."""
    kind = mode & 0o170000
    if kind == 0o100000:
        return "100755" if mode & 0o100 else "100644"
    if kind == 0o120000:
        return "120000"
    if kind == 0o040000:
        return TREE_MODE
    return "160000"


def _parents(path: str) -> Iterable[str]:
    parts = path.split("/")[:-1]
    return ("/".join(parts[: i + 1]) for i in range(len(parts)))


# --- the cache of verified objects ----------------------------------------------------------

V = TypeVar("V")


class _Lru(Generic[V]):
    """A bounded map, safe across the threads evaluations read the repository from."""

    def __init__(self, size: int) -> None:
        self._size, self._lock = size, threading.Lock()
        self._items: OrderedDict[str, V] = OrderedDict()

    def get(self, key: str) -> V | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: str, value: V) -> V:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value


_TREES: _Lru[_Tree] = _Lru(16384)
_COMMITS: _Lru[str] = _Lru(4096)
