"""Hardcoded secrets through betterleaks (the maintained gitleaks rule set, offline).

Only the rule id and the line leave this module: never the matched value, so neither the cache
nor a message can leak the secret it reports.
"""

from __future__ import annotations

import betterleaks

from .model import Item


def secret_items(text: str) -> list[Item]:
    """One finding per (rule, line) that betterleaks reports in `text`.

    Raises:
        betterleaks.BetterleaksError: The engine failed on this content.
    """
    seen: set[tuple[str, int]] = set()
    items: list[Item] = []
    for found in betterleaks.scan_string(text):
        key = (found.rule_id, max(found.location.start_line, 1))
        if key not in seen:
            seen.add(key)
            items.append(Item("hardcoded_secrets", key[1], f"possible hardcoded secret (betterleaks rule {key[0]})"))
    return items
