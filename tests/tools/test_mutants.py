"""Mutants of the changed lines, per language: what each operator makes of real code, that every
mutant is one splice (every other byte and line kept) that still parses, and what is never
mutated (imports, types, annotations, docstrings, test code inside a source file)."""

from __future__ import annotations

import ast

import pytest
from mutant_sources import GO, JAVA, JS, PHP, PYTHON, RUST, TS, TSX

from referee.tools.adequacy import Lines, MutantSpec, generate, mutable
from referee.tools.static.langs import parser

Seen = tuple[int, str, str, str]


def made(path: str, source: str, lines: set[int] | None = None) -> list[MutantSpec]:
    found = generate(path, source.encode(), Lines(lines))
    _every_mutant_is_one_splice_that_parses(path, source.encode(), found)
    return found


def seen(found: list[MutantSpec]) -> set[Seen]:
    return {(m.line, m.operator, m.original, m.replacement) for m in found}


_GRAMMAR = {".js": "javascript", ".ts": "typescript", ".tsx": "tsx", ".go": "go", ".rs": "rust"}
_GRAMMAR |= {".java": "java", ".php": "php"}


def _every_mutant_is_one_splice_that_parses(
    path: str, source: bytes, found: list[MutantSpec]
) -> None:
    suffix = path[path.rfind(".") :]
    for m in found:
        mutated = m.apply(source)
        assert mutated[: m.start] == source[: m.start], m
        assert mutated[len(mutated) - (len(source) - m.end) :] == source[m.end :], m
        assert mutated.count(b"\n") == source.count(b"\n"), m
        assert source[m.start : m.end].decode() == m.original
        assert source[: m.start].count(b"\n") + 1 == m.line, m
        if suffix == ".py":
            ast.parse(mutated)
        else:
            tree = parser(_GRAMMAR[suffix]).parse(mutated)
            assert not tree.root_node.has_error, (m, mutated.decode())
    assert len({(m.start, m.end, m.replacement) for m in found}) == len(found), "duplicates"


def test_every_language_with_a_parser_here_is_mutable() -> None:
    wanted = ["a.py", "a.js", "a.mjs", "a.cjs", "a.jsx", "a.ts", "a.mts", "a.tsx"]
    wanted += ["a.go", "a.rs", "A.java", "a.php"]
    assert all(mutable(p) for p in wanted)
    assert not any(mutable(p) for p in ["a.kt", "a.c", "a.rb", "README.md", "a.d.ts"])


def test_javascript_operators_on_the_changed_lines() -> None:
    found = seen(made("src/cart.js", JS))
    assert {
        (4, "boundary", ">=", ">"),
        (4, "boolean", "&&", "||"),
        (4, "comparison", "!==", "==="),
        (4, "string", "''", "'XX'"),
        (5, "removed call", "log('discount')", ""),
        (5, "string", "'discount'", "''"),
        (5, "string", "'discount'", "'XXdiscountXX'"),
        (6, "arithmetic", "*", "/"),
        (6, "constant", "0.9", "1.9"),
        (6, "return value", "amount * 0.9", "undefined"),
        (8, "negation", "!", ""),
        (8, "arithmetic", "-", "+"),
        (8, "constant", "1", "2"),
        (8, "constant", "1", "0"),
        (9, "arithmetic", "+=", "-="),
        (10, "constant", "true", "false"),
        (2, "constant", "10", "11"),
        (2, "constant", "10", "9"),
        (2, "constant", "10", "0"),
    } <= found
    assert not [s for s in found if s[0] == 1], "an import's module path is never mutated"


def test_only_the_wanted_lines_are_mutated() -> None:
    found = made("src/cart.js", JS, {6})
    assert found and {m.line for m in found} == {6}
    assert not made("src/cart.js", JS, set())
    kept = generate("src/cart.js", JS.encode(), Lines({4, 5, 6}, frozenset({4, 5})))
    assert {m.line for m in kept} == {6}


def test_typescript_types_are_never_mutated() -> None:
    found = seen(made("src/label.ts", TS))
    assert {
        (4, "boundary", ">", ">="),
        (4, "string", "'one item'", "''"),
        (4, "return value", "n > 1 ? `${n} items` : 'one item'", "''"),
        (3, "string", "'fast'", "''"),
    } <= found
    lines = {s[0] for s in found}
    assert 1 not in lines and 2 not in lines  # `import type`, a union of string literals
    assert not [s for s in found if "`" in s[2] and s[1] == "string"], "templates with values"


def test_tsx_components_are_mutated_as_typescript() -> None:
    found = seen(made("src/Badge.tsx", TSX))
    assert {(2, "boundary", ">", ">="), (2, "string", "'99+'", "''")} <= found
    assert (2, "constant", "99", "100") in found


def test_vitest_in_source_tests_are_never_mutated() -> None:
    source = TS + "\nif (import.meta.vitest) {\n  const { it } = import.meta.vitest;\n"
    source += "  it('labels', () => { expect(label(2) === 'x').toBe(false); });\n}\n"
    found = made("src/label.ts", source)
    assert max(m.line for m in found) == 4


def test_go_operators_and_typed_return_values() -> None:
    found = seen(made("shop/price.go", GO))
    assert {
        (11, "boundary", "<=", "<"),
        (11, "boolean", "||", "&&"),
        (11, "boundary", "<", "<="),
        (11, "constant", "100", "101"),
        (12, "return value", "total", "0"),
        (14, "arithmetic", "-", "+"),
        (14, "arithmetic", "*", "/"),
        (18, "comparison", "==", "!="),
        (19, "return value", 'fmt.Errorf("no items: %d", n)', "nil"),
        (21, "removed call", "record(n)", ""),
        (22, "return value", 'fmt.Sprintf("%d items", n)', '""'),
        (22, "string", '"%d items"', '"XX%d itemsXX"'),
        (26, "constant", "true", "false"),
    } <= found
    assert (22, "string", '"%d items"', '""') not in found  # go vet refuses a format emptied
    assert not [s for s in found if s[0] in (3, 6)], "imports and struct tags"
    assert not [s for s in found if s[0] == 26 and s[1] == "return value"], "the same as false"


def test_a_go_call_whose_package_nothing_else_uses_is_not_removed() -> None:
    source = 'package p\n\nimport "log"\n\nfunc F(n int) int {\n\tlog.Println(n)\n\treturn n\n}\n'
    assert not [m for m in made("p/f.go", source) if m.operator == "removed call"]


def test_rust_operators_tail_values_and_no_test_module() -> None:
    found = seen(made("src/lib.rs", RUST))
    assert {
        (2, "comparison", "==", "!="),
        (2, "boolean", "||", "&&"),
        (2, "constant", "100", "99"),
        (3, "return value", "total", "0"),
        (5, "return value", "total - total * pct / 100", "0"),
        (5, "arithmetic", "/", "*"),
        (9, "string", '"items"', '""'),
        (9, "boundary", ">", ">="),
        (10, "return value", 'format!("{} {}", n, word)', "String::new()"),
        (14, "removed call", "v.push(n)", ""),
        (15, "constant", "1u8", "2u8"),
        (15, "constant", "2.5f64", "3.5f64"),
    } <= found
    assert not [s for s in found if s[0] > 18], "the #[cfg(test)] module is test code"
    assert not [s for s in found if s[0] == 10 and s[1] == "string"], "macro arguments"
    assert not [s for s in found if s[0] == 16 and s[1] == "constant"], "a tuple's field index"


def test_java_operators_return_values_by_declared_type() -> None:
    found = seen(made("src/main/java/shop/Cart.java", JAVA))
    assert {
        (8, "string", '"EUR"', '""'),
        (10, "boundary", "<=", "<"),
        (11, "return value", "total", "0"),
        (13, "arithmetic", "-", "+"),
        (16, "return value", "prices.isEmpty()", "false"),
        (19, "removed call", "log(n)", ""),
        (20, "return value", 'n + " items" + 5L', "null"),
        (20, "constant", "5L", "6L"),
    } <= found
    assert not [s for s in found if s[0] in (3, 7)], "imports and annotations"


def test_php_operators_return_values_by_declared_type() -> None:
    found = seen(made("src/Cart.php", PHP))
    assert {
        (5, "string", "'EUR'", "''"),
        (8, "boundary", "<=", "<"),
        (8, "boolean", "||", "&&"),
        (9, "return value", "$total", "0"),
        (11, "arithmetic", "-", "+"),
        (14, "removed call", "self::log($n)", ""),
        (15, "return value", '"$n items"', "''"),
        (17, "constant", "TRUE", "FALSE"),
        (17, "boolean", "&&", "||"),
        (17, "negation", "!", ""),
    } <= found
    assert not [s for s in found if s[0] in (2, 3)], "namespace and require"
    assert not [s for s in found if s[1] == "string" and "$" in s[2]], "interpolated strings"


def test_python_strings_and_constants() -> None:
    found = seen(made("src/fold.py", PYTHON))
    assert {
        (6, "string", "'NFKD'", "''"),
        (6, "string", "'NFKD'", "'XXNFKDXX'"),
        (6, "string", "'ascii'", "''"),
        (9, "constant", "10", "11"),
        (9, "constant", "10", "9"),
        (9, "constant", "10", "0"),
        (10, "constant", "False", "True"),
        (11, "constant", "0x1F", "0x20"),
        (11, "constant", "1.5", "2.5"),
        (11, "constant", "1.5", "0.5"),
        (11, "string", "b'x'", "b''"),
    } <= found
    assert not [s for s in found if s[0] in (4, 5)], "a docstring, a string annotation"
    assert not [s for s in found if s[0] == 12 and s[1] == "string"], "f-strings"
    assert (12, "constant", "2", "3") in found
    assert not [s for s in found if s[0] == 14], "the __main__ guard: tests import the module"
    assert (15, "removed call", 'print(fold("x"))', "pass") in found


def test_numbers_keep_their_radix_and_suffix_and_never_go_negative() -> None:
    source = "fn f() -> u32 {\n    0 + 0xFFu32 + 1_000 + 0b10\n}\n"
    found = seen(made("src/lib.rs", source, {2}))
    assert {r for (_, op, o, r) in found if op == "constant" and o == "0"} == {"1"}
    assert {r for (_, op, o, r) in found if o == "0xFFu32"} == {"0x100u32", "0xFEu32", "0x0u32"}
    assert {r for (_, op, o, r) in found if o == "1_000"} == {"1001", "999", "0"}
    assert {r for (_, op, o, r) in found if o == "0b10"} == {"0b11", "0b1", "0b0"}


def test_a_file_that_does_not_parse_gives_no_mutant() -> None:
    assert generate("a.py", b"def (:\n", Lines()) == []
    assert generate("a.go", b"\xff\xfe not go at all {{{", Lines()) == []


@pytest.mark.parametrize(
    ("path", "source"),
    [("a.ts", TS), ("a.go", GO), ("lib.rs", RUST), ("A.java", JAVA), ("a.php", PHP)],
)
def test_mutants_come_in_source_order_one_splice_each(path: str, source: str) -> None:
    found = made(path, source)
    assert [(m.line, m.start) for m in found] == sorted((m.line, m.start) for m in found)
