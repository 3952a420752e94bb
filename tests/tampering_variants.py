"""Ways to make a test stop checking something, in every language referee reads (tamper: a
finding is wanted), and ordinary edits that must find nothing; kept as cases for
tests/tools/test_tampering_variants.py."""

from __future__ import annotations

import textwrap

D = textwrap.dedent
CASES = []  # (id, lang, spelling, path, before, after, is_tamper)


def T(i, lang, spell, path, before, after):
    CASES.append((i, lang, spell, path, D(before), D(after), True))


def F(i, lang, spell, path, before, after):
    CASES.append((i, lang, spell, path, D(before), D(after), False))


JS_BASE = """
import { test, expect } from 'vitest'
test('adds', () => {
  expect(add(1, 2)).toBe(3)
})
"""


def js(after):
    return D(after)


# ---------- JS / TS ----------
T(
    "J1",
    "JS",
    "test.skip.each",
    "a.test.ts",
    JS_BASE,
    """
import { test, expect } from 'vitest'
test.skip.each([1])('adds', () => {
  expect(add(1, 2)).toBe(3)
})
""",
)
T(
    "J2",
    "JS",
    "describe.skipIf(cond)",
    "a.test.ts",
    """
describe('s', () => { test('adds', () => { expect(add(1, 2)).toBe(3) }) })
""",
    """
describe.skipIf(process.env.CI)('s', () => { test('adds', () => { expect(add(1, 2)).toBe(3) }) })
""",
)
T(
    "J3",
    "JS",
    "alias const t = test.skip",
    "a.test.ts",
    JS_BASE,
    """
import { test, expect } from 'vitest'
const t = test.skip
t('adds', () => {
  expect(add(1, 2)).toBe(3)
})
""",
)
T(
    "J4",
    "JS",
    "shadowed binding: import {test as base}; const test = base.skip",
    "a.test.ts",
    JS_BASE,
    """
import { test as base, expect } from 'vitest'
const test = base.skip
test('adds', () => {
  expect(add(1, 2)).toBe(3)
})
""",
)
T(
    "J5",
    "JS",
    "it.concurrent.skip",
    "a.test.ts",
    JS_BASE,
    """
import { test, expect } from 'vitest'
test.concurrent.skip('adds', () => {
  expect(add(1, 2)).toBe(3)
})
""",
)
T(
    "J6",
    "JS",
    "computed member test['skip']",
    "a.test.ts",
    JS_BASE,
    """
import { test, expect } from 'vitest'
test['skip']('adds', () => {
  expect(add(1, 2)).toBe(3)
})
""",
)
T(
    "J7",
    "JS",
    "wrapper helper function",
    "a.test.ts",
    JS_BASE,
    """
import { test, expect } from 'vitest'
const maybe = (name, fn) => test.skip(name, fn)
maybe('adds', () => {
  expect(add(1, 2)).toBe(3)
})
""",
)
T(
    "J8",
    "JS",
    "vitest test.todo.each",
    "a.test.ts",
    JS_BASE,
    """
import { test, expect } from 'vitest'
test.todo.each([1])('adds', () => {
  expect(add(1, 2)).toBe(3)
})
""",
)
T(
    "J9",
    "JS",
    "jest xtest",
    "a.test.js",
    JS_BASE,
    """
xtest('adds', () => {
  expect(add(1, 2)).toBe(3)
})
""",
)
T(
    "J10",
    "JS",
    "mocha it.skip inside describe.only",
    "a.spec.js",
    """
describe('s', () => { it('adds', () => { expect(add(1, 2)).toBe(3) }) })
""",
    """
describe.only('s', () => { it.skip('adds', () => { expect(add(1, 2)).toBe(3) }) })
""",
)
T(
    "J11",
    "JS",
    "node:test options {skip: true}",
    "a.test.mjs",
    """
import test from 'node:test'; import assert from 'node:assert'
test('adds', () => { assert.equal(add(1, 2), 3) })
""",
    """
import test from 'node:test'; import assert from 'node:assert'
test('adds', { skip: true }, () => { assert.equal(add(1, 2), 3) })
""",
)
T(
    "J12",
    "JS",
    "node:test t.skip()",
    "a.test.mjs",
    """
import test from 'node:test'; import assert from 'node:assert'
test('adds', (t) => { assert.equal(add(1, 2), 3) })
""",
    """
import test from 'node:test'; import assert from 'node:assert'
test('adds', (t) => { t.skip(); assert.equal(add(1, 2), 3) })
""",
)
T(
    "J13",
    "JS",
    "node:test context renamed: (tc) => tc.skip()",
    "a.test.mjs",
    """
import test from 'node:test'; import assert from 'node:assert'
test('adds', (tc) => { assert.equal(add(1, 2), 3) })
""",
    """
import test from 'node:test'; import assert from 'node:assert'
test('adds', (tc) => { tc.skip(); assert.equal(add(1, 2), 3) })
""",
)
T(
    "J14",
    "JS",
    "vitest options {skip: true} / node {todo: true}",
    "a.test.ts",
    JS_BASE,
    """
import { test, expect } from 'vitest'
test('adds', { skip: true }, () => {
  expect(add(1, 2)).toBe(3)
})
""",
)
T(
    "J15",
    "JS",
    "node:test/vitest options {only: true} (focus)",
    "a.test.ts",
    JS_BASE,
    """
import { test, expect } from 'vitest'
test('adds', { only: true }, () => {
  expect(add(1, 2)).toBe(3)
})
""",
)
T(
    "J16",
    "JS",
    "early return before expect",
    "a.test.ts",
    JS_BASE,
    """
import { test, expect } from 'vitest'
test('adds', () => {
  return
  expect(add(1, 2)).toBe(3)
})
""",
)
T(
    "J17",
    "JS",
    "matcher dropped: expect(x) alone",
    "a.test.ts",
    JS_BASE,
    """
import { test, expect } from 'vitest'
test('adds', () => {
  expect(add(1, 2))
})
""",
)
T(
    "J18",
    "JS",
    "tautology swap expect(true).toBe(true)",
    "a.test.ts",
    JS_BASE,
    """
import { test, expect } from 'vitest'
test('adds', () => {
  expect(true).toBe(true)
})
""",
)
T(
    "J19",
    "JS",
    "Playwright test.fixme(...)",
    "a.spec.ts",
    """
import { test, expect } from '@playwright/test'
test('adds', async () => { expect(add(1, 2)).toBe(3) })
""",
    """
import { test, expect } from '@playwright/test'
test.fixme('adds', async () => { expect(add(1, 2)).toBe(3) })
""",
)
T(
    "J20",
    "JS",
    "Playwright test.skip() inside body",
    "a.spec.ts",
    """
import { test, expect } from '@playwright/test'
test('adds', async () => { expect(add(1, 2)).toBe(3) })
""",
    """
import { test, expect } from '@playwright/test'
test('adds', async () => { test.skip(); expect(add(1, 2)).toBe(3) })
""",
)
T(
    "J21",
    "JS",
    "jasmine pending()",
    "a.spec.js",
    """
it('adds', () => { expect(add(1, 2)).toBe(3) })
""",
    """
it('adds', () => { pending('later'); expect(add(1, 2)).toBe(3) })
""",
)
T(
    "J22",
    "JS",
    "expect inside dead branch if (false)",
    "a.test.ts",
    JS_BASE,
    """
import { test, expect } from 'vitest'
test('adds', () => {
  if (false) expect(add(1, 2)).toBe(3)
})
""",
)
T(
    "J23",
    "JS",
    "test.each over empty table",
    "a.test.ts",
    JS_BASE,
    """
import { test, expect } from 'vitest'
test.each([])('adds', () => {
  expect(add(1, 2)).toBe(3)
})
""",
)
# ---------- Python ----------
PY_BASE = """
import pytest
def test_add():
    assert add(1, 2) == 3
"""


def py(after):
    return after


T(
    "P1",
    "Python",
    "alias off = pytest.mark.skipif; @off(True)",
    "tests/test_a.py",
    PY_BASE,
    """
import pytest
off = pytest.mark.skipif
@off(True, reason="later")
def test_add():
    assert add(1, 2) == 3
""",
)
T(
    "P2",
    "Python",
    "module pytestmark = pytest.mark.skip",
    "tests/test_a.py",
    PY_BASE,
    """
import pytest
pytestmark = pytest.mark.skip
def test_add():
    assert add(1, 2) == 3
""",
)
T(
    "P3",
    "Python",
    "@unittest.skipIf(True, ..)",
    "tests/test_a.py",
    """
import unittest
class T(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(1, 2), 3)
""",
    """
import unittest
class T(unittest.TestCase):
    @unittest.skipIf(True, "x")
    def test_add(self):
        self.assertEqual(add(1, 2), 3)
""",
)
T(
    "P4",
    "Python",
    "raise unittest.SkipTest",
    "tests/test_a.py",
    PY_BASE,
    """
import pytest, unittest
def test_add():
    raise unittest.SkipTest("later")
    assert add(1, 2) == 3
""",
)
T(
    "P5",
    "Python",
    "class-level @unittest.skip",
    "tests/test_a.py",
    """
import unittest
class T(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(1, 2), 3)
""",
    """
import unittest
@unittest.skip("x")
class T(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(1, 2), 3)
""",
)
T(
    "P6",
    "Python",
    "from pytest import skip; skip()",
    "tests/test_a.py",
    PY_BASE,
    """
from pytest import skip
def test_add():
    skip("later")
    assert add(1, 2) == 3
""",
)
T(
    "P7",
    "Python",
    "pytest.importorskip('nope')",
    "tests/test_a.py",
    PY_BASE,
    """
import pytest
def test_add():
    pytest.importorskip("no_such_module")
    assert add(1, 2) == 3
""",
)
T(
    "P8",
    "Python",
    "class __unittest_skip__ = True",
    "tests/test_a.py",
    """
import unittest
class T(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(1, 2), 3)
""",
    """
import unittest
class T(unittest.TestCase):
    __unittest_skip__ = True
    def test_add(self):
        self.assertEqual(add(1, 2), 3)
""",
)
T(
    "P9",
    "Python",
    "__test__ = False (module)",
    "tests/test_a.py",
    PY_BASE,
    """
import pytest
__test__ = False
def test_add():
    assert add(1, 2) == 3
""",
)
T(
    "P10",
    "Python",
    "pytest class gets __init__ (not collected)",
    "tests/test_a.py",
    """
class TestA:
    def test_add(self):
        assert add(1, 2) == 3
""",
    """
class TestA:
    def __init__(self):
        pass
    def test_add(self):
        assert add(1, 2) == 3
""",
)
T(
    "P11",
    "Python",
    "early return",
    "tests/test_a.py",
    PY_BASE,
    """
import pytest
def test_add():
    return
    assert add(1, 2) == 3
""",
)
T(
    "P12",
    "Python",
    "tautology assert True",
    "tests/test_a.py",
    PY_BASE,
    """
import pytest
def test_add():
    assert True
""",
)
T(
    "P13",
    "Python",
    "setUpClass raises SkipTest",
    "tests/test_a.py",
    """
import unittest
class T(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(1, 2), 3)
""",
    """
import unittest
class T(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise unittest.SkipTest("x")
    def test_add(self):
        self.assertEqual(add(1, 2), 3)
""",
)
# ---------- Go ----------
GO_BASE = """
package calc
import "testing"
func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 { t.Errorf("bad") }
}
"""
T(
    "G1",
    "Go",
    "t.SkipNow() via helper",
    "calc_test.go",
    GO_BASE,
    """
package calc
import "testing"
func later(t *testing.T) { t.SkipNow() }
func TestAdd(t *testing.T) {
	later(t)
	if Add(1, 2) != 3 { t.Errorf("bad") }
}
""",
)
T(
    "G2",
    "Go",
    "if testing.Short() { return }",
    "calc_test.go",
    GO_BASE,
    """
package calc
import "testing"
func TestAdd(t *testing.T) {
	if testing.Short() || true { return }
	if Add(1, 2) != 3 { t.Errorf("bad") }
}
""",
)
T(
    "G3",
    "Go",
    "t.Errorf inside if false",
    "calc_test.go",
    GO_BASE,
    """
package calc
import "testing"
func TestAdd(t *testing.T) {
	if false && Add(1, 2) != 3 { t.Errorf("bad") }
}
""",
)
T(
    "G4",
    "Go",
    "testify suite method s.T().Skip()",
    "calc_test.go",
    """
package calc
import ("testing"; "github.com/stretchr/testify/suite")
type S struct{ suite.Suite }
func (s *S) TestAdd() { s.Equal(3, Add(1, 2)) }
func TestS(t *testing.T) { suite.Run(t, new(S)) }
""",
    """
package calc
import ("testing"; "github.com/stretchr/testify/suite")
type S struct{ suite.Suite }
func (s *S) TestAdd() { s.T().SkipNow(); s.Equal(3, Add(1, 2)) }
func TestS(t *testing.T) { suite.Run(t, new(S)) }
""",
)
# ---------- Rust ----------
RS_BASE = """
#[cfg(test)]
mod tests {
    #[test]
    fn adds() { assert_eq!(super::add(1, 2), 3); }
}
"""
T(
    "R1",
    "Rust",
    '#[ignore = "reason"]',
    "src/lib.rs",
    RS_BASE,
    """
#[cfg(test)]
mod tests {
    #[test]
    #[ignore = "later"]
    fn adds() { assert_eq!(super::add(1, 2), 3); }
}
""",
)
T(
    "R2",
    "Rust",
    "inner #![cfg(any())] in mod",
    "src/lib.rs",
    RS_BASE,
    """
#[cfg(test)]
mod tests {
    #![cfg(any())]
    #[test]
    fn adds() { assert_eq!(super::add(1, 2), 3); }
}
""",
)
T(
    "R3",
    "Rust",
    "#[cfg_attr(all(), cfg(any()))]",
    "src/lib.rs",
    RS_BASE,
    """
#[cfg(test)]
mod tests {
    #[test]
    #[cfg_attr(all(), cfg(any()))]
    fn adds() { assert_eq!(super::add(1, 2), 3); }
}
""",
)
T(
    "R4",
    "Rust",
    "#[cfg_attr(all(), should_panic)]",
    "src/lib.rs",
    RS_BASE,
    """
#[cfg(test)]
mod tests {
    #[test]
    #[cfg_attr(all(), should_panic)]
    fn adds() { assert_eq!(super::add(1, 2), 3); }
}
""",
)
T(
    "R5",
    "Rust",
    "local macro_rules! assert_eq shadows std",
    "src/lib.rs",
    RS_BASE,
    """
#[cfg(test)]
mod tests {
    macro_rules! assert_eq { ($a:expr, $b:expr) => {}; }
    #[test]
    fn adds() { assert_eq!(super::add(1, 2), 3); }
}
""",
)
T(
    "R6",
    "Rust",
    "early return;",
    "src/lib.rs",
    RS_BASE,
    """
#[cfg(test)]
mod tests {
    #[test]
    fn adds() { return; assert_eq!(super::add(1, 2), 3); }
}
""",
)
# ---------- Java ----------
JV_BASE = """
import org.junit.jupiter.api.Test;
class CalcTest {
    @Test void adds() { assertEquals(3, Calc.add(1, 2)); }
}
"""
T(
    "V1",
    "Java",
    "@Disabled via meta-annotation @Off",
    "CalcTest.java",
    JV_BASE,
    """
import org.junit.jupiter.api.Test;
@Retention(RUNTIME) @Disabled @interface Off {}
class CalcTest {
    @Off @Test void adds() { assertEquals(3, Calc.add(1, 2)); }
}
""",
)
T(
    "V2",
    "Java",
    "Assumptions.assumeTrue(false)",
    "CalcTest.java",
    JV_BASE,
    """
import org.junit.jupiter.api.Test;
class CalcTest {
    @Test void adds() { Assumptions.assumeTrue(false); assertEquals(3, Calc.add(1, 2)); }
}
""",
)
T(
    "V3",
    "Java",
    '@EnabledIf("false") / @DisabledOnOs',
    "CalcTest.java",
    JV_BASE,
    """
import org.junit.jupiter.api.Test;
class CalcTest {
    @Test @DisabledOnOs({OS.LINUX, OS.MAC, OS.WINDOWS}) void adds() { assertEquals(3, Calc.add(1, 2)); }
}
""",
)
T(
    "V4",
    "Java",
    "TestNG @Test(enabled = false)",
    "CalcTest.java",
    JV_BASE,
    """
import org.testng.annotations.Test;
class CalcTest {
    @Test(enabled = false) void adds() { assertEquals(3, Calc.add(1, 2)); }
}
""",
)
T(
    "V5",
    "Java",
    "test method made private (JUnit 5 ignores it)",
    "CalcTest.java",
    JV_BASE,
    """
import org.junit.jupiter.api.Test;
class CalcTest {
    @Test private void adds() { assertEquals(3, Calc.add(1, 2)); }
}
""",
)
# ---------- PHP ----------
PHP_BASE = """<?php
class CalcTest extends TestCase {
    public function testAdd(): void { $this->assertSame(3, add(1, 2)); }
}
"""
T(
    "H1",
    "PHP",
    "markTestSkipped via helper",
    "CalcTest.php",
    PHP_BASE,
    """<?php
class CalcTest extends TestCase {
    private function later(): void { $this->markTestSkipped('x'); }
    public function testAdd(): void { $this->later(); $this->assertSame(3, add(1, 2)); }
}
""",
)
T(
    "H2",
    "PHP",
    "#[Group('skip')] (excluded group)",
    "CalcTest.php",
    PHP_BASE,
    """<?php
class CalcTest extends TestCase {
    #[Group('skip')]
    public function testAdd(): void { $this->assertSame(3, add(1, 2)); }
}
""",
)
T(
    "H3",
    "PHP",
    "abstract class (PHPUnit does not run it)",
    "CalcTest.php",
    PHP_BASE,
    """<?php
abstract class CalcTest extends TestCase {
    public function testAdd(): void { $this->assertSame(3, add(1, 2)); }
}
""",
)
T(
    "H4",
    "PHP",
    "#[Depends('testMissing')] (skipped)",
    "CalcTest.php",
    PHP_BASE,
    """<?php
class CalcTest extends TestCase {
    #[Depends('testMissing')]
    public function testAdd(): void { $this->assertSame(3, add(1, 2)); }
}
""",
)
T(
    "H5",
    "PHP",
    "throw new SkippedWithMessageException",
    "CalcTest.php",
    PHP_BASE,
    """<?php
class CalcTest extends TestCase {
    public function testAdd(): void { throw new \\PHPUnit\\Framework\\SkippedWithMessageException('x'); $this->assertSame(3, add(1, 2)); }
}
""",
)
# ---------- false positives (ordinary edits) ----------
F(
    "FP1",
    "Python",
    "add @pytest.mark.parametrize('skip', ...) param",
    "tests/test_a.py",
    """
def test_parse():
    assert parse("a") == ["a"]
""",
    """
import pytest
@pytest.mark.parametrize("skip", [False, True])
def test_parse(skip):
    assert parse("a", skip=skip) == ["a"]
""",
)
F(
    "FP2",
    "Python",
    "with pytest.raises(E): f() -> pytest.raises(E, f)",
    "tests/test_a.py",
    """
import pytest
def test_bad():
    with pytest.raises(ValueError):
        parse("")
""",
    """
import pytest
def test_bad():
    pytest.raises(ValueError, parse, "")
""",
)
F(
    "FP3",
    "Go",
    "xml.Decoder.Skip() in a test",
    "dec_test.go",
    """
package p
import ("testing"; "encoding/xml"; "strings")
func TestDec(t *testing.T) {
	d := xml.NewDecoder(strings.NewReader("<a><b/></a>"))
	if _, err := d.Token(); err != nil { t.Fatal(err) }
}
""",
    """
package p
import ("testing"; "encoding/xml"; "strings")
func TestDec(t *testing.T) {
	d := xml.NewDecoder(strings.NewReader("<a><b/></a>"))
	if _, err := d.Token(); err != nil { t.Fatal(err) }
	if err := d.Skip(); err != nil { t.Fatal(err) }
}
""",
)
F(
    "FP4",
    "JS",
    "a Tokenizer bound to t calls t.skip(2)",
    "lex.test.js",
    """
test('lexes', () => {
  const t = new Tokenizer('abc')
  expect(t.next()).toBe('a')
})
""",
    """
test('lexes', () => {
  const t = new Tokenizer('abc')
  t.skip(2)
  expect(t.next()).toBe('c')
})
""",
)
F(
    "FP5",
    "JS",
    "expect(x).toBe(y) -> expect.soft(x).toBe(y)",
    "a.spec.ts",
    """
test('adds', () => { expect(add(1, 2)).toBe(3) })
""",
    """
test('adds', () => { expect.soft(add(1, 2)).toBe(3) })
""",
)
F(
    "FP6",
    "Rust",
    "new #[should_panic] test added",
    "src/lib.rs",
    RS_BASE,
    """
#[cfg(test)]
mod tests {
    #[test]
    fn adds() { assert_eq!(super::add(1, 2), 3); }
    #[test]
    #[should_panic(expected = "overflow")]
    fn overflows() { super::add(u32::MAX, 1); }
}
""",
)
F(
    "FP7",
    "Python",
    "3 asserts folded into a loop over cases",
    "tests/test_a.py",
    """
def test_add():
    assert add(1, 2) == 3
    assert add(2, 2) == 4
""",
    """
CASES = [(1, 2, 3), (2, 2, 4)]
def test_add():
    for a, b, want in CASES:
        assert add(a, b) == want
""",
)
F(
    "FP8",
    "Rust",
    "a comment after #[test] (a test stays a test)",
    "src/lib.rs",
    RS_BASE,
    """
#[cfg(test)]
mod tests {
    #[test] // https://example.com/issues/9
    /// adds two numbers
    fn adds() { assert_eq!(super::add(1, 2), 3); }
}
""",
)
T(
    "R7",
    "Rust",
    "#[ignore] with a comment before fn",
    "src/lib.rs",
    RS_BASE,
    """
#[cfg(test)]
mod tests {
    #[test]
    #[ignore] // needs network
    fn adds() { assert_eq!(super::add(1, 2), 3); }
}
""",
)

# ---------- assertions still written that check nothing (tools/tampering/reach.py) ----------
# One class in every language: the assertion can no longer run (after an exit, on a branch a
# constant condition never takes, in a loop over an empty table) or no longer fail (it reads
# nothing but one literal).


def _js_test(body):
    return "import { test, expect } from 'vitest'\ntest('adds', () => {\n" + body + "\n})\n"


def _py_test(body):
    return "import pytest\ndef test_add():\n" + body + "\n"


def _go_test(body):
    return 'package calc\nimport "testing"\nfunc TestAdd(t *testing.T) {\n' + body + "\n}\n"


def _rs_test(body):
    return "#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { " + body + " }\n}\n"


for _id, _lang, _spell, _path, _base, _after in [
    (
        "N1",
        "JS",
        "if (!true) around expect",
        "a.test.ts",
        JS_BASE,
        _js_test("  if (!true) { expect(add(1, 2)).toBe(3) }"),
    ),
    (
        "N2",
        "JS",
        "false && expect(...)",
        "a.test.ts",
        JS_BASE,
        _js_test("  false && expect(add(1, 2)).toBe(3)"),
    ),
    (
        "N3",
        "JS",
        "for (const c of []) expect(...)",
        "a.test.ts",
        JS_BASE,
        _js_test("  for (const c of []) expect(add(c, c)).toBe(2 * c)"),
    ),
    ("N4", "JS", "expect(3).toEqual(3)", "a.test.ts", JS_BASE, _js_test("  expect(3).toEqual(3)")),
    ("N5", "JS", "assert.ok(true)", "a.test.js", JS_BASE, _js_test("  assert.ok(true)")),
    (
        "N6",
        "JS",
        "throw before expect",
        "a.test.ts",
        JS_BASE,
        _js_test("  try { throw 0; expect(add(1, 2)).toBe(3) } catch {}"),
    ),
    (
        "N7",
        "Python",
        "if False: assert",
        "tests/test_a.py",
        PY_BASE,
        _py_test("    if False:\n        assert add(1, 2) == 3"),
    ),
    (
        "N8",
        "Python",
        "while 0: assert",
        "tests/test_a.py",
        PY_BASE,
        _py_test("    while 0:\n        assert add(1, 2) == 3"),
    ),
    (
        "N9",
        "Python",
        "for x in []: assert",
        "tests/test_a.py",
        PY_BASE,
        _py_test("    for a, b, want in []:\n        assert add(a, b) == want"),
    ),
    (
        "N10",
        "Python",
        "if True: return, then assert",
        "tests/test_a.py",
        PY_BASE,
        _py_test("    if True:\n        return\n    assert add(1, 2) == 3"),
    ),
    ("N11", "Python", "assert 3 == 3", "tests/test_a.py", PY_BASE, _py_test("    assert 3 == 3")),
    (
        "N12",
        "Python",
        "assert ... or True",
        "tests/test_a.py",
        PY_BASE,
        _py_test("    assert add(1, 2) == 3 or True"),
    ),
    (
        "N13",
        "Python",
        "unittest assertEqual(3, 3)",
        "tests/test_a.py",
        "import unittest\nclass T(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n",
        "import unittest\nclass T(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(3, 3)\n",
    ),
    (
        "N14",
        "Python",
        "parametrize over an empty table",
        "tests/test_a.py",
        PY_BASE.replace("def test_add():", '@pytest.mark.parametrize("a", [1])\ndef test_add(a):'),
        PY_BASE.replace("def test_add():", '@pytest.mark.parametrize("a", [])\ndef test_add(a):'),
    ),
    (
        "N15",
        "Go",
        "if true { return } first",
        "calc_test.go",
        GO_BASE,
        _go_test('\tif true { return }\n\tif Add(1, 2) != 3 { t.Errorf("bad") }'),
    ),
    (
        "N16",
        "Go",
        "range over an empty slice",
        "calc_test.go",
        GO_BASE,
        _go_test('\tfor _, c := range []int{} {\n\t\tif Add(c, c) != 2*c { t.Errorf("bad") }\n\t}'),
    ),
    (
        "N17",
        "Go",
        "testify assert.Equal(t, 3, 3)",
        "calc_test.go",
        GO_BASE,
        _go_test("\tassert.Equal(t, 3, 3)"),
    ),
    (
        "N18",
        "Go",
        "return; before the check",
        "calc_test.go",
        GO_BASE,
        _go_test('\treturn\n\tif Add(1, 2) != 3 { t.Errorf("bad") }'),
    ),
    (
        "N19",
        "Rust",
        "if false { assert_eq! }",
        "src/lib.rs",
        RS_BASE,
        _rs_test("if false { assert_eq!(super::add(1, 2), 3); }"),
    ),
    ("N20", "Rust", "assert_eq!(3, 3)", "src/lib.rs", RS_BASE, _rs_test("assert_eq!(3, 3);")),
    ("N21", "Rust", "assert!(true)", "src/lib.rs", RS_BASE, _rs_test("assert!(true);")),
    (
        "N22",
        "Java",
        "return; before assertEquals",
        "CalcTest.java",
        JV_BASE,
        JV_BASE.replace("{ assertEquals", "{ if (true) return; assertEquals"),
    ),
    (
        "N23",
        "Java",
        "assertEquals(3, 3)",
        "CalcTest.java",
        JV_BASE,
        JV_BASE.replace("Calc.add(1, 2)", "3"),
    ),
    (
        "N24",
        "PHP",
        "return; before assertSame",
        "CalcTest.php",
        PHP_BASE,
        PHP_BASE.replace("{ $this->assertSame", "{ return; $this->assertSame"),
    ),
    (
        "N25",
        "PHP",
        "assertTrue(true)",
        "CalcTest.php",
        PHP_BASE,
        PHP_BASE.replace("$this->assertSame(3, add(1, 2))", "$this->assertTrue(true)"),
    ),
]:
    T(_id, _lang, _spell, _path, _base, _after)

# Honest edits of the same shapes: they still check what they checked.
for _id, _lang, _spell, _path, _base, _after in [
    (
        "NF1",
        "JS",
        "return after the assertion",
        "a.test.ts",
        JS_BASE,
        _js_test("  const r = add(1, 2)\n  expect(r).toBe(3)\n  return"),
    ),
    (
        "NF2",
        "JS",
        "an early return on a condition that reads a name",
        "a.test.ts",
        JS_BASE,
        _js_test("  if (!add) return\n  expect(add(1, 2)).toBe(3)"),
    ),
    (
        "NF3",
        "JS",
        "chai chain on the same value",
        "a.test.js",
        JS_BASE,
        _js_test("  expect(add(1, 2)).to.be.a('number').and.equal(3)"),
    ),
    (
        "NF4",
        "JS",
        "an assertion library's own test: two literals",
        "a.test.js",
        _js_test("  expect(add(1, 2)).toBe(3)\n  expect(2).not.toBe(1)"),
        _js_test("  expect(add(1, 2)).toBe(3)\n  expect(2).not.toBe(1)\n  expect(3).not.toBe(4)"),
    ),
    (
        "NF5",
        "Python",
        "a nested helper returns early, its assert runs",
        "tests/test_a.py",
        PY_BASE,
        _py_test(
            "    def check(a, b):\n        if a is None:\n            return\n"
            "        assert add(a, b) == a + b\n    check(1, 2)"
        ),
    ),
    (
        "NF6",
        "Python",
        "one-row table looped over",
        "tests/test_a.py",
        PY_BASE,
        "ROWS = [(1, 2, 3)]\n"
        + _py_test("    for a, b, want in ROWS:\n        assert add(a, b) == want"),
    ),
    (
        "NF7",
        "Python",
        "pytest.fail in a dead-looking else",
        "tests/test_a.py",
        PY_BASE,
        _py_test("    if add(1, 2) == 3:\n        return\n    pytest.fail('wrong sum')"),
    ),
    (
        "NF8",
        "Go",
        "if testing.Short() skip stays a skip condition",
        "calc_test.go",
        GO_BASE,
        _go_test('\tif Add(1, 2) != 3 { t.Errorf("bad") }\n\tif testing.Short() { return }'),
    ),
    (
        "NF9",
        "Rust",
        "cfg!(windows) return is no constant",
        "src/lib.rs",
        RS_BASE,
        _rs_test("if cfg!(windows) { return; } assert_eq!(super::add(1, 2), 3);"),
    ),
    (
        "NF10",
        "Java",
        "try/fail to assertThrows",
        "CalcTest.java",
        JV_BASE.replace(
            "assertEquals(3, Calc.add(1, 2));",
            "try { Calc.add(null, 2); fail(); } catch (NullPointerException e) {}",
        ),
        JV_BASE.replace(
            "assertEquals(3, Calc.add(1, 2));",
            "assertThrows(NullPointerException.class, () -> Calc.add(null, 2));",
        ),
    ),
    (
        "NF11",
        "Java",
        "Truth chain: the subject is in .that()",
        "CalcTest.java",
        JV_BASE,
        JV_BASE.replace(
            "assertEquals(3, Calc.add(1, 2));",
            'assertWithMessage("sum").that(Calc.add(1, 2)).isEqualTo(3);',
        ),
    ),
    (
        "NF12",
        "PHP",
        "expectException with a class name",
        "CalcTest.php",
        PHP_BASE,
        PHP_BASE.replace(
            "$this->assertSame(3, add(1, 2));",
            "$this->expectException(\\TypeError::class); add('a', 2);",
        ),
    ),
]:
    F(_id, _lang, _spell, _path, _base, _after)

# ---------- a skip under another name (a binding or a helper of the file) ----------
_PY_ADD = "def test_add():\n    {}\n    assert add(1, 2) == 3\n"
_JS_ADD = "  expect(add(1, 2)).toBe(3)\n"
_GO_HEAD = 'package calc\nimport "testing"\n'
_GO_ADD = '\tif Add(1, 2) != 3 { t.Errorf("bad") }\n'
_PHP_CLASS = "<?php\n{}class CalcTest extends TestCase {{\n{}}}\n"
_PHP_ADD = "    public function testAdd(): void { $this->assertSame(3, add(1, 2)); }\n"

for _id, _lang, _spell, _path, _base, _after in [
    (
        "S1",
        "Python",
        "from pytest import skip as later",
        "tests/test_a.py",
        PY_BASE,
        "from pytest import skip as later\n" + _PY_ADD.format("later('x')"),
    ),
    (
        "S2",
        "Python",
        "a unittest helper method that calls skipTest",
        "tests/test_a.py",
        "import unittest\nclass T(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n",
        "import unittest\nclass T(unittest.TestCase):\n    def _off(self):\n"
        "        self.skipTest('later')\n"
        "    def test_add(self):\n        self._off()\n        self.assertEqual(add(1, 2), 3)\n",
    ),
    (
        "S3",
        "Python",
        "a helper of a helper that skips",
        "tests/test_a.py",
        PY_BASE,
        "import pytest\ndef _a():\n    pytest.skip('x')\ndef _b():\n    _a()\n"
        + _PY_ADD.format("_b()"),
    ),
    (
        "S4",
        "Python",
        "off = pytest.mark.skip(reason=...); @off",
        "tests/test_a.py",
        PY_BASE,
        "import pytest\noff = pytest.mark.skip(reason='later')\n@off\n" + _PY_ADD.format("pass"),
    ),
    (
        "S5",
        "Python",
        "class TestA(object) gains __init__",
        "tests/test_a.py",
        "class TestA(object):\n    def test_add(self):\n        assert add(1, 2) == 3\n",
        "class TestA(object):\n    def __init__(self, x=1):\n        self.x = x\n"
        "    def test_add(self):\n        assert add(1, 2) == 3\n",
    ),
    (
        "S6",
        "JS",
        "const it2 = it.skip",
        "a.test.ts",
        "import { it, expect } from 'vitest'\nit('adds', () => {\n" + _JS_ADD + "})\n",
        "import { it, expect } from 'vitest'\nconst it2 = it.skip\nit2('adds', () => {\n"
        + _JS_ADD
        + "})\n",
    ),
    (
        "S7",
        "JS",
        "a describe alias made skipping",
        "a.test.ts",
        "import { describe, test, expect } from 'vitest'\ndescribe('s', () => {\n"
        "  test('adds', () => {\n  " + _JS_ADD + "  })\n})\n",
        "import { describe as suite, test, expect } from 'vitest'\nconst quiet = suite.skip\n"
        "quiet('s', () => {\n  test('adds', () => {\n  " + _JS_ADD + "  })\n})\n",
    ),
    (
        "S8",
        "JS",
        "import { it as check }; check.skip",
        "a.test.js",
        "import { it, expect } from 'vitest'\nit('adds', () => {\n" + _JS_ADD + "})\n",
        "import { it as check, expect } from 'vitest'\ncheck.skip('adds', () => {\n"
        + _JS_ADD
        + "})\n",
    ),
    (
        "S9",
        "Go",
        "a helper taking testing.TB that skips",
        "calc_test.go",
        GO_BASE,
        _GO_HEAD + 'func off(tb testing.TB) { tb.Skip("later") }\n'
        "func TestAdd(t *testing.T) {\n\toff(t)\n" + _GO_ADD + "}\n",
    ),
    (
        "S10",
        "Java",
        "JUnit 4 Assume.assumeFalse(true)",
        "CalcTest.java",
        JV_BASE,
        JV_BASE.replace("{ assertEquals", "{ Assume.assumeFalse(true); assertEquals"),
    ),
    (
        "S11",
        "Java",
        "JUnit 4 meta-annotation carrying @Ignore",
        "CalcTest.java",
        JV_BASE,
        JV_BASE.replace("class CalcTest", "@Ignore @interface Later {}\nclass CalcTest").replace(
            "@Test void", "@Later @Test void"
        ),
    ),
    (
        "S12",
        "PHP",
        "a helper calling markTestIncomplete",
        "CalcTest.php",
        PHP_BASE,
        _PHP_CLASS.format(
            "",
            "    private function soon(): void { $this->markTestIncomplete(); }\n"
            + _PHP_ADD.replace("{ $this", "{ $this->soon(); $this"),
        ),
    ),
    (
        "S13",
        "Rust",
        "a local assert! that asserts nothing",
        "src/lib.rs",
        RS_BASE.replace("assert_eq!(super::add(1, 2), 3)", "assert!(super::add(1, 2) == 3)"),
        RS_BASE.replace(
            "assert_eq!(super::add(1, 2), 3)", "assert!(super::add(1, 2) == 3)"
        ).replace(
            "mod tests {\n",
            "mod tests {\n    macro_rules! assert { ($e:expr) => { let _ = $e; }; }\n",
        ),
    ),
]:
    T(_id, _lang, _spell, _path, _base, _after)

for _id, _lang, _spell, _path, _base, _after in [
    (
        "SF1",
        "Python",
        "a helper that skips only on a condition",
        "tests/test_a.py",
        PY_BASE,
        "import pytest\nNET = True\ndef need_net():\n    if not NET:\n        pytest.skip('offline')\n"
        + _PY_ADD.format("need_net()"),
    ),
    (
        "SF2",
        "JS",
        "Playwright fixtures: const test = base.extend({...})",
        "a.test.ts",
        JS_BASE,
        "import { test as base, expect } from '@playwright/test'\n"
        "const test = base.extend({ n: 1 })\ntest('adds', () => {\n" + _JS_ADD + "})\n",
    ),
    (
        "SF3",
        "Go",
        "a helper that fails the test it is handed",
        "calc_test.go",
        GO_BASE,
        _GO_HEAD + "func must(t *testing.T, err error) { if err != nil { t.Fatal(err) } }\n"
        "func TestAdd(t *testing.T) {\n\tmust(t, nil)\n" + _GO_ADD + "}\n",
    ),
    (
        "SF4",
        "Go",
        "a helper that skips only in -short runs",
        "calc_test.go",
        GO_BASE,
        _GO_HEAD + "func long(t *testing.T) { if testing.Short() { t.Skip() } }\n"
        "func TestAdd(t *testing.T) {\n\tlong(t)\n" + _GO_ADD + "}\n",
    ),
    (
        "SF5",
        "Java",
        "an assumption on the environment",
        "CalcTest.java",
        JV_BASE,
        JV_BASE.replace(
            "{ assertEquals", '{ assumeTrue(System.getenv("CI") != null); assertEquals'
        ),
    ),
    (
        "SF6",
        "Rust",
        "a local assert macro that asserts",
        "src/lib.rs",
        RS_BASE,
        RS_BASE.replace(
            "mod tests {\n",
            "mod tests {\n    macro_rules! assert_eq {"
            " ($a:expr, $b:expr) => { assert!($a == $b) }; }\n",
        ),
    ),
    (
        "SF7",
        "PHP",
        "#[Depends] on a test that exists",
        "CalcTest.php",
        PHP_BASE,
        _PHP_CLASS.format(
            "",
            "    public function testFirst(): void { $this->assertTrue(ok()); }\n"
            "    #[Depends('testFirst')]\n" + _PHP_ADD,
        ),
    ),
    (
        "SF8",
        "Python",
        "a unittest.TestCase with __init__",
        "tests/test_a.py",
        "import unittest\nclass T(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n",
        "import unittest\nclass T(unittest.TestCase):\n"
        "    def __init__(self, *a, **k):\n        super().__init__(*a, **k)\n"
        "    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n",
    ),
    (
        "SF9",
        "Python",
        "a module from importorskip used in the test",
        "tests/test_a.py",
        "import pytest\nmod = pytest.importorskip('calc')\n" + _PY_ADD.format("mod.add(0, 0)"),
        "import pytest\nmod = pytest.importorskip('calc')\n" + _PY_ADD.format("mod.add(1, 1)"),
    ),
    (
        "SF11",
        "JS",
        "a suite function chosen on a condition (immer's patch tests)",
        "a.test.js",
        "import { describe, test, expect } from 'vitest'\nfunction run(skip) {\n"
        "  describe('s', () => {\n    test('adds', () => {\n      expect(add(1, 2)).toBe(3)\n"
        "    })\n  })\n}\n",
        "import { describe, test, expect } from 'vitest'\nfunction run(skip) {\n"
        "  let describeFn = describe\n  if (skip) describeFn = describe.skip\n"
        "  describeFn('s', () => {\n    test('adds', () => {\n      expect(add(1, 2)).toBe(3)\n"
        "    })\n  })\n}\n",
    ),
    (
        "SF10",
        "JS",
        "one test declared skipped by title leaves the others running",
        "a.test.ts",
        JS_BASE + "test.skip('later', () => {\n  expect(add(2, 2)).toBe(4)\n})\n",
        JS_BASE + "test.skip('later', () => {\n  expect(add(2, 2)).toBe(4)\n})\n"
        "test('zero', () => {\n  expect(add(0, 0)).toBe(0)\n})\n",
    ),
]:
    F(_id, _lang, _spell, _path, _base, _after)
