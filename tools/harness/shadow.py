"""Python modules of the tree that would be imported in place of the runner's or the standard
library's: a `pytest.py` at the root is the runner under `python -m pytest`, a `unittest.py` the
runner under `python -m unittest`, a `typing.py` what pytest imports as `typing`.

Python puts the working folder (or the script's) first on `sys.path`, and pytest inserts each test
file's first folder without an `__init__.py`; any folder that is no package can be such a root.
So a module shadows when its top-level name (the file, or the outermost package holding it) is
one the runner imports: the runner's own distributions, their requirements, the plugins
registered for it, referee's guard, and the standard library.
"""

from __future__ import annotations

import functools
import importlib.metadata as metadata
import sys
from collections.abc import Callable

from packaging.requirements import InvalidRequirement, Requirement

__all__ = ["runner_modules", "shadowed_module"]

# The runners referee drives in Python, and the modules it loads into their process itself.
_SEEDS = ("pytest",)
_ALWAYS = frozenset(
    {"pytest", "_pytest", "py", "pluggy", "iniconfig", "unittest", "doctest", "referee_guard"}
)
_COVERAGE = "coverage"  # referee measures diff coverage with coverage.py in the same process


@functools.cache
def runner_modules() -> frozenset[str]:
    """Top-level names the runner's process imports from outside the tree: pytest and every
    distribution it requires, the pytest plugins installed beside it (they load unless
    `PYTEST_DISABLE_PLUGIN_AUTOLOAD` says otherwise), coverage.py and referee's guard.

    Read from referee's own interpreter's metadata: the names, not the versions, are what matter.
    """
    owners = metadata.packages_distributions()
    by_dist: dict[str, set[str]] = {}
    for module, dists in owners.items():
        for dist in dists:
            by_dist.setdefault(_norm(dist), set()).add(module)
    plugins = {ep.dist.name for ep in metadata.entry_points(group="pytest11") if ep.dist}
    found = set(_ALWAYS) | {_COVERAGE}
    for dist in _closure([*_SEEDS, *plugins]):
        found |= by_dist.get(dist, set())
    return frozenset(found)


def _closure(roots: list[str]) -> set[str]:
    """The distributions `roots` need, with theirs (markers evaluated here, extras left out)."""
    seen: set[str] = set()
    todo = [_norm(r) for r in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [r for r in map(_required, requires) if r]
    return seen


def _required(spec: str) -> str | None:
    try:
        req = Requirement(spec)
    except InvalidRequirement:
        return None
    if req.marker is not None and not req.marker.evaluate({"extra": ""}):
        return None
    return _norm(req.name)


def _norm(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def shadowed_module(
    path: str, exists: Callable[[str], bool], at_base: Callable[[str], bool], in_tests: bool
) -> str:
    """The runner's or standard library's module a Python file stands for ("" when none).

    Args:
        path: A `.py` file of the tree.
        exists: Whether the tree holds a file (the `__init__.py` of each folder up the path).
        at_base: Whether the base held a file. A top-level module the base already had is the
            project's own code under test (pytest's own repository holds `_pytest/`); a new one
            standing for the runner's or the standard library's is a shadow.
        in_tests: The file lies among the tests, whose folder pytest inserts into `sys.path`
            only once the standard library is loaded: there only the runner's names count.
    """
    folder, top = _top_level(path, exists)
    prefix = f"{folder}/" if folder else ""
    if at_base(f"{prefix}{top}.py") or at_base(f"{prefix}{top}/__init__.py"):
        return ""
    if top in runner_modules():
        return top
    if not in_tests and top in sys.stdlib_module_names:
        return top
    return ""


def _top_level(path: str, exists: Callable[[str], bool]) -> tuple[str, str]:
    """The folder a file is imported from and its outermost module name there."""
    *folders, name = path.split("/")
    top = name[: -len(".py")]
    if top == "__init__":
        if not folders:
            return "", ""
        top = folders.pop()
    while folders and exists("/".join([*folders, "__init__.py"])):
        top = folders.pop()
    return "/".join(folders), top
