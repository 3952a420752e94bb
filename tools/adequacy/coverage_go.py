"""Go diff coverage from the go command's own `-coverprofile`, measured in the criterion's own run.

`instrument_go` adds `-coverprofile` (into the check's report folder, outside the tree),
`-covermode=set` and `-coverpkg` naming the changed packages, so a test in another package that
calls the changed code counts (unless one of them runs code as it loads: `-coverpkg` links each
package it names into every test binary, and an `init` would then run where nothing imports it).
The go command merges every test binary's profile into that file itself, so the `-exec` account
wrapper and the sandbox change nothing. `measure_go` reads the profile: a changed line is a
statement when a block covers it, executed when a block with a count above 0 does. Import paths
map to files through the go.mod nearest each changed file.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from referee.tools.adequacy.lines import FileLines, diff_coverage
from referee.tools.models.adequacy import DiffCoverage
from referee.tools.runners import Plan
from referee.tools.runners.base import base_name
from referee.tools.tampering.syntax import descendants, parse, text

__all__ = [
    "GO_SUFFIXES",
    "TOOL",
    "Block",
    "ProfileError",
    "import_path",
    "instrument_go",
    "measure_go",
    "read_profile",
]

GO_SUFFIXES = (".go",)
TOOL = "go test -coverprofile"
_PROFILE_LIMIT = 64 * 1024 * 1024  # a test can overwrite the file: read only this much
_MODE = re.compile(r"mode: (set|count|atomic)")
_BLOCK = re.compile(r"(.+):(\d{1,9})\.(\d{1,9}),(\d{1,9})\.(\d{1,9}) (\d{1,9}) (\d{1,19})")
_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"/][^\s\"]*)\"?", re.MULTILINE)
# The project's own profile: go keeps one -coverprofile, so adding referee's would drop theirs.
_OWN_PROFILE = ("-coverprofile", "--coverprofile", "-test.coverprofile")


class ProfileError(ValueError):
    """A coverage profile referee cannot read (too large, or not go's format)."""


@dataclass(frozen=True)
class Block:
    """One basic block of a profile: the lines it spans and whether it ran."""

    start: int
    end: int
    ran: bool


def instrument_go(
    plan: Plan, reports: Path, sources: Sequence[str], cwd: Path, root: Path
) -> tuple[Plan, Path] | str | None:
    """The go test plan writing a profile of the changed packages, and the profile's path.

    A string says why the run is not measured (the command writes a profile of its own);
    None: not a go test plan, or none of the changed files is in the module it runs in.
    """
    if plan.runner != "go test" or plan.shell or not sources:
        return None
    at = next(
        (i for i in range(len(plan.argv) - 1) if _is_go_test(plan.argv, i)),
        None,
    )
    if at is None:
        return None
    own = _flags(plan.argv[at + 2 :])
    if any(f in own for f in _OWN_PROFILE):
        return (
            "the command writes its own -coverprofile, and go keeps only one: referee leaves"
            " the project's profile alone and does not measure this run"
        )
    # Only the module the command runs in: another module's import path would not resolve.
    module = _go_mod(cwd, root)
    packages = sorted(
        {
            str(PurePosixPath(f).parent)
            for s in sources
            if (f := import_path(root, s)) and _in_module(root, s, module)
        }
    )
    if module is None or not packages:
        return None
    profile = reports / "go-cover.out"
    extra = [f"-coverprofile={profile}"]
    if not any(f.endswith("covermode") for f in own):
        # -race needs atomic counters; `set` is enough to tell run from not run.
        extra.append("-covermode=atomic" if "-race" in own else "-covermode=set")
    folders = {(root / s).parent for s in sources if _in_module(root, s, module)}
    if not any(f.endswith("coverpkg") for f in own) and not _runs_at_load(folders, module):
        extra.append("-coverpkg=" + ",".join(packages))
    argv = (*plan.argv[: at + 2], *extra, *plan.argv[at + 2 :])
    return replace(plan, argv=argv), profile


def _runs_at_load(folders: set[Path], mod: Path) -> bool:
    """Whether a package of `folders`, or one of the module's packages they import (however
    deep), runs code as it loads (an `init` function, a package-level variable set by a call).

    `-coverpkg` links every package it names into every test binary of the run, with what they
    import, so such code would run in tests that never import it: an `init` setting another
    package's function variable would change what those tests see. The changed lines are then
    measured by `-coverprofile` alone, in the test binaries that import them themselves."""
    found = _MODULE.search(_read(mod))
    prefix = f"{found[1]}/" if found else None
    todo, seen = list(folders), set(folders)
    while todo:
        package = _package(todo.pop())
        if package is None or package.loads:
            return True
        for path in package.imports:
            inner = path.removeprefix(prefix) if prefix and path.startswith(prefix) else None
            folder = mod.parent / inner if inner else None
            if folder is not None and folder not in seen:
                seen.add(folder)
                todo.append(folder)
    return False


@dataclass(frozen=True)
class _Package:
    loads: bool  # runs code as it loads
    imports: tuple[str, ...]


def _package(folder: Path) -> _Package | None:
    """What a package's non-test files run as it loads and import (None: unreadable)."""
    try:
        files = [
            f for f in folder.iterdir() if f.suffix == ".go" and not f.name.endswith("_test.go")
        ]
    except FileNotFoundError:
        return _Package(False, ())  # the change deleted the package: nothing of it loads
    except OSError:
        return None
    imports: list[str] = []
    for file in files:
        root = parse("go", _read(file))
        if root is None:
            return None
        for node in root.named_children:
            name = node.child_by_field_name("name") if node.type == "function_declaration" else None
            if (name is not None and text(name) == "init") or (
                node.type == "var_declaration"
                and any(True for _ in descendants(node, frozenset({"call_expression"})))
            ):
                return _Package(True, ())
            if node.type == "import_declaration":
                imports += [
                    text(spec)[1:-1]
                    for spec in descendants(node, frozenset({"interpreted_string_literal"}))
                ]
    return _Package(False, tuple(imports))


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _is_go_test(argv: Sequence[str], i: int) -> bool:
    return base_name(argv[i]) == "go" and argv[i + 1] == "test"


def _flags(args: Sequence[str]) -> set[str]:
    """The go test flags given (their names), up to `-args` (the rest is the binaries')."""
    names = set()
    for arg in args:
        if arg in ("-args", "--args"):
            break
        if arg.startswith("-"):
            names.add(arg.split("=", 1)[0])
    return names


def _go_mod(folder: Path, root: Path) -> Path | None:
    """The go.mod nearest `folder`, looking no higher than the tree's root."""
    for here in (folder, *folder.parents):
        if (here / "go.mod").is_file():
            return here / "go.mod"
        if here == root:
            break
    return None


def _in_module(root: Path, rel: str, module: Path | None) -> bool:
    return module is not None and _go_mod((root / rel).parent, root) == module


def import_path(root: Path, rel: str) -> str | None:
    """`example.com/m/calc/calc.go` for `calc/calc.go`, from the nearest go.mod's module line."""
    folder = (root / rel).parent
    mod = _go_mod(folder, root)
    if mod is None:
        return None
    try:
        found = _MODULE.search(mod.read_text(encoding="utf-8", errors="replace")[:65536])
    except OSError:
        return None
    if found is None:
        return None
    inner = folder.relative_to(mod.parent).as_posix()
    name = PurePosixPath(rel).name
    return "/".join(p for p in (found[1], "" if inner == "." else inner, name) if p)


def read_profile(path: Path) -> dict[str, list[Block]]:
    """The blocks of a `-coverprofile` per file (as go names it: import path / file name).

    Raises ProfileError when the file is too large or not a profile (a clear reason, not a
    crash: the file is in a folder the tests can write).
    """
    try:
        if path.stat().st_size > _PROFILE_LIMIT:
            raise ProfileError(f"the coverage profile is over {_PROFILE_LIMIT >> 20} MiB")
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise ProfileError(f"the coverage profile cannot be read: {e.strerror}") from e
    lines = text.splitlines()
    if not lines or not _MODE.fullmatch(lines[0].strip()):
        raise ProfileError("the coverage profile does not start with go's `mode:` line")
    blocks: dict[str, list[Block]] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        block = _BLOCK.fullmatch(line.strip())
        if block is None:
            shown = line[:80]
            raise ProfileError(f"line {number} of the coverage profile is not a block: {shown!r}")
        start, end = int(block[2]), int(block[4])
        if end < start:
            raise ProfileError(f"line {number} of the coverage profile ends before it starts")
        blocks.setdefault(block[1], []).append(Block(start, end, int(block[7]) > 0))
    return blocks


def measure_go(
    profile: Path, tree: Path, changed: Mapping[str, set[int] | None], sources: Sequence[str]
) -> DiffCoverage:
    """The changed statements of `sources` (tree-relative .go files) that the run executed.

    A file the profile does not name was built into no test binary (no test of the run's
    packages, a build constraint, another module): it is listed as unmeasured, not as covered.
    """
    try:
        blocks = read_profile(profile)
    except ProfileError as e:
        return DiffCoverage(tool=TOOL, unmeasured=list(sources), note=str(e))
    found, unmeasured = [], []
    for rel in sources:
        key = import_path(tree, rel)
        spans = blocks.get(key) if key else None
        if spans is None:
            unmeasured.append(rel)
            continue
        wanted = changed.get(rel)
        candidates = wanted if wanted is not None else _all_lines(tree / rel)
        statements = _within(candidates, spans)
        executed = _within(statements, [b for b in spans if b.ran])
        found.append(FileLines(rel, statements, executed))
    return diff_coverage(TOOL, found, unmeasured)


def _within(lines: set[int], spans: Sequence[Block]) -> set[int]:
    """The lines some block spans: blocks merged first, so a profile of a million overlapping
    blocks (each test binary repeats them; a test can write the file) costs a sort, not a
    million scans per line."""
    ordered, found = sorted(lines), set()
    merged: list[list[int]] = []
    for block in sorted(spans, key=lambda b: b.start):
        if merged and block.start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], block.end)
        else:
            merged.append([block.start, block.end])
    for start, end in merged:
        found.update(ordered[bisect_left(ordered, start) : bisect_right(ordered, end)])
    return found


def _all_lines(path: Path) -> set[int]:
    """Every line of a new file (the profile's blocks then say which are statements)."""
    try:
        with path.open("rb") as f:
            return set(range(1, sum(1 for _ in f) + 1))
    except OSError:
        return set()
