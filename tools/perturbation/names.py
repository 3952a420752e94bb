"""Renaming function-local names to generic ones (v1, v2 …) without changing what the code does.

Only names no other code can see are renamed, so callers, importers and tests keep working:
- module-level names, class attributes, attributes, imports and nested def/class names keep theirs;
- a parameter a caller could pass by keyword keeps its name, unless it belongs to an undecorated
  function nested in another one, used there only as a direct call target, and no call in the module
  passes a keyword of that name (nor `**kwargs`); positional-only, `*args` and `**kwargs` names go;
- a function is left alone when it inspects its own frame or scope (`locals()`, `vars()`, `eval`,
  `exec`, `dir()`, `globals()`, frame access), contains a class, a `match`, a nested `nonlocal`, or
  an
  f-string whose text repeats an expression (`{x=}` prints the name).
Generic names are fresh in the whole module, so a renamed name never meets an existing one.
"""

from __future__ import annotations

import ast
import builtins
import itertools
import keyword
import re
from collections.abc import Iterable, Iterator
from itertools import count

Function = ast.FunctionDef | ast.AsyncFunctionDef
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_INTROSPECTION = {"locals", "vars", "eval", "exec", "dir", "globals"}
_FRAME_ATTRS = {"_getframe", "currentframe", "f_locals", "getargvalues", "stack"}


def rename_locals(tree: ast.Module) -> int:
    """Rename the local names of every function in `tree`, in place.

    Args:
        tree: A parsed module.

    Returns:
        How many names were renamed.
    """
    fresh = _fresh_names(_identifiers(tree))
    keywords = _keyword_names(tree)
    renamed = 0
    for func, parent in list(_functions(tree, None)):
        if _unsafe(func):
            continue
        mapping = {name: next(fresh) for name in _renamable(func, parent, keywords)}
        _apply(func, mapping)
        renamed += len(mapping)
    return renamed


def _functions(
    node: ast.AST, parent: Function | None
) -> Iterator[tuple[Function, Function | None]]:
    """Every function with the function it is nested in (None at module or class level), outer
    first."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _FUNCS):
            yield child, parent
            yield from _functions(child, child)
        else:
            # A method is reachable through its instances, so a class resets the nesting.
            yield from _functions(child, None if isinstance(child, ast.ClassDef) else parent)


def _fresh_names(taken: set[str]) -> Iterator[str]:
    reserved = taken | set(dir(builtins)) | set(keyword.kwlist)
    return (name for name in (f"v{n}" for n in count(1)) if name not in reserved)


def _identifiers(tree: ast.Module) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        for attr in ("id", "arg", "attr", "name", "asname"):
            value = getattr(node, attr, None)
            if isinstance(value, str):
                found.update(value.split("."))
        if isinstance(node, ast.Global | ast.Nonlocal):
            found.update(node.names)
    return found


def _keyword_names(tree: ast.Module) -> set[str] | None:
    """Keyword names used in calls anywhere in the module; None when a `**mapping` could pass
    any."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword):
            if node.arg is None:
                return None
            names.add(node.arg)
    return names


def _unsafe(func: Function) -> bool:
    own = {id(n) for n in _walk_scope(func.body)}
    for node in ast.walk(func):
        if isinstance(node, ast.ClassDef | ast.Match) or (
            isinstance(node, ast.Nonlocal) and id(node) not in own
        ):
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _INTROSPECTION
        ):
            return True
        if isinstance(node, ast.Attribute) and node.attr in _FRAME_ATTRS:
            return True
        if isinstance(node, ast.JoinedStr) and _repeats_expression(node):
            return True
    return False


def _repeats_expression(joined: ast.JoinedStr) -> bool:
    # `f"{x=}"` parses as the text "x=" before the value: renaming x would change the output.
    values = joined.values
    for text, value in itertools.pairwise(values):
        if (
            isinstance(text, ast.Constant)
            and isinstance(text.value, str)
            and isinstance(value, ast.FormattedValue)
        ):
            if re.search(re.escape(ast.unparse(value.value)) + r"\s*=\s*$", text.value):
                return True
    return False


def _renamable(func: Function, parent: Function | None, keywords: set[str] | None) -> list[str]:
    params = _params(func.args)
    kept = _fixed_bindings(func) | {
        p for p in _keyword_params(func.args) if not _param_renamable(func, p, parent, keywords)
    }
    candidates = [*params, *_assigned(func)]
    return [name for name in dict.fromkeys(candidates) if name not in kept]


def _params(args: ast.arguments) -> list[str]:
    return [a.arg for a in _all_args(args)]


def _all_args(args: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *extra]


def _keyword_params(args: ast.arguments) -> list[str]:
    return [a.arg for a in (*args.args, *args.kwonlyargs)]


def _param_renamable(
    func: Function, name: str, parent: Function | None, keywords: set[str] | None
) -> bool:
    if parent is None or func.decorator_list or keywords is None or name in keywords:
        return False
    return _only_called(func.name, parent)


def _only_called(name: str, scope: Function) -> bool:
    """The nested function never escapes its parent: every use of its name is a direct call."""
    callees = {id(node.func) for node in ast.walk(scope) if isinstance(node, ast.Call)}
    uses = [node for node in ast.walk(scope) if isinstance(node, ast.Name) and node.id == name]
    return all(id(node) in callees for node in uses)


def _walk_scope(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Nodes evaluated in this scope, in source order: nested bodies are skipped, comprehensions are
    not."""
    for node in nodes:
        yield node
        yield from _walk_scope(_scope_children(node))


def _scope_children(node: ast.AST) -> list[ast.AST]:
    """Children evaluated in the enclosing scope (for a nested def: decorators, defaults,
    annotations)."""
    if isinstance(node, _FUNCS):
        notes = [a.annotation for a in _all_args(node.args) if a.annotation is not None]
        returns = [node.returns] if node.returns is not None else []
        return [*node.decorator_list, *_defaults(node.args), *notes, *returns]
    if isinstance(node, ast.Lambda):
        return _defaults(node.args)
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *node.keywords]
    return list(ast.iter_child_nodes(node))


def _defaults(args: ast.arguments) -> list[ast.AST]:
    return [*args.defaults, *(d for d in args.kw_defaults if d is not None)]


def _assigned(scope: Function | ast.Lambda) -> list[str]:
    """Plain names bound by assignment in the scope (comprehension variables belong to the
    comprehension)."""
    body = scope.body if isinstance(scope.body, list) else [scope.body]
    nodes = list(_walk_scope(body))
    comprehension_targets = {
        id(t) for n in nodes if isinstance(n, ast.comprehension) for t in ast.walk(n.target)
    }
    names = [
        n.id
        for n in nodes
        if isinstance(n, ast.Name)
        and not isinstance(n.ctx, ast.Load)
        and id(n) not in comprehension_targets
    ]
    names += [n.name for n in nodes if isinstance(n, ast.ExceptHandler) and n.name]
    return names


def _fixed_bindings(scope: Function | ast.Lambda) -> set[str]:
    """Names the scope binds that must keep their name: imports, nested defs and classes,
    global/nonlocal."""
    body = scope.body if isinstance(scope.body, list) else [scope.body]
    fixed: set[str] = set()
    for node in _walk_scope(body):
        if isinstance(node, ast.Import | ast.ImportFrom):
            fixed.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (*_FUNCS, ast.ClassDef)):
            fixed.add(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            fixed.update(node.names)
    return fixed


def _bound(scope: Function | ast.Lambda) -> set[str]:
    return {*_params(scope.args), *_assigned(scope), *_fixed_bindings(scope)}


def _apply(func: Function, mapping: dict[str, str]) -> None:
    if not mapping:
        return
    for arg in _all_args(func.args):
        arg.arg = mapping.get(arg.arg, arg.arg)
    for stmt in func.body:
        _visit(stmt, mapping)


def _visit(node: ast.AST, mapping: dict[str, str]) -> None:
    if isinstance(node, ast.Name):
        node.id = mapping.get(node.id, node.id)
        return
    if isinstance(node, ast.ExceptHandler) and node.name:
        node.name = mapping.get(node.name, node.name)
    if isinstance(node, (*_FUNCS, ast.Lambda)):
        _visit_nested(node, mapping)
        return
    for child in ast.iter_child_nodes(node):
        _visit(child, mapping)


def _visit_nested(node: Function | ast.Lambda, mapping: dict[str, str]) -> None:
    """A nested function sees the outer names it does not bind itself."""
    for part in _scope_children(node):
        _visit(part, mapping)
    shadowed = _bound(node)
    inner = {old: new for old, new in mapping.items() if old not in shadowed}
    for stmt in node.body if isinstance(node.body, list) else [node.body]:
        _visit(stmt, inner)
