"""Go and PHP diff coverage through the MCP server and the CLI: a new function no test calls
fails `min_diff_coverage` naming its lines, the honest change passes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from coverage_projects import go_shop, php_cart
from mcp import Client
from mcp_calls import call

from referee.server.cli import main as cli
from referee.tools.adequacy.coverage_php import coverage_driver

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


def contract(argv: list[str]) -> dict[str, Any]:
    check = {"kind": "tests", "argv": argv, "min_diff_coverage": 80}
    return {
        "goal": "Take a percentage off.",
        "out_of_scope": ["taxes"],
        "functional": [
            {"criterion": "the tests pass", "verification_method": "test", "check": check}
        ],
    }


@pytest.fixture(params=["uncalled", "tested"])
def project(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    return go_shop(tmp_path / "shop", tested=request.param == "tested")


async def test_go_diff_coverage_over_mcp(agent: Client, project: Path) -> None:
    created = await call(agent, "create_contract", **contract(["go", "test", "./..."]))
    result = await call(agent, "evaluate", contract_id=created["contract"]["id"])
    criterion = result["criteria"][0]
    coverage = criterion["adequacy"]["diff_coverage"]
    if (project / "checkout").is_dir():  # the honest change: a test of another package calls it
        assert criterion["status"] == "pass", criterion["reason"]
        assert (coverage["percent"], coverage["changed"]) == (100.0, 5)
        return
    assert (criterion["status"], criterion["reason_code"]) == ("fail", "diff_coverage_low")
    assert "not executed: shop/price.go:13-17" in criterion["reason"]
    uncovered = next(
        i for i in result["issues"] if i["description"].startswith("changed lines no test")
    )
    assert uncovered["location"] == "shop/price.go:13"
    assert uncovered["evidence_ids"] == [coverage["evidence_id"]]


@pytest.mark.skipif(
    shutil.which("phpunit") is None or coverage_driver("php", os.environ.get("PATH")) != "pcov",
    reason="phpunit and php-pcov are not installed (scripts/setup.sh installs them)",
)
@pytest.mark.parametrize("tested", [False, True])
def test_php_diff_coverage_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tested: bool
) -> None:
    repo = php_cart(tmp_path / "cart", tested=tested)
    spec = tmp_path / "contract.yaml"
    spec.write_text(yaml.safe_dump(contract(["phpunit", "tests"])), encoding="utf-8")
    assert cli(["--root", str(repo), "contract", "create", str(spec)]) == 0
    cid = capsys.readouterr().out.split()[1]
    code = cli(["--root", str(repo), "evaluate", cid, "--json"])
    criterion = json.loads(capsys.readouterr().out)["criteria"][0]
    if tested:
        assert (code, criterion["status"]) == (0, "pass"), criterion["reason"]
        assert criterion["adequacy"]["diff_coverage"]["percent"] == 100.0
    else:
        assert (code, criterion["reason_code"]) == (1, "diff_coverage_low")
        assert "not executed: src/Cart.php:19-22" in criterion["reason"]
