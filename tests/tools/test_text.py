"""Terminal escape codes never reach evidence, and cannot split a secret past the scanner."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.tools.evidence.recorder import read_log
from referee.tools.runners.junit import trim_message
from referee.tools.text import strip_ansi

CODED = {
    "colour": ("\x1b[31mFAILED\x1b[0m tests/test_a.py", "FAILED tests/test_a.py"),
    "bold-and-256": ("\x1b[1;38;5;196mE\x1b[22;39m   assert 1", "E   assert 1"),
    "cursor": ("50%\x1b[2K\x1b[1G100%", "50%100%"),
    "hyperlink": ("\x1b]8;;https://x\x07docs\x1b]8;;\x07", "docs"),
    "title": ("\x1b]0;jest\x1b\\done", "done"),
    "two-character": ("a\x1bMb", "ab"),
}


@pytest.mark.parametrize("form", sorted(CODED))
def test_escape_codes_are_removed(form: str) -> None:
    coded, plain = CODED[form]
    assert strip_ansi(coded) == plain
    assert trim_message(coded) == plain


def test_a_log_is_read_without_escape_codes(tmp_path: Path) -> None:
    """Read before redaction: a key split by a colour code is whole when the scanner sees it."""
    log = tmp_path / "out.log"
    log.write_bytes(b"\x1b[32mPASSED\x1b[0m key=AKIA\x1b[0mZ7XQ3MPLR4KWNB2T\n")
    text, cut = read_log(log)
    assert (text, cut) == ("PASSED key=AKIAZ7XQ3MPLR4KWNB2T\n", False)
