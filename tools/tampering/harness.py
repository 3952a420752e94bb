"""The test harness: what decides test outcomes without being a test.

A failing test can be turned green without touching it: a conftest hook that rewrites reports,
`python_files` in a `.pytest.ini`, a `.pth` file, a Babel plugin, an `imports` map, a Surefire
filter in `.mvn/maven.config`, `rustflags` in `.cargo/config.toml`, a `pytest.py` that stands for
the runner. Which files can do that is a rule, not a list (tools/harness); at task scope every
change since base to such a file (in a manifest: to anything but its dependencies and metadata)
is the antipattern `harness_modified`, with the file and the first changed line, and the tests
checks run once more with the base harness restored (graders/harness.py compares the two runs).

Code can also take the runner's place from inside the run: a test module that writes the report
the runner was asked for and ends the process before the runner does (`os._exit(0)`), prints the
runner's own protocol lines, or a module under test that reaches into the runner's internals.
Nothing the process emits can tell that from a real run, so the change itself is read, by
structure and in every language referee runs (tools/claims): a code file to which the change
added such a construct is a harness file too.

A Go build constraint is configuration inside a source file. When the change takes code the base
built here out of this machine's build (`//go:build !linux` on `calc.go`, or `calc.go` moved to
`calc_windows.go`) and adds or edits another file, built here, that declares the same names
(`calc_linux.go`), the diff shows one implementation and the tests build the other: the file
left out is harness as well. (Adding a platform's file beside the base's is ordinary work.)
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from referee.tools.claims import HARNESS_MODIFIED, Scope, claims_in
from referee.tools.harness import (
    Layout,
    built_here,
    declared_names,
    harness_reason,
    is_harness_file,
    is_manifest,
    steering_part,
)
from referee.tools.tampering.model import Tampering

__all__ = ["HARNESS_MODIFIED", "HarnessFile", "harness_changes", "is_harness_file"]

# What acts for the runner needs no code under test: the readers' escapes look at the file alone.
_NO_SCOPE = Scope()
_PLUGINS = re.compile(r"^\s*pytest_plugins\s*=", re.MULTILINE)


@dataclass(frozen=True)
class HarnessFile:
    """A harness file that changed since base: its base text (None when it is new)."""

    path: str
    base: str | None
    finding: Tampering


def harness_changes(
    changed: list[str],
    before: Callable[[str], str | None],
    after: Callable[[str], str | None],
    layout: Layout | None = None,
) -> list[HarnessFile]:
    """Every changed harness file, with its base text and the finding to report.

    Args:
        changed: The files changed since base.
        before: A file's text at base (None when it did not exist).
        after: A file's text now (None when it was deleted).
        layout: The files of the base and the current tree (None: the changed files, asking
            `before` and `after` about any other).

    Returns:
        One entry per harness file whose steering content changed.
    """
    if layout is None:
        layout = Layout(
            changed,
            exists=lambda p: after(p) is not None or before(p) is not None,
            at_base=lambda p: before(p) is not None,
            now=lambda p: after(p) is not None,
        )
    found: list[HarnessFile] = []
    for path in changed:
        old, new = before(path), after(path)
        if old == new:
            continue
        item = _changed_file(path, old, new, layout) or _left_out(
            path, old, new, after, before, changed
        )
        if item is not None:
            found.append(item)
    return found


def _left_out(
    path: str,
    old: str | None,
    new: str | None,
    after: Callable[[str], str | None],
    before: Callable[[str], str | None],
    changed: list[str],
) -> HarnessFile | None:
    """A Go file of the change left out of this machine's build, declaring names that another
    file of the change, which is built, declares too, while the base built those names from a
    file that no longer does (see the module docstring)."""
    if not path.endswith(".go") or new is None or built_here(path, new):
        return None  # (an unreadable constraint, which go refuses, counts as left out)
    names = declared_names(new)
    twin = _built_in_change(path, names, changed, after)
    if not twin or not _moved_out(names, changed, before, after):
        return None
    line = _first_difference(old or "", new)
    message = (
        f"{path}:{line} is left out of this machine's build by its name or build constraint,"
        f" and `{twin}`, which is built, declares the same names: the diff shows code the tests"
        " do not build; the tests also ran with the base harness"
    )
    return HarnessFile(path, old, Tampering(HARNESS_MODIFIED, path, line, message))


def _built_in_change(
    path: str, names: frozenset[str], changed: list[str], after: Callable[[str], str | None]
) -> str:
    folder = path.rpartition("/")[0]
    for other in changed:
        if other == path or other.rpartition("/")[0] != folder or not other.endswith(".go"):
            continue
        body = after(other)
        if body is not None and built_here(other, body) and names & declared_names(body):
            return other
    return ""


def _moved_out(
    names: frozenset[str],
    changed: list[str],
    before: Callable[[str], str | None],
    after: Callable[[str], str | None],
) -> bool:
    """Whether the base built one of `names` here from a file that no longer does: deleted,
    left out of the build, or built still without it."""
    for other in changed:
        old = before(other)
        if not other.endswith(".go") or old is None or not built_here(other, old):
            continue
        lost = names & declared_names(old)
        if not lost:
            continue
        new = after(other)
        if new is None or not built_here(other, new) or lost - declared_names(new):
            return True
    return False


def _changed_file(
    path: str, old: str | None, new: str | None, layout: Layout
) -> HarnessFile | None:
    if why := harness_reason(path, layout):
        line = _changed_line(path, old, new)
        return None if line is None else HarnessFile(path, old, _finding(path, line, old, new, why))
    if path.endswith(".py") and _plugins_changed(old, new):
        line = _first_plugins_line(new or old or "")
        message = f"{path} changes pytest_plugins: plugins decide test outcomes"
        return HarnessFile(path, old, Tampering(HARNESS_MODIFIED, path, line, message))
    if new is None:
        return None
    claims = claims_in(path, old, new, _NO_SCOPE)
    escape = next((c for c in claims if c.kind == HARNESS_MODIFIED), None)
    return None if escape is None else HarnessFile(path, old, escape)


def _finding(path: str, line: int, old: str | None, new: str | None, why: str) -> Tampering:
    what = "added" if old is None else "deleted" if new is None else "changed"
    message = (
        f"test harness {what}: {path}:{line} ({why}) can decide what the tests report; the tests"
        " also ran with the base harness"
    )
    return Tampering(HARNESS_MODIFIED, path, line, message)


def _changed_line(path: str, old: str | None, new: str | None) -> int | None:
    """The first line of `new` (or `old`) that differs, None when only trusted parts of a
    manifest changed (its dependencies, its description)."""
    name = PurePosixPath(path).name
    if is_manifest(name) and old is not None and new is not None:
        if steering_part(name, old) == steering_part(name, new):
            return None
    return _first_difference(old or "", new or "")


def _first_difference(old: str, new: str) -> int:
    matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
    for tag, _i1, _i2, j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            return j1 + 1
    return 1


def _plugins_changed(old: str | None, new: str | None) -> bool:
    def plugins(text: str | None) -> list[str]:
        return [m.group(0) for m in re.finditer(r"^\s*pytest_plugins\s*=.*$", text or "", re.M)]

    return plugins(old) != plugins(new)


def _first_plugins_line(text: str) -> int:
    match = _PLUGINS.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else 1
