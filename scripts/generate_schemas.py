"""Regenerate schemas/*.schema.json from referee's pydantic models.

Usage: python scripts/generate_schemas.py [--check]
"""

from __future__ import annotations

import sys
from pathlib import Path

from referee.tools.models.schemas import generate, write

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"


def main(argv: list[str]) -> int:
    if "--check" in argv:
        stale = [
            name
            for name, text in generate().items()
            if not (SCHEMAS / name).exists() or (SCHEMAS / name).read_text(encoding="utf-8") != text
        ]
        for name in stale:
            print(f"stale: schemas/{name}", file=sys.stderr)
        return 1 if stale else 0
    for path in write(SCHEMAS):
        print(path.relative_to(SCHEMAS.parent))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
