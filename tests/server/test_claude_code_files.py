"""`referee init` gives Claude Code a working /referee-loop: the files it writes follow Claude
Code's command and subagent formats, and every tool, agent and command they name exists."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from gitrepo import make_repo
from mcp import Client
from projects import SAMPLE_ENV

from referee.server.app import build_server
from referee.server.cli import build_parser, main
from referee.tools.settings import Settings

pytestmark = pytest.mark.anyio

# Claude Code's own tools a command or an agent may name (its documented tool names).
CLAUDE_TOOLS = {"Agent", "Task", "Read", "Grep", "Glob", "Bash", "ReadMcpResourceTool"}
WRITING_TOOLS = {"Edit", "Write", "MultiEdit", "NotebookEdit", "Bash"}


def front_matter(path: Path) -> tuple[dict[str, Any], str]:
    text = path.read_text(encoding="utf-8")
    match = re.match(r"---\n(.*?)\n---\n(.*)", text, re.DOTALL)
    assert match, f"{path} has no YAML front matter"
    meta = yaml.safe_load(match[1])
    assert isinstance(meta, dict)
    return meta, match[2]


def tools_of(value: str) -> list[str]:
    return [t.strip() for t in value.split(",") if t.strip()]


@pytest.fixture
def initialised(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "fresh")
    assert main(["--root", str(repo), "init"]) == 0
    return repo


@pytest.fixture
async def server_tools(initialised: Path) -> set[str]:
    async with Client(build_server(Settings.build([initialised], env=dict(SAMPLE_ENV)))) as client:
        return {t.name for t in (await client.list_tools()).tools}


def mcp_names(text: str, server: str) -> set[str]:
    return set(re.findall(rf"mcp__{server}__(\w+)", text))


async def test_the_loop_command_follows_claude_codes_command_format(
    initialised: Path, server_tools: set[str]
) -> None:
    server = next(iter(json.loads((initialised / ".mcp.json").read_text())["mcpServers"]))
    meta, body = front_matter(initialised / ".claude" / "commands" / "referee-loop.md")
    assert set(meta) <= {"description", "argument-hint", "allowed-tools", "model"}
    assert meta["description"] and meta["argument-hint"] and "$ARGUMENTS" in body
    allowed = tools_of(meta["allowed-tools"])
    for tool in allowed:
        if tool.startswith("mcp__"):
            assert tool.split("__")[1] == server and tool.split("__")[2] in server_tools, tool
        else:
            assert re.sub(r"\(.*\)$", "", tool) in CLAUDE_TOOLS, tool
    # The orchestrator itself creates the contract and aggregates; evaluators run evaluate.
    assert {"create_contract", "get_contract", "aggregate"} <= mcp_names(
        meta["allowed-tools"], server
    )
    assert mcp_names(body, server) <= server_tools
    # Tool names the body mentions bare are the server's own (evaluate, validate_scorecard …).
    mentioned = set(re.findall(r"`(\w+)`", body)) & {
        "create_contract",
        "get_contract",
        "evaluate",
        "validate_scorecard",
        "aggregate",
    }
    assert mentioned <= server_tools and "evaluate" in mentioned


async def test_the_evaluator_subagent_is_read_only_and_named_by_the_command(
    initialised: Path, server_tools: set[str]
) -> None:
    meta, body = front_matter(initialised / ".claude" / "agents" / "referee-evaluator.md")
    assert set(meta) <= {"name", "description", "tools", "model"}
    assert meta["name"] == "referee-evaluator" and meta["description"]
    tools = tools_of(meta["tools"])
    assert not set(tools) & WRITING_TOOLS
    referee_tools = {t.split("__")[2] for t in tools if t.startswith("mcp__referee__")}
    assert referee_tools == {"get_contract", "evaluate", "validate_scorecard"}
    assert referee_tools <= server_tools
    assert "must not change it" in body
    _, loop_body = front_matter(initialised / ".claude" / "commands" / "referee-loop.md")
    assert f"`{meta['name']}`" in loop_body


def test_the_commands_the_loop_runs_exist_on_the_command_line(initialised: Path) -> None:
    meta, body = front_matter(initialised / ".claude" / "commands" / "referee-loop.md")
    commands = set(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    used = set(re.findall(r"`referee (\w+)", body))
    used |= set(re.findall(r"Bash\(referee (\w+):\*\)", meta["allowed-tools"]))
    assert used <= commands
    assert {"checkout", "report"} <= used  # the best iteration is restored, not the last one


def test_init_lists_the_loop_command_and_keeps_existing_files(
    initialised: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = initialised / ".claude" / "commands" / "referee-loop.md"
    command.write_text("mine\n", encoding="utf-8")
    assert main(["--root", str(initialised), "init", "--json"]) == 1
    shown = json.loads(capsys.readouterr().out)
    assert ".claude/commands/referee-loop.md" in shown["kept"] and shown["written"] == []
    assert command.read_text(encoding="utf-8") == "mine\n"
