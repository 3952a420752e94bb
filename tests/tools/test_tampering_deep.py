"""Deeply nested test code is read without crashing (blocks in blocks past any test's depth, in
each language the tampering readers know): an evaluation never fails on what a generator
nests."""

from __future__ import annotations

import pytest

from referee.tools.tampering import detect

DEPTH = 5000
NESTED = {
    "a.test.js": "test('a', () => {\n"
    + "{" * DEPTH
    + "return"
    + "}" * DEPTH
    + "\nexpect(add(1, 2)).toBe(3)\n})\n",
    "b.test.ts": "test('a', () => {\n"
    + "if (x) {" * DEPTH
    + "expect(add(1, 2)).toBe(3)"
    + "}" * DEPTH
    + "\n})\n",
    "src/lib.rs": "#[test]\nfn a() {\n"
    + "{" * DEPTH
    + "return;"
    + "}" * DEPTH
    + "\nassert_eq!(add(1, 2), 3);\n}\n",
    "a_test.go": "package a\nfunc TestA(t *testing.T) {\n"
    + "{" * DEPTH
    + "return"
    + "}" * DEPTH
    + '\nif Add(1, 2) != 3 { t.Errorf("b") }\n}\n',
    "ATest.java": "class ATest {\n@Test void a() {\n"
    + "{" * DEPTH
    + "return;"
    + "}" * DEPTH
    + "\nassertEquals(3, add(1, 2));\n}\n}\n",
    "ATest.php": "<?php\nclass ATest extends TestCase {\npublic function testA(): void {\n"
    + "{" * DEPTH
    + "return;"
    + "}" * DEPTH
    + "\n$this->assertSame(3, add(1, 2));\n}\n}\n",
    "tests/test_a.py": "def test_a():\n"
    + "".join("    " * (i + 1) + "if x:\n" for i in range(90))
    + "    " * 91
    + "assert add(1, 2) == 3\n",
}


@pytest.mark.parametrize("path", list(NESTED))
def test_deep_nesting_is_read(path: str) -> None:
    found = detect([path], lambda p: NESTED[path], lambda p: NESTED[path] + "\n")
    assert found == [], found
