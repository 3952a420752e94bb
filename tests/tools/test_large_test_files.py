"""A test file padded past what referee reads is harness, not a file with nothing in it: what it
does as it runs (an exit, a forged report) cannot be read, so it cannot be cleared."""

from __future__ import annotations

import pytest

from referee.tools.claims import HARNESS_MODIFIED, Scope
from referee.tools.claims.detect import claims_in
from referee.tools.tampering.syntax import MAX_SOURCE

PAD = "# padding\n" * (MAX_SOURCE // 10 + 10)

LARGE: dict[str, tuple[str, str]] = {
    "python": ("tests/test_calc.py", PAD + "import os\nos._exit(0)\n"),
    "javascript": ("test/calc.test.js", PAD.replace("#", "//") + "process.exit(0);\n"),
    "go": ("calc_test.go", "package calc\n" + PAD.replace("#", "//") + "func init() {}\n"),
    "rust": ("tests/calc.rs", PAD.replace("#", "//") + "fn main() {}\n"),
    "multibyte": ("tests/test_x.py", "# é\n" * (MAX_SOURCE // 4) + "x = 1\n"),
}


@pytest.mark.parametrize("form", sorted(LARGE))
def test_a_test_file_too_large_to_read_is_harness(form: str) -> None:
    path, text = LARGE[form]
    (found,) = claims_in(path, None, text, Scope())
    assert (found.kind, found.path, found.line) == (HARNESS_MODIFIED, path, 1)
    assert "more than referee reads" in found.message


def test_a_large_source_file_is_not_charged_for_its_size() -> None:
    assert claims_in("src/tables.py", None, PAD + "X = 1\n", Scope()) == []


def test_a_test_file_just_under_the_limit_is_read() -> None:
    text = "# p\n" * (MAX_SOURCE // 4 - 100) + "def test_x():\n    assert 1\n"
    assert claims_in("tests/test_x.py", None, text, Scope()) == []
