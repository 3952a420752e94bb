"""Hardcoded secrets through betterleaks (the maintained gitleaks rule set, offline), plus the
well-known credential shapes betterleaks can let through (a bare AWS key id, a test PEM key).

Only the rule id and the line leave this module: never the matched value, so neither the cache
nor a message can leak the secret it reports.
"""

from __future__ import annotations

import betterleaks

from referee.tools.evidence.shapes import find_shapes
from referee.tools.static.model import Item


def secret_items(text: str) -> list[Item]:
    """One finding per line holding a secret (the first rule that saw it names it).

    Raises:
        betterleaks.BetterleaksError: The engine failed on this content.
    """
    found = [(f.rule_id, max(f.location.start_line, 1)) for f in betterleaks.scan_string(text)]
    # Documentation examples (AWS's AKIAIOSFODNN7EXAMPLE) are not secrets.
    found += [(s.rule, s.line) for s in find_shapes(text) if "EXAMPLE" not in s.value]
    rules_by_line: dict[int, str] = {}
    for rule, line in found:
        rules_by_line.setdefault(line, rule)
    return [
        Item("hardcoded_secrets", line, f"possible hardcoded secret (rule {rule})")
        for line, rule in sorted(rules_by_line.items())
    ]
