"""Well-known credential shapes, checked next to betterleaks.

betterleaks weighs entropy and context, so a bare AWS key id, a test PEM key or a low-entropy API
key can slip past it. These shapes are unambiguous enough to catch on sight; both the redaction of
evidence and the static secret check use them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

SHAPES: dict[str, re.Pattern[str]] = {
    "aws-access-key-id": re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}\b"),
    "aws-secret-access-key": re.compile(
        r"(?i)aws_?secret_?access_?key\W{0,3}\s*[:=]\s*['\"]?([A-Za-z0-9/+=]{40})"
    ),
    "github-token": re.compile(
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"
    ),
    "anthropic-api-key": re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"),
    "openai-api-key": re.compile(r"\bsk-(?:proj-)?[A-Za-z0-9_-]{32,}"),
    "slack-token": re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    "google-api-key": re.compile(r"\bAIza[0-9A-Za-z_-]{35}"),
    "stripe-key": re.compile(r"\b[sr]k_(?:live|test)_[0-9a-zA-Z]{16,}"),
    "private-key": re.compile(
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"
    ),
}


class Shape(NamedTuple):
    rule: str
    value: str
    line: int


def find_shapes(text: str) -> Iterator[Shape]:
    """Every well-known credential in `text`, with its rule and 1-based line."""
    for rule, pattern in SHAPES.items():
        for match in pattern.finditer(text):
            group = 1 if pattern.groups else 0
            yield Shape(rule, match.group(group), text.count("\n", 0, match.start()) + 1)
