"""Redaction and evidence recording: no secret reaches a stored file or a returned string."""

from __future__ import annotations

import hashlib
import json
import random
import string
import sys
from datetime import UTC, datetime
from pathlib import Path

import betterleaks
import pytest

from referee.tools.evidence import redact
from referee.tools.evidence.recorder import EvidenceRecorder, cap_text, read_log
from referee.tools.evidence.redact import Redactor, secret_env_values
from referee.tools.models import evidence as models
from referee.tools.process import ProcessResult, run_process

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent.parent / "fixtures" / "process"
PY = sys.executable
NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _random(rng: random.Random, alphabet: str, size: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


@pytest.fixture
def secrets() -> dict[str, str]:
    """Realistic-looking fake credentials, made at run time so the repository holds none."""
    rng = random.Random(20260102)
    alnum = string.ascii_letters + string.digits
    return {
        "aws_id": "AKIA" + _random(rng, string.ascii_uppercase + "234567", 16),
        "aws_secret": _random(rng, alnum + "/+", 40),
        "github": "ghp_" + _random(rng, alnum, 36),
        "env_token": "tok-" + _random(rng, alnum, 20),
    }


def recorder(tmp_path: Path, redactor: Redactor, inline_limit: int = 64 * 1024) -> EvidenceRecorder:
    return EvidenceRecorder("run-1", tmp_path / "artifacts", redactor, lambda: NOW, inline_limit)


def test_betterleaks_findings_are_replaced_by_their_rule_id(secrets: dict[str, str]) -> None:
    text = (
        f"aws_access_key_id = {secrets['aws_id']}\naws_secret_access_key ="
        f" {secrets['aws_secret']}\ntoken {secrets['github']} and again {secrets['github']}\n"
    )
    assert (
        Redactor().redact(text) == "aws_access_key_id = [REDACTED:aws-access-token]\n"
        "aws_secret_access_key = [REDACTED:aws-secret-access-key]\n"
        "token [REDACTED:github-pat] and again [REDACTED:github-pat]\n"
    )


def test_a_key_pair_split_over_two_texts_is_found_as_a_pair(secrets: dict[str, str]) -> None:
    out, err = Redactor().redact_all(
        [
            f"aws_access_key_id = {secrets['aws_id']}",
            f"aws_secret_access_key = {secrets['aws_secret']}",
        ]
    )
    assert secrets["aws_id"] not in out and secrets["aws_secret"] not in err


def test_known_values_are_replaced_longest_first_and_short_ones_ignored() -> None:
    redactor = Redactor(["hunter2-long-value", "hunter2-long", "abc"])
    assert (
        redactor.redact("x=hunter2-long-value y=hunter2-long z=abc")
        == "x=[REDACTED:env] y=[REDACTED:env] z=abc"
    )


def test_a_nul_byte_does_not_hide_the_secrets_after_it(secrets: dict[str, str]) -> None:
    assert (
        Redactor().redact(f"bin\0ary token {secrets['github']}")
        == "bin\0ary token [REDACTED:github-pat]"
    )


def test_when_betterleaks_fails_known_values_are_still_redacted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(content: str, config_path: str | None = None) -> list[betterleaks.Finding]:
        raise betterleaks.BetterleaksError("library missing")

    monkeypatch.setattr(redact.betterleaks, "scan_string", broken)
    redactor = Redactor(["s3cret-value"])
    assert redactor.redact("pw s3cret-value") == "pw [REDACTED:env]"
    assert (
        redactor.degraded
        == "betterleaks failed (library missing); only known values and credential shapes were"
        " redacted"
    )


def test_evidence_says_when_redaction_fell_back_to_known_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(content: str, config_path: str | None = None) -> list[betterleaks.Finding]:
        raise betterleaks.BetterleaksError("library missing")

    monkeypatch.setattr(redact.betterleaks, "scan_string", broken)
    item = recorder(tmp_path, Redactor(["s3cret-value"])).record(
        tool="command", summary="s", stdout="pw s3cret-value"
    )
    assert item.stdout == "pw [REDACTED:env]"
    assert item.details["redaction"].startswith("betterleaks failed (library missing)")


def test_secret_env_values_picks_secret_looking_names() -> None:
    env = {
        "MY_API_TOKEN": "token-value-1",
        "PGPASSWORD": "pg-password",
        "AWS_SECRET_ACCESS_KEY": "aws-secret",
        "STRIPE_KEY": "sk_test_123",
        "X_AUTH": "auth-value",
        "GIT_AUTHOR_NAME": "Ada Lovelace",
        "SSH_AUTH_SOCK": "/tmp/ssh-agent.sock",
        "SHORT_TOKEN": "abc",
        "HOME": "/root",
    }
    assert secret_env_values(env) == [
        "token-value-1",
        "pg-password",
        "sk_test_123",
        "auth-value",
        "aws-secret",
    ]


def test_a_large_log_is_redacted_whole(secrets: dict[str, str]) -> None:
    lines = [
        f"2026-01-02 12:00:{n % 60:02d} INFO worker-{n % 7} handled item {n} in 0.{n % 997:03d}s"
        for n in range(20_000)
    ]
    text = "\n".join(lines[:10_000] + [f"token {secrets['github']}"] + lines[10_000:])
    text += "\n" * max(0, 1024 * 1024 - len(text))
    redactor = Redactor(
        secret_env_values({f"SERVICE_{n}_TOKEN": f"value-{n:04d}-secret" for n in range(20)})
    )
    # How fast is benchmarks/bench_redact.py's to say (no wall-clock bound in a test).
    redacted = redactor.redact(text)
    assert secrets["github"] not in redacted and "[REDACTED:github-pat]" in redacted


def test_cap_text_keeps_short_text_whole() -> None:
    assert cap_text("short", 100) == ("short", False)


def test_cap_text_keeps_head_and_tail_within_the_limit() -> None:
    text = "".join(f"line {n} é\n" for n in range(10_000))
    capped, cut = cap_text(text, 4096)
    assert cut and len(capped.encode("utf-8")) <= 4096
    assert capped.startswith("line 0 é\n") and capped.endswith("line 9999 é\n")
    assert "bytes cut by referee" in capped
    cut_bytes = int(capped.split("[... ")[1].split(" bytes")[0])
    assert cut_bytes == len(text.encode("utf-8")) - (4096 - 64)


def test_read_log_cuts_a_huge_file_on_line_ends(tmp_path: Path) -> None:
    log = tmp_path / "big.log"
    log.write_text("".join(f"{n:06d}\n" for n in range(100_000)), encoding="utf-8")
    text, cut = read_log(log, limit=7000)
    lines = text.splitlines()
    assert cut and lines[0] == "000000" and lines[-1] == "099999"
    assert all(len(line) == 6 for line in lines if not line.startswith("[..."))


async def run_leaky(tmp_path: Path, secrets: dict[str, str]):
    values = tmp_path / "values.json"
    values.write_text(json.dumps(secrets), encoding="utf-8")
    raw = tmp_path / "raw"
    raw.mkdir()
    return await run_process(
        [PY, str(FIXTURES / "leaky.py"), str(values), f"--token={secrets['env_token']}"],
        cwd=tmp_path,
        timeout_s=30,
        stdout_path=raw / "stdout",
        stderr_path=raw / "stderr",
        env={"MY_API_TOKEN": secrets["env_token"]},
    )


def assert_no_secret_anywhere(
    folder: Path, item: models.EvidenceItem, secrets: dict[str, str]
) -> None:
    stored = [path.read_bytes() for path in folder.rglob("*") if path.is_file()]
    returned = item.model_dump_json()
    for value in secrets.values():
        assert value not in returned
        assert not any(value.encode() in data for data in stored)


async def test_a_leaky_process_is_recorded_without_its_secrets(
    tmp_path: Path, secrets: dict[str, str]
) -> None:
    result = await run_leaky(tmp_path, secrets)
    rec = recorder(tmp_path, Redactor(secret_env_values({"MY_API_TOKEN": secrets["env_token"]})))
    item = rec.record_process(result, tool="command", summary=f"ran with {secrets['env_token']}")
    assert result.exit_code == 0 and item.exit_code == 0
    assert_no_secret_anywhere(tmp_path / "artifacts", item, secrets)
    assert "aws_access_key_id = [REDACTED:aws-access-token]" in item.stdout
    assert "aws_secret_access_key = [REDACTED:aws-secret-access-key]" in item.stdout
    assert "using token from env: [REDACTED:env]" in item.stdout
    assert item.stderr == "export GITHUB_TOKEN=[REDACTED:github-pat]\n"
    assert item.argv[-1] == "--token=[REDACTED:env]" and item.command.endswith(
        "--token=[REDACTED:env]"
    )
    assert item.summary == "ran with [REDACTED:env]"


async def test_a_recorded_process_has_its_facts_and_full_logs(
    tmp_path: Path, secrets: dict[str, str]
) -> None:
    result = await run_leaky(tmp_path, secrets)
    item = recorder(tmp_path, Redactor()).record_process(
        result, tool="command", summary="leaky", criterion_id="AC-F-001", details={"note": 1}
    )
    stdout_log, stderr_log = (tmp_path / "artifacts" / f"E1.{s}.log" for s in ("stdout", "stderr"))
    assert item.artifacts == [str(stdout_log.resolve()), str(stderr_log.resolve())]
    logs = stdout_log.read_bytes() + b"\0" + stderr_log.read_bytes()
    assert item.sha256 == hashlib.sha256(logs).hexdigest()
    assert (item.id, item.run_id, item.timestamp, item.criterion_id) == (
        "E1",
        "run-1",
        NOW.isoformat(),
        "AC-F-001",
    )
    assert item.duration_s == result.duration_s and item.cwd == str(tmp_path) and not item.truncated
    assert item.details == {"started_at": result.started_at, "note": 1}
    assert (
        tmp_path / "raw" / "stdout"
    ).exists()  # raw files outside the store belong to the caller


async def test_long_output_is_capped_inline_but_kept_whole_in_the_log(
    tmp_path: Path, secrets: dict[str, str]
) -> None:
    result = await run_leaky(tmp_path, secrets)
    item = recorder(tmp_path, Redactor(), inline_limit=2048).record_process(
        result, tool="command", summary="s"
    )
    full = (tmp_path / "artifacts" / "E1.stdout.log").read_text(encoding="utf-8")
    assert item.truncated and len(item.stdout.encode("utf-8")) <= 2048 and len(full) > 10_000
    assert item.stdout.startswith(full[:500]) and item.stdout.endswith(full[-500:])
    assert_no_secret_anywhere(tmp_path / "artifacts", item, secrets)


async def test_a_program_that_did_not_start_is_recorded_with_its_reason(tmp_path: Path) -> None:
    result = await run_process(
        ["referee-missing-runner"],
        cwd=tmp_path,
        timeout_s=5,
        stdout_path=tmp_path / "o",
        stderr_path=tmp_path / "e",
    )
    item = recorder(tmp_path, Redactor()).record_process(
        result, tool="tests", summary="could not run"
    )
    assert item.exit_code is None and item.artifacts == []
    assert item.details["error"].startswith("runner 'referee-missing-runner' not found")


def test_text_artifacts_are_redacted_and_binary_ones_copied(
    tmp_path: Path, secrets: dict[str, str]
) -> None:
    junit_xml, shot = tmp_path / "junit.xml", tmp_path / "shot.png"
    junit_xml.write_text(
        f'<testsuite><testcase name="t"><failure message="{secrets["github"]}"/>'
        "</testcase></testsuite>",
        encoding="utf-8",
    )
    shot.write_bytes(b"\x89PNG\r\n\x1a\n\0\0binary")
    outcome = models.TestOutcome(name="t", outcome="failed", message=f"leaked {secrets['github']}")
    item = recorder(tmp_path, Redactor()).record(
        tool="tests",
        command="pytest",
        summary="1 failed",
        tests=[outcome],
        extra_artifacts=[junit_xml, shot, tmp_path / "missing.xml"],
        details={"pages": [f"{secrets['github']}"]},
    )
    stored_xml, stored_shot = (
        tmp_path / "artifacts" / "E1.junit.xml",
        tmp_path / "artifacts" / "E1.shot.png",
    )
    assert item.artifacts == [str(stored_xml.resolve()), str(stored_shot.resolve())]
    assert (
        stored_xml.read_text(encoding="utf-8") == '<testsuite><testcase name="t"><failure '
        'message="[REDACTED:github-pat]"/></testcase></testsuite>'
    )
    assert stored_shot.read_bytes() == shot.read_bytes()
    assert item.tests[0].message == "leaked [REDACTED:github-pat]"
    assert item.details == {
        "pages": ["[REDACTED:github-pat]"],
        "missing_artifacts": [str(tmp_path / "missing.xml")],
    }
    assert_no_secret_anywhere(tmp_path / "artifacts", item, secrets)


def test_a_raw_file_inside_the_store_is_replaced_by_its_redacted_log(
    tmp_path: Path, secrets: dict[str, str]
) -> None:
    store = tmp_path / "artifacts"
    store.mkdir()
    raw = store / "raw.out"
    raw.write_text(f"token {secrets['github']}\n", encoding="utf-8")
    rec = recorder(tmp_path, Redactor())
    result = ProcessResult(("tool",), tmp_path, 0, False, 0.1, NOW.isoformat(), raw, raw)
    item = rec.record_process(result, tool="command", summary="s")
    assert not raw.exists() and item.stdout == "token [REDACTED:github-pat]\n"
    assert_no_secret_anywhere(store, item, secrets)


def test_ids_count_up_and_items_come_in_id_order(tmp_path: Path) -> None:
    rec = recorder(tmp_path, Redactor())
    assert rec.next_id() == "E1"
    second = rec.record(
        tool="git", command="git status", summary="clean", stdout="nothing to commit"
    )
    third = rec.record(tool="static", command="pipeline", summary="no findings")
    assert [item.id for item in rec.items] == ["E2", "E3"] and rec.items == [second, third]
    assert third.artifacts == [] and third.sha256 == hashlib.sha256(b"\0").hexdigest()


def test_well_known_credential_shapes_are_redacted_even_where_betterleaks_passes() -> None:
    from referee.tools.evidence.redact import Redactor

    key_id = "AKIA" + "Z7XQ3MPLR4KWNB2T"
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA12345\n-----END RSA PRIVATE KEY-----"
    text = f"id {key_id}\n{pem}\nanthropic sk-ant-" + "a" * 30
    cleaned = Redactor().redact(text)
    assert (
        key_id not in cleaned
        and "MIIEowIBAAKCAQEA12345" not in cleaned
        and "sk-ant-aaaa" not in cleaned
    )
    assert "[REDACTED:aws-access-key-id]" in cleaned and "[REDACTED:private-key]" in cleaned


def test_test_messages_are_trimmed_after_redaction_so_no_secret_is_cut_in_half(
    tmp_path: Path,
) -> None:
    from datetime import datetime

    from referee.tools.evidence.recorder import EvidenceRecorder
    from referee.tools.evidence.redact import Redactor
    from referee.tools.models.evidence import TestOutcome

    secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "ZZZZZZZKEY"
    message = "x" * 480 + f" aws_secret_access_key={secret}"
    recorder = EvidenceRecorder("R1", tmp_path / "a", Redactor(), lambda: datetime.now(UTC))
    item = recorder.record(
        tool="tests", summary="s", tests=[TestOutcome(name="t", outcome="failed", message=message)]
    )
    assert len(item.tests[0].message) <= 500 and "wJalrXUtnFEMI" not in item.tests[0].message
