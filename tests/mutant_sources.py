"""Changed source files in each language the mutants cover, each line numbered where the tests
of `tests/tools/test_mutants.py` expect a mutant (or none)."""

from __future__ import annotations

JS = """import { log } from './log.js';
const LIMIT = 10;
export function discount(amount, code) {
  if (amount >= LIMIT && code !== '') {
    log('discount');
    return amount * 0.9;
  }
  let rest = !code ? amount : amount - 1;
  rest += 2;
  return rest > 0 || true;
}
"""

TS = """import type { Cart } from './cart';
type Mode = 'fast' | 'slow';
export function label(n: number, mode: Mode = 'fast'): string {
  return n > 1 ? `${n} items` : 'one item';
}
"""

TSX = """export function Badge({ count }: { count: number }) {
  return <span className="badge">{count > 99 ? '99+' : count}</span>;
}
"""

GO = """package shop

import "fmt"

type Item struct {
\tName string `json:"name"`
}

// Discount takes pct percent off at a total of 100 or more.
func Discount(total, pct int) int {
\tif pct <= 0 || total < 100 {
\t\treturn total
\t}
\treturn total - total*pct/100
}

func Label(n int) (string, error) {
\tif n == 0 {
\t\treturn "", fmt.Errorf("no items: %d", n)
\t}
\trecord(n)
\treturn fmt.Sprintf("%d items", n), nil
}

func record(n int) {}
func Ok() bool { return true }
"""

RUST = """pub fn discount(total: u32, pct: u32) -> u32 {
    if pct == 0 || total < 100 {
        return total;
    }
    total - total * pct / 100
}

pub fn label(n: usize) -> String {
    let word = if n > 1 { "items" } else { "item" };
    format!("{} {}", n, word)
}

pub fn collect(v: &mut Vec<u8>, n: u8) -> (u8, f64) {
    v.push(n);
    let t = (1u8, 2.5f64);
    let _first = t.0;
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn discounts() {
        assert_eq!(discount(200, 10), 180);
        let x = 1 + 2;
    }
}
"""

JAVA = """package shop;

import java.util.List;

public class Cart {

    @SuppressWarnings("unused")
    private static final String CURRENCY = "EUR";
    public static int discount(int total, int pct) {
        if (pct <= 0 || total < 100) {
            return total;
        }
        return total - total * pct / 100;
    }
    public static boolean isFree(List<Integer> prices) {
        return prices.isEmpty();
    }
    public static String label(int n) {
        log(n);
        return n + " items" + 5L;
    }
    static void log(int n) {}
}
"""

PHP = """<?php
namespace Shop;
require_once __DIR__ . '/helpers.php';
class Cart {
    const CURRENCY = 'EUR';
    public static function discount(int $total, int $pct): int
    {
        if ($pct <= 0 || $total < 100) {
            return $total;
        }
        return $total - intdiv($total * $pct, 100);
    }
    public static function label(int $n): string {
        self::log($n);
        return "$n items";
    }
    public static function free(array $p): bool { return !$p && TRUE; }
    private static function log(int $n): void {}
}
"""

PYTHON = '''import unicodedata


def fold(text: "str") -> str:
    """Fold to ASCII."""
    return unicodedata.normalize('NFKD', text).encode('ascii', 'ignore').decode()


LIMIT = 10
DEBUG = False
MASK, RATE, RAW = 0x1F, 1.5, b'x'
LABEL = f"{LIMIT} items" * 2

if __name__ == "__main__":
    print(fold("x"))
'''
