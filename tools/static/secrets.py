"""Hardcoded secrets through betterleaks (the maintained gitleaks rule set, offline), plus the
well-known credential shapes betterleaks can let through (a bare AWS key id, a test PEM key).

Only the rule id, the line and whether the secret has a *live* credential's shape leave this
module: never the matched value, so neither the cache nor a message can leak the secret it reports.
A line marked `gitleaks:allow` (or `betterleaks:allow`) is skipped, as gitleaks does.

`file_secret_items` reads a whole file as `secret_text` lays it out: any encoding, binary or
large, in chunks, with its encoded blobs decoded.
"""

from __future__ import annotations

import betterleaks

from referee.tools.evidence.shapes import find_shapes
from referee.tools.static.model import Item
from referee.tools.static.secret_text import chunks, decoded_lines, file_text

LIVE = 1
"""An item's value when the secret has the shape of a live provider credential."""

_ALLOW_MARKS = ("gitleaks:allow", "betterleaks:allow")
# Shapes that say nothing about whether a credential is live: any test suite holds PEM keys.
_NOT_PROVIDER_SHAPES = frozenset({"private-key"})
# betterleaks rules that match by context (a `password =` literal, a JWT's structure), not by a
# provider's token format: the jwt.io sample token and `password: "peanuts"` are fixtures.
_CONTEXT_RULES = frozenset({"jwt", "jwt-base64", "private-key"})
_PLACEHOLDERS = ("_test_", "EXAMPLE", "example", "dummy", "DUMMY")


def secret_items(text: str) -> list[Item]:
    """One finding per line holding a secret (the first rule that saw it names it).

    Raises:
        betterleaks.BetterleaksError: The engine failed on this content.
    """
    lines = text.splitlines()
    found = [
        (f.rule_id, max(f.location.start_line, 1), _live_rule(f.rule_id, f.match.value))
        for f in betterleaks.scan_string(text)
    ]
    # Documentation examples (AWS's AKIAIOSFODNN7EXAMPLE) are not secrets.
    found += [
        (s.rule, s.line, s.rule not in _NOT_PROVIDER_SHAPES and not _placeholder(s.value))
        for s in find_shapes(text)
        if "EXAMPLE" not in s.value and not _allowed(lines, s.line)
    ]
    rules_by_line: dict[int, str] = {}
    live_lines: set[int] = set()
    for rule, line, live in found:
        rules_by_line.setdefault(line, rule)
        if live:
            live_lines.add(line)
    return [
        Item(
            "hardcoded_secrets",
            line,
            f"possible hardcoded secret (rule {rule})",
            LIVE if line in live_lines else 0,
        )
        for line, rule in sorted(rules_by_line.items())
    ]


def file_secret_items(data: bytes) -> list[Item]:
    """The secrets of a file's bytes (see `secret_text`), one finding per line.

    Raises:
        betterleaks.BetterleaksError: The engine failed on this content.
    """
    found: dict[int, Item] = {}
    for chunk in chunks(file_text(data)):
        for item in secret_items(chunk.text):
            found.setdefault(item.line + chunk.before, item._replace(line=item.line + chunk.before))
        for line, decoded in decoded_lines(chunk.text).items():
            for item in secret_items(decoded):
                message = f"{item.message[:-1]}, encoded)"
                found.setdefault(
                    line + chunk.before, Item(item.rule, line + chunk.before, message, item.value)
                )
    return [found[line] for line in sorted(found)]


def marked_secret_items(text: str, lines: set[int] | None) -> list[Item]:
    """Secrets on the given lines (None: every line) that an allow mark hides from `secret_items`.

    A mark is the repository's to keep, not the change's to add: at task scope a line the change
    wrote is scanned as if it carried no mark.
    """
    found: list[Item] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if (lines is not None and number not in lines) or not any(m in line for m in _ALLOW_MARKS):
            continue
        bare = line
        for mark in _ALLOW_MARKS:
            bare = bare.replace(mark, "")
        for item in secret_items(bare):
            message = f"{item.message}; the change marks it allowed, which counts only at base"
            found.append(Item(item.rule, number, message, item.value))
    return found


def _live_rule(rule: str, value: str) -> bool:
    return not rule.startswith("generic") and rule not in _CONTEXT_RULES and not _placeholder(value)


def _placeholder(value: str) -> bool:
    return any(mark in value for mark in _PLACEHOLDERS)


def _allowed(lines: list[str], line: int) -> bool:
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return any(mark in text for mark in _ALLOW_MARKS)
