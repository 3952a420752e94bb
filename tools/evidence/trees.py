"""Every string of a JSON-like tree, taken out to be redacted in one scan and put back in place."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from typing import Any

__all__ = ["rebuilt", "strings_of"]

_SCALARS = (bool, int, float, type(None))
# A key spelled as a field name (lower-case letters and underscores) is the tree's structure and is
# never taken out: the texts are scanned as one, and a secret's fragment matched across a key and
# the value after it would otherwise rename the field (`tool` cut to `too`), breaking the model.
_FIELD = re.compile(r"[a-z][a-z_]{0,63}")


def _structural(key: object) -> bool:
    return isinstance(key, str) and _FIELD.fullmatch(key) is not None


def strings_of(value: Any, keep: Collection[str] = ()) -> Iterator[str]:
    """Every string in the tree, keys included (but field names), depth first (what `rebuilt`
    replaces, in order).

    Args:
        value: Mappings, lists, tuples and scalars; other objects (paths) count as their text.
        keep: Keys whose values are left alone (referee's own identifiers and digests).
    """
    if isinstance(value, Mapping):
        for key, child in value.items():
            if not _structural(key):
                yield str(key)
            if key not in keep:
                yield from strings_of(child, keep)
    elif isinstance(value, (list, tuple)):
        for child in value:
            yield from strings_of(child, keep)
    elif not isinstance(value, _SCALARS):
        yield str(value)


def rebuilt(value: Any, replaced: Iterator[str], keep: Collection[str] = ()) -> Any:
    """The tree with each string `strings_of` yielded taken from `replaced`, in the same order."""
    if isinstance(value, Mapping):
        tree = {}
        for key, child in value.items():
            new = key if _structural(key) else next(replaced)  # as strings_of: key, then value
            tree[new] = child if key in keep else rebuilt(child, replaced, keep)
        return tree
    if isinstance(value, (list, tuple)):
        return [rebuilt(child, replaced, keep) for child in value]
    if isinstance(value, _SCALARS):
        return value
    return next(replaced)
