"""A small cart project whose change (a discount at a threshold) is tested badly, well or flakily:
the material of the test adequacy tests (diff coverage, mutants, repeats)."""

from __future__ import annotations

from pathlib import Path

from gitrepo import make_repo

HEADER = (
    "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))\n"
)
BASE = "def total(prices):\n    return sum(prices)\n"
# The change: a discount at a threshold (lines 5-9; line 6 is a comment).
CHANGED = (
    BASE + "\n\ndef discount(amount, threshold):\n    # ten percent off at the threshold\n"
    "    if amount >= threshold:\n        return amount * 0.9\n    return amount\n"
)
TOTAL_ONLY = HEADER + "from cart import total\n\n\ndef test_total():\n"
TOTAL_ONLY += "    assert total([1, 2]) == 3\n"
RUNS_BUT_ASSERTS_NOTHING = TOTAL_ONLY + "\n\ndef test_discount():\n    from cart import discount\n"
RUNS_BUT_ASSERTS_NOTHING += "    discount(100, 50)\n    discount(10, 50)\n"
PINNED = TOTAL_ONLY + (
    "\n\ndef test_discount_at_and_around_the_threshold():\n    from cart import discount\n"
    "    assert discount(100, 100) == 90\n    assert discount(99, 100) == 99\n"
    "    assert discount(200, 100) == 180\n"
)


FLAKY = HEADER + (
    "import pathlib\n\n\ndef test_alternates():\n"
    "    counter = pathlib.Path(os.environ['COUNTER'])\n"
    "    n = int(counter.read_text()) if counter.exists() else 0\n"
    "    counter.write_text(str(n + 1))\n"
    "    assert n % 2 == 0\n\n\ndef test_steady():\n    assert True\n"
)


def cart_repo(path: Path) -> Path:
    return make_repo(
        path,
        {"src/cart.py": BASE, "tests/test_cart.py": TOTAL_ONLY, ".gitignore": "__pycache__/\n"},
    )


def change(project: Path, tests: str) -> None:
    (project / "src" / "cart.py").write_text(CHANGED, encoding="utf-8")
    (project / "tests" / "test_cart.py").write_text(tests, encoding="utf-8")
