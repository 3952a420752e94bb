"""What the per-language readers extract from a test file, and the one comparison with base.

Each reader turns a file into `TestInfo` per test (keyed by a name that survives edits: the
describe/class/module path and the test's own name); `compare` turns base and now into findings,
each with the file and line where a reviewer should look.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.tools.models.antipatterns import NEW_AND_SKIPPED

__all__ = [
    "ASSERTIONS_REMOVED",
    "TEST_DELETED",
    "TEST_EMPTIED",
    "TEST_FOCUSED",
    "TEST_SKIPPED",
    "TREE_MODIFIED",
    "Tampering",
    "TestInfo",
    "compare",
]

TEST_DELETED = "test_deleted"
TEST_SKIPPED = "test_skipped"
TEST_FOCUSED = "test_focused"
ASSERTIONS_REMOVED = "assertions_removed"
TEST_EMPTIED = "test_emptied"
# A file of the evaluated tree written while the checks ran (seen in the sandbox's overlay).
TREE_MODIFIED = "tree_modified"


@dataclass(frozen=True)
class Tampering:
    kind: str
    path: str
    line: int
    message: str

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass
class TestInfo:
    """One test as a reader saw it.

    Attributes:
        line: Where the test is declared.
        skipped: Skipped, ignored, disabled or todo (itself or through its suite or class).
        skip_line: Where the skip is written (the marker, the call or the decorator).
        focused: Focused (`.only`, `fit`): every other test of the run is silently skipped.
        asserts: (line, text) of each assertion in the test's body that can run and fail.
        inert: (line, text, why) of each assertion still written that cannot (tools/tampering/
            reach.py): it counts as removed.
        lent: Assertions of the file's helpers the test calls: they count for the test now
            (an assertion moved into a helper is not lost), never for it at base (a helper
            moved to another module loses the test nothing either).
        trivial: The body does nothing (`pass`, `{}`).
        expects_failure: See below.
    """

    __test__ = False  # not a pytest test class despite its name

    line: int
    skipped: bool = False
    skip_line: int | None = None
    focused: bool = False
    asserts: list[tuple[int, str]] = field(default_factory=list)
    inert: list[tuple[int, str, str]] = field(default_factory=list)
    lent: list[tuple[int, str]] = field(default_factory=list)
    trivial: bool = False
    expects_failure: int | None = None
    """Where the test is marked to pass only when its code fails (`#[should_panic]`): a fair
    test when written so, tampering when an existing test gains the mark."""


def compare(path: str, before: dict[str, TestInfo], after: dict[str, TestInfo]) -> list[Tampering]:
    """Findings for one file: every test of base that is gone, skipped, emptied or lost
    assertions, every test now focused, and every new test added already skipped."""
    found: list[Tampering] = []
    moved = _moved(before, after)
    for name, was in before.items():
        now = after.get(name, after.get(moved.get(name, "")))
        if now is None:
            found.append(Tampering(TEST_DELETED, path, was.line, f"test {name} was removed"))
            continue
        found.extend(_changed(path, name, was, now))
    found.extend(
        Tampering(TEST_FOCUSED, path, now.skip_line or now.line, _focus_message(name))
        for name, now in after.items()
        if now.focused and not (name in before and before[name].focused)
    )
    # A test the change adds already skipped checks nothing, yet reads as coverage of the change.
    found.extend(
        Tampering(
            TEST_SKIPPED,
            path,
            now.skip_line or now.line,
            f"test {name} {NEW_AND_SKIPPED}: it checks nothing in these runs (one skipped by"
            " design, a slow test run on demand, may be dismissed in the scorecard)",
        )
        for name, now in after.items()
        if name not in before and now.skipped and not now.focused
    )
    return found


def _leaf(name: str) -> str:
    """A test's own name without its suite, class or module path."""
    for separator in (" > ", "::", "."):
        name = name.rsplit(separator, 1)[-1]
    return name


def _moved(before: dict[str, TestInfo], after: dict[str, TestInfo]) -> dict[str, str]:
    """Tests of base gone from their suite whose own name is now in exactly one new place
    (moved into a `describe`, out of a class): they are compared there, not read as deleted."""
    gone = [n for n in before if n not in after]
    new = [n for n in after if n not in before]
    moved = {}
    for name in gone:
        places = [n for n in new if _leaf(n) == _leaf(name)]
        if len(places) == 1 and sum(_leaf(g) == _leaf(name) for g in gone) == 1:
            moved[name] = places[0]
    return moved


def _focus_message(name: str) -> str:
    return f"test {name} is focused (.only/fit): every other test of the run is silently skipped"


def _changed(path: str, name: str, was: TestInfo, now: TestInfo) -> list[Tampering]:
    if now.expects_failure is not None and was.expects_failure is None:
        message = f"test {name} now passes only when its code fails (should_panic)"
        return [Tampering(TEST_SKIPPED, path, now.expects_failure, message)]
    if now.skipped and not was.skipped:
        line = now.skip_line or now.line
        return [Tampering(TEST_SKIPPED, path, line, f"test {name} is newly skipped or disabled")]
    if now.trivial and not was.trivial:
        return [Tampering(TEST_EMPTIED, path, now.line, f"test {name} was emptied")]
    if len(now.asserts) + len(now.lent) < len(was.asserts):
        return [Tampering(ASSERTIONS_REMOVED, path, now.line, _lost(name, was, now))]
    return []


def _lost(name: str, was: TestInfo, now: TestInfo) -> str:
    remaining = [text for _, text in (*now.asserts, *now.lent)]
    inert = {text: (line, why) for line, text, why in now.inert}
    removed = []
    for line, text in was.asserts:
        if text in remaining:
            remaining.remove(text)
        elif text in inert:
            at, why = inert.pop(text)
            removed.append(f"`{text[:80]}` (still at line {at}, but {why})")
        else:
            removed.append(f"`{text[:80]}` (line {line} at base)")
    detail = "; removed: " + ", ".join(removed[:5]) if removed else ""
    if inert:
        still = [f"`{text[:80]}` (line {at}: {why})" for text, (at, why) in list(inert.items())[:3]]
        detail += "; written now but checking nothing: " + ", ".join(still)
    return f"test {name} lost assertions ({len(was.asserts)} → {len(now.asserts)}){detail}"
