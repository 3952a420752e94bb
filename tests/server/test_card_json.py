"""Card JSON is read strictly, on every channel: `referee validate` files and standard input,
`referee aggregate --scorecards`, and the MCP tools (in process, and over a real stdio pipe, where
a client can send `NaN` as it is). Nothing a card holds makes referee crash."""

from __future__ import annotations

import io
import json
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from runs import CORPUS, corpus_contract

from referee.server.cli import main
from referee.tools.models import Contract
from referee.tools.store import Store

pytestmark = pytest.mark.anyio

CID = "SC-login-form-20260325"
SCORE = '"__SCORE__"'


def card_text() -> str:
    """The corpus's valid card as JSON text, its security score a placeholder to replace."""
    doc = json.loads((CORPUS / "cases" / "referee-valid-accept.json").read_text("utf-8"))
    card = doc["scorecard"]
    card.pop("target", None)
    card["dimensions"]["security"]["score"] = "__SCORE__"
    return json.dumps(card)


def _score(value: str) -> Callable[[str], bytes]:
    return lambda text: text.replace(SCORE, value).encode("utf-8")


def _edit(old: str, new: str) -> Callable[[str], bytes]:
    def edit(text: str) -> bytes:
        assert old in text
        return text.replace(SCORE, "2").replace(old, new, 1).encode("utf-8")

    return edit


def _raw(data: bytes) -> Callable[[str], bytes]:
    return lambda _: data


def _nested(levels: int) -> str:
    return '{"x": ' * levels + "1" + "}" * levels


# name: (the file's bytes from the card's text, code, pointer)
VARIANTS: dict[str, tuple[Callable[[str], bytes], str, str]] = {
    "NaN": (_score("NaN"), "non_finite_number", "/dimensions/security/score"),
    "Infinity": (_score("Infinity"), "non_finite_number", "/dimensions/security/score"),
    "-Infinity": (_score("-Infinity"), "non_finite_number", "/dimensions/security/score"),
    "1e999": (_score("1e999"), "non_finite_number", "/dimensions/security/score"),
    "-1e999": (_score("-1e999"), "non_finite_number", "/dimensions/security/score"),
    "an integer beyond a double": (
        _score("1" + "0" * 400),
        "non_finite_number",
        "/dimensions/security/score",
    ),
    "a 5,000-digit integer": (_score("9" * 5000), "json_invalid", ""),
    "a duplicate top-level key": (
        _edit('{"contract_ref"', '{"provider": "someone else", "contract_ref"'),
        "duplicate_key",
        "/provider",
    ),
    "a duplicate dimension": (
        _edit('"security": {', '"security": {"score": 0, "evidence": "E3"}, "security": {'),
        "duplicate_key",
        "/dimensions/security",
    ),
    "a duplicate key in an array item": (
        _edit('"pass": true', '"pass": false, "pass": true'),
        "duplicate_key",
        "/criteria/0/pass",
    ),
    "a duplicate key three levels down": (
        _edit('"rubric": {', '"rubric": {"ref": "SECURITY",'),
        "duplicate_key",
        "/rubric/ref",
    ),
    "10,000 levels of arrays": (_raw(b"[" * 10_000 + b"]" * 10_000), "too_deep", ""),
    "10,000 levels of objects": (_raw(_nested(10_000).encode()), "too_deep", ""),
    "65 levels inside a field": (  # the pointer names the first value too deep
        _edit('"summary": ', f'"summary": {_nested(65)}, "x": '),
        "too_deep",
        "/summary" + "/x" * 64,
    ),
    "3 MiB": (_edit('"summary": "', '"summary": "' + "x" * (3 << 20)), "too_large", ""),
    "invalid UTF-8": (
        lambda t: _edit('"summary": "', '"summary": "')(t).replace(b"Login", b"\xffLogin"),
        "json_invalid",
        "",
    ),
    "UTF-16": (lambda t: t.replace(SCORE, "2").encode("utf-16"), "json_invalid", ""),
    "an unpaired surrogate": (
        _edit('"summary": "', '"summary": "\\ud800'),
        "json_invalid",
        "/summary",
    ),
    "a trailing comma": (_edit('"dispatch_count": 1', '"dispatch_count": 1,'), "json_invalid", ""),
    "an empty file": (_raw(b""), "json_invalid", ""),
    "a bare number": (_raw(b"5"), "not_an_object", ""),
    "a string": (_raw(b'"a scorecard"'), "not_an_object", ""),
    "null": (_raw(b"null"), "not_an_object", ""),
    "an array of arrays": (_raw(b"[[1], [2]]"), "not_an_object", ""),
}


@pytest.fixture
def exported(tmp_path: Path) -> str:
    target = tmp_path / "contracts" / f"{CID}.yaml"
    target.parent.mkdir()
    target.write_bytes((CORPUS / "contract.yaml").read_bytes())
    return str(target)


def validate_bytes(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, *args: str
) -> tuple[int, dict[str, Any], str]:
    path = tmp_path / "card.json"
    path.write_bytes(data)
    capsys.readouterr()
    code = main(["--root", str(repo), "validate", str(path), "--json", *args])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


@pytest.mark.parametrize("name", list(VARIANTS))
def test_referee_validate_refuses_card_json_that_is_not_strict(
    name: str, repo: Path, tmp_path: Path, exported: str, capsys: pytest.CaptureFixture[str]
) -> None:
    make, code, where = VARIANTS[name]
    status, doc, err = validate_bytes(
        repo, tmp_path, capsys, make(card_text()), "--contract", exported
    )
    assert status == 1 and err == ""
    errors = [e for r in doc["results"] for e in r["errors"]]
    assert (code, where) in {(e["code"], e["path"]) for e in errors}, errors
    assert all(e["message"] for e in errors)


def test_a_byte_order_mark_is_ignored_and_an_array_is_read_item_by_item(
    repo: Path, tmp_path: Path, exported: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = card_text().replace(SCORE, "2")
    status, doc, _ = validate_bytes(
        repo, tmp_path, capsys, b"\xef\xbb\xbf" + text.encode(), "--contract", exported
    )
    assert status == 0 and doc["results"][0]["valid"] is True
    status, doc, _ = validate_bytes(
        repo, tmp_path, capsys, f"[7, {text}]".encode(), "--contract", exported
    )
    assert status == 1
    assert [r["valid"] for r in doc["results"]] == [False, True]
    assert doc["results"][0]["errors"][0]["code"] == "not_an_object"


@pytest.mark.parametrize("name", ["NaN", "a duplicate dimension", "10,000 levels of arrays"])
def test_standard_input_is_read_as_strictly(
    name: str,
    repo: Path,
    exported: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    make, code, where = VARIANTS[name]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(make(card_text()))))
    assert main(["--root", str(repo), "validate", "-", "--contract", exported, "--json"]) == 1
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert (code, where) in {(e["code"], e["path"]) for e in result["errors"]}


@pytest.fixture
def contract(repo: Path) -> Contract:
    return corpus_contract(Store(repo / ".referee"), repo)


@pytest.mark.parametrize(
    "name",
    ["NaN", "1e999", "a duplicate key in an array item", "10,000 levels of objects", "3 MiB"],
)
def test_aggregate_scorecards_files_are_read_as_strictly(
    name: str, repo: Path, tmp_path: Path, contract: Contract, capsys: pytest.CaptureFixture[str]
) -> None:
    make, code, where = VARIANTS[name]
    path = tmp_path / "cards.json"
    path.write_bytes(make(card_text()))
    capsys.readouterr()
    assert main(["--root", str(repo), "aggregate", contract.id, "--scorecards", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{where or '/'}  [{code}]" in err and "Traceback" not in err


def _object_card() -> dict[str, Any]:
    return dict(json.loads(card_text().replace(SCORE, "2")))


async def test_validate_scorecard_refuses_a_deeply_nested_card(
    client: Client, contract: Contract
) -> None:
    card = _object_card()
    node = card["rubric"]
    for _ in range(70):
        node["x"] = {}
        node = node["x"]
    result = await client.call_tool("validate_scorecard", {"scorecard": card, "store": False})
    assert result.is_error is False
    data = result.structured_content
    assert data["valid"] is False and [e["code"] for e in data["errors"]] == ["too_deep"]


@pytest.mark.parametrize("value", [[], 5, "card", None])
async def test_a_scorecard_that_is_not_an_object_is_a_tool_error_over_mcp(
    value: Any, client: Client, contract: Contract
) -> None:
    result = await client.call_tool("validate_scorecard", {"scorecard": value})
    assert result.is_error is True and "scorecard" in result.content[0].text


def _serve(repo: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "referee.server.cli", "--root", str(repo), "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def _answers(proc: subprocess.Popen[bytes], wanted: set[int]) -> dict[int, dict[str, Any]]:
    """Read response lines until every id in `wanted` is answered."""
    assert proc.stdout is not None
    found: dict[int, dict[str, Any]] = {}
    # A stall, not a total: each answer gives the next one as long again (a cold interpreter
    # imports the SDK first, and a loaded machine answers ten calls slowly), while a server that
    # stopped answering or exited still ends the wait.
    deadline = time.monotonic() + 180
    while wanted - set(found) and time.monotonic() < deadline and proc.poll() is None:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        line = proc.stdout.readline() if ready else b""
        if line.strip():
            message = json.loads(line)
            if message.get("id") in wanted:
                found[message["id"]] = message
                deadline = time.monotonic() + 180
    return found


def _send(proc: subprocess.Popen[bytes], text: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(text.encode("utf-8") + b"\n")
    proc.stdin.flush()


def _call(ident: int, tool: str, arguments: str) -> str:
    return (
        f'{{"jsonrpc": "2.0", "id": {ident}, "method": "tools/call",'
        f' "params": {{"name": "{tool}", "arguments": {arguments}}}}}'
    )


RAW = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"]


@pytest.mark.slow
def test_non_finite_numbers_sent_raw_over_stdio_are_refused_by_both_tools(
    repo: Path, contract: Contract
) -> None:
    # The Python client turns NaN into null before sending; another client sends it as it is,
    # and the SDK's parser reads it as a float.
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }
    proc = _serve(repo)
    try:
        _send(proc, json.dumps(init))
        assert 0 in _answers(proc, {0})
        _send(proc, '{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        cards = [card_text().replace(SCORE, value) for value in RAW]
        for i, card in enumerate(cards, start=1):
            _send(proc, _call(i, "validate_scorecard", f'{{"scorecard": {card}, "store": false}}'))
            _send(
                proc,
                _call(100 + i, "aggregate", f'{{"contract_id": "{CID}", "scorecards": [{card}]}}'),
            )
        answers = _answers(proc, {*range(1, len(cards) + 1), *range(101, 101 + len(cards))})
    finally:
        proc.stdin.close() if proc.stdin else None
        proc.wait(30)
        if proc.stdout:
            proc.stdout.close()
    for i, value in enumerate(RAW, start=1):
        checked = answers[i]["result"]["structuredContent"]
        assert checked["valid"] is False, value
        assert ("non_finite_number", "/dimensions/security/score") in {
            (e["code"], e["path"]) for e in checked["errors"]
        }
        refused = answers[100 + i]["result"]
        assert refused["isError"] is True
        assert "/scorecards/0/dimensions/security/score" in refused["content"][0]["text"]
