"""Redaction as a class: every cheap form of a known secret, and every fragment of 8 characters or
more, is replaced; honest output is left exactly as it was printed."""

from __future__ import annotations

import base64
import bz2
import codecs
import gzip
import hashlib
import json
import lzma
import random
import string
import urllib.parse
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from referee.tools.evidence.recorder import EvidenceRecorder
from referee.tools.evidence.redact import Redactor
from referee.tools.evidence.views import Unescaped, folded, printable

LOGS = Path(__file__).parent.parent / "fixtures" / "logs"
NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _token(seed: int, size: int = 36, alphabet: str = string.ascii_letters + string.digits) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(size))


TOKEN = "ghp_" + _token(1)
FILLER = "\nsomething else\n"
KEY = _token(2, 64, "0123456789abcdef")  # shaped like referee's signing key

FORMS = {
    "plain": lambda t: t,
    "reversed": lambda t: t[::-1],
    "rot13": lambda t: codecs.encode(t, "rot13"),
    "reversed rot13": lambda t: codecs.encode(t[::-1], "rot13"),
    "upper case": str.upper,
    "swapped case": str.swapcase,
    "dotted": ".".join,
    "dashed reversed": lambda t: "-".join(t[::-1]),
    "one character per line": "\n".join,
    "hex": lambda t: t.encode().hex(),
    "HEX with colons": lambda t: ":".join(f"{b:02X}" for b in t.encode()),
    "UTF-16LE hex": lambda t: t.encode("utf-16-le").hex(),
    "UTF-16BE hex": lambda t: t.encode("utf-16-be").hex(),
    "raw UTF-16": lambda t: t.encode("utf-16-le").decode("latin-1"),
    "base64": lambda t: base64.b64encode(t.encode()).decode(),
    "base64, 1 byte in": lambda t: base64.b64encode(b"\x01" + t.encode()).decode(),
    "base64url, 2 bytes in": lambda t: base64.urlsafe_b64encode(b"\xfb\xff" + t.encode()).decode(),
    "base32": lambda t: base64.b32encode(t.encode()).decode(),
    "base32, 3 bytes in": lambda t: base64.b32encode(b"abc" + t.encode()).decode(),
    "base85": lambda t: base64.b85encode(t.encode()).decode(),
    "ascii85, 2 bytes in": lambda t: base64.a85encode(b"xy" + t.encode()).decode(),
    "percent-encoded": lambda t: "".join(f"%{b:02x}" for b in t.encode()),
    "quoted for a URL": lambda t: urllib.parse.quote("".join(reversed(t)), safe=""),
    "decimal entities": lambda t: "".join(f"&#{ord(c)};" for c in t),
    "hex entities": lambda t: "".join(f"&#x{ord(c):x};" for c in t),
    "named entities": lambda t: t.replace("_", "&lowbar;").replace("K", "&#75;"),
    "\\x escapes": lambda t: "".join(f"\\x{b:02x}" for b in t.encode()),
    "\\u escapes, doubled": lambda t: "".join(f"\\\\u{ord(c):04x}" for c in t),
    "octal escapes": lambda t: "".join(f"\\{b:03o}" for b in t.encode()),
    "0x bytes": lambda t: ", ".join(f"0x{b:02x}" for b in t.encode()),
    "character codes": lambda t: str(list(t.encode())),
    "a colour code around each character": lambda t: "".join(
        f"\x1b[3{n % 8}m{c}" for n, c in enumerate(t)
    ),
    "binary": lambda t: " ".join(f"{b:08b}" for b in t.encode()),
    "reversed base64": lambda t: base64.b64encode(t.encode()).decode()[::-1],
    "reversed hex": lambda t: t.encode().hex()[::-1],
    "character codes reversed, spaced": lambda t: " ".join(str(ord(c)) for c in t[::-1]),
    "gzip + base64": lambda t: base64.b64encode(gzip.compress(t.encode())).decode(),
    "zlib + hex": lambda t: zlib.compress(t.encode()).hex(),
    "bzip2 + base64": lambda t: base64.b64encode(bz2.compress(t.encode())).decode(),
    "xz + base85": lambda t: base64.b85encode(lzma.compress(t.encode())).decode(),
    "gzip + base64, shifted": lambda t: "Z" + base64.b64encode(gzip.compress(t.encode())).decode(),
    "base64 of hex": lambda t: base64.b64encode(t.encode().hex().encode()).decode(),
    "base64 of reversed": lambda t: base64.b64encode(t[::-1].encode()).decode(),
    "base64 of gzip of base64": lambda t: base64.b64encode(
        gzip.compress(base64.b64encode(t.encode()))
    ).decode(),
    "wrapped base64 of gzip": lambda t: "\n  ".join(
        _chunks(base64.b64encode(gzip.compress(t.encode() * 4)).decode(), 24)
    ),
    "halves on two lines": lambda t: f"{t[:18]}{FILLER}{t[18:]}",
    "an 8-character fragment": lambda t: t[9:17],
    "a reversed fragment": lambda t: t[20:31][::-1],
    "a hex fragment": lambda t: t[5:15].encode().hex(),
}


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("form", FORMS, ids=list(FORMS))
def test_every_cheap_form_of_a_known_secret_is_redacted(form: str) -> None:
    shown = FORMS[form](TOKEN)
    redacted = Redactor([TOKEN]).redact(f"before the line\nvalue = {shown} ; and after\n")
    assert "[REDACTED:" in redacted
    assert redacted.startswith("before the line\nvalue = ") and redacted.endswith(" and after\n")
    for piece in shown.split(FILLER):
        _assert_gone(redacted, piece)


def _assert_gone(redacted: str, shown: str, window: int = 8) -> None:
    squeezed, text = "".join(shown.split()).rstrip("="), "".join(redacted.split())
    for start in range(max(1, len(squeezed) - window + 1)):
        assert squeezed[start : start + window] not in text, squeezed[start : start + window]


ENCODINGS = {
    "reversed": lambda b: b[::-1].decode(),
    "rot13 upper": lambda b: codecs.encode(b.decode(), "rot13").upper(),
    "hex": bytes.hex,
    "utf-16 hex": lambda b: b.decode().encode("utf-16-be").hex(),
    "base64": lambda b: base64.b64encode(b).decode(),
    "base32": lambda b: base64.b32encode(b).decode(),
    "spaced": lambda b: " ".join(b.decode()),
}


@settings(max_examples=150, deadline=None)
@given(
    secret=st.text(string.ascii_letters + string.digits, min_size=16, max_size=48),
    where=st.tuples(st.integers(0, 40), st.integers(8, 48)),
    shift=st.integers(0, 4),
    encoding=st.sampled_from(sorted(ENCODINGS)),
)
def test_any_fragment_of_eight_characters_is_redacted_at_any_alignment(
    secret: str, where: tuple[int, int], shift: int, encoding: str
) -> None:
    start = min(where[0], len(secret) - 8)
    fragment = secret[start : start + where[1]]
    # A dull stretch ("00000000") is no fragment worth hiding on its own: it is everywhere.
    assume(all(len(set(fragment[i : i + 8])) >= 5 for i in range(len(fragment) - 7)))
    # Bytes glued in front move the fragment to another alignment of base64 and base32.
    padded = (
        b"\x00\x7f\x10\x22"[:shift] + fragment.encode() if "base" in encoding else fragment.encode()
    )
    shown = ENCODINGS[encoding](padded)
    redacted = Redactor([secret]).redact(f"log: {shown} end")
    assert "[REDACTED:env]" in redacted
    # Only the characters fed by the glued bytes (7 at most) survive.
    _assert_gone(redacted, shown)


def test_base85_fragments_of_eleven_characters_are_redacted_at_any_alignment() -> None:
    for shift in range(4):
        for start in range(0, len(TOKEN) - 11):
            shown = base64.b85encode(b"~" * shift + TOKEN[start : start + 11].encode()).decode()
            assert "[REDACTED:env]" in Redactor([TOKEN]).redact(f"x {shown} y"), (shift, start)


@pytest.mark.parametrize("log", sorted(p.name for p in LOGS.glob("*.log")))
def test_an_honest_log_is_left_exactly_as_it_was_printed(log: str) -> None:
    text = (LOGS / log).read_text(encoding="utf-8")
    known = [TOKEN, KEY, _token(3, 24), "correct horse battery staple 7731", "sk_live_" + _token(4)]
    redactor = Redactor(known)
    assert redactor.redact(text) == text
    assert redactor.reapply([text]) == [text]


def test_a_log_that_prints_the_secret_once_keeps_every_other_line(capsys: None) -> None:
    text = (LOGS / "jsonschema.log").read_text(encoding="utf-8")
    lines = text.splitlines()
    lines.insert(500, f"leak {base64.b64encode(gzip.compress(KEY.encode())).decode()}")
    redacted = Redactor([KEY]).redact("\n".join(lines)).splitlines()
    assert redacted[500] == "leak [REDACTED:env]"
    assert redacted[:500] + redacted[501:] == lines[:500] + lines[501:]


def test_a_blob_that_inflates_past_the_bound_is_redacted_whole() -> None:
    bomb = base64.b64encode(gzip.compress(b"\0" * (2 << 20) + TOKEN.encode())).decode()
    assert Redactor([TOKEN]).redact(f"data {bomb} end") == "data [REDACTED:compressed] end"


def test_a_small_compressed_blob_without_a_secret_is_kept() -> None:
    blob = base64.b64encode(gzip.compress(b"an ordinary payload " * 20)).decode()
    assert Redactor([TOKEN]).redact(f"data {blob} end") == f"data {blob} end"


def test_a_secret_found_by_pattern_is_known_from_then_on_in_every_form() -> None:
    redactor = Redactor()
    assert "[REDACTED:github-pat]" in redactor.redact(f"token {TOKEN}")
    assert redactor.redact(f"later {TOKEN[::-1]}") == "later [REDACTED:github-pat]"
    assert redactor.generation == 1


def test_a_secret_learned_from_a_file_is_redacted_reversed() -> None:
    redactor = Redactor()
    key_id = "AKIA" + _token(5, 16, string.ascii_uppercase + "234567")
    redactor.learn_from(f'ACCESS_KEY_ID = "{key_id}"\n')
    assert redactor.redact(f"id {key_id[::-1]}") == "id [REDACTED:aws-access-key-id]"


def test_evidence_recorded_before_a_secret_was_learned_is_redacted_again(tmp_path: Path) -> None:
    redactor = Redactor()
    recorder = EvidenceRecorder("R1", tmp_path / "a", redactor, lambda: NOW)
    earlier = recorder.record(tool="command", summary="s", stdout=f"reversed {TOKEN[::-1]}\n")
    assert TOKEN[::-1] in earlier.stdout  # not known yet
    recorder.record(tool="command", summary="s", stdout=f"export GITHUB_TOKEN={TOKEN}\n")
    recorder.settle()
    again = recorder.items[0]
    log = Path(again.artifacts[0])
    assert again.stdout == "reversed [REDACTED:github-pat]\n" == log.read_text(encoding="utf-8")
    assert again.sha256 == hashlib.sha256(log.read_bytes() + b"\0").hexdigest()
    assert again.timestamp == earlier.timestamp and again.id == earlier.id


def test_test_names_details_keys_and_report_names_carrying_a_secret_are_redacted(
    tmp_path: Path,
) -> None:
    from referee.tools.models.evidence import TestOutcome

    report = tmp_path / f"TEST-{TOKEN[::-1]}.xml"
    report.write_text(f'<testsuite name="{TOKEN.swapcase()}"/>', encoding="utf-8")
    recorder = EvidenceRecorder("R1", tmp_path / "a", Redactor([TOKEN]), lambda: NOW)
    item = recorder.record(
        tool="tests",
        summary="s",
        tests=[TestOutcome(name=f"test_x[{TOKEN[::-1]}]", outcome="failed", message=TOKEN.upper())],
        details={f"timing {TOKEN}": [{"id": TOKEN.encode().hex()}]},
        extra_artifacts=[report],
    )
    dumped = json.dumps(item.model_dump(mode="json"))
    for form in (TOKEN[::-1], TOKEN.upper(), TOKEN, TOKEN.encode().hex(), TOKEN.swapcase()):
        assert form not in dumped
    assert item.tests[0].name == "test_x[[REDACTED:env]]"
    stored = Path(item.artifacts[0])
    assert stored.name == "E1.TEST-[REDACTED:env].xml"
    assert stored.read_text(encoding="utf-8") == '<testsuite name="[REDACTED:env]"/>'


def test_views_map_a_match_back_to_the_characters_it_was_read_from() -> None:
    text = b"a-B c\nD%65f"
    view = folded(text)
    assert view.data == b"abcd65f"
    assert view.span(1, 3) == (2, 5)  # "B c"
    unescaped = Unescaped.of(text)
    assert unescaped is not None and unescaped.data == b"a-B c\nDef"
    assert unescaped.span(7, 9) == (7, 11)  # "%65f"
    assert printable(b"ab \n cd").data == b"abcd"


@pytest.mark.parametrize(
    "glue",
    ["", "Q", "xy", "abc", "JUNKjunk", "a line before it ABCDEFGH\n", "A1b2C3d4E5f6G7h8i9\n  "],
)
def test_a_compressed_blob_glued_behind_other_characters_is_still_inflated(glue: str) -> None:
    blob = base64.b64encode(gzip.compress(TOKEN.encode())).decode()
    redacted = Redactor([TOKEN]).redact(f"out: {glue}{blob} end")
    assert blob[4:16] not in redacted and "[REDACTED:env]" in redacted
    shifted = "f" * len(glue) + zlib.compress(TOKEN[::-1].encode()).hex()
    assert "[REDACTED:env]" in Redactor([TOKEN]).redact(f"hex: {shifted} end")


@pytest.mark.parametrize("before", [(1 << 18) - 20, (1 << 18) - 3, 1 << 18])
def test_a_secret_across_the_end_of_a_searched_chunk_is_found(before: int) -> None:
    text = "x" * before + TOKEN[::-1] + " and " + TOKEN.upper()
    assert Redactor([TOKEN]).redact(text) == "x" * before + "[REDACTED:env] and [REDACTED:env]"


def test_no_pattern_of_the_redaction_says_anything_on_stderr() -> None:
    """A large run output can outgrow RE2's fast automaton; RE2 then says "DFA out of memory"
    on stderr unless told not to, which a user reads as a crash in the middle of evaluate's
    output (seen over a vitest coverage map). Every pattern of the evidence modules is quiet."""
    import importlib
    import pkgutil

    import referee.tools.evidence as evidence

    found = [
        (info.name, name, pattern)
        for info in pkgutil.iter_modules(evidence.__path__, "referee.tools.evidence.")
        for name, value in vars(importlib.import_module(info.name)).items()
        for pattern in _regexps(value)
    ]
    assert len(found) >= 10
    assert [(m, n) for m, n, p in found if p.options.log_errors] == []


def _regexps(value: object) -> list[Any]:
    """The compiled RE2 patterns in a module's value (nested tuples too)."""
    if type(value).__name__ == "_Regexp":
        return [value]
    if isinstance(value, tuple):
        return [p for v in value for p in _regexps(v)]
    return []
