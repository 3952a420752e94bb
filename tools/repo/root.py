"""Where a git work tree starts, found from files alone (no git process runs)."""

from __future__ import annotations

from pathlib import Path

from referee.tools.repo.gitdir import read_small


def repository_root(path: Path) -> Path | None:
    """The top of the git work tree containing `path`, or None outside git (or in a bare one).

    Found by reading files only, walking up from `path` as GitPython's
    `Repo(path, search_parent_directories=True)` does: no git process runs, and none of the
    repository's configuration is read. (Importing GitPython for this cost every CLI command a
    tenth of a second.)
    """
    try:
        start = path.resolve(strict=True)
    except OSError:
        return None
    for folder in (start, *start.parents):
        dotgit = folder / ".git"
        # A `.git` folder counts by its objects and refs alone: HEAD is the player's, and a
        # deleted HEAD (or a folder in its place) would otherwise pass the repository off as a
        # plain folder, with no base and so no base form of the tests it edited. referee's own
        # git folder reads such a HEAD as an unborn branch (gitdir.py).
        if _holds_git_data(dotgit) or _is_gitfile(dotgit):
            return folder
        if _is_git_dir(folder):
            return None  # a bare repository, or inside a .git folder: no work tree
    return None


def _holds_git_data(folder: Path) -> bool:
    return (folder / "objects").is_dir() and (folder / "refs").is_dir()


def _is_git_dir(folder: Path) -> bool:
    return (
        (folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir()
    )


def _is_gitfile(file: Path) -> bool:
    """A worktree's or a submodule's `.git` file: `gitdir: <path>`."""
    return read_small(file).startswith(b"gitdir:")
