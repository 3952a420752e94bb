"""PHPUnit's risky tests (no assertion, output under strict mode) ran and proved nothing: the
run's account names them, never as passes and never as errors (PHPUnit exits 0 for them)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from gitrepo import make_repo
from mcp import Client
from mcp_calls import judged_criterion

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("phpunit") is None, reason="needs phpunit"),
]

RISKY = (
    "<?php\nuse PHPUnit\\Framework\\TestCase;\n\n"
    "final class MathTest extends TestCase\n{\n"
    "    public function testAdds(): void\n    {\n        $this->assertSame(2, 1 + 1);\n    }\n\n"
    "    public function testNothing(): void\n    {\n        $sum = 1 + 1;\n    }\n}\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A PHP project whose one test class has a test that asserts nothing (uncommitted)."""
    repo = make_repo(tmp_path / "php", {"README.md": "# php\n"})
    (repo / "tests").mkdir()
    (repo / "tests" / "MathTest.php").write_text(RISKY, encoding="utf-8")
    return repo


async def test_a_test_without_an_assertion_is_named_risky_not_passed(agent: Client) -> None:
    check = {"kind": "tests", "argv": ["phpunit", "tests"]}
    criterion = await judged_criterion(agent, check, "Sums are right.")
    assert criterion["status"] == "pass", criterion
    assert criterion["tests"] == {"passed": 1, "failed": 0, "errors": 0, "skipped": 1}
    assert (
        "1 passed, 0 failed, 0 errors, 1 skipped (1 of them risky, ran and proved nothing:"
        " MathTest::testNothing, This test did not perform any assertions)"
    ) in criterion["reason"]
