"""Regenerate docs/codes.md from referee's code tables (tools/codes.py).

Usage: python scripts/generate_docs.py [--check]
"""

from __future__ import annotations

import sys
from pathlib import Path

from referee.tools.codes import DOCS_PATH, codes_markdown

DOCS = Path(__file__).resolve().parent.parent / DOCS_PATH


def main(argv: list[str]) -> int:
    text = codes_markdown()
    if "--check" in argv:
        if not DOCS.exists() or DOCS.read_text(encoding="utf-8") != text:
            print(f"stale: {DOCS_PATH}", file=sys.stderr)
            return 1
        return 0
    DOCS.write_text(text, encoding="utf-8")
    print(DOCS_PATH)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
