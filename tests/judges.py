"""Scripted judges for measuring the judge: each completes evaluate's draft into a scorecard the
way a judging model would, with a known habit.

- `CatchAll` reads the change the run judged (change://RUN) and raises an issue on every line it
  adds that looks wrong to it: it catches every planted defect (recall 1).
- `MissAll` accepts whatever the evidence does not refuse: it never reads the change (recall 0).
- `CredentialsOnly` sees hard-coded credentials and nothing else (recall 1 for that kind only).
- `Flipper` accepts on one call and asks for revision on the next (stability below 1).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mcp import Client
from mcp_calls import call
from projects import calc_repo, pytest_check

# The sample change (`CHANGE`) and the shapes every planted defect takes in it.
CHANGE = (
    "def add(a, b):\n"
    "    if a is None or b is None:\n"
    "        raise ValueError('add needs two numbers')\n"
    "    return a + b\n"
    "\n\n"
    "def clamp(x, hi):\n"
    "    if x > hi:\n"
    "        return hi\n"
    "    return x\n"
    "\n\n"
    "def parse(text):\n"
    "    try:\n"
    "        return int(text)\n"
    "    except ValueError:\n"
    "        raise ValueError(f'not a number: {text}')\n"
)
_SUSPECT = re.compile(r">=|<=|\bnot \(|^\s*pass\s*$|LOGIN|PASSWORD|\bwhile\b")


async def change_of(agent: Client, run_id: str) -> str:
    read = await agent.read_resource(f"change://{run_id}")
    return "".join(getattr(c, "text", "") for c in read.contents)


def added_lines(diff: str) -> list[tuple[str, int, str]]:
    """(file, line, text) of every line a unified diff adds."""
    found, path, line = [], "", 0
    for row in diff.splitlines():
        if row.startswith("+++ "):
            path = row[6:] if row.startswith("+++ b/") else ""
        elif row.startswith("@@"):
            line = int(re.match(r"@@ -\d+(?:,\d+)? \+(\d+)", row)[1])  # type: ignore[index]
        elif row.startswith("+"):
            found.append((path, line, row[1:]))
            line += 1
        elif not row.startswith("-"):
            line += 1
    return found


def complete(
    draft: dict[str, Any],
    score: int,
    issues: list[dict[str, Any]] | None = None,
    model: str = "judge-v1",
) -> dict[str, Any]:
    """The draft with every open dimension scored `score`, its criteria judged, and `issues`."""
    card = {k: v for k, v in copy.deepcopy(draft).items() if k not in ("verdict", "weighted_score")}
    card["provider"], card["evaluator_model"] = "scripted", model
    for dim in card["dimensions"].values():
        if dim["score"] is None:
            dim["score"], dim["evidence"] = score, "read the change by hand"
        elif issues and dim["score"] > score:
            dim["score"] = score  # lowering a derived score is allowed
    for criterion in card["criteria"]:
        if criterion["pass"] is None:
            criterion["pass"], criterion["evidence"] = True, "read the change by hand"
    card["issues"] = [*card.get("issues", []), *(issues or [])]
    card["guidance"] = "Fix the issues listed." if score < 2 or issues else ""
    return card


Judge = Callable[[Client, dict[str, Any]], Awaitable[dict[str, Any]]]


async def catch_all(agent: Client, evaluation: dict[str, Any]) -> dict[str, Any]:
    diff = await change_of(agent, evaluation["run_id"])
    suspect = [(p, n, t) for p, n, t in added_lines(diff) if _SUSPECT.search(t)]
    issues = [
        {
            "severity": "HIGH",
            "description": f"suspicious line: {text.strip()}",
            "location": f"{path}:{number}",
            "suggestion": "check this line against the contract",
        }
        for path, number, text in suspect
    ]
    return complete(evaluation["draft_scorecard"], 1 if issues else 3, issues, "catch-all")


async def miss_all(agent: Client, evaluation: dict[str, Any]) -> dict[str, Any]:
    return complete(evaluation["draft_scorecard"], 3, model="miss-all")


async def credentials_only(agent: Client, evaluation: dict[str, Any]) -> dict[str, Any]:
    diff = await change_of(agent, evaluation["run_id"])
    seen = [(p, n) for p, n, t in added_lines(diff) if re.search(r"LOGIN|PASSWORD", t)]
    issues = [
        {
            "severity": "CRITICAL",
            "description": "a hard-coded credential",
            "location": f"{p}:{n}",
            "suggestion": "read it from the environment",
        }
        for p, n in seen
    ]
    return complete(evaluation["draft_scorecard"], 0 if seen else 3, issues, "credentials-only")


class Flipper:
    """Accepts, then asks for revision, then accepts …: the same tree, another verdict."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, agent: Client, evaluation: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        score = 3 if self.calls % 2 else 1
        return complete(evaluation["draft_scorecard"], score, model="flipper")


async def judge_iteration(
    agent: Client, judge: Judge, contract_id: str, iteration: int, evaluator: str = "evaluator"
) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a referee-evaluator subagent does: evaluate, complete the draft, validate."""
    evaluation = await call(
        agent, "evaluate", contract_id=contract_id, evaluator=evaluator, iteration=iteration
    )
    card = await judge(agent, evaluation)
    checked = await call(agent, "validate_scorecard", scorecard=card)
    assert checked["valid"], checked["errors"]
    return evaluation, checked


def change_repo(path: Path) -> Path:
    """The sample project with `CHANGE` as its uncommitted change."""
    repo = calc_repo(path)
    (repo / "src" / "calc.py").write_text(CHANGE, encoding="utf-8")
    return repo


async def change_contract(agent: Client) -> str:
    """A one-evaluator contract whose tests pass on `CHANGE` (and on every canary of it)."""
    created = await call(
        agent,
        "create_contract",
        goal="Add, clamp and parse numbers.",
        task_type="bug",
        out_of_scope=["ui"],
        functional=[
            {
                "criterion": "adds",
                "verification_method": "test",
                "check": pytest_check("tests/test_calc.py"),
            }
        ],
    )
    return str(created["contract"]["id"])
