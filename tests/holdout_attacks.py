"""A generator's code that reads the hold-out test while it is laid over the tree, and the ways it
tries to carry what it read back to the generator: file names, output, exit codes, timing."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

from mcp import Client
from mcp_calls import call
from projects import pytest_check
from runs import judged

HOLDOUT_PATH = "tests/test_secret_exact.py"
HOLDOUT_TEXT = "Large integers are added exactly, without float rounding"
SECRET_TEST = (
    "import os, sys\n"
    "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))\n"
    "from calc import add\n\n"
    "def test_adds_large_numbers_exactly():\n    assert add(10**20, 1) == 10**20 + 1\n\n"
    "def test_adds_huge_negatives_exactly():\n    assert add(-(10**21), -1) == -(10**21) - 1\n"
)
# The code under test, run by every check: it finds the hold-out among the tests (any test file
# the visible suite does not have) and hands `leak(name, text)` what it read; floats lose large
# sums.
_CALC = """
import base64, os, re, sys, time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def chunks(text, size=100):
    code = base64.b32encode(text.encode()).decode().rstrip("=")
    return [code[i:i + size] for i in range(0, len(code), size)]


def touch(*parts):
    path = os.path.join(ROOT, *parts)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "a").close()


def leak(name, text):
{how}


HELD = []
for _name in sorted(os.listdir(os.path.join(ROOT, "tests"))):
    if _name.startswith("test_") and _name.endswith(".py") and _name not in {visible!r}:
        with open(os.path.join(ROOT, "tests", _name), encoding="utf-8") as _f:
            HELD.append(_f.read())
            leak(_name, HELD[-1])


def add(a, b):
{during}
    return int(float(a) + float(b))
"""

# How the names carry what the code read: each writes under the tree, only in the hold-out's run.
NAME_CHANNELS = {
    "root": "    for i, c in enumerate(chunks(text)):\n        touch(f'leak{i:03d}-{c}')",
    "subfolder": (
        "    for i, c in enumerate(chunks(text)):\n        touch('notes', 'deep', f'{i:03d}-{c}')"
    ),
    "test names": (
        "    for t in re.findall(r'def (test_\\w+)', text):\n        touch('seen', t + '.txt')"
    ),
    "directory names": (
        "    for i, c in enumerate(chunks(text, 60)):\n        touch('cache', f'd{i:03d}{c}', 'k')"
    ),
    "its file name": "    touch('copies', 'of-' + name)",
    "a tracked file": (
        "    if '10**20' in text:\n"
        "        with open(os.path.join(ROOT, 'tests', 'test_calc.py'), 'a') as f:\n"
        "            f.write('')"
    ),
}


# How the code says it while the hold-out's tests call it: printed, in its exit code, in time.
RUN_CHANNELS = {
    "stdout": "    for line in HELD[0].splitlines() if HELD else []:\n        print('seen:', line)",
    "stderr": "    for c in chunks(HELD[0]) if HELD else []:\n        print(c, file=sys.stderr)",
    "exit code": "    if HELD:\n        os._exit(40 + len(HELD[0]) % 50)",
    "duration": "    if HELD:\n        time.sleep(60)",
    "a failing test's message": "    pass",
    "test ids": "    pass",
    # Ends before anything is printed: the judge has only the hold-out's file to quote.
    "its source": "    if HELD:\n        os._exit(0)",
}


def leaky_calc(
    how: str = "    pass", during: str = "    pass", visible: tuple[str, ...] = ("test_calc.py",)
) -> str:
    return _CALC.format(how=how, during=during, visible=set(visible))


def chunks(text: str, size: int = 100) -> list[str]:
    code = base64.b32encode(text.encode()).decode().rstrip("=")
    return [code[i : i + size] for i in range(0, len(code), size)]


def written_by(channel: str, text: str = SECRET_TEST, name: str = HOLDOUT_PATH) -> list[str]:
    """What a channel writes (tree paths) for the hold-out `name` holding `text`, as the code
    above does."""
    tests = re.findall(r"def (test_\w+)", text)
    return {
        "root": [f"leak{i:03d}-{c}" for i, c in enumerate(chunks(text))],
        "subfolder": [f"notes/deep/{i:03d}-{c}" for i, c in enumerate(chunks(text))],
        "test names": [f"seen/{t}.txt" for t in tests],
        "directory names": [f"cache/d{i:03d}{c}/k" for i, c in enumerate(chunks(text, 60))],
        "its file name": [f"copies/of-{name.rsplit('/', 1)[-1]}"],
        "a tracked file": ["tests/test_calc.py"],
    }[channel]


def holdout_contract(check: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "goal": "Keep the calculator exact.",
        "out_of_scope": ["ui"],
        "functional": [
            {
                "criterion": "The visible tests pass",
                "verification_method": "test",
                "check": pytest_check("tests"),
            },
            {
                "criterion": HOLDOUT_TEXT,
                "verification_method": "test",
                "holdout": True,
                "check": check or pytest_check(HOLDOUT_PATH),
            },
        ],
    }


async def with_holdout(
    agent: Client, check: dict[str, Any] | None = None, files: dict[str, str] | None = None
) -> str:
    made = await call(agent, "create_contract", **holdout_contract(check))
    cid = str(made["contract"]["id"])
    held = files or {HOLDOUT_PATH: SECRET_TEST}
    await call(
        agent,
        "add_holdout_files",
        contract_id=cid,
        files=[{"path": p, "content": t} for p, t in held.items()],
    )
    return cid


def completed(draft: dict[str, Any]) -> dict[str, Any]:
    """The judge's card: the draft completed, with guidance that names nothing hidden."""
    return {**judged(draft), "guidance": "Add integers as integers."}


async def generator_side(agent: Client, cid: str, decided: dict[str, Any]) -> str:
    """Everything the generator is handed: the brief, the generator_brief prompt, its contract."""
    prompt = await agent.get_prompt("generator_brief", {"contract_id": cid})
    view = await agent.read_resource(f"contract://{cid}/generator")
    return "\n".join(
        [
            json.dumps(decided["revision_brief"]),
            prompt.messages[0].content.text,  # type: ignore[union-attr]
            view.contents[0].text,  # type: ignore[union-attr]
        ]
    )


def tree_file_text(folder: Path) -> str:
    return "\n".join(
        p.relative_to(folder).as_posix() for p in folder.rglob("*") if ".git" not in p.parts
    )
