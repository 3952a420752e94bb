"""Rust code that asks whether it runs under test (tools/claims/tssituation.py for the rule).

What a Rust program reads of its situation: the environment and arguments (`std::env`), the
current executable and thread (libtest names each test's thread after it), a backtrace, files.
And what the compiler asks for it: `cfg!(test)` in the code under test, or an item compiled only
outside tests (`#[cfg(not(test))]`) or a statement only inside them (`#[cfg(test)]` within a
function), behaves otherwise under `cargo test`. A `#[cfg(test)]` module or helper function is
where tests live, not a question.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import tree_sitter as ts

from referee.tools.claims import messages as M
from referee.tools.claims.model import CODE_DETECTS_TESTS, Claim
from referee.tools.claims.tells import Read, Tell, tell_of
from referee.tools.claims.tsfile import TsFile, unquote
from referee.tools.claims.tssituation import Asking, Binding
from referee.tools.tampering.syntax import descendants, text

__all__ = ["cfg_claims", "rust_asking"]

_PROCESS = (
    "std::env::var",
    "std::env::args",
    "std::env::current_exe",
    "std::thread::current",
    "std::backtrace::",
    "backtrace::Backtrace",
)
_METHODS = frozenset({"exists", "is_file", "is_dir", "read_to_string", "read_dir", "metadata"})
_STRINGS = frozenset({"string_literal", "raw_string_literal"})


def rust_asking(file: TsFile, resolve: Callable[[ts.Node], str]) -> Asking:
    """The Rust reads and tells of one file (`resolve` follows its `use` declarations)."""
    source = file.role == "source"

    def tell(node: ts.Node) -> Tell | None:
        if node.type in _STRINGS:
            value = unquote(node)
        elif node.type == "macro_invocation" and _macro(node) == "concat":
            parts = [unquote(s) or "" for s in descendants(node, _STRINGS)]
            value = "".join(parts)
        else:
            return None
        return tell_of(value, None if source else file.scope.edited_tests) if value else None

    def read(node: ts.Node) -> Read | None:
        if node.type in ("scoped_identifier", "identifier"):
            if node.parent is not None and node.parent.type == "scoped_identifier":
                return None
            named = resolve(node)
            if named.startswith(_PROCESS):
                return Read("process", named)
            return Read("file", named) if named.startswith("std::fs::") else None
        if node.type == "field_expression":
            field = text(node.child_by_field_name("field"))
            return Read("file", f".{field}()") if field in _METHODS else None
        return None

    return Asking(tell, read, _bindings, _stops)


def cfg_claims(file: TsFile, in_tests: Callable[[ts.Node], bool]) -> Iterator[Claim]:
    """`cfg!(test)` and the `cfg` attributes that make the code under test differ under test."""
    for macro in file.nodes("macro_invocation"):
        if _macro(macro) == "cfg" and _names_test(macro) and not in_tests(macro):
            yield file.claim(CODE_DETECTS_TESTS, macro, M.detects("cfg!(test)", "the compiler"))
    for attribute in file.nodes("attribute_item"):
        if in_tests(attribute):
            continue
        body = "".join(text(attribute).split())
        if not _names_test(attribute):
            continue
        if body.startswith("#[cfg_attr(") and ",path=" in body:
            # `#[cfg_attr(test, path = "checked.rs")] mod imp;`: another file is the module
            # under test.
            yield file.claim(
                CODE_DETECTS_TESTS,
                attribute,
                M.detects(body, "the compiler, which builds another file as the module in tests"),
            )
            continue
        if not body.startswith("#[cfg("):
            continue
        outside = "not(" in body
        inside_function = attribute.parent is not None and attribute.parent.type == "block"
        if not (outside or inside_function) and _shadows_a_glob(attribute):
            yield file.claim(
                CODE_DETECTS_TESTS,
                attribute,
                M.detects(body, "the compiler, which puts it over a glob import in tests only"),
            )
        elif outside or inside_function:
            what = "only outside tests" if outside else "only in tests"
            yield file.claim(
                CODE_DETECTS_TESTS,
                attribute,
                M.detects(body, f"the compiler, which builds it {what}"),
            )


_SHADOWING = frozenset({"use_declaration", "function_item", "const_item", "static_item"})


def _shadows_a_glob(attribute: ts.Node) -> bool:
    """`#[cfg(test)] pub use checked::add;` (or a function, a constant) beside `pub use imp::*;`:
    a name a glob import gives, given otherwise in test builds only (an explicit item shadows a
    glob's). Where the globbed module is in the file, only a name it defines counts (a test
    helper beside a glob shadows nothing); where it is not, a re-export under test does. A test
    module beside a glob is where tests live."""
    item = attribute.next_named_sibling
    while item is not None and item.type == "attribute_item":
        item = item.next_named_sibling
    scope = attribute.parent
    if item is None or item.type not in _SHADOWING or scope is None:
        return False
    if item.type == "use_declaration" and text(item).rstrip("; ").endswith("*"):
        return False
    name = _item_name(item)
    for child in scope.named_children:
        glob = text(child).rstrip("; ")
        if child.type != "use_declaration" or not glob.endswith("*") or _under_cfg_test(child):
            continue
        module = _module_in(scope, glob.rsplit("::", 2)[-2].split()[-1] if "::" in glob else "")
        if module is None:
            if item.type == "use_declaration" and text(item).startswith("pub"):
                return True
        elif name in _names_defined(module):
            return True
    return False


def _item_name(item: ts.Node) -> str:
    if item.type == "use_declaration":
        return re.split(r"[\s:{}]+", text(item).rstrip("; "))[-1]
    return text(item.child_by_field_name("name"))


def _module_in(scope: ts.Node, name: str) -> ts.Node | None:
    for child in scope.named_children:
        if child.type == "mod_item" and text(child.child_by_field_name("name")) == name:
            return child.child_by_field_name("body")
    return None


def _names_defined(body: ts.Node) -> set[str]:
    return {_item_name(c) for c in body.named_children if c.type in _SHADOWING}


def _under_cfg_test(item: ts.Node) -> bool:
    before = item.prev_named_sibling
    while before is not None and before.type == "attribute_item":
        if "".join(text(before).split()) == "#[cfg(test)]":
            return True
        before = before.prev_named_sibling
    return False


def _macro(node: ts.Node) -> str:
    return text(node.child_by_field_name("macro")).rsplit("::", 1)[-1]


def _names_test(node: ts.Node) -> bool:
    return any(text(n) == "test" for n in descendants(node, frozenset({"identifier"})))


def _stops(node: ts.Node) -> bool:
    return node.type.endswith(
        ("_statement", "_declaration", "block", "_item", "source_file", "declaration_list")
    )


def _bindings(file: TsFile) -> Iterator[Binding]:
    for node in file.nodes("let_declaration", "for_expression"):
        pattern = node.child_by_field_name("pattern")
        value = node.child_by_field_name("value")
        if pattern is not None and value is not None:
            names = [pattern] if pattern.type == "identifier" else list(descendants(pattern))
            yield [text(n) for n in names if n.type == "identifier"], value
