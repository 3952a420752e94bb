"""A git directory of referee's own for every evaluated repository.

The evaluated repository's `.git` belongs to the player. Its `config` (and every file that config
includes, `includeIf` included), `info/attributes`, hooks, `commondir` and replace refs can all make
an ordinary git command run the player's code or see other content: a clean/smudge filter or a
`process` filter during a diff or a checkout, a textconv or an external diff, an fsmonitor, a
hook, a pager, a credential helper. Neutralising those one by one is a list of known forms; the
boundary is that referee's git never reads that configuration at all.

So every git command referee runs has `GIT_DIR` pointing at a folder referee writes (`config` with
only the format settings git needs to read the objects, no hooks, no `info/`), and reaches the
repository's data through channels that are data only:

- objects: `GIT_OBJECT_DIRECTORY` is the repository's object folder (its `info/alternates` are
  followed, as git does); blobs and trees referee writes (tree hashes, pins) land there;
- refs: the private folder's `refs` is a symbolic link to the repository's, so branch names and
  referee's pins resolve and are written where the user's git sees them; `packed-refs` and
  `shallow` are linked the same way (existing or not); `HEAD` is copied (a symbolic link would
  be read as a legacy symbolic ref);
- the index: a symbolic link to the repository's, read only (referee's commands that write an
  index use a throwaway one, and git replaces rather than writes through a link);
- the work tree: `GIT_WORK_TREE` is the repository's root.

Data is not the same as safe to open. Before git is pointed at it, on every call, each entry of
the repository's git folder that referee's git reaches (HEAD, the index and its shared parts,
commondir, config, packed-refs, shallow, info/exclude, everything under objects/ and refs/, and the
object stores `objects/info/alternates` names) is looked at with lstat: it must be a regular file
or a folder. A FIFO would block every git call until its timeout (git opens it and waits for a
writer), a socket or a device is no git data, and a symbolic link would lead git's reads, and
referee's writes (pins under refs/referee), wherever the player points it. Any other entry is
`UnsafeGitEntry`, a refusal naming the path. Folders already looked at are trusted again only while
their inode change time is what it was (replacing an entry changes it, and no program can set it
back) and older than the clock's last two seconds.

Replace refs are ignored (`GIT_NO_REPLACE_OBJECTS`): a planted `refs/replace/<base>` would
otherwise substitute another commit for the base. The system and global configuration are not
read either (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`); the user's global
`core.excludesFile` is read as data and passed on, so untracked files are listed as the user's own
git lists them.
"""

from __future__ import annotations

import atexit
import codecs
import os
import re
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from referee.tools.errors import InvalidInput, Problem, RefereeError
from referee.tools.text import shown

__all__ = [
    "GitDirError",
    "PrivateGitDir",
    "UnsafeGitEntry",
    "global_excludes_file",
    "private_git_dir",
    "read_small",
    "repository_git_dir",
]


class GitDirError(RefereeError):
    """The repository's git folder cannot be used safely (missing, or laid out to escape)."""


class UnsafeGitEntry(InvalidInput):
    """An entry of the repository's git folder that referee's git would reach is not a regular
    file or a folder: a FIFO, a socket, a device or a symbolic link. Nothing is read through it."""

    def __init__(self, path: Path, what: str) -> None:
        message = (
            f"{shown(str(path))} is {what}: referee's git reads only regular files and folders of"
            " the repository's git folder (a FIFO would hold every git call until its timeout, a"
            " symbolic link would lead git's reads and referee's writes elsewhere); replace it"
            " with what git writes there (`git fsck --full`), or clone the repository again"
        )
        super().__init__([Problem(path="", code="unsafe_git_entry", message=message)], message)
        self.path = path


@dataclass(frozen=True)
class _Layout:
    """Where a repository keeps its git data: the per-worktree folder and the common one."""

    gitdir: Path  # HEAD and index (a linked worktree's own folder)
    common: Path  # objects, refs, packed-refs, shallow, config


@dataclass(frozen=True)
class PrivateGitDir:
    """The environment that points git at the private folder and the repository's data."""

    root: Path
    path: Path
    objects: Path
    head: Path | None  # the repository's HEAD, copied into `path` on every use
    layout: _Layout | None = None  # the repository's git folder (None: a worktree referee added)

    def env(self) -> dict[str, str]:
        # No GIT_INDEX_FILE: git passes it on to the commands it starts itself, so `worktree
        # add` would check the new worktree out into the repository's own index.
        return {
            "GIT_DIR": str(self.path),
            "GIT_WORK_TREE": str(self.root),
            "GIT_OBJECT_DIRECTORY": str(self.objects),
        }

    def refresh(self) -> None:
        """Check what git will reach again, and copy HEAD again when the repository's changed (a
        commit, a checkout).

        Raises:
            UnsafeGitEntry: an entry git would reach is not a regular file or a folder.
        """
        if self.layout is not None:
            check_git_folder(self.layout.gitdir, self.layout.common)
        if self.head is not None:
            _sync_head(self.head, self.path / "HEAD")


# Written into every private folder: the object folder it reads. A worktree referee checks out
# through a private folder links back to it, and is then read through it as it is.
_OBJECTS_MARK = "referee-objects"


_LOCK = threading.Lock()
_DIRS: dict[Path, PrivateGitDir] = {}
_PARENT: list[Path] = []


def private_git_dir(root: Path) -> PrivateGitDir:
    """The private git folder for the repository whose work tree is `root` (made once per
    process, HEAD refreshed on every use).

    Raises:
        GitDirError: `root` holds no usable `.git`, or its refs lead out of its git folder.
        UnsafeGitEntry: an entry git would reach is not a regular file or a folder.
    """
    root = root.resolve()
    with _LOCK:
        found = _DIRS.get(root)
        if found is None or not found.path.is_dir():
            found = _DIRS[root] = _open(root)
    found.refresh()
    return found


def _open(root: Path) -> PrivateGitDir:
    layout = _layout(root)
    mark = layout.common / _OBJECTS_MARK
    # The mark counts only in a folder this process made: planted in the repository's own `.git`
    # (or in the folder a `.git` file names), it would make that folder GIT_DIR, config and all.
    if _made_here(layout.common) and mark.is_file():  # a worktree referee added
        objects = Path(read_small(mark).decode("utf-8", "replace").strip())
        return PrivateGitDir(root, layout.gitdir, objects, None)
    check_git_folder(layout.gitdir, layout.common)  # before anything of it is read
    return _make(root, layout)


def _made_here(folder: Path) -> bool:
    return bool(_PARENT) and _PARENT[0].resolve() in folder.resolve().parents


def repository_git_dir(root: Path) -> Path:
    """The repository's common git folder (objects, refs), read as files only."""
    return _layout(root).common


def _make(root: Path, layout: _Layout) -> PrivateGitDir:
    path = Path(tempfile.mkdtemp(prefix="git-", dir=_parent()))
    (path / "objects").mkdir()  # git insists on the folder; GIT_OBJECT_DIRECTORY is used instead
    _link_refs(layout.common, path)
    # Linked whether or not they exist yet: a `git gc` (or `pack-refs`) after this folder was
    # made writes packed-refs, and the branches and pins it moved there must still resolve. git
    # reads a dangling link as a missing file, and writes through one to where it leads.
    for name in ("packed-refs", "shallow"):
        os.symlink(layout.common / name, path / name)
    # The index is read through a link: git replaces a file it writes (index.lock, renamed), so
    # a write would replace the link, never the repository's index.
    os.symlink(layout.gitdir / "index", path / "index")
    for shared in layout.gitdir.glob("sharedindex.*"):  # a split index names its shared part
        os.symlink(shared, path / shared.name)
    (path / "config").write_text(_config(layout.common), encoding="utf-8")
    # The repository's own ignore list, copied as data (regular file, bounded): it only decides
    # which untracked files the tree lists, and every file that decides test outcomes is listed
    # whatever it says (tree.py). Nothing else of info/ is read (info/attributes names filters).
    (path / "info").mkdir()
    (path / "info" / "exclude").write_bytes(
        read_small(layout.common / "info" / "exclude", _EXCLUDE) + _own_folders(root, layout)
    )
    (path / _OBJECTS_MARK).write_text(str(layout.common / "objects"), encoding="utf-8")
    _sync_head(layout.gitdir / "HEAD", path / "HEAD")
    return PrivateGitDir(root, path, layout.common / "objects", layout.gitdir / "HEAD", layout)


def _own_folders(root: Path, layout: _Layout) -> bytes:
    """Ignore lines for git folders kept inside the work tree (`.git` a file naming
    `gitdir: .modules-x`): git's own folder is never a file of the change."""
    lines = b""
    top = root.resolve()
    for folder in {layout.gitdir, layout.common}:
        if top in folder.parents:
            rel = folder.relative_to(top).as_posix()
            lines += b"\n/" + _glob_escaped(rel).encode("utf-8", "surrogateescape") + b"/\n"
    return lines


def _glob_escaped(path: str) -> str:
    return "".join("\\" + c if c in "*?[]\\!# " else c for c in path)


def _parent() -> Path:
    if not _PARENT:
        parent = Path(tempfile.mkdtemp(prefix="referee-gitdirs-"))
        atexit.register(shutil.rmtree, parent, True)
        _PARENT.append(parent)
    return _PARENT[0]


def _layout(root: Path) -> _Layout:
    dotgit = root / ".git"
    if dotgit.is_file():  # a linked worktree or a submodule: "gitdir: <path>"
        gitdir = _gitfile_target(dotgit)
    elif dotgit.is_dir():
        gitdir = dotgit
    else:
        raise GitDirError(f"{root} is not a git work tree (no .git)")
    common = gitdir
    commondir = gitdir / "commondir"  # a linked worktree shares objects and refs with its main
    if commondir.is_file():
        text = read_small(commondir).decode("utf-8", "replace").strip()
        common = (gitdir / text).resolve()
    if not (common / "objects").is_dir():
        raise GitDirError(
            f"{common} holds no objects folder: not a git repository referee can read"
        )
    return _Layout(gitdir=gitdir.resolve(), common=common.resolve())


def _gitfile_target(dotgit: Path) -> Path:
    text = read_small(dotgit).decode("utf-8", "replace").strip()
    if not text.startswith("gitdir:"):
        raise GitDirError(f"{dotgit} is a file but not a gitdir link")
    return (dotgit.parent / text.removeprefix("gitdir:").strip()).resolve()


def _link_refs(common: Path, private: Path) -> None:
    refs = common / "refs"
    # Pins are written through this link: it must lead into the repository's own git folder,
    # not wherever a planted symbolic link would send referee's writes.
    if refs.is_symlink() or not refs.is_dir():
        raise GitDirError(
            f"{refs} is not a folder of the repository's git data (a symbolic link or missing);"
            " referee does not read or write refs through it"
        )
    os.symlink(refs, private / "refs")


def _config(common: Path) -> str:
    """The private configuration: only what git needs to read this repository's objects.

    The repository's own file is read as data (git config --file, which follows no include and
    runs nothing), for two format settings alone.
    """
    version = _config_value(common / "config", "core.repositoryformatversion") or "0"
    objectformat = _config_value(common / "config", "extensions.objectformat")
    lines = [
        "[core]",
        f"\trepositoryformatversion = {1 if objectformat else int(version == '1')}",
        "\tbare = false",
        "\tlogAllRefUpdates = false",
    ]
    if objectformat:
        lines += ["[extensions]", f"\tobjectformat = {objectformat}"]
    return "\n".join(lines) + "\n"


def _config_value(file: Path, key: str) -> str | None:
    # Read by referee (regular file, without blocking, bounded) and handed to git on stdin:
    # git never opens the file itself.
    data = read_small(file, _CONFIG)
    if not data:
        return None
    try:
        done = subprocess.run(
            ["git", "config", "--file", "-", "--no-includes", "--get", key],
            capture_output=True,
            timeout=10,
            check=False,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_CONFIG_NOSYSTEM": "1"},
            cwd="/",  # no repository is discovered around the caller's folder
            input=data,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    value = done.stdout.decode("utf-8", "replace").strip()
    return value if done.returncode == 0 and value else None


def _sync_head(source: Path, target: Path) -> None:
    data = read_small(source)
    if not data.startswith(b"ref: ") and len(data.strip()) not in (40, 64):
        data = b"ref: refs/heads/main\n"  # unreadable or planted: an unborn branch, never a path
    try:
        if target.read_bytes() == data:
            return
    except OSError:
        pass
    fresh = target.with_name(f"HEAD.{threading.get_ident()}.tmp")
    fresh.write_bytes(data)
    os.replace(fresh, target)


_SMALL = 4096


_EXCLUDE = 256 * 1024
_CONFIG = 1024 * 1024


def read_small(path: Path, limit: int = 0) -> bytes:
    """The first 4 KiB (or `limit` bytes) of a regular file, or b"" (missing, unreadable, or not a
    regular file).

    The files of `.git` that referee reads itself (HEAD, a `.git` file, commondir) are the
    player's: a FIFO there would block the open for ever and a huge (sparse) file would be read
    whole. Opened without blocking, checked to be a regular file, read to a bound.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        return os.read(fd, limit or _SMALL) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    except OSError:
        return b""
    finally:
        os.close(fd)


def global_excludes_file() -> str | None:
    """The user's `core.excludesFile` (global configuration, read as data), if set."""
    home = os.environ.get("HOME")
    xdg = os.environ.get("XDG_CONFIG_HOME") or (f"{home}/.config" if home else None)
    # ~/.gitconfig is read after the XDG file by git, so its value wins.
    candidates = [Path(home) / ".gitconfig"] if home else []
    candidates += [Path(xdg) / "git" / "config"] if xdg else []
    for file in candidates:
        value = _config_value(file, "core.excludesFile")
        if value:
            return os.path.expanduser(value)
    return None


# --- what git reaches, checked ----------------------------------------------------------------

# Single files git opens: HEAD (copied), the index and its shared parts, commondir, and in the
# common folder the configuration (read as data), packed-refs, shallow and info/exclude.
_GITDIR_FILES = ("HEAD", "index", "commondir")
_COMMON_FILES = ("config", "packed-refs", "shallow", "info/exclude")
# What git reaches of an object store: the fan-out folders, packs, and info/ (alternates, the
# commit-graph), with the multi-pack index beside them.
_STORE_ENTRY = re.compile(r"[0-9a-f]{2}|pack|info|multi-pack-index")
_ALTERNATES_DEPTH = 5  # as git's own limit
_ALTERNATES_BYTES = 64 * 1024
# A folder changed this recently is listed again at the next call: a change within the clock's
# granularity (a few ms; seconds on some file systems) may leave its change time as it was.
_RACY_NS = 2_000_000_000
_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFDIR: "a folder where git keeps a file",
}


@dataclass(frozen=True)
class _Listed:
    """A folder whose entries were all regular files or folders: its identity then, and its
    subfolders."""

    stamp: tuple[int, int, int]
    folders: tuple[str, ...]


_CHECK_LOCK = threading.Lock()
_LISTED: dict[str, _Listed] = {}


def check_git_folder(gitdir: Path, common: Path) -> None:
    """Refuse any entry of the repository's git folder that git would reach and that is not a
    regular file or a folder (see the module docstring).

    Raises:
        UnsafeGitEntry: naming the entry and what it is.
    """
    with _CHECK_LOCK:
        for name in _GITDIR_FILES:
            _check_file(os.path.join(gitdir, name))
        for shared in _shared_index_files(str(gitdir)):
            _check_file(shared)
        for name in _COMMON_FILES:
            _check_file(os.path.join(common, name))
        _check_folder(os.path.join(common, "refs"))
        for store in _object_stores(os.path.join(common, "objects")):
            # Only what git reaches of a store: other entries of its folder are no concern.
            _check_folder(store, only=_STORE_ENTRY)


def _shared_index_files(gitdir: str) -> Iterator[str]:
    try:
        names = os.listdir(gitdir)
    except OSError:
        return
    yield from (os.path.join(gitdir, n) for n in names if n.startswith("sharedindex."))


def _check_file(path: str) -> None:
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return  # absent (packed-refs, shallow …): git reads nothing there
    if not stat.S_ISREG(mode):
        raise UnsafeGitEntry(Path(path), _kind(mode))


def _kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _object_stores(objects: str) -> Iterator[str]:
    """The repository's object folder and every store its alternates name, as git follows them
    (relative to the store naming them, five levels at most); each store's alternates file is
    checked before it is read."""
    level, seen = [objects], set()
    for _ in range(_ALTERNATES_DEPTH + 1):
        deeper = []
        for store in level:
            if store in seen:
                continue
            seen.add(store)
            yield store
            deeper += _alternates(store)
        level = deeper


def _alternates(store: str) -> list[str]:
    path = os.path.join(store, "info", "alternates")
    _check_file(path)
    data = read_small(Path(path), _ALTERNATES_BYTES + 1)
    if len(data) > _ALTERNATES_BYTES:
        raise UnsafeGitEntry(Path(path), f"larger than {_ALTERNATES_BYTES // 1024} KiB")
    found = []
    for raw in data.split(b"\n"):
        line = raw.strip()
        if not line or line.startswith(b"#"):
            continue
        if line.startswith(b'"') and line.endswith(b'"'):  # git C-quotes an unusual path
            line = codecs.escape_decode(line[1:-1])[0]
        found.append(os.path.realpath(os.path.join(store, os.fsdecode(line))))
    return found


def _check_folder(top: str, only: re.Pattern[str] | None = None) -> None:
    """Every entry under `top` a regular file or a folder (at its top, only the names `only`
    matches); folders unchanged since they were listed, and not racily so, are not listed again.
    """
    now = time.time_ns()
    stack = [(top, only)]
    while stack:
        folder, names = stack.pop()
        try:
            info = os.lstat(folder)
        except OSError:
            _LISTED.pop(folder, None)
            continue  # absent: an alternate git skips, or gone meanwhile
        if not stat.S_ISDIR(info.st_mode):
            raise UnsafeGitEntry(Path(folder), _kind(info.st_mode))
        stamp = (info.st_dev, info.st_ino, info.st_ctime_ns)
        listed = _LISTED.get(folder)
        if listed is None or listed.stamp != stamp or info.st_ctime_ns > now - _RACY_NS:
            listed = _Listed(stamp, _listed(folder, names))
            _LISTED[folder] = listed
        stack += [(os.path.join(folder, name), None) for name in listed.folders]


def _listed(folder: str, only: re.Pattern[str] | None) -> tuple[str, ...]:
    folders = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return ()
    for entry in entries:
        if only is not None and not only.fullmatch(entry.name):
            continue
        # d_type from the listing, lstat where the file system gives none: never followed.
        if entry.is_dir(follow_symlinks=False):
            folders.append(entry.name)
        elif not entry.is_file(follow_symlinks=False):
            try:
                mode = os.lstat(entry.path).st_mode
            except OSError:
                continue  # gone since the listing: nothing there for git to open
            raise UnsafeGitEntry(Path(entry.path), _kind(mode))
    return tuple(folders)
