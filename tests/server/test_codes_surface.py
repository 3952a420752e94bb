"""`referee codes` and the codes:// resource: where a user meets a code, its meaning and fix."""

from __future__ import annotations

import json

import pytest
from mcp import Client, MCPError

from referee.server import cli
from referee.tools.models import ReasonCode


def test_codes_prints_the_meaning_fix_and_anchor_of_a_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["codes", "harness_flip"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("harness_flip  (reason code, fail)\n  meaning: The change modified")
    assert "  see:     docs/codes.md#reason-harness_flip" in out


def test_codes_prints_every_family_a_code_belongs_to_as_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["codes", "required", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)["required"]
    assert [(e["family"], e["level"]) for e in found] == [("validate", "error"), ("input", "error")]
    assert found[1]["docs"] == "docs/codes.md#input-required"


def test_an_unknown_code_is_a_usage_error_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["codes", "stale", "no_such_code"]) == 2
    captured = capsys.readouterr()
    assert captured.out.startswith("stale  (validate code, error)")
    assert "'no_such_code'" in captured.err


def test_codes_without_a_code_lists_every_family(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["codes", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert list(listing) == ["reason", "validate", "input", "antipattern", "rubric"]
    assert listing["reason"] == [c.value for c in ReasonCode]


@pytest.mark.anyio
async def test_the_codes_resource_serves_a_family_as_json(client: Client) -> None:
    text = (await client.read_resource("codes://reason")).contents[0].text
    entries = {e["code"]: e for e in json.loads(text)}
    assert set(entries) == {c.value for c in ReasonCode}
    assert entries["timed_out"]["level"] == "unscored" and entries["timed_out"]["fix"]


@pytest.mark.anyio
async def test_an_unknown_code_family_is_an_error_naming_the_known_ones(client: Client) -> None:
    with pytest.raises(MCPError) as caught:
        await client.read_resource("codes://nope")
    assert "'nope'" in str(caught.value) and "reason" in str(caught.value)
