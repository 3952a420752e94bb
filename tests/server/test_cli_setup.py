from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from referee.server.cli import main


def test_init_writes_the_files_and_refuses_to_overwrite(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--root", str(repo), "init"]) == 0
    mcp = json.loads((repo / ".mcp.json").read_text(encoding="utf-8"))
    assert mcp["mcpServers"]["referee"] == {"command": "referee", "args": ["serve"]}
    agent = (repo / ".claude" / "agents" / "referee-evaluator.md").read_text(encoding="utf-8")
    assert "mcp__referee__evaluate" in agent and "must not change it" in agent
    workflow = (repo / ".github" / "workflows" / "referee.yml").read_text(encoding="utf-8")
    assert "referee ci --contract-ref" in workflow and "fetch-depth: 0" in workflow
    hook = json.loads((repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert hook["hooks"]["PostToolUse"][0]["hooks"][0]["command"] == "referee capture"
    (repo / ".mcp.json").write_text("{}", encoding="utf-8")
    assert main(["--root", str(repo), "init"]) == 1
    assert (repo / ".mcp.json").read_text(encoding="utf-8") == "{}"
    assert "not overwritten" in capsys.readouterr().out


def test_doctor_reports_git_and_chromium(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(repo), "doctor"]) == 0
    out = capsys.readouterr().out
    assert "git version" in out and "chromium" in out and str(repo) in out


def test_capture_records_redacted_generator_evidence(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    payload = {
        "session_id": "s1",
        "cwd": str(repo),
        "tool_name": "Bash",
        "tool_input": {"command": "make test"},
        "tool_response": {"stdout": f"ok {token}\n", "stderr": "", "exit_code": 0},
    }
    for _ in range(2):
        monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(payload)))
        assert main(["capture"]) == 0
    capsys.readouterr()
    assert main(["--root", str(repo), "evidence", "export", "G-s1"]) == 0
    pack = json.loads(capsys.readouterr().out)
    assert [i["id"] for i in pack["items"]] == ["E1", "E2"]
    assert all(i["source"] == "generator_session" and i["exit_code"] == 0 for i in pack["items"])
    assert token not in json.dumps(pack)


def test_capture_never_blocks_the_agent_on_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("not json"))
    assert main(["capture"]) == 0


def test_export_of_an_unknown_run_is_a_usage_error(repo: Path) -> None:
    assert main(["--root", str(repo), "evidence", "export", "R-nope"]) == 2
