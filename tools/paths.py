"""Confining client-supplied paths to the allowed roots."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from referee.tools.errors import InvalidInput, Problem


def confine(
    raw: str | Path, roots: Sequence[Path], *, base: Path | None = None, at: str = ""
) -> Path:
    """Resolve `raw` (relative to `base`, else the first root) and refuse it outside every root.

    Symlinks are resolved first, so a link pointing out of a root is refused like `..` is.

    Raises:
        InvalidInput: the path escapes the allowed roots.
    """
    start = base or roots[0]
    candidate = Path(raw).expanduser()
    resolved = (candidate if candidate.is_absolute() else start / candidate).resolve()
    if any(_inside(resolved, root) for root in roots):
        return resolved
    allowed = ", ".join(str(r) for r in roots)
    raise InvalidInput(
        [
            Problem(
                path=at,
                code="path_outside_roots",
                message=(
                    f"{raw} resolves to {resolved}, outside the allowed roots ({allowed}); "
                    "start the server with --root for that folder or use a path inside a root"
                ),
            )
        ]
    )


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
