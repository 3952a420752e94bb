"""The package layout holds: no import cycles (TYPE_CHECKING and lazy imports included), and
server/ reaches tools/ only through each package's public names."""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"referee.server": ROOT / "server", "referee.tools": ROOT / "tools"}


def _modules() -> dict[str, Path]:
    found = {}
    for prefix, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            if "demo_project" in path.parts:
                continue
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([prefix, *parts])] = path
    return found


def _imports(name: str, path: Path, known: set[str]) -> Iterator[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1]
                    + ([base] if base else [])
                )
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    graph = {name: set(_imports(name, path, known)) for name, path in modules.items()}
    # A package's __init__ re-exports its modules; importing a module of a package also runs the
    # package's __init__, but that is not a dependency of the module on its siblings.
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt.startswith(node + "."):  # a package importing its own modules
                continue
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_module_imports_itself_through_a_cycle() -> None:
    assert _cycle(_graph()) is None, " -> ".join(_cycle(_graph()) or [])


def test_server_uses_only_the_public_names_of_tools_packages() -> None:
    graph = _graph()
    modules = _modules()
    # Public: a package's __init__, and the plain modules at the top of tools/ (errors, settings …).
    public = {
        name
        for name, path in modules.items()
        if path.name == "__init__.py" or path.parent == PACKAGES["referee.tools"]
    }
    deep = sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        if name.startswith("referee.server")
        for target in targets
        if target.startswith("referee.tools.") and target not in public
    )
    assert deep == []


def test_every_package_is_in_the_distribution() -> None:
    # pyproject.toml lists the packages by name (they are mapped from tools/ and server/): one
    # left out still imports in a checkout, and is missing from every installed wheel.
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    found = {
        "referee." + ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("tools", "server")
        for init in (ROOT / top).rglob("__init__.py")
        if "demo_project" not in init.parts
    }
    assert found - listed == set()
