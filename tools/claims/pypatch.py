"""Python test code that replaces the code under test (`code_under_test_patched`).

Every way of putting something else where the tested name was comes down to a target (a dotted
name, however it is spelled) and a replacement: an assignment to a module's attribute, its
`__dict__`, `__code__` or `sys.modules` entry, `setattr`, `monkeypatch.setattr/setitem`,
`mock.patch(…)`/`.object`/`.multiple`/`.dict` (decorator, context or call, `mocker.` too), and
import hooks, which can replace any module. A target in the code under test is flagged when the
change wrote it, or when the test then calls it itself (it checks its own replacement).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from referee.tools import pysource
from referee.tools.claims import messages as M
from referee.tools.claims.model import CODE_UNDER_TEST_PATCHED, Claim
from referee.tools.claims.pyfile import PyFile
from referee.tools.claims.pynames import literal, whose
from referee.tools.claims.pyscope import Target

__all__ = ["replacements"]

# Where an import hook is installed: it can replace any module.
_HOOKS = ("sys.meta_path", "sys.path_hooks", "sys.path_importer_cache", "builtins.__import__")
# Calls that put a finder in the import system (calling `__import__` itself installs nothing).
_HOOK_CALLS = ("sys.meta_path.", "sys.path_hooks.", "sys.path_importer_cache.")
_MODULE_WRITERS = ("sys.modules.update", "sys.modules.__setitem__", "sys.modules.setdefault")


def replacements(file: PyFile) -> Iterator[Claim]:
    """Every replacement of the code under test the file makes."""
    for node in pysource.nodes(file.tree):
        # `del sys.modules["x"]` unloads for a fresh import; only putting something in counts.
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            if literal(node.value):
                continue  # a setting set for the test (`calc.RETRIES = 0`), not code replaced
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                yield from _assigned(file, node, target)
        elif isinstance(node, ast.Call):
            yield from _called(file, node)


def _assigned(file: PyFile, node: ast.AST, target: ast.AST) -> Iterator[Claim]:
    if isinstance(target, ast.Attribute | ast.Subscript):
        dotted = file.names.resolve(target)
        if dotted is not None and dotted.startswith(_HOOKS):
            yield _hook(file, node, dotted)
        else:
            yield from _replaced(file, node, whose(dotted))
    elif isinstance(target, ast.Name) and target.id in file.names.imports and _rebinds(file, node):
        yield from _replaced(file, node, file.names.imports[target.id])


def _rebinds(file: PyFile, node: ast.AST) -> bool:
    """An assignment to an imported name replaces it for the whole module only at module level
    or under `global`; a local of the same name shadows nothing outside its function."""
    function = file.inside(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    if function is None:
        return True
    names = {n for g in ast.walk(function) if isinstance(g, ast.Global) for n in g.names}
    return bool(names)


def _called(file: PyFile, call: ast.Call) -> Iterator[Claim]:
    callee = file.names.resolve(call.func) or ""
    last = callee.rsplit(".", 1)[-1]
    if callee.startswith(_HOOK_CALLS):
        yield _hook(file, call, callee.rsplit(".", 1)[0])
        return
    if callee in _MODULE_WRITERS:
        for module in _keys(file, call.args[0] if call.args else None):
            yield from _replaced(file, call, module)
        return
    if last in ("setattr", "setitem") and call.args and literal(call.args[-1]):
        return
    for dotted in _targets(file, call, callee, last):
        yield from _replaced(file, call, dotted)


def _targets(file: PyFile, call: ast.Call, callee: str, last: str) -> list[str | None]:
    args, names = call.args, file.names
    if callee.endswith("patch.object") and len(args) >= 2:
        return [_member(file, args[0], args[1])]
    if callee.endswith("patch.multiple") and args:
        owner = names.fold(args[0]) or names.resolve(args[0])
        return [f"{owner}.{k.arg}" for k in call.keywords if k.arg and owner]
    if callee.endswith("patch.dict") and len(args) >= 2:
        return _mapping(file, args[0], _keys(file, args[1]))
    if last == "patch" and (args or call.keywords):
        first = (
            args[0] if args else next((k.value for k in call.keywords if k.arg == "target"), None)
        )
        return [names.fold(first)]
    if last in ("setattr", "delattr") and args:
        text = names.fold(args[0])
        if text is not None and "." in text and len(args) <= (2 if last == "setattr" else 1):
            return [text]
        return [_member(file, args[0], args[1] if len(args) > 1 else None)]
    if last == "setitem" and len(args) >= 2:
        return _mapping(file, args[0], [names.fold(args[1])])
    return []


def _member(file: PyFile, owner: ast.AST, name: ast.AST | None) -> str | None:
    base = file.names.resolve(owner)
    if base is None:
        return None
    return f"{base}.{file.names.fold(name) or '*'}"


def _mapping(file: PyFile, mapping: ast.AST, keys: list[str | None]) -> list[str | None]:
    """Entries put in `sys.modules` (modules) or in a module's `__dict__` (its names)."""
    owner = file.names.fold(mapping) or file.names.resolve(mapping) or ""
    if owner == "sys.modules":
        return keys
    if owner.endswith(".__dict__"):
        return [f"{owner.removesuffix('.__dict__')}.{k}" for k in keys if k]
    return []


def _keys(file: PyFile, mapping: ast.AST | None) -> list[str | None]:
    if isinstance(mapping, ast.Dict):
        return [file.names.fold(k) for k in mapping.keys if k is not None]
    if isinstance(mapping, ast.Call) and file.names.resolve(mapping.func) == "builtins.dict":
        return [k.arg for k in mapping.keywords if k.arg]
    return [file.names.fold(mapping)] if mapping is not None else []


def _replaced(file: PyFile, node: ast.AST, dotted: str | None) -> Iterator[Claim]:
    target = file.target(dotted)
    if target is None:
        return
    if target.written():
        yield file.claim(
            CODE_UNDER_TEST_PATCHED,
            node,
            M.patched_written(_named(target), target.module.path),
        )
    elif any(target.covers(called) for called in file.called):
        yield file.claim(
            CODE_UNDER_TEST_PATCHED,
            node,
            M.patched_called(_named(target), target.module.path),
        )


def _named(target: Target) -> str:
    return f"`{target}`" if target.rest else f"the module {target.module.path}"


def _hook(file: PyFile, node: ast.AST, dotted: str) -> Claim:
    return file.claim(
        CODE_UNDER_TEST_PATCHED,
        node,
        M.hook(dotted),
    )
