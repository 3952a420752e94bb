"""Fail-before/pass-after for vitest's in-source tests (`if (import.meta.vitest) { … }` in the
source file), over MCP: the base run gets the base's code with the current block spliced in."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import make_repo
from mcp import Client
from mcp_calls import judged_criterion
from runner_projects import JS_CACHE

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(not JS_CACHE.is_dir(), reason="scripts/setup.sh installs the JS runners"),
]

CONFIG = "export default { test: { includeSource: ['src/**/*.js'] } };\n"
BLOCK = (
    "\nif (import.meta.vitest) {\n  const { test, expect } = import.meta.vitest;\n"
    "  test('adds', () => expect(add(1, 2)).toBe(3));\n}\n"
)
NEW_TEST = "  test('adds negatives', () => expect(add(1, -1)).toBe(0));\n"
NEW_BLOCK = BLOCK.replace("\n}\n", "\n" + NEW_TEST + "}\n")
BUGGY = "export function add(a, b) {\n  return b < 0 ? a - b : a + b;\n}\n"
FIXED = (
    "// Negative numbers used to be subtracted.\nexport function add(a, b) {\n  return a + b;\n}\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = make_repo(
        tmp_path / "sum",
        {
            "package.json": '{"name": "t", "private": true, "type": "module"}\n',
            "vitest.config.js": CONFIG,
            "src/sum.js": BUGGY + BLOCK,
            ".gitignore": "node_modules\n",
        },
    )
    (repo / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
    return repo


async def judged(agent: Client, project: Path, source: str) -> dict[str, object]:
    (project / "src" / "sum.js").write_text(source, encoding="utf-8")
    check = {"kind": "tests", "argv": ["npx", "vitest", "run"], "must_fail_at_base": True}
    return await judged_criterion(agent, check, "Negative numbers add.", task_type="bug")


async def test_a_fix_with_its_new_in_source_test_fails_at_base(
    agent: Client, project: Path
) -> None:
    criterion = await judged(agent, project, FIXED + NEW_BLOCK)
    assert criterion["status"] == "pass", criterion["reason"]
    assert "fails at base and passes now: src/sum.js > adds negatives" in str(criterion["reason"])


async def test_the_fix_without_a_new_in_source_test_passes_at_base_too(
    agent: Client, project: Path
) -> None:
    criterion = await judged(agent, project, FIXED + BLOCK)
    assert (criterion["status"], criterion["reason_code"]) == ("fail", "passes_at_base"), criterion
