"""Redaction of the disguise classes (tests/secret_classes.py): each variant of each class is
replaced, at any place in a line and for secrets of several shapes; honest text that only looks
like a class (a shifted English word, a run of letters) is left as it was."""

from __future__ import annotations

import random
import string

import pytest
from secret_classes import CLASSES, pieces

from referee.tools.evidence.forms import differences
from referee.tools.evidence.redact import Redactor
from referee.tools.evidence.views import compatible

FILLER = "\n--- unrelated line ---\n"


def _token(seed: int, size: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(size))


SECRETS = {
    "a GitHub token": "ghp_" + _token(11, 36),
    "a hex key": _token(12, 64, "0123456789abcdef"),
    "a password with punctuation": "Tr0ub4dor&3-horse_" + _token(13, 22),
}
WINDOW = 12


def _assert_gone(redacted: str, shown: str) -> None:
    squeezed, text = "".join(shown.split()), "".join(redacted.split())
    for start in range(max(1, len(squeezed) - WINDOW + 1)):
        assert squeezed[start : start + WINDOW] not in text, squeezed[start : start + WINDOW]


@pytest.mark.parametrize("secret", SECRETS, ids=list(SECRETS))
@pytest.mark.parametrize("variant", CLASSES, ids=list(CLASSES))
def test_every_variant_of_every_class_is_redacted(variant: str, secret: str) -> None:
    shown = pieces(CLASSES[variant], SECRETS[secret])
    text = "before the line\nvalue = " + FILLER.join(shown) + " ; and after\n"
    redacted = Redactor(SECRETS.values()).redact(text)
    assert "[REDACTED:env]" in redacted
    assert redacted.startswith("before the line\n") and redacted.endswith(" and after\n")
    for piece in shown:
        _assert_gone(redacted, piece)


def test_a_shift_found_deep_in_a_line_is_redacted_where_it_was_printed() -> None:
    secret = SECRETS["a GitHub token"]
    shifted = pieces("[shift(t, 2)]", secret)[0]
    redacted = Redactor([secret]).redact(f"id={shifted}&next=1")
    assert redacted == "id=[REDACTED:env]&next=1"


HONEST = [
    # rot-1 of an English phrase, and the phrase: words are shifts of other words all the time.
    "Ifmmp xpsme, uijt jt b uftu pg uif mph pvuqvu xjui tpnf xpset",
    "assert add(10**20, 1) == 10**20 + 1  # the quick brown fox jumps over the lazy dog",
    "abcdefghijklmnopqrstuvwxyz 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ ｉｓ ｓｔｉｌｌ ｔｅｘｔ — café, naïve, ①②③",
    "begin 644 notes.txt\nM:&5L;&\\@=V]R;&0@=&AI<R!I<R!N;W0@82!S96-R970@870@86QL(&9O<B!S\n`\nend",
]


@pytest.mark.parametrize("text", HONEST)
def test_text_that_only_looks_like_a_class_is_left_as_it_was(text: str) -> None:
    assert Redactor(SECRETS.values()).redact(text) == text


def test_differences_are_taken_bytewise_without_borrows() -> None:
    data = b"!~a~!zZ"
    expected = bytes((data[i + 1] - data[i]) % 94 for i in range(len(data) - 1))
    assert differences(data, 94) == expected
    assert differences(b"x", 26) == b""


def test_compatibility_characters_read_as_ascii_one_for_one() -> None:
    text = "ｇｈｐ_𝐗𝐞4 Ⓣé ✓ 한"
    read = compatible(text)
    assert read == "ghp_Xe4 Te ✓ 한"
    assert len(read) == len(text)
