"""One small project per language mutants are made in: its change adds `discount` (a tenth off a
total of 100 or more), a weak test checks one total above the threshold (the boundary's mutants
survive), a strong test pins the boundary (every mutant that compiles is killed). In Go and Rust
`total / 10` → `total / 0` does not compile (a constant division by zero); in Java a duplicated
`case` label does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gitrepo import make_repo
from runner_projects import _POM, GITIGNORE, JS_CACHE, MAVEN_UNFORKED_CONFIG, missing_tools


@dataclass(frozen=True)
class MutantProject:
    """A repository at base, the change written over it, and the two checks' commands."""

    name: str
    base: dict[str, str]
    change: dict[str, str]
    weak: list[str]
    strong: list[str]
    source: str
    boundary: int
    """The line of `total >= 100` in `source`."""
    compiled: bool = False
    needs: tuple[str, ...] = ()
    node_modules: bool = False
    max_mutants: int = 20

    def missing(self) -> list[str]:
        return missing_tools(self.needs, node_modules=self.node_modules)

    def build(self, root: Path) -> Path:
        repo = make_repo(root, {".gitignore": GITIGNORE, **self.base})
        if self.node_modules:
            (repo / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
        for name, text in self.change.items():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text(text, encoding="utf-8")
        return repo

    def check(self, argv: list[str], **kw: object) -> dict[str, object]:
        return {"kind": "tests", "argv": argv, "max_mutants": self.max_mutants, **kw}


# --- Go -------------------------------------------------------------------------------------

_GO_TOTAL = "package shop\n\n// Total sums the prices.\nfunc Total(prices []int) int {\n"
_GO_TOTAL += "\tsum := 0\n\tfor _, p := range prices {\n\t\tsum += p\n\t}\n\treturn sum\n}\n"
_GO_DISCOUNT = (
    "\n// Discount takes a tenth off a total of 100 or more.\n"
    "func Discount(total int) int {\n"
    "\tif total >= 100 {\n"
    "\t\treturn total - total/10\n"
    "\t}\n"
    "\treturn total\n"
    "}\n"
)


def _go_test(name: str, body: str) -> str:
    return f'package shop\n\nimport "testing"\n\nfunc {name}(t *testing.T) {{\n{body}}}\n'


GO = MutantProject(
    name="go",
    base={
        "go.mod": "module example.com/shop\n\ngo 1.19\n",
        "shop/price.go": _GO_TOTAL,
        "shop/price_test.go": _go_test(
            "TestTotal", '\tif Total([]int{1, 2}) != 3 {\n\t\tt.Fatal("1+2")\n\t}\n'
        ),
    },
    change={
        "shop/price.go": _GO_TOTAL + _GO_DISCOUNT,
        "shop/weak_test.go": _go_test(
            "TestDiscountWeak", '\tif Discount(200) != 180 {\n\t\tt.Fatal("200")\n\t}\n'
        ),
        "shop/strong_test.go": _go_test(
            "TestDiscountStrong",
            "\tfor in, out := range map[int]int{99: 99, 100: 90, 200: 180} {\n"
            "\t\tif Discount(in) != out {\n\t\t\tt.Fatal(in)\n\t\t}\n\t}\n",
        ),
    },
    weak=["go", "test", "-run", "Weak", "./..."],
    strong=["go", "test", "-run", "Strong", "./..."],
    source="shop/price.go",
    boundary=14,
    compiled=True,
    needs=("go",),
)

# --- Rust -----------------------------------------------------------------------------------

_RUST_TOTAL = "pub fn total(prices: &[u32]) -> u32 {\n    prices.iter().sum()\n}\n"
_RUST_DISCOUNT = (
    "\n/// A tenth off a total of 100 or more.\n"
    "pub fn discount(total: u32) -> u32 {\n"
    "    if total >= 100 {\n"
    "        return total - total / 10;\n"
    "    }\n"
    "    total\n"
    "}\n"
)
_RUST_TESTS = (
    "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
    "    #[test]\n    fn totals() {\n        assert_eq!(total(&[1, 2]), 3);\n    }\n"
)
_RUST_NEW_TESTS = (
    "\n    #[test]\n    fn discount_weak() {\n        assert_eq!(discount(200), 180);\n    }\n"
    "\n    #[test]\n    fn discount_strong() {\n        assert_eq!(discount(100), 90);\n"
    "        assert_eq!(discount(99), 99);\n        assert_eq!(discount(200), 180);\n    }\n"
)
RUST = MutantProject(
    name="rust",
    base={
        "Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs": _RUST_TOTAL + _RUST_TESTS + "}\n",
    },
    # The tests live in the same file: its changed test lines are never mutated.
    change={"src/lib.rs": _RUST_TOTAL + _RUST_DISCOUNT + _RUST_TESTS + _RUST_NEW_TESTS + "}\n"},
    weak=["cargo", "test", "weak"],
    strong=["cargo", "test", "strong"],
    source="src/lib.rs",
    boundary=7,
    compiled=True,
    needs=("cargo",),
)

# --- Java (Maven, offline) ------------------------------------------------------------------

_JAVA_TOTAL = (
    "package shop;\n\npublic class Cart {\n"
    "    public static int total(int[] prices) {\n"
    "        int sum = 0;\n        for (int p : prices) {\n            sum += p;\n        }\n"
    "        return sum;\n    }\n"
)
_JAVA_DISCOUNT = (
    "\n    public static int discount(int total) {\n"
    "        if (total >= 100) {\n"
    "            return total - total / 10;\n"
    "        }\n"
    "        return total;\n"
    "    }\n"
    "\n    public static int shipping(int zone) {\n"
    "        switch (zone) {\n"
    "            case 1: return 5;\n"
    "            case 2: return 8;\n"
    "            default: return 12;\n"
    "        }\n"
    "    }\n"
)


def _junit(name: str, body: str) -> str:
    return (
        "package shop;\n\nimport static org.junit.Assert.assertEquals;\nimport org.junit.Test;\n\n"
        f"public class {name} {{\n    @Test\n    public void pins() {{\n{body}    }}\n}}\n"
    )


_CART_TEST = _junit("CartTest", "        assertEquals(3, Cart.total(new int[] {1, 2}));\n")
JAVA = MutantProject(
    name="java",
    base={
        "pom.xml": _POM.format(name="shop"),
        ".mvn/maven.config": MAVEN_UNFORKED_CONFIG,
        "src/main/java/shop/Cart.java": _JAVA_TOTAL + "}\n",
        "src/test/java/shop/CartTest.java": _CART_TEST,
    },
    change={
        "src/main/java/shop/Cart.java": _JAVA_TOTAL + _JAVA_DISCOUNT + "}\n",
        "src/test/java/shop/WeakTest.java": _junit(
            "WeakTest",
            "        assertEquals(180, Cart.discount(200));\n"
            "        assertEquals(5, Cart.shipping(1));\n",
        ),
        "src/test/java/shop/StrongTest.java": _junit(
            "StrongTest",
            "        assertEquals(90, Cart.discount(100));\n"
            "        assertEquals(99, Cart.discount(99));\n"
            "        assertEquals(180, Cart.discount(200));\n"
            "        assertEquals(5, Cart.shipping(1));\n"
            "        assertEquals(8, Cart.shipping(2));\n"
            "        assertEquals(12, Cart.shipping(3));\n",
        ),
    },
    weak=["mvn", "test", "-Dtest=WeakTest"],
    strong=["mvn", "test", "-Dtest=StrongTest"],
    source="src/main/java/shop/Cart.java",
    boundary=13,
    compiled=True,
    needs=("mvn", "java"),
    max_mutants=4,  # each mutant is a Maven build: the spread's first round is enough here
)

# --- PHP (PHPUnit) --------------------------------------------------------------------------

_PHP_TOTAL = (
    "<?php\n\nnamespace Shop;\n\nclass Cart\n{\n"
    "    public static function total(array $prices): int\n    {\n"
    "        return array_sum($prices);\n    }\n"
)
_PHP_DISCOUNT = (
    "\n    public static function discount(int $total): int\n    {\n"
    "        if ($total >= 100) {\n"
    "            return $total - intdiv($total, 10);\n"
    "        }\n"
    "        return $total;\n"
    "    }\n"
)


def _phpunit(name: str, body: str) -> str:
    return (
        "<?php\nuse PHPUnit\\Framework\\TestCase;\n"
        "require_once __DIR__ . '/../src/Cart.php';\n\n"
        f"final class {name} extends TestCase\n{{\n"
        f"    public function testPins(): void\n    {{\n{body}    }}\n}}\n"
    )


PHP = MutantProject(
    name="php",
    base={
        "src/Cart.php": _PHP_TOTAL + "}\n",
        "tests/CartTest.php": _phpunit(
            "CartTest", "        $this->assertSame(3, \\Shop\\Cart::total([1, 2]));\n"
        ),
    },
    change={
        "src/Cart.php": _PHP_TOTAL + _PHP_DISCOUNT + "}\n",
        "tests/WeakTest.php": _phpunit(
            "WeakTest", "        $this->assertSame(180, \\Shop\\Cart::discount(200));\n"
        ),
        "tests/StrongTest.php": _phpunit(
            "StrongTest",
            "        $this->assertSame(90, \\Shop\\Cart::discount(100));\n"
            "        $this->assertSame(99, \\Shop\\Cart::discount(99));\n"
            "        $this->assertSame(180, \\Shop\\Cart::discount(200));\n",
        ),
    },
    weak=["phpunit", "--filter", "Weak", "tests"],
    strong=["phpunit", "--filter", "Strong", "tests"],
    source="src/Cart.php",
    boundary=14,
    needs=("php", "phpunit"),
)

# --- JavaScript (node --test) and TypeScript (vitest) ---------------------------------------

_JS_TOTAL = "function total(prices) {\n  return prices.reduce((a, b) => a + b, 0);\n}\n"
_JS_DISCOUNT = (
    "\n// A tenth off a total of 100 or more.\n"
    "function discount(total) {\n"
    "  if (total >= 100) {\n"
    "    return total - total / 10;\n"
    "  }\n"
    "  return total;\n"
    "}\n"
)


def _node_test(body: str) -> str:
    return (
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "const { total, discount } = require('../src/cart.js');\n\n"
        f"test('pins', () => {{\n{body}}});\n"
    )


JS = MutantProject(
    name="javascript",
    base={
        "src/cart.js": _JS_TOTAL + "\nmodule.exports = { total };\n",
        "test/cart.test.js": _node_test("  assert.strictEqual(total([1, 2]), 3);\n"),
    },
    change={
        "src/cart.js": _JS_TOTAL + _JS_DISCOUNT + "\nmodule.exports = { total, discount };\n",
        "test/weak.test.js": _node_test("  assert.strictEqual(discount(200), 180);\n"),
        "test/strong.test.js": _node_test(
            "  assert.strictEqual(discount(100), 90);\n"
            "  assert.strictEqual(discount(99), 99);\n"
            "  assert.strictEqual(discount(200), 180);\n"
        ),
    },
    weak=["node", "--test", "test/weak.test.js"],
    strong=["node", "--test", "test/strong.test.js"],
    source="src/cart.js",
    boundary=7,
    needs=("node",),
)

_TS_TOTAL = (
    "export function total(prices: number[]): number {\n"
    "  return prices.reduce((a, b) => a + b, 0);\n}\n"
)
_TS_DISCOUNT = (
    "\n// A tenth off a total of 100 or more.\n"
    "export function discount(total: number): number {\n"
    "  if (total >= 100) {\n"
    "    return total - total / 10;\n"
    "  }\n"
    "  return total;\n"
    "}\n"
)


def _vitest(body: str) -> str:
    return (
        "import { expect, test } from 'vitest';\n"
        "import { discount, total } from '../src/cart';\n\n"
        f"test('pins', () => {{\n{body}}});\n"
    )


TS = MutantProject(
    name="typescript",
    base={
        "package.json": '{"name": "shop", "private": true, "type": "module"}\n',
        "src/cart.ts": _TS_TOTAL,
        "test/cart.test.ts": _vitest("  expect(total([1, 2])).toBe(3);\n"),
    },
    change={
        "src/cart.ts": _TS_TOTAL + _TS_DISCOUNT,
        "test/weak.test.ts": _vitest("  expect(discount(200)).toBe(180);\n"),
        "test/strong.test.ts": _vitest(
            "  expect(discount(100)).toBe(90);\n  expect(discount(99)).toBe(99);\n"
            "  expect(discount(200)).toBe(180);\n"
        ),
    },
    weak=["npx", "vitest", "run", "weak"],
    strong=["npx", "vitest", "run", "strong"],
    source="src/cart.ts",
    boundary=7,
    needs=("node", "npx"),
    node_modules=True,
)

PROJECTS = [JS, TS, GO, RUST, JAVA, PHP]
