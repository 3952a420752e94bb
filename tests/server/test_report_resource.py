"""report:// through the real server in-process: contract and run reports, unknown ids."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client, MCPError
from projects import sample_evaluated

from referee.tools.settings import Settings

pytestmark = pytest.mark.anyio

CALC_TEST = "def test_adds():\n    assert 1 + 1 == 2\n"


@pytest.fixture
async def evaluated(repo: Path, settings: Settings) -> tuple[str, str]:
    return await sample_evaluated(repo, settings, CALC_TEST)


async def test_the_report_template_is_listed(client: Client) -> None:
    templates = (await client.list_resource_templates()).resource_templates
    (found,) = [t for t in templates if t.uri_template == "report://{report_id}"]
    assert found.mime_type == "text/markdown"


async def test_a_contract_report_is_markdown(client: Client, evaluated: tuple[str, str]) -> None:
    contract_id, run_id = evaluated
    result = await client.read_resource(f"report://{contract_id}")
    (content,) = result.contents
    assert content.mime_type == "text/markdown"
    assert content.text.startswith(f"# referee report: {contract_id}")
    assert "## Improvement priorities" in content.text and run_id in content.text


async def test_the_uri_evaluate_returns_resolves_to_the_run_report(
    client: Client, evaluated: tuple[str, str]
) -> None:
    _, run_id = evaluated
    text = (await client.read_resource(f"report://{run_id}")).contents[0].text
    assert text.startswith(f"# referee report: run {run_id}") and "| AC-F-001 |" in text


@pytest.mark.parametrize(
    "report_id", ["SC-missing-20260101", "R20260101000000-nothing", "nonsense"]
)
async def test_an_unknown_report_id_is_an_error_naming_it(client: Client, report_id: str) -> None:
    with pytest.raises(MCPError) as caught:
        await client.read_resource(f"report://{report_id}")
    assert report_id in str(caught.value)
