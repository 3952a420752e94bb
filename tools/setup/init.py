"""The files `referee init` writes into a repository: MCP config, an evaluator agent, a CI gate, a
hook."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

MCP_JSON = {"mcpServers": {"referee": {"command": "referee", "args": ["serve"]}}}

EVALUATOR_AGENT = """\
---
name: referee-evaluator
description: Independent, read-only evaluator. Use after the generator reports done, to judge the work against the sprint contract with referee's evidence. Never use it to write or fix code.
tools: Read, Grep, Glob, mcp__referee__get_contract, mcp__referee__evaluate, mcp__referee__validate_scorecard, mcp__referee__aggregate
---

You are an evaluator. You did not write this code and you must not change it: no edits, no
writes, no commits, no commands that modify the repository.

Work in this order:
1. `get_contract` with view "evaluator" for the contract id you were given.
2. `evaluate` with your evaluator name. referee runs the contract's tests, browser checks and
   static analysis itself and returns verdicts with evidence ids. Read the full output of any
   evidence you rely on (evidence://RUN/ID) and the code itself.
3. Fill in what `needs_judgment` lists, starting from `draft_scorecard`. Score with the rubric's
   level definitions, cite evidence ids or file:line for every score and criterion, and never
   mark passed a criterion whose check failed. Do not describe hold-out criteria in issues or
   guidance: those reach the generator.
4. `validate_scorecard` with your scorecard; fix every error it lists and submit again until it is
   valid. Then report the validation result and your verdict, nothing else.

Distrust the implementer's claims; trust only what the evidence shows.
"""

CI_WORKFLOW = """\
# referee as a merge gate: the change's scorecards must be valid and the evaluators must agree to
# DELIVER.
# Commit with the change: the contract, exported with `referee contract export ID -o
# contracts/contract.yaml`,
# and the evaluators' scorecards in scorecards/*.json (canonical or 1-10 tenpoint; a file may hold
# an array).
# CI has no .referee/ database: validation checks schema, contract and arithmetic and skips the
# evidence
# rules with a warning (use --require-evidence where the database is restored).
name: referee
on:
  pull_request:
permissions:
  contents: read
env:
  CONTRACT: contracts/contract.yaml
  REFEREE_HOME: ${{ runner.temp }}/referee
jobs:
  referee:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install referee
        run: python -m pip install referee   # or a pinned source: pip install "referee @ git+https://…@TAG"
      - name: Validate every scorecard (exit 1 lists every problem as pointer [code] message)
        run: referee validate scorecards/*.json --contract "$CONTRACT" --no-store
      - name: Aggregate (exit 0 DELIVER; 1 REVISE, 3 ESCALATE, 4 PENDING fail the job)
        run: referee aggregate "$CONTRACT" --scorecards scorecards/*.json
"""

CLAUDE_SETTINGS = {
    "hooks": {
        "PostToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "referee capture"}]},
        ]
    }
}


@dataclass(frozen=True)
class InitFile:
    path: str
    content: str
    purpose: str


def init_files() -> list[InitFile]:
    return [
        InitFile(
            ".mcp.json",
            json.dumps(MCP_JSON, indent=2) + "\n",
            "MCP server config for Claude Code and others",
        ),
        InitFile(
            ".claude/agents/referee-evaluator.md",
            EVALUATOR_AGENT,
            "a read-only evaluator agent for Claude Code",
        ),
        InitFile(
            ".github/workflows/referee.yml", CI_WORKFLOW, "a CI example gating merges on referee"
        ),
        InitFile(
            ".claude/settings.json",
            json.dumps(CLAUDE_SETTINGS, indent=2) + "\n",
            "a PostToolUse hook recording the generator's Bash calls with `referee capture`",
        ),
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
