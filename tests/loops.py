"""A scripted three-iteration loop over MCP whose second iteration is the best: real evaluations,
validated scorecards, real aggregation; only the judge's scores are scripted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import Client

# Each iteration's content and the judged score it gets: iteration 2 is best, 3 regresses.
ITERATIONS: dict[int, tuple[dict[str, str | None], int]] = {
    1: ({"src/calc.py": "def add(a, b):\n    return a - b\n"}, 1),
    2: ({"src/calc.py": "def add(a, b):\n    return a + b\n", "src/helper.py": "X = 1\n"}, 2),
    3: (
        {
            "src/calc.py": "def add(a, b):\n    return 0\n",
            "src/helper.py": None,
            "notes.txt": "n\n",
        },
        1,
    ),
}


def apply(repo: Path, files: dict[str, str | None]) -> None:
    for name, text in files.items():
        if text is None:
            (repo / name).unlink()
        else:
            (repo / name).write_text(text, encoding="utf-8")


def complete(draft: dict[str, Any], score: int) -> dict[str, Any]:
    card = {k: v for k, v in draft.items() if k not in ("verdict", "weighted_score")}
    card["provider"], card["evaluator_model"] = "scripted", "judge-v1"
    for key, dim in card["dimensions"].items():
        if dim["score"] is None:
            # One judged dimension stays at 1, so every iteration asks for a revision.
            dim["score"] = 1 if key == "security" else score
            dim["evidence"] = "read src/calc.py by hand"
    for criterion in card["criteria"]:
        criterion["pass"], criterion["evidence"] = True, "read src/calc.py by hand"
    card["guidance"] = "Tighten security."
    return card


async def create(client: Client) -> str:
    """A one-evaluator contract with a manual criterion; returns its id."""
    created = await client.call_tool(
        "create_contract",
        {
            "goal": "Add numbers.",
            "out_of_scope": ["ui"],
            "functional": [{"criterion": "adds", "verification_method": "manual"}],
        },
    )
    return str(created.structured_content["contract"]["id"])


async def loop(
    client: Client, repo: Path, scores: dict[int, int] | None = None
) -> tuple[str, list[dict[str, Any]], dict[int, str]]:
    """The three iterations; `scores` replaces the judged score of each iteration."""
    cid = await create(client)
    decisions, trees = [], {}
    for number, (files, score) in ITERATIONS.items():
        apply(repo, files)
        ev = (await client.call_tool("evaluate", {"contract_id": cid})).structured_content
        assert ev["iteration"] == number and ev["pin"] == f"refs/referee/{cid}/{number}"
        trees[number] = ev["target"]["tree"]
        card = complete(ev["draft_scorecard"], (scores or {}).get(number, score))
        checked = await client.call_tool("validate_scorecard", {"scorecard": card})
        assert checked.structured_content["valid"], checked.structured_content["errors"]
        decided = await client.call_tool("aggregate", {"contract_id": cid})
        decisions.append(decided.structured_content)
    return cid, decisions, trees
