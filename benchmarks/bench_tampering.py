"""Benchmark the tampering readers (tools/tampering) on large test files, against parsing them.

    python benchmarks/bench_tampering.py [--repeat 3] [--tests 1500]

Every changed test file is read at base and now by its language's reader, which follows each
assertion up to its test's body (exits, dead branches, caught failures, closures) and each
helper the test calls. Its cost must stay a small multiple of parsing the file twice. Cases: a
generated file per language of `--tests` tests, each with three assertions, a helper call, a
guard and a loop over a literal table.

Target: detect / (2 × parse) <= 40 for every case (the ratio, not seconds: this machine's
absolute timings are noisy). Prints a table, then JSON.
"""

from __future__ import annotations

import argparse
import ast
import json
from collections.abc import Callable
from typing import Any

from bench_claims import best

from referee.tools.static.langs import parser
from referee.tools.tampering import detect

TARGET = 40.0


def _python(n: int) -> str:
    head = "import pytest\nROWS = [(1, 2, 3), (2, 2, 4)]\n\n"
    head += "def check(a, b, c):\n    assert a + b == c\n\n"
    one = (
        "def test_{i}():\n    if not ROWS:\n        return\n    check(1, 2, 3)\n"
        "    for a, b, c in ROWS:\n        assert add(a, b) == c\n"
        "    assert add({i}, 1) == {i} + 1\n    assert add(0, {i}) == {i}\n\n"
    )
    return head + "".join(one.format(i=i) for i in range(n))


def _javascript(n: int) -> str:
    head = (
        "import { test, expect } from 'vitest'\nconst check = (a, b, c) => expect(a + b).toBe(c)\n"
    )
    one = (
        "test('t{i}', () => {{\n  if (!add) return\n  check(1, 2, 3)\n"
        "  for (const [a, b, c] of [[1, 2, 3]]) expect(add(a, b)).toBe(c)\n"
        "  expect(add({i}, 1)).toBe({i} + 1)\n  expect(add(0, {i})).toEqual({i})\n}})\n"
    )
    return head + "".join(one.format(i=i) for i in range(n))


def _go(n: int) -> str:
    head = 'package calc\nimport "testing"\nfunc check(t *testing.T, a, b, c int) {\n'
    head += '\tt.Helper()\n\tif a+b != c { t.Errorf("bad") }\n}\n'
    one = (
        "func Test{i}(t *testing.T) {{\n\tcheck(t, 1, 2, 3)\n"
        '\tfor _, c := range []int{{1, 2}} {{ if Add(c, 0) != c {{ t.Errorf("bad") }} }}\n'
        '\tif Add({i}, 1) != {i}+1 {{ t.Fatalf("bad") }}\n}}\n'
    )
    return head + "".join(one.format(i=i) for i in range(n))


def _java(n: int) -> str:
    one = (
        "    @Test void t{i}() {{\n        for (int a : new int[] {{1, 2}}) {{ assertEquals(a, "
        "Calc.add(a, 0)); }}\n        assertEquals({i} + 1, Calc.add({i}, 1));\n"
        "        assertTrue(Calc.add(0, {i}) == {i});\n    }}\n"
    )
    return "class CalcTest {\n" + "".join(one.format(i=i) for i in range(n)) + "}\n"


CASES: dict[str, tuple[str, str, Callable[[int], str]]] = {
    "python": ("tests/test_calc.py", "python", _python),
    "javascript": ("src/calc.test.js", "javascript", _javascript),
    "go": ("calc_test.go", "go", _go),
    "java": ("src/test/java/CalcTest.java", "java", _java),
}


def measure(path: str, language: str, source: str, repeat: int) -> dict[str, Any]:
    data = source.encode("utf-8")
    if language == "python":
        parse = best(repeat, lambda: ast.parse(source))
    else:
        parse = best(repeat, lambda: parser(language).parse(data))
    changed = source + ("\n# end\n" if language == "python" else "\n// end\n")
    read = best(repeat, lambda: detect([path], lambda p: source, lambda p: changed))
    return {
        "bytes": len(data),
        "parse_s": round(parse, 4),
        "detect_s": round(read, 3),
        "per_parse": round(read / (2 * parse), 1),
    }


def main() -> None:
    parser_ = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser_.add_argument("--repeat", type=int, default=3)
    parser_.add_argument("--tests", type=int, default=1500)
    args = parser_.parse_args()
    results = {
        name: measure(path, language, make(args.tests), args.repeat)
        for name, (path, language, make) in CASES.items()
    }
    print(f"{'case':12} {'bytes':>9} {'parse s':>8} {'detect s':>9} {'ratio':>6}")
    for name, row in results.items():
        print(
            f"{name:12} {row['bytes']:>9} {row['parse_s']:>8} {row['detect_s']:>9}"
            f" {row['per_parse']:>6}"
        )
    worst = max(row["per_parse"] for row in results.values())
    verdict = "met" if worst <= TARGET else "missed"
    print(json.dumps({"results": results, "target": TARGET, "worst": worst, "verdict": verdict}))


if __name__ == "__main__":
    main()
