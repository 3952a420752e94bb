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
# referee as a merge gate. The pull request cannot steer it:
# - the contract is read from the base branch (commit it there first:
#   referee contract export ID -o .referee/contracts/feature.yaml, the generator view);
# - referee runs the checks itself, in its sandbox, with a store and a key of its own;
# - the evaluators' scorecards, committed in the pull request under .referee/scorecards/, give
#   the judgement and are validated against CI's own runs (every contradiction fails);
# - hold-out tests come from outside the repository: `referee holdout export ID DIR`, stored as a
#   base64 tarball in the secret REFEREE_HOLDOUTS (tar czf - -C DIR . | base64 -w0).
# Exit codes: 0 DELIVER, 1 REVISE or an invalid scorecard, 2 usage, 3 ESCALATE, 4 PENDING.
name: referee
on:
  pull_request:
permissions:
  contents: read
  security-events: write
env:
  CONTRACT: .referee/contracts/feature.yaml
jobs:
  referee:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0   # the base branch's contract and the contract's base commit
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install referee and its sandbox
        run: |
          sudo apt-get install -y bubblewrap
          python -m pip install referee   # or a pinned source: "referee @ git+https://…@TAG"
      - name: Hold-out bundle (from a secret, outside the checkout)
        env:
          REFEREE_HOLDOUTS: ${{ secrets.REFEREE_HOLDOUTS }}
        run: |
          mkdir -p "$RUNNER_TEMP/holdouts"
          if [ -n "$REFEREE_HOLDOUTS" ]; then
            echo "$REFEREE_HOLDOUTS" | base64 -d | tar xzf - -C "$RUNNER_TEMP/holdouts"
            echo "HOLDOUTS=--holdout-dir=$RUNNER_TEMP/holdouts" >> "$GITHUB_ENV"
          fi
      - name: Gate (re-runs the checks, validates the committed scorecards, aggregates)
        run: >
          referee ci --contract-ref "origin/${{ github.base_ref }}:$CONTRACT" $HOLDOUTS
          --sarif "$RUNNER_TEMP/referee.sarif"
      - name: Upload SARIF
        if: always()
        uses: github/codeql-action/upload-sarif@v3
        with:
          sarif_file: ${{ runner.temp }}/referee.sarif
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
