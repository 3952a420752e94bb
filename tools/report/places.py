"""Machine paths out of a report's text.

A report is read elsewhere: in a pull request, a mail, a CI artifact. The evaluating machine's
absolute paths mean nothing there and disclose its layout (user names, temp folders, where
referee is installed), so every text of the page names a path relative to what the reader knows:
the repository (`.`), referee's store (`.referee/…`, or `$REFEREE_HOME/…` when the store lives
elsewhere), the user's home (`~`), a sandbox's scratch folder (`$TMPDIR/…`).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Places:
    """Absolute prefixes and what a report writes instead, longest prefix first."""

    prefixes: tuple[tuple[str, str], ...]

    def public(self, text: str) -> str:
        """`text` with every known machine prefix replaced."""
        if "/" not in text and "\\" not in text:
            return text
        for prefix, label in self.prefixes:
            if prefix in text:
                text = _replace(text, prefix, label)
        return text


def places(repo_root: str | None, store_home: str | None) -> Places:
    """The prefixes of one report: its repository and store, then the machine's own folders."""
    found: dict[str, str] = {}
    for prefix, label in _machine_prefixes():
        found.setdefault(prefix, label)
    if repo_root:
        found[_norm(repo_root)] = "."
    if store_home:
        home = _norm(store_home)
        inside = repo_root and home.startswith(_norm(repo_root) + os.sep)
        found[home] = os.path.relpath(home, repo_root) if inside else "$REFEREE_HOME"
    ordered = sorted(found.items(), key=lambda item: len(item[0]), reverse=True)
    return Places(tuple((p, label) for p, label in ordered if len(p) > 1))


def _machine_prefixes() -> list[tuple[str, str]]:
    # referee's own interpreter and environment first (a wrapped command names its python), then
    # the scratch folder the sandbox runs in, then the user's home.
    pairs = [
        (str(Path(sys.executable).parent), ""),
        (sys.prefix, "$REFEREE_ENV"),
        (tempfile.gettempdir(), "$TMPDIR"),
    ]
    home = os.path.expanduser("~")
    if home not in ("/", "~"):
        pairs.append((home, "~"))
    return [(_norm(p), label) for p, label in pairs]


def _norm(path: str) -> str:
    return os.path.normpath(path)


def _replace(text: str, prefix: str, label: str) -> str:
    # Whole path components only (/tmp/x must not turn /tmp/xy into $TMPDIR/y), and not inside
    # another path (/a/tmp/x is not the temp folder).
    head = r"(?<![\w.\-/])" + re.escape(prefix)
    if label in ("", "."):
        # Inside the repository (or referee's bin folder) a path reads as a relative one.
        text = re.sub(head + r"[/\\]", "", text)
        return re.sub(head + rf"(?={_STOP}|$)", ".", text) if label else text
    return re.sub(head + rf"(?=[/\\]|{_STOP}|$)", lambda _m: label, text)


_STOP = r"[\s'\":;,)\]}>]"
