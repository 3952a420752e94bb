"""Reading a change's code files for claims, keeping only what the change added.

Each changed code file is read now and at base by its language's reader with the same code under
test; a construct base already had (the same key) is the repository's, so a change that touches a
file with an old `sys.exit` in it is not charged with it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from functools import partial

from referee.tools.claims.golang import go_claims
from referee.tools.claims.java import java_claims
from referee.tools.claims.javascript import script_claims
from referee.tools.claims.model import HARNESS_MODIFIED, Claim, Role, Scope
from referee.tools.claims.php import php_claims
from referee.tools.claims.python import python_claims
from referee.tools.claims.rust import rust_claims
from referee.tools.claims.scope import build_scope, is_test_code, language_of
from referee.tools.tampering.model import Tampering
from referee.tools.tampering.syntax import MAX_SOURCE

__all__ = ["claims_in", "find_claims"]

Reader = Callable[[str, str, Scope, Role], list[Claim] | None]

_READERS: dict[str, Reader] = {
    "python": python_claims,
    "javascript": partial(script_claims, language="javascript"),
    "typescript": partial(script_claims, language="typescript"),
    "tsx": partial(script_claims, language="tsx"),
    "go": go_claims,
    "rust": rust_claims,
    "java": java_claims,
    "php": php_claims,
}


def find_claims(
    changed: list[str],
    before: Callable[[str], str | None],
    after: Callable[[str], str | None],
    files: Iterable[str] = (),
) -> list[Tampering]:
    """What the change added, in every changed code file, as findings with file:line.

    Args:
        changed: The files changed since base.
        before: A file's text at base (None when it did not exist).
        after: A file's text now (None when it was deleted).
        files: The project's files now: the code under test a test may replace or read.

    Returns:
        Findings of the four kinds (code_under_test_patched, test_inspects_environment,
        code_detects_tests, harness_modified), in file order.
    """
    scope = build_scope(files, changed, before, after)
    found: list[Tampering] = []
    for path in changed:
        now = after(path)
        if now is not None:
            found += claims_in(path, before(path), now, scope)
    return found


def _unreadable(text: str) -> bool:
    return len(text) > MAX_SOURCE // 4 and len(text.encode("utf-8", "replace")) > MAX_SOURCE


def _too_large(path: str, text: str) -> Tampering:
    """A test file too large to read: padding is the cheapest way to hide what a test does as it
    runs from every reader, so what referee cannot read it does not clear. It is harness: the
    tests also run with the base's version of it."""
    size = len(text.encode("utf-8", "replace")) / (1024 * 1024)
    message = (
        f"{path} is a test file of {size:.1f} MiB, more than referee reads"
        f" ({MAX_SOURCE // (1024 * 1024)} MiB): what it does as it runs cannot be read, so it"
        " counts as test harness"
    )
    return Tampering(HARNESS_MODIFIED, path, 1, message)


def claims_in(path: str, base: str | None, now: str, scope: Scope) -> list[Tampering]:
    """The claims one file's change added (pure: base and current text in, findings out)."""
    language = language_of(path)
    if language is None:
        return []
    reader = _READERS[language]
    role: Role = "test" if is_test_code(path) else "source"
    if role == "test" and _unreadable(now):
        return [_too_large(path, now)]
    current = reader(path, now, scope, role) or []
    old = Counter(c.key for c in (reader(path, base, scope, role) or [])) if base else Counter()
    found: list[Tampering] = []
    seen: set[tuple[str, int]] = set()
    for claim in sorted(current, key=lambda c: c.line):
        if old[claim.key] > 0:
            old[claim.key] -= 1
            continue
        if (claim.kind, claim.line) not in seen:
            seen.add((claim.kind, claim.line))
            found.append(Tampering(claim.kind, path, claim.line, claim.message))
    return found
