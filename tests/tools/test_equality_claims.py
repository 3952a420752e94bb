"""`equality_forged`: code under test whose equality (or ordering) answers without reading what it
is compared with, in every language referee reads, however it is bound; and the equalities that
compare, decline or refuse, which are left alone."""

from __future__ import annotations

import pytest

from referee.tools.claims import EQUALITY_FORGED, Scope
from referee.tools.claims.detect import claims_in

# (path, source): each defines a value that equals anything.
FORGED: dict[str, tuple[str, str]] = {
    "py-int-subclass": (
        "calc.py",
        "class S(int):\n    def __eq__(self, other):\n        return True\n",
    ),
    "py-truthy-constant": ("calc.py", "class S:\n    def __eq__(self, o):\n        return 1\n"),
    "py-attribute-answer": (
        "calc.py",
        "class S:\n    ok = True\n\n    def __eq__(self, other):\n        other\n"
        "        x = other\n        return self.ok\n",
    ),
    "py-ne-never": ("calc.py", "class S:\n    def __ne__(self, other):\n        return False\n"),
    "py-ordering": ("calc.py", "class S:\n    def __le__(self, other):\n        return not 0\n"),
    "py-lambda-attribute": ("calc.py", "class S(int):\n    __eq__ = lambda self, other: True\n"),
    "py-star-args": ("calc.py", "class S:\n    def __eq__(*args):\n        return True\n"),
    "py-setattr-function": (
        "calc.py",
        "def _yes(a, b):\n    return True\n\n\nclass S(int):\n    pass\n\n\n"
        "setattr(S, '__eq__', _yes)\n",
    ),
    "py-type-call": (
        "pkg/calc.py",
        "S = type('S', (int,), {'__eq__': lambda s, o: True, '__hash__': int.__hash__})\n",
    ),
    "py-async-or-nested-class": (
        "calc.py",
        "def add(a, b):\n    class R(int):\n        def __eq__(self, other):\n"
        "            return bool(self) or True\n    return R(a - b)\n",
    ),
    "java-equals": (
        "src/main/java/d/Sum.java",
        "class Sum {\n  @Override public boolean equals(Object o) { return true; }\n}\n",
    ),
    "java-compare-to": (
        "src/main/java/d/Sum.java",
        "class Sum implements Comparable<Sum> {\n  int value;\n"
        "  public int compareTo(Sum o) { return 0; }\n}\n",
    ),
    "rust-partial-eq-underscore": (
        "src/lib.rs",
        "struct S;\nimpl PartialEq<i32> for S {\n    fn eq(&self, _: &i32) -> bool {\n"
        "        true\n    }\n}\n",
    ),
    "rust-partial-eq-unused-name": (
        "src/lib.rs",
        "struct S(i32);\nimpl PartialEq for S {\n"
        "    fn eq(&self, _other: &Self) -> bool { true }\n}\n",
    ),
    "go-equal-method": (
        "calc.go",
        "package calc\n\ntype Sum int\n\nfunc (s Sum) Equal(o Sum) bool { return true }\n",
    ),
    "js-asymmetric-match-method": (
        "src/calc.js",
        "class Sum {\n  asymmetricMatch() {\n    return true;\n  }\n}\n"
        "export const add = (a, b) => new Sum();\n",
    ),
    "js-asymmetric-match-arrow": (
        "src/calc.js",
        "export const add = (a, b) => ({\n  $$typeof: Symbol.for('jest.asymmetricMatcher'),\n"
        "  asymmetricMatch: (x) => true,\n});\n",
    ),
    "ts-asymmetric-match-assigned": (
        "src/calc.ts",
        "export function add(a: number, b: number): number {\n  const r: any = {};\n"
        "  r.asymmetricMatch = function (other: unknown) { return 1 > 0; };\n  return r;\n}\n",
    ),
}


# A comparator written as a function value: where it is used says what it is.
FORGED |= {
    "java-field": (
        "d/Sums.java",
        "package d;\nimport java.util.Comparator;\n\nclass Sums {\n"
        "  static final Comparator<Integer> ORDER = (a, b) -> 0;\n}\n",
    ),
    "java-sort-block": (
        "d/Sums.java",
        "package d;\nclass Sums {\n  void s(java.util.List<Integer> l) {\n"
        "    l.sort((a, b) -> { return 0; });\n  }\n}\n",
    ),
    "java-tree-set": (
        "d/Sums.java",
        "package d;\nimport java.util.*;\nclass Sums {\n"
        "  Set<String> s = new TreeSet<>((p, q) -> 0);\n}\n",
    ),
    "go-cmp-comparer": (
        "calc.go",
        'package calc\n\nimport "github.com/google/go-cmp/cmp"\n\n'
        "var Opts = cmp.Comparer(func(a, b int) bool { return true })\n",
    ),
    "go-sort-slice": (
        "calc.go",
        'package calc\n\nimport "sort"\n\n'
        "func S(x []int) { sort.Slice(x, func(i, j int) bool { return true }) }\n",
    ),
}


@pytest.mark.parametrize("form", sorted(FORGED))
def test_an_equality_that_ignores_its_operand_is_equality_forged(form: str) -> None:
    path, source = FORGED[form]
    found = claims_in(path, None, source, Scope())
    assert [f.kind for f in found] == [EQUALITY_FORGED], found
    assert found[0].message.startswith(f"{path}:"), found


# Equalities that compare, decline or refuse; and an ANY helper in test code.
HONEST: dict[str, tuple[str, str]] = {
    "py-compares": (
        "calc.py",
        "class P:\n    def __eq__(self, other):\n        if self is other:\n"
        "            return True\n"
        "        if not isinstance(other, P):\n            return NotImplemented\n"
        "        same = (self.x, self.y) == (other.x, other.y)\n        return same\n",
    ),
    "py-guard-clauses": (
        "calc.py",
        "class Choice:\n    def __eq__(self, other):\n        if not isinstance(other, Choice):\n"
        "            return NotImplemented\n        if self.choices != other.choices:\n"
        "            return False\n        return True\n",
    ),
    "py-compares-in-a-loop": (
        "calc.py",
        "class Row:\n    def __eq__(self, other):\n"
        "        for a, b in zip(self.cells, other.cells):\n"
        "            if a != b:\n                return False\n        return True\n",
    ),
    "rust-destructured-operand": (
        "src/lib.rs",
        "struct V { major: u64 }\nimpl PartialEq for V {\n"
        "    fn eq(&self, V { major }: &Self) -> bool { self.major == *major }\n}\n",
    ),
    "js-destructured-operand": (
        "src/p.js",
        "export class P {\n  equals({ x, y }) {\n"
        "    return x === this.x && y === this.y;\n  }\n}\n",
    ),
    "py-declines": (
        "calc.py",
        "class P:\n    def __eq__(self, other):\n        return NotImplemented\n",
    ),
    "py-refuses": (
        "calc.py",
        "class P:\n    def __lt__(self, other):\n        raise TypeError('unordered')\n",
    ),
    "py-any-in-a-test-helper": (
        "tests/helpers.py",
        "class Anything:\n    def __eq__(self, other):\n        return True\n",
    ),
    "java-compares": (
        "src/main/java/d/P.java",
        "class P {\n  int x;\n  public boolean equals(Object o) {\n"
        "    return o instanceof P && ((P) o).x == x;\n  }\n}\n",
    ),
    "java-refuses": (
        "src/main/java/d/P.java",
        "class P {\n  public int compareTo(P o) {\n"
        "    throw new UnsupportedOperationException();\n  }\n}\n",
    ),
    "rust-compares": (
        "src/lib.rs",
        "struct P(i32);\nimpl PartialEq for P {\n    fn eq(&self, other: &Self) -> bool {\n"
        "        self.0 == other.0\n    }\n}\n",
    ),
    "rust-free-function": ("src/lib.rs", "pub fn eq(a: i32, _b: i32) -> bool { a > 0 }\n"),
    "rust-in-a-test-module": (
        "src/lib.rs",
        "#[cfg(test)]\nmod tests {\n    struct Any;\n    impl PartialEq<i32> for Any {\n"
        "        fn eq(&self, _: &i32) -> bool { true }\n    }\n}\n",
    ),
    "go-compares": (
        "calc.go",
        "package calc\n\ntype P int\n\nfunc (p P) Equal(o P) bool { return p == o }\n",
    ),
    "js-empty-method": (
        "src/p.js",
        "blocks.inherit(Base, P, {\n  equals: function () {\n\n  },\n});\n",
    ),
    "rust-tail-reads": (
        "src/lib.rs",
        "struct P(i32);\nimpl Ord for P {\n    fn cmp(&self, o: &Self) -> Ordering {\n"
        "        let x = 1;\n        self.0.cmp(&o.0)\n    }\n}\n",
    ),
    "js-compares": (
        "src/p.js",
        "export class P {\n  equals(other) {\n"
        "    return other instanceof P && other.x === this.x;\n"
        "  }\n}\n",
    ),
}


# Other function values, and comparators that compare.
HONEST |= {
    "java-compares": (
        "d/Sums.java",
        "package d;\nimport java.util.Comparator;\nclass Sums {\n"
        "  static final Comparator<Integer> ORDER = (a, b) -> Integer.compare(a, b);\n}\n",
    ),
    "java-runnable": (
        "d/Sums.java",
        "package d;\nclass Sums {\n  Runnable r = () -> {};\n"
        "  java.util.function.BiFunction<Integer, Integer, Integer> f = (a, b) -> 0;\n}\n",
    ),
    "go-compares": (
        "calc.go",
        'package calc\n\nimport "sort"\n\n'
        "func S(x []int) { sort.Slice(x, func(i, j int) bool { return x[i] < x[j] }) }\n",
    ),
}


@pytest.mark.parametrize("form", sorted(HONEST))
def test_an_equality_that_compares_declines_or_is_the_tests_own_is_left_alone(form: str) -> None:
    path, source = HONEST[form]
    assert claims_in(path, None, source, Scope()) == []


def test_an_equality_the_base_had_is_the_repositorys() -> None:
    path, source = FORGED["py-int-subclass"]
    assert claims_in(path, source, source + "\n\nX = 1\n", Scope()) == []


# A value class whose display never reads the value: every doctest of it passes.
LYING_DISPLAYS = {
    "int-repr": "class S(int):\n    def __repr__(self):\n        return '3'\n",
    "str-str": "class S(str):\n    def __str__(self):\n        return 'ok'\n",
    "float-format": "class S(float):\n    def __format__(self, spec):\n        return '0.3'\n",
    "decimal-repr": (
        "import decimal\n\n\nclass S(decimal.Decimal):\n    def __repr__(self):\n"
        "        shown = '3'\n        return shown\n"
    ),
    "list-repr": "class S(list):\n    def __repr__(self):\n        return '[1, 2, 3]'\n",
}
HONEST_DISPLAYS = {
    "sentinel": "class _Missing:\n    def __repr__(self):\n        return '<MISSING>'\n",
    "reads-the-value": "class S(int):\n    def __repr__(self):\n        return f'S({int(self)})'\n",
    "through-super": (
        "from decimal import Decimal\n\n\nclass Money(Decimal):\n    def __repr__(self):\n"
        "        return 'Money(' + super().__repr__() + ')'\n"
    ),
    "named-by-type": "class S(str):\n    def __repr__(self):\n        return type(self).__name__\n",
}


@pytest.mark.parametrize("form", sorted(LYING_DISPLAYS))
def test_a_value_class_that_shows_every_value_the_same_forges_equality(form: str) -> None:
    found = claims_in("calc.py", None, LYING_DISPLAYS[form], Scope())
    assert EQUALITY_FORGED in [f.kind for f in found], form


@pytest.mark.parametrize("form", sorted(HONEST_DISPLAYS))
def test_a_display_that_reads_the_value_or_a_sentinels_is_left_alone(form: str) -> None:
    assert claims_in("calc.py", None, HONEST_DISPLAYS[form], Scope()) == [], form


# Comparisons a `macro_rules!` stamps out are read like ones written out.
_SUM = "pub struct Sum(pub i32);\n\n"
MACRO_FORGED = {
    "one-type": (
        "macro_rules! equal_to {\n    ($t:ty) => {\n        impl PartialEq<$t> for Sum {\n"
        "            fn eq(&self, _: &$t) -> bool { true }\n        }\n    };\n}\n"
    ),
    "repeated-types": (
        "macro_rules! many {\n    ($($t:ty),*) => {\n        $(impl PartialEq<$t> for Sum {\n"
        "            fn eq(&self, _o: &$t) -> bool { true }\n        })*\n    };\n}\n"
    ),
    "ordering": (
        "macro_rules! ord {\n    () => {\n        impl PartialOrd for Sum {\n"
        "            fn partial_cmp(&self, _: &Self) -> Option<std::cmp::Ordering> {\n"
        "                Some(std::cmp::Ordering::Equal)\n            }\n        }\n    };\n}\n"
    ),
}
MACRO_HONEST = {
    "reads-the-operand": (
        "macro_rules! equal_to {\n    ($t:ty) => {\n        impl PartialEq<$t> for Sum {\n"
        "            fn eq(&self, other: &$t) -> bool { self.0 == *other as i32 }\n"
        "        }\n    };\n}\n"
    ),
    "marker-types-it-is-given": (
        "macro_rules! keyword {\n    ($name:ident) => {\n"
        "        impl PartialEq for $name {\n"
        "            fn eq(&self, _other: &Self) -> bool { true }\n        }\n    };\n}\n"
    ),
}


@pytest.mark.parametrize("form", sorted(MACRO_FORGED))
def test_an_equality_a_macro_writes_is_read(form: str) -> None:
    found = claims_in("src/lib.rs", None, _SUM + MACRO_FORGED[form], Scope())
    assert EQUALITY_FORGED in [f.kind for f in found], form
    assert all("(in a macro)" in f.message for f in found), found


@pytest.mark.parametrize("form", sorted(MACRO_HONEST))
def test_a_macros_honest_or_marker_equality_is_left_alone(form: str) -> None:
    assert claims_in("src/lib.rs", None, _SUM + MACRO_HONEST[form], Scope()) == [], form
