"""A hostile test prints a secret it can reach in a cheap disguise: no form of it, and no fragment
of 8 characters or more, reaches a stored byte or a result, through create_contract → evaluate.

Each variant prints pieces derived from the secret; none of their 12-character windows may survive
in the store (database and artifacts) or in what evaluate returns.
"""

from __future__ import annotations

import base64
import bz2
import codecs
import gzip
import io
import json
import lzma
import random
import string
import textwrap
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_calls import call
from projects import calc_repo, command_check, pytest_check, server_env, stored_text
from runner_projects import JS_CACHE
from secret_classes import CLASSES, pieces, printing_script

from referee.server.app import build_server
from referee.server.cli import main as cli
from referee.tools.settings import Settings

pytestmark = pytest.mark.anyio

TOKEN = "ghp_" + "Xe4Tq9Lm2Vb7Nc5Rk8Wd3Hs6Jy1Pf0Gz4Ua"
PASSWORD = "correct horse battery staple 7731"
WINDOW = 12


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(tmp_path / "calc")


@pytest.fixture
def settings(project: Path) -> Settings:
    env = server_env(project, GITHUB_TOKEN=TOKEN, DB_PASSWORD=PASSWORD)
    return Settings.build([project], env=env)


@pytest.fixture
async def agent(settings: Settings) -> AsyncIterator[Client]:
    async with Client(build_server(settings)) as client:
        yield client


def _pieces(expression: str, secret: str) -> list[str]:
    """What the check prints, as the check computes it (`t` is the secret)."""
    scope = {"base64": base64, "bz2": bz2, "codecs": codecs, "gzip": gzip, "json": json}
    scope |= {"lzma": lzma, "textwrap": textwrap, "zlib": zlib, "t": secret}
    return list(eval(expression, scope))


# Each expression gives the pieces a test prints; the check joins them with an unrelated line.
FORMS = {
    "reversed": "[t[::-1]]",
    "rot13": "[codecs.encode(t, 'rot13')]",
    "swapped case": "[t.swapcase()]",
    "a dot between characters": "['.'.join(t)]",
    "a space and a line break between characters": "[' '.join(t[:20]) + '\\n' + ' '.join(t[20:])]",
    "base32": "[base64.b32encode(t.encode()).decode()]",
    "base85": "[base64.b85encode(t.encode()).decode()]",
    "ascii85 inside a sentence": "['see <~' + base64.a85encode(t.encode()).decode() + '~> there']",
    "UTF-16 hex": "[t.encode('utf-16-le').hex()]",
    "UTF-16BE hex, upper case": "[t.encode('utf-16-be').hex().upper()]",
    "URL-encoded": "[''.join('%%%02X' % b for b in t.encode())]",
    "HTML entities": "[''.join('&#%d;' % ord(c) for c in t)]",
    "backslash escapes": "[''.join('\\\\x%02x' % b for b in t.encode())]",
    "character codes": "[str([ord(c) for c in t])]",
    "unicode escapes in JSON": "[json.dumps({'k': ''.join('\\\\u%04x' % ord(c) for c in t)})]",
    "base64 at an offset inside JSON": (
        "[json.dumps({'blob': base64.b64encode(b'id:' + t.encode()).decode()})]"
    ),
    "gzip + base64": "[base64.b64encode(gzip.compress(t.encode())).decode()]",
    "gzip + base64 wrapped over lines": (
        "['\\n'.join(textwrap.wrap(base64.b64encode(gzip.compress(t.encode() * 3)).decode(), 20))]"
    ),
    "xz + hex": "[lzma.compress(t.encode()).hex()]",
    "bzip2 + base85": "[base64.b85encode(bz2.compress(t.encode())).decode()]",
    "base64 of base64": "[base64.b64encode(base64.b64encode(t.encode())).decode()]",
    "base32hex": "[base64.b32hexencode(t.encode()).decode()]",
    "raw deflate + base64 behind a label": (
        "['raw:\\n' + base64.b64encode(zlib.compress(t.encode())[2:-4]).decode()]"
    ),
    "SQL CHAR() codes": "['+'.join('CHAR(%d)' % ord(c) for c in t)]",
    "octal codes": "[' '.join('%o' % ord(c) for c in t)]",
    "Cyrillic look-alike letters": (
        "[t.translate(str.maketrans('aceopxyACEHKMOPTX', 'асеорхуАСЕНКМОРТХ'))]"
    ),
    "every 4th character on its own line": "[t[i::4] for i in range(4)]",
    "rot13 of base64": "[codecs.encode(base64.b64encode(t.encode()).decode(), 'rot13')]",
    "the bytes as one decimal number": "[str(int.from_bytes(t.encode(), 'big'))]",
    "invisible tag characters": "[''.join(chr(0xE0000 + ord(c)) for c in t)]",
    "Braille patterns": "[''.join(chr(0x2800 + ord(c)) for c in t)]",
    # Each letter's code is its place in a heap of the alphabet, in binary: no Morse table in
    # the command, which is stored too.
    "Morse code": (
        "[' '.join(bin('**etianmsurwdkgohvf*l*pjbxcyzq**54*3***2*******16*******7***8*90'"
        "   .index(c))[3:].translate(str.maketrans('01', '.-')) if c.isalnum() else '/'"
        " for c in t.lower())]"
    ),
    "halves on two lines": "[t[:20], t[20:]]",
    "a 12-character fragment": "[t[13:25]]",
}


def _check(expression: str, stream: str = "stdout") -> dict[str, Any]:
    script = textwrap.dedent(f"""
        import base64, bz2, codecs, gzip, json, lzma, os, sys, textwrap, zlib
        t = os.environ["T"]
        pieces = {expression}
        print("\\n--- unrelated line ---\\n".join(pieces), file=sys.{stream})
    """)
    return {**command_check(script), "env": {"T": "${GITHUB_TOKEN}"}}


async def _evaluate(agent: Client, check: dict[str, Any], **fields: Any) -> dict[str, Any]:
    made = await call(
        agent,
        "create_contract",
        goal="Keep the calculator correct.",
        out_of_scope=["ui"],
        functional=[{"criterion": "prints", "verification_method": "test", "check": check}],
        **fields,
    )
    return await call(agent, "evaluate", contract_id=made["contract"]["id"])


async def _everything(agent: Client, settings: Settings, evaluation: dict[str, Any]) -> str:
    """The store's bytes, the result and every evidence item read back, whitespace squeezed."""
    texts = [stored_text(settings.home), json.dumps(evaluation)]
    for item in evaluation["evidence"]:
        read = await agent.read_resource(f"evidence://{evaluation['run_id']}/{item['id']}")
        texts.append(read.contents[0].text)  # type: ignore[union-attr]
    return "".join("\n".join(texts).split())


def _assert_no_window(everything: str, pieces: list[str]) -> None:
    for piece in pieces:
        squeezed = "".join(piece.split())
        for start in range(max(1, len(squeezed) - WINDOW + 1)):
            window = squeezed[start : start + WINDOW]
            assert window not in everything, (piece, window)


@pytest.mark.parametrize("form", FORMS, ids=list(FORMS))
async def test_a_secret_printed_in_a_cheap_form_is_redacted_everywhere(
    agent: Client, settings: Settings, form: str
) -> None:
    evaluation = await _evaluate(agent, _check(FORMS[form]))
    assert evaluation["sandbox"] == "bubblewrap"
    everything = await _everything(agent, settings, evaluation)
    assert "[REDACTED:" in everything
    _assert_no_window(everything, _pieces(FORMS[form], TOKEN))


async def test_halves_split_over_stdout_and_stderr_are_both_redacted(
    agent: Client, settings: Settings
) -> None:
    script = textwrap.dedent("""
        import os, sys
        s = os.environ["S"]
        print("first:", s[:16]); print("second:", s[16:], file=sys.stderr)
    """)
    check = {**command_check(script), "env": {"S": "${DB_PASSWORD}"}}
    evaluation = await _evaluate(agent, check)
    everything = await _everything(agent, settings, evaluation)
    _assert_no_window(everything, [PASSWORD[:16], PASSWORD[16:]])


PARAMETRIZED = """
import base64, os, pytest

T = os.environ["T"]


@pytest.mark.parametrize("value", [1, 2], ids=[T, T[::-1]])
def test_named_after_the_secret(value):
    assert value == 3, "expected " + base64.b64encode(T.encode()).decode()
"""


async def test_test_ids_carrying_the_secret_are_redacted_in_evidence_and_results(
    agent: Client, settings: Settings, project: Path
) -> None:
    (project / "tests" / "test_named.py").write_text(PARAMETRIZED, encoding="utf-8")
    check = {**pytest_check("tests/test_named.py"), "env": {"T": "${GITHUB_TOKEN}"}}
    evaluation = await _evaluate(agent, check)
    criterion = evaluation["criteria"][0]
    assert criterion["status"] == "fail", criterion
    everything = await _everything(agent, settings, evaluation)
    _assert_no_window(everything, [TOKEN, TOKEN[::-1], base64.b64encode(TOKEN.encode()).decode()])
    assert "test_named_after_the_secret[[REDACTED:" in everything


JEST_NAMED = """
const t = process.env.T;
test(t.split('').reverse().join(''), () => { expect(Buffer.from(t).toString('hex')).toBe(''); });
"""


@pytest.mark.slow
async def test_a_jest_test_named_after_the_secret_is_redacted(
    agent: Client, settings: Settings, project: Path
) -> None:
    if not JS_CACHE.is_dir():
        pytest.skip(f"{JS_CACHE} is missing (scripts/setup.sh installs it)")
    folder = project / "js"
    folder.mkdir()
    (folder / "package.json").write_text('{"name": "t", "private": true}\n', encoding="utf-8")
    (folder / "named.test.js").write_text(JEST_NAMED, encoding="utf-8")
    (folder / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
    check = {"kind": "tests", "argv": ["npx", "jest"], "cwd": "js", "env": {"T": "${GITHUB_TOKEN}"}}
    evaluation = await _evaluate(agent, check)
    everything = await _everything(agent, settings, evaluation)
    assert evaluation["criteria"][0]["status"] == "fail", evaluation["criteria"][0]["reason"]
    _assert_no_window(everything, [TOKEN[::-1], TOKEN.encode().hex()])


NODE_FORMS = """
const t = process.env.T;
console.log(Buffer.from(t).toString('base64url'));
console.log(encodeURIComponent(t).split('').map(c => '%' + c.charCodeAt(0).toString(16)).join(''));
console.error([...t].join('-'));
"""


async def test_a_node_script_printing_the_secret_in_several_forms_is_redacted(
    agent: Client, settings: Settings, project: Path
) -> None:
    (project / "leak.js").write_text(NODE_FORMS, encoding="utf-8")
    check = {"kind": "command", "argv": ["node", "leak.js"], "env": {"T": "${GITHUB_TOKEN}"}}
    evaluation = await _evaluate(agent, check)
    everything = await _everything(agent, settings, evaluation)
    url = "".join("%" + format(ord(c), "x") for c in TOKEN)
    _assert_no_window(
        everything, [base64.urlsafe_b64encode(TOKEN.encode()).decode(), url, "-".join(TOKEN)]
    )


def _aws_pair() -> tuple[str, str]:
    # Made at run time, so the repository itself holds no key pair.
    rng = random.Random(7)
    key_id = "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))
    secret = "".join(rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(40))
    return key_id, secret


async def test_a_key_pair_hard_coded_in_the_change_and_printed_reversed_is_redacted(
    agent: Client, settings: Settings, project: Path
) -> None:
    key_id, secret = _aws_pair()
    (project / "src" / "cloud.py").write_text(
        f'AWS_ACCESS_KEY_ID = "{key_id}"\nAWS_SECRET_ACCESS_KEY = "{secret}"\n', encoding="utf-8"
    )
    script = textwrap.dedent("""
        import sys
        sys.path.insert(0, "src")
        import cloud
        print(cloud.AWS_ACCESS_KEY_ID[::-1], cloud.AWS_SECRET_ACCESS_KEY[::-1])
    """)
    evaluation = await _evaluate(agent, command_check(script))
    assert "hardcoded_secrets" in {f["rule"] for f in evaluation["findings"]}, evaluation[
        "findings"
    ]
    everything = await _everything(agent, settings, evaluation)
    _assert_no_window(everything, [key_id[::-1], secret[::-1]])


async def test_a_file_named_after_the_secret_is_redacted_in_the_result(
    agent: Client, settings: Settings
) -> None:
    script = "import os; open(os.environ['T'].encode().hex()[:40] + '.txt', 'w').close()"
    evaluation = await _evaluate(agent, {**command_check(script), "env": {"T": "${GITHUB_TOKEN}"}})
    assert evaluation["tree_changed"]["paths"], evaluation["tree_changed"]
    everything = await _everything(agent, settings, evaluation)
    _assert_no_window(everything, [TOKEN.encode().hex()[:40]])


HONEST = """
import base64, hashlib, json, uuid

import pytest


@pytest.mark.parametrize("word", ["alpha", "beta-config", "http://localhost:8080/api?id=42&x=%20y"])
def test_words(word):
    print(word, hashlib.sha256(word.encode()).hexdigest(), uuid.uuid5(uuid.NAMESPACE_DNS, word))
    print(json.dumps({"data": base64.b64encode(word.encode() * 9).decode(), "n": list(range(9))}))


def test_fails_with_a_diff():
    assert {"a": 1, "name": "widget-configuration"} == {"a": 2, "name": "widget-config-v2"}
"""


async def test_an_honest_log_with_encodings_but_no_secret_is_stored_as_printed(
    agent: Client, settings: Settings, project: Path
) -> None:
    (project / "tests" / "test_honest.py").write_text(HONEST, encoding="utf-8")
    evaluation = await _evaluate(agent, pytest_check("-v", "tests/test_honest.py"))
    item = await agent.read_resource(
        f"evidence://{evaluation['run_id']}/{evaluation['criteria'][0]['evidence_ids'][0]}"
    )
    text = item.contents[0].text  # type: ignore[union-attr]
    assert "REDACTED" not in text and "REDACTED" not in stored_text(settings.home)
    assert "widget-configuration" in text and "test_words[beta-config]" in text


async def test_a_key_one_check_prints_plainly_is_redacted_where_another_printed_it_reversed(
    agent: Client, settings: Settings
) -> None:
    key_id, secret = _aws_pair()
    shown = f"print({key_id[::-1]!r}, {secret[::-1]!r})"
    plain = f"print('aws_access_key_id = {key_id}'); print('aws_secret_access_key = {secret}')"
    made = await call(
        agent,
        "create_contract",
        goal="Keep the calculator correct.",
        out_of_scope=["ui"],
        functional=[
            {"criterion": "reversed", "verification_method": "test", "check": command_check(shown)},
            {"criterion": "plain", "verification_method": "test", "check": command_check(plain)},
        ],
    )
    evaluation = await call(agent, "evaluate", contract_id=made["contract"]["id"])
    everything = await _everything(agent, settings, evaluation)
    # The contract stores the commands (a literal key in a check is the orchestrator's own).
    everything = everything.replace("".join(shown.split()), "").replace("".join(plain.split()), "")
    _assert_no_window(everything, [key_id, secret, key_id[::-1], secret[::-1]])


def _captured_and_exported(
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stdout: list[str],
    stderr: str,
) -> str:
    """A generator's Bash call captured with `referee capture`, then exported, squeezed."""
    monkeypatch.setenv("DEPLOY_TOKEN", TOKEN)
    payload = {
        "session_id": "s1",
        "cwd": str(repo),
        "tool_name": "Bash",
        "tool_input": {"command": "make test"},
        "tool_response": {"stdout": "\n".join(stdout), "stderr": stderr, "exit_code": 1},
    }
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(payload)))
    assert cli(["capture"]) == 0
    capsys.readouterr()
    assert cli(["--root", str(repo), "evidence", "export", "G-s1"]) == 0
    return "".join(capsys.readouterr().out.split())


def test_a_generator_session_captured_through_the_cli_keeps_no_form_of_a_secret(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    printed = [TOKEN[::-1], base64.b64encode(gzip.compress(TOKEN.encode())).decode(), TOKEN[7:19]]
    exported = _captured_and_exported(repo, monkeypatch, capsys, printed, ".".join(TOKEN))
    _assert_no_window(exported, [*printed, ".".join(TOKEN)])
    assert "[REDACTED:env]" in exported


async def test_a_secret_that_reads_like_field_names_leaves_the_result_whole(
    project: Path,
) -> None:
    """A secret's fragment matched across a field name and the value after it (separators are
    ignored: `"evaluator": "evaluator"` reads as the value) may cut the value, never the name:
    the evaluation is still returned, signed and stored."""
    env = server_env(project, DB_PASSWORD="evaluatorevaluator", API_TOKEN="l referee's line")
    async with Client(build_server(Settings.build([project], env=env))) as agent:
        evaluation = await _evaluate(agent, pytest_check("tests"))
        assert evaluation["criteria"][0]["evaluator"] != "evaluator"
        assert {"id", "evaluator", "status"} <= set(evaluation["criteria"][0])
        assert {e["source"] for e in evaluation["evidence"]} <= {"referee", "generator_session"}
    assert evaluation["run_id"] in stored_text(project / ".referee")


# Classes of disguise read as classes (tests/secret_classes.py): a few of each through the server.
THROUGH_THE_SERVER = [
    "every third character, one third a line",
    "two letters between each character",
    "adjacent pairs swapped from the second character",
    "a Caesar shift of minus three",
    "rot-7 on letters, upper-cased",
    "mathematical bold letters and digits",
    "a combining accent on each letter",
    "uuencode with backticks, after other bytes",
    "xxencode",
]


@pytest.mark.parametrize("variant", THROUGH_THE_SERVER)
async def test_a_secret_in_a_disguise_of_a_class_is_redacted_everywhere(
    agent: Client, settings: Settings, variant: str
) -> None:
    check = {**command_check(printing_script(CLASSES[variant])), "env": {"T": "${GITHUB_TOKEN}"}}
    evaluation = await _evaluate(agent, check)
    everything = await _everything(agent, settings, evaluation)
    assert "[REDACTED:" in everything
    _assert_no_window(everything, pieces(CLASSES[variant], TOKEN))


def test_a_captured_session_keeps_no_disguise_of_a_class_through_the_cli(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = [
        piece
        for variant in ("rot47", "fullwidth characters", "every other character, one half a line")
        for piece in pieces(CLASSES[variant], TOKEN)
    ]
    exported = _captured_and_exported(repo, monkeypatch, capsys, shown, "q".join(TOKEN))
    _assert_no_window(exported, [*shown, "q".join(TOKEN)])
    assert "[REDACTED:env]" in exported
