"""The files `referee init` writes into a repository: MCP config, the evaluator agent, the loop
command, a CI gate and a hook.

The Markdown and YAML files are package data (`templates/`), written as they are; the JSON files
are built here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

MCP_JSON = {"mcpServers": {"referee": {"command": "referee", "args": ["serve"]}}}

CLAUDE_SETTINGS = {
    "hooks": {
        "PostToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "referee capture"}]},
        ]
    }
}

# (path in the repository, template file or None for built JSON, what it is for)
_FILES = (
    (".mcp.json", None, "MCP server config for Claude Code and others"),
    (
        ".claude/agents/referee-evaluator.md",
        "referee-evaluator.md",
        "a read-only evaluator agent for Claude Code",
    ),
    (
        ".claude/commands/referee-loop.md",
        "referee-loop.md",
        "the /referee-loop command: the whole loop with Claude Code subagents",
    ),
    (".github/workflows/referee.yml", "ci-workflow.yml", "a CI example gating merges on referee"),
    (
        ".claude/settings.json",
        None,
        "a PostToolUse hook recording the generator's Bash calls with `referee capture`",
    ),
)
_BUILT = {".mcp.json": MCP_JSON, ".claude/settings.json": CLAUDE_SETTINGS}


@dataclass(frozen=True)
class InitFile:
    path: str
    content: str
    purpose: str


def template(name: str) -> str:
    """The text of one of `referee init`'s templates."""
    return (resources.files("referee.tools.setup") / "templates" / name).read_text(encoding="utf-8")


def init_files() -> list[InitFile]:
    return [
        InitFile(
            path,
            template(name) if name else json.dumps(_BUILT[path], indent=2) + "\n",
            purpose,
        )
        for path, name, purpose in _FILES
    ]


@dataclass(frozen=True)
class InitResult:
    written: list[str]
    kept: list[str]


def write_init_files(repo: Path, force: bool = False) -> InitResult:
    """Write the files that do not exist yet; existing ones are never overwritten unless `force`."""
    written, kept = [], []
    for item in init_files():
        target = repo / item.path
        if target.exists() and not force:
            kept.append(item.path)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(item.content, encoding="utf-8")
        written.append(item.path)
    return InitResult(written=written, kept=kept)
