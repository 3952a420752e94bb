"""The `<script>` blocks of single-file components (`.vue`, `.svelte`), to analyse as JS/TS.

Each block is handed to the parser inside a copy of the file where everything else is blanked
(every byte but newlines becomes a space), so a finding's line is its line in the component.
"""

from __future__ import annotations

import re

EMBEDDING = {".vue": "vue", ".svelte": "svelte"}
_SCRIPT = re.compile(rb"<script\b([^>]*)>(.*?)</script\s*>", re.S | re.I)
_LANG = re.compile(rb"""\blang\s*=\s*["']?([A-Za-z]+)""", re.I)
_LANGUAGES = {b"ts": "typescript", b"typescript": "typescript", b"tsx": "tsx"}
_NOT_NEWLINE = re.compile(rb"[^\n]")


def script_blocks(data: bytes) -> list[tuple[str, bytes]]:
    """Each `<script>` block as (tree-sitter language, the file with all else blanked)."""
    blocks = []
    for match in _SCRIPT.finditer(data):
        lang = _LANG.search(match.group(1))
        language = _LANGUAGES.get(lang.group(1).lower(), "javascript") if lang else "javascript"
        start, end = match.span(2)
        blanked = _blank(data[:start]) + data[start:end] + _blank(data[end:])
        blocks.append((language, blanked))
    return blocks


def _blank(chunk: bytes) -> bytes:
    return _NOT_NEWLINE.sub(b" ", chunk)
