"""Files git is told to ignore, written while the generator worked, that the checks run with.

The tree hash and the change's diff list what git lists: tracked files and untracked ones no
ignore rule hides. Ignore rules are the player's to write (`.git/info/exclude`, a `.gitignore`
line the change adds, the user's own global ignore file), yet every run still sees the ignored
files on disk: a module imported by the changed code, a `.env.test.local` that vite loads in test
mode, an `.npmrc` in a folder. So an ignored file that can run or steer a run (source code in any
language referee reads, a text file without a suffix that a resolver loads as a script, or a
hidden file where tools keep settings), or a file of data the change's strings name (its name
or its stem as a string, a data format in a folder they name: `Path(__file__).parent / "data" /
"local.json"`), and whose inode change time is later than the contract's creation (no program
can set a ctime back) is reported with its path: the checks ran with it, and no reader and no
diff saw it.

Left out: what runs write as they go and no check reads as code (caches, coverage data, installed
environments, which installed.py watches) and the output folders of builds (`build`, `dist`,
`target`), which a check that reads them builds itself; unless a file of the change names such a
folder in a string as a path (`sys.path.insert(0, "build")`): then it is walked like any other
(`node_modules` and `target` never are).
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Collection, Mapping
from pathlib import Path

from referee.tools.static.paths import is_test_path, language_of

__all__ = ["ignored_files"]

_SKIP = frozenset(
    {
        ".referee",
        "node_modules",
        "__pycache__",
        "target",
        "dist",
        "build",
        "htmlcov",
        "coverage",
        ".nyc_output",
        ".tox",
        ".nox",
        ".gradle",
        ".idea",
        ".vscode",
        ".next",
        ".nuxt",
        ".svelte-kit",
        ".angular",
        ".turbo",
        ".hypothesis",
        "test-results",
        "playwright-report",
    }
)
# Never walked, whatever the change names: installed packages (installed.py watches them),
# referee's own folder, and Rust's and Maven's build folder (a build writes generated code there).
_ALWAYS_SKIP = frozenset({".referee", "node_modules", "target"})
# A folder that says what it is: a virtualenv, or a cache (https://bford.info/cachedir/).
_MARKS = ("pyvenv.cfg", "CACHEDIR.TAG")
# What an install writes beside the code (`src/calc.egg-info/PKG-INFO`): installed.py's concern.
_INSTALL_RECORDS = (".egg-info", ".dist-info")
# What the tools write beside the code as they run: a test or coverage report, a log, a build's
# incremental record. Left out of the files found only by where they are.
_OUTPUT = re.compile(r"(?i)junit|coverage|lcov|\.log$|\.tsbuildinfo$|\.pid$")
# Hidden files tools write for themselves as they run (coverage data, a finder's index).
_TOOL_MARKS = (".coverage", ".DS_Store", ".eslintcache", ".stylelintcache")
_EDITOR_MARKS = (".swp", ".swo", "~")
_MAX_SEEN = 200_000


def ignored_files(
    tree: Path, listed: Collection[str], anchor: float, named: Mapping[str, str] | None = None
) -> list[str]:
    """Files of `tree` on disk that `listed` (the evaluated tree's files) leaves out, that can
    run or steer a run, written after `anchor` (a POSIX time: the contract's creation).

    Args:
        named: The change's files and their texts. A build or cache folder one of them names
            in a string as a path (`sys.path.insert(0, "build")`, `require("../dist/impl")`) is
            walked like any other, and a code file a string names by its path (Rust's
            `include!("../target/gen.rs")`) is looked at wherever it is.
    """
    known = set(listed)
    wanted, paths, words = _named(named or {})
    beside = _code_folders(named or {})
    found = [
        p
        for p in paths
        if p not in known and (tree / p).is_file() and _written_after(tree / p, anchor)
    ]
    seen = 0
    for folder, dirs, files in os.walk(tree):
        here = Path(folder)
        marked = folder != str(tree) and any(mark in files for mark in _MARKS)
        if marked and not ("CACHEDIR.TAG" in files and here.name in wanted):
            dirs[:] = []
            continue
        dirs[:] = [d for d in dirs if d not in _ALWAYS_SKIP and (d in wanted or _walked(d))]
        rel = here.relative_to(tree)
        for name in dirs:
            # A folder git ignores that is a link (`data` -> `../build/assets`): the walk does
            # not follow it, the runs do.
            path = (rel / name).as_posix()
            if (here / name).is_symlink() and path not in known and path not in found:
                if _written_after(here / name, anchor):
                    found.append(path)
        if here.name == ".git" and here.parent == tree:
            # The git folder too (code can put it on its path); its object store holds no
            # file of a name a run imports.
            dirs[:] = [d for d in dirs if d != "objects"]
        near = _near(rel.as_posix() if rel.parts else "", beside)
        named_folder = any(part in wanted for part in rel.parts)
        for name in files:
            seen += 1
            if seen > _MAX_SEEN:
                return sorted(found)
            path = (rel / name).as_posix()
            if path in known or not _written_after(here / name, anchor):
                continue
            if path.startswith(".git/"):
                # Git's own files (the index, refs, logs, hooks, referee's pins) are written by
                # every commit and have everyday names (`index`, `main`, `HEAD`, `1`): only
                # code by its suffix, or another file a string of the change names, counts.
                steers = language_of(path) is not None or (
                    not _gits_own(path) and _read(here / name, words)
                )
            else:
                steers = (
                    _steers(path, name)
                    or _script(here / name, name)
                    or _read(here / name, words)
                    or ((named_folder or near) and _placed(here / name))
                )
            if steers and path not in found:
                found.append(path)
    return sorted(found)


def _walked(folder: str) -> bool:
    return (
        folder not in _SKIP
        and "cache" not in folder.lower()
        and not folder.endswith(_INSTALL_RECORDS)
    )


# What git itself keeps in its folder (gitrepository-layout(5)): the first name under `.git/`.
_GIT_LAYOUT = frozenset(
    {
        "index",
        "HEAD",
        "ORIG_HEAD",
        "FETCH_HEAD",
        "MERGE_HEAD",
        "CHERRY_PICK_HEAD",
        "REVERT_HEAD",
        "REBASE_HEAD",
        "BISECT_LOG",
        "AUTO_MERGE",
        "COMMIT_EDITMSG",
        "MERGE_MSG",
        "MERGE_MODE",
        "SQUASH_MSG",
        "TAG_EDITMSG",
        "packed-refs",
        "config",
        "description",
        "shallow",
        "sharedindex",
        "refs",
        "logs",
        "hooks",
        "info",
        "objects",
        "worktrees",
        "modules",
        "rr-cache",
        "sequencer",
        "rebase-merge",
        "rebase-apply",
        "branches",
        "remotes",
    }
)


def _gits_own(path: str) -> bool:
    """A file of git's layout under `.git/` (its lock files too: `index.lock`)."""
    first = path.split("/")[1]
    return first.removesuffix(".lock") in _GIT_LAYOUT or first.startswith("sharedindex.")


def _read(path: Path, words: frozenset[str]) -> bool:
    """A file the change's code can be reading by its name: a string holds its name or its
    stem (`"local" + ".json"`). A program built here is no data (a Go binary named for its
    module)."""
    name = path.name
    stem, dot, _suffix = name.rpartition(".")
    if not (name in words or (bool(dot) and len(stem) >= 3 and stem in words)):
        return False
    return bool(dot) or not _executable(path)


def _placed(path: Path) -> bool:
    """A file found by where it is (beside the changed code, in a folder the change names)
    that no tool wrote as it ran, and no program built here."""
    name = path.name
    if name in _MARKS or name.startswith(_TOOL_MARKS) or _OUTPUT.search(name):
        return False
    return not _executable(path)


def _executable(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            head = file.read(4)
    except OSError:
        return False
    return head.startswith((b"\x7fELF", b"MZ", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe"))


def _code_folders(texts: Mapping[str, str]) -> frozenset[str]:
    """The folders of the change's source files (not its tests)."""
    return frozenset(
        posixpath.dirname(p) for p in texts if language_of(p) is not None and not is_test_path(p)
    )


def _near(folder: str, code: frozenset[str]) -> bool:
    """Whether a folder is one of the change's source folders or below one (the root counts
    for its own files only: every folder is below it)."""
    if folder in code:
        return True
    return any(c and folder.startswith(f"{c}/") for c in code)


# A folder name in a string, as a path's part: "build", './dist/x', "../.hypothesis/".
_PATH_PART = re.compile(r"""(?:^|[\\/"'`])([.\w-]{1,64})(?=$|[\\/"'`])""")
_MAX_NAMED = 4 * 1024 * 1024


def _named(texts: Mapping[str, str]) -> tuple[frozenset[str], list[str], frozenset[str]]:
    """What the strings of the change's files name, read in one pass: every path part (a folder
    the walk would skip, or stop at for its cache mark, is walked when one of them names it),
    every code file a string names by a path, from the file's own folder or the tree's root,
    kept inside the tree, and every string's last path part (a file's name or stem)."""
    parts: set[str] = set()
    words: set[str] = set()
    files: list[str] = []
    budget = _MAX_NAMED
    for path, text in texts.items():
        budget -= len(text)
        if budget < 0:
            break
        here = posixpath.dirname(path)
        for literal in _STRING.findall(text):
            parts.update(_PATH_PART.findall(literal))
            name = literal[1:-1].strip()
            words.add(posixpath.basename(name))
            if "/" not in name or language_of(name) is None:
                continue
            for candidate in (posixpath.join(here, name), name):
                rel = posixpath.normpath(candidate)
                if not rel.startswith(("../", "/")) and rel != ".." and rel not in files:
                    files.append(rel)
    return frozenset(parts - _ALWAYS_SKIP), files, frozenset(words)


_STRING = re.compile(r""""[^"\n]{0,512}"|'[^'\n]{0,512}'|`[^`\n]{0,512}`""")


def _steers(path: str, name: str) -> bool:
    """Code a run may import, or a hidden file where a tool may keep settings (`.env.local`,
    `.npmrc`)."""
    if language_of(path) is not None:
        return True
    return (
        name.startswith(".")
        and "cache" not in name.lower()
        and not name.startswith(_TOOL_MARKS)
        and not name.endswith(_EDITOR_MARKS)
    )


def _script(path: Path, name: str) -> bool:
    """A text file without a suffix: node's and vite's resolvers load `./impl` as a script (a
    built binary, which has no suffix either, is no text)."""
    if "." in name:
        return False
    try:
        with path.open("rb") as file:
            head = file.read(512)
    except OSError:
        return False
    return bool(head) and b"\0" not in head


def _written_after(path: Path, anchor: float) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    return (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)) and info.st_ctime > anchor
