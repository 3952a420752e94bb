"""A third-party client: the MCP Inspector's CLI lists and calls referee's tools over stdio."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

NPX = shutil.which("npx")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(NPX is None, reason="npx is not installed (Node.js); CI installs it"),
]


def inspector(repo: Path, *args: str) -> dict:
    referee = str(Path(sys.executable).parent / "referee")
    done = subprocess.run(
        [
            NPX,
            "-y",
            "@modelcontextprotocol/inspector",
            "--cli",
            referee,
            "--root",
            str(repo),
            "serve",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=repo,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_inspector_lists_tools_with_output_schemas(repo: Path) -> None:
    tools = {t["name"]: t for t in inspector(repo, "--method", "tools/list")["tools"]}
    assert {
        "create_contract",
        "get_contract",
        "evaluate",
        "validate_scorecard",
        "aggregate",
    } <= set(tools)
    assert all(
        "outputSchema" in tools[name] for name in ("create_contract", "evaluate", "aggregate")
    )


def test_inspector_creates_a_contract(repo: Path) -> None:
    result = inspector(
        repo,
        "--method",
        "tools/call",
        "--tool-name",
        "create_contract",
        "--tool-arg",
        "goal=Ship it",
        "--tool-arg",
        'functional=[{"criterion": "works", "verification_method": "manual"}]',
    )
    assert result.get("isError") in (False, None)
    assert result["structuredContent"]["contract"]["id"].startswith("SC-ship-it-")
