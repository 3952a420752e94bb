"""A secret under a one-for-one substitution (tools/evidence/substitution.py): each character
replaced by another symbol, the same wherever it recurs, in any alphabet. No list of forms holds
these; the value's pattern of repeats finds them all.

The secret here is a random 40-character token (it has the repeats such a token has); round 12's
token, chosen with a single repeat, is found under a map of its characters but not of its words
(tests/server/test_redteam_round12.py `FORM_MISSES`).
"""

from __future__ import annotations

import base64
import random
import string
import unicodedata
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client
from projects import calc_repo, command_check, server_env
from test_redteam_round12 import _NATO
from test_secret_forms import _assert_no_window, _evaluate, _everything

from referee.server.app import build_server
from referee.tools.evidence.redact import Redactor
from referee.tools.settings import Settings

SECRET = "tq3Xk8Zr2VbWq3Nc8Jr5Xm2pL9sVk4Tz7Wb2Nq5"
WINDOW = 12
_DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_CIPHER = "".join(random.Random(11).sample(string.ascii_letters + string.digits, 62))


def _word(c: str) -> str:
    if c.isdigit():
        return _DIGITS[int(c)]
    word = _NATO[c.lower()]
    return word.upper() if c.isupper() else word


FORMS: dict[str, str] = {
    "xor-with-one": "".join(chr(ord(c) ^ 1) for c in SECRET),
    "xor-with-six-reversed": "".join(chr(ord(c) ^ 6) for c in reversed(SECRET)),
    "a-cipher-alphabet": SECRET.translate(
        str.maketrans(string.ascii_letters + string.digits, _CIPHER)
    ),
    "atbash": "".join(
        chr(219 - ord(c)) if c.islower() else chr(155 - ord(c)) if c.isupper() else c
        for c in SECRET
    ),
    "xor-then-hex": bytes(ord(c) ^ 0x55 for c in SECRET).hex(),
    "nibble-swapped-hex": "".join(f"{b & 15:x}{b >> 4:x}" for b in SECRET.encode()),
    "codes-plus-one": " ".join(str(ord(c) + 1) for c in SECRET),
    "codes-times-three-with-commas": ", ".join(str(ord(c) * 3) for c in SECRET),
    "nato-and-number-words": " ".join(_word(c) for c in SECRET),
    "unicode-names": "; ".join(unicodedata.name(c) for c in SECRET),
    "a-code-per-line": "\n".join(f"{ord(c) * 7:06d}" for c in SECRET),
    "words-between-bars": "|".join(_word(c) for c in SECRET),
}


def _survivors(form: str, redacted: str) -> list[str]:
    squeezed, out = "".join(form.split()), "".join(redacted.split())
    windows = (squeezed[i : i + WINDOW] for i in range(len(squeezed) - WINDOW + 1))
    return [w for w in windows if w in out]


@pytest.mark.parametrize("variant", sorted(FORMS))
def test_a_secret_under_a_map_is_redacted(variant: str) -> None:
    form = FORMS[variant]
    out = Redactor([SECRET]).redact(f"debug output\nvalue: {form}\nmore output\n")
    assert _survivors(form, out) == [], variant
    assert "more output" in out and "debug output" in out  # only the form goes


def test_the_forms_are_maps_of_the_secret() -> None:
    """Each form gives the secret back, one symbol for one character."""
    assert "".join(chr(ord(c) ^ 1) for c in FORMS["xor-with-one"]) == SECRET
    assert "".join(chr(int(n) - 1) for n in FORMS["codes-plus-one"].split()) == SECRET
    back = bytes(b ^ 0x55 for b in bytes.fromhex(FORMS["xor-then-hex"])).decode()
    assert back == SECRET
    names = FORMS["unicode-names"].split("; ")
    assert "".join(unicodedata.lookup(n) for n in names) == SECRET
    words = {_word(c): c for c in SECRET}
    assert "".join(words[w] for w in FORMS["nato-and-number-words"].split()) == SECRET


def test_real_runner_logs_are_kept_whole() -> None:
    logs = Path(__file__).resolve().parent.parent / "fixtures" / "logs"
    rng = random.Random(5)
    alphabet = string.ascii_letters + string.digits
    secrets = [SECRET] + ["".join(rng.choice(alphabet) for _ in range(40)) for _ in range(20)]
    redactor = Redactor(secrets)
    for log in sorted(logs.glob("*.log")):
        text = log.read_text(encoding="utf-8")
        assert redactor.redact(text) == text, log.name


def test_random_identifiers_and_prose_are_kept_whole() -> None:
    rng = random.Random(9)
    alphabet = string.ascii_letters + string.digits
    ids = "\n".join("".join(rng.choice(alphabet) for _ in range(40)) for _ in range(2000))
    blob = base64.b64encode(rng.randbytes(60000)).decode()
    vocabulary = ["the", "a", "test", "passed", "in", "of"] + [f"w{i}" for i in range(3000)]
    prose = "\n".join(" ".join(rng.choice(vocabulary) for _ in range(45)) for _ in range(500))
    redactor = Redactor([SECRET])
    for text in (ids, blob, prose):
        assert redactor.redact(text) == text


# === through the server: a check prints the forms of a secret of its environment ==============


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    project = calc_repo(tmp_path / "calc")
    return Settings.build([project], env=server_env(project, SERVICE_TOKEN=SECRET))


@pytest.fixture
async def agent(settings: Settings) -> AsyncIterator[Client]:
    async with Client(build_server(settings)) as client:
        yield client


_PRINTING = """
import os, unicodedata
t = os.environ["T"]
print("xor:", "".join(chr(ord(c) ^ 1) for c in t))
print("hex:", bytes(ord(c) ^ 0x55 for c in t).hex())
print("codes:", " ".join(str(ord(c) + 1) for c in t))
print("names:", "; ".join(unicodedata.name(c) for c in t))
"""


@pytest.mark.anyio
async def test_a_check_printing_maps_of_a_secret_leaves_none_in_the_store(
    agent: Client, settings: Settings
) -> None:
    check = {**command_check(_PRINTING), "env": {"T": "${SERVICE_TOKEN}"}}
    evaluation = await _evaluate(agent, check)
    everything = await _everything(agent, settings, evaluation)
    assert "[REDACTED:" in everything
    printed = [
        "".join(chr(ord(c) ^ 1) for c in SECRET),
        bytes(ord(c) ^ 0x55 for c in SECRET).hex(),
        " ".join(str(ord(c) + 1) for c in SECRET),
        "; ".join(unicodedata.name(c) for c in SECRET),
    ]
    _assert_no_window(everything, printed)
