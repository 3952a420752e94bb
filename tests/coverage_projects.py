"""Go and PHP projects whose change adds a function: a test calls it (the honest change) or none
does (diff coverage names its lines)."""

from __future__ import annotations

from pathlib import Path

from gitrepo import make_repo

GO_MOD = "module example.com/shop\n\ngo 1.19\n"
GO_PRICE = (
    "package shop\n\n"
    "// Total sums the prices.\n"
    "func Total(prices []int) int {\n"
    "\tsum := 0\n"
    "\tfor _, p := range prices {\n"
    "\t\tsum += p\n"
    "\t}\n"
    "\treturn sum\n"
    "}\n"
)
GO_TOTAL_TEST = (
    'package shop\n\nimport "testing"\n\n'
    "func TestTotal(t *testing.T) {\n"
    "\tif Total([]int{1, 2}) != 3 {\n"
    '\t\tt.Fatal("1+2")\n'
    "\t}\n"
    "}\n"
)
# Lines 12-17 of shop/price.go once appended.
GO_DISCOUNT = (
    "\n// Discount takes pct percent off.\n"
    "func Discount(total, pct int) int {\n"
    "\tif pct <= 0 {\n"
    "\t\treturn total\n"
    "\t}\n"
    "\treturn total - total*pct/100\n"
    "}\n"
)
# In another package: only -coverpkg counts what it runs of package shop.
GO_DISCOUNT_TEST = (
    'package checkout\n\nimport (\n\t"testing"\n\n\t"example.com/shop/shop"\n)\n\n'
    "func TestDiscount(t *testing.T) {\n"
    "\tif shop.Discount(200, 10) != 180 || shop.Discount(5, 0) != 5 {\n"
    '\t\tt.Fatal("discount")\n'
    "\t}\n"
    "}\n"
)


def go_shop(path: Path, *, tested: bool) -> Path:
    """The Go project with Discount added, called by a test of another package or by none."""
    repo = make_repo(
        path,
        {"go.mod": GO_MOD, "shop/price.go": GO_PRICE, "shop/price_test.go": GO_TOTAL_TEST},
    )
    with (repo / "shop" / "price.go").open("a", encoding="utf-8") as f:
        f.write(GO_DISCOUNT)
    if tested:
        (repo / "checkout").mkdir()
        (repo / "checkout" / "discount_test.go").write_text(GO_DISCOUNT_TEST, encoding="utf-8")
    return repo


PHP_CART = (
    "<?php\n\nnamespace Shop;\n\n"
    "class Cart\n{\n"
    "    /** Sum of the prices. */\n"
    "    public static function total(array $prices): int\n"
    "    {\n"
    "        $sum = 0;\n"
    "        foreach ($prices as $p) {\n"
    "            $sum += $p;\n"
    "        }\n"
    "        return $sum;\n"
    "    }\n"
)
# Lines 16-23 of src/Cart.php: its statements are 19, 20 and 22.
PHP_DISCOUNT = (
    "\n"
    "    public static function discount(int $total, int $pct): int\n"
    "    {\n"
    "        if ($pct <= 0) {\n"
    "            return $total;\n"
    "        }\n"
    "        return $total - intdiv($total * $pct, 100);\n"
    "    }\n"
)
PHP_TEST = (
    "<?php\nuse PHPUnit\\Framework\\TestCase;\n"
    "require_once __DIR__ . '/../src/Cart.php';\n\n"
    "final class CartTest extends TestCase\n{\n"
    "    public function testTotal(): void\n    {\n"
    "        $this->assertSame(3, \\Shop\\Cart::total([1, 2]));\n    }\n"
)
PHP_DISCOUNT_TEST = (
    "\n    public function testDiscount(): void\n    {\n"
    "        $this->assertSame(180, \\Shop\\Cart::discount(200, 10));\n"
    "        $this->assertSame(5, \\Shop\\Cart::discount(5, 0));\n    }\n"
)


def php_cart(path: Path, *, tested: bool) -> Path:
    """The PHP project with Cart::discount added, tested or not."""
    repo = make_repo(
        path, {"src/Cart.php": PHP_CART + "}\n", "tests/CartTest.php": PHP_TEST + "}\n"}
    )
    (repo / "src" / "Cart.php").write_text(PHP_CART + PHP_DISCOUNT + "}\n", encoding="utf-8")
    if tested:
        test = PHP_TEST + PHP_DISCOUNT_TEST + "}\n"
        (repo / "tests" / "CartTest.php").write_text(test, encoding="utf-8")
    return repo
