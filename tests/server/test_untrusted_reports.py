"""Reports written by the code under test, and commands referee cannot ask, as a user meets them:
over MCP and through the CLI."""

from __future__ import annotations

import contextlib
import io
import json
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from projects import PY, SAMPLE_ENV, calc_repo, commit_all, pytest_check

from referee.server.app import build_server
from referee.server.cli import main
from referee.tools.runners import reports
from referee.tools.settings import Settings

pytestmark = pytest.mark.anyio

_WRITE_REPORT = (
    "import sys\n"
    "case = b'<testcase name=\"t\"/>'\n"
    "with open(sys.argv[1], 'wb') as f:\n"
    "    f.write(b'<testsuites><testsuite name=\"big\">')\n"
    "    for _ in range(int(sys.argv[2])):\n"
    "        f.write(case * 1000)\n"
    "    f.write(b'</testsuite></testsuites>')\n"
)


def _criterion(check: dict[str, Any]) -> dict[str, Any]:
    return {"criterion": "tests pass", "verification_method": "test", "check": check}


async def _create(client: Client, *criteria: dict[str, Any]) -> str:
    created = await client.call_tool(
        "create_contract",
        {"goal": "Report handling.", "out_of_scope": ["x"], "functional": list(criteria)},
    )
    assert not created.is_error, created.content
    return str(created.structured_content["contract"]["id"])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = calc_repo(tmp_path / "calc")
    (repo / "write_report.py").write_text(_WRITE_REPORT, encoding="utf-8")
    (repo / "out").mkdir()
    commit_all(repo, "report writer")
    return repo


@pytest.mark.parametrize(
    ("junit", "cwd"),
    [
        ("/etc/passwd", None),
        ("../outside.xml", None),
        ("reports/../../x.xml", "out"),
        ("~/r.xml", None),
        ("link/r.xml", None),
    ],
)
async def test_a_junit_path_out_of_the_checks_folder_is_a_contract_error(
    project: Path, junit: str, cwd: str | None
) -> None:
    (project / "link").symlink_to(project.parent, target_is_directory=True)
    check = {"kind": "tests", "argv": [PY, "-c", "pass"], "junit": junit, "cwd": cwd}
    async with Client(build_server(Settings.build([project], env=dict(SAMPLE_ENV)))) as client:
        created = await client.call_tool(
            "create_contract",
            {"goal": "Escape.", "out_of_scope": ["x"], "functional": [_criterion(check)]},
        )
    assert created.is_error
    text = created.content[0].text  # type: ignore[union-attr]
    assert "/functional/0/check/junit" in text and "junit_outside" in text


async def test_a_report_above_the_limit_is_unscored_and_the_server_keeps_answering(
    project: Path,
) -> None:
    # 110 MB of JUnit XML written by the "tests"; the default limit is 64 MiB.
    check = {
        "kind": "tests",
        "argv": [PY, "write_report.py", "out/r.xml", "5500"],
        "junit": "out/r.xml",
    }
    async with Client(build_server(Settings.build([project], env=dict(SAMPLE_ENV)))) as client:
        contract_id = await _create(client, _criterion(check))
        answered = 0
        result: dict[str, Any] = {}

        async def evaluate() -> None:
            answer = await client.call_tool("evaluate", {"contract_id": contract_id})
            result.update(answer.structured_content or {})

        async with anyio.create_task_group() as group:
            group.start_soon(evaluate)
            while not result:
                # A guard against a hang, not a speed test: timings live in benchmarks/.
                with anyio.fail_after(120):
                    listed = await client.list_tools()
                assert listed.tools
                answered += 0 if result else 1
                await anyio.sleep(0.05)
    criterion = result["criteria"][0]
    assert criterion["status"] == "unscored" and "MiB limit" in criterion["reason"]
    # Written in the sandbox's overlay: referee read its exported copy; the real tree is unchanged.
    assert not (project / "out" / "r.xml").exists() and result["sandbox"] == "bubblewrap"
    assert answered > 0  # the server answered while the evaluation ran


@pytest.mark.slow
async def test_a_large_report_is_parsed_off_the_event_loop(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 220 000 test cases (≈ 4.4 MB) take the parser a while; the server's loop must not wait for
    # it. Which thread parses is a fact of the code, where a gap measured in seconds is one of
    # the machine's load.
    parsed_on: list[threading.Thread] = []
    parse = reports._parse_files

    def watched(*args: Any) -> Any:
        parsed_on.append(threading.current_thread())
        return parse(*args)

    monkeypatch.setattr(reports, "_parse_files", watched)
    check = {
        "kind": "tests",
        "argv": [PY, "write_report.py", "out/r.xml", "220"],
        "junit": "out/r.xml",
    }
    async with Client(build_server(Settings.build([project], env=dict(SAMPLE_ENV)))) as client:
        contract_id = await _create(client, _criterion(check))
        loop_thread = threading.current_thread()
        answer = await client.call_tool("evaluate", {"contract_id": contract_id})
    criterion = answer.structured_content["criteria"][0]
    assert criterion["status"] == "pass" and "220000 passed" in criterion["reason"]
    assert parsed_on and all(thread is not loop_thread for thread in parsed_on)


async def test_a_stale_report_is_never_evidence(project: Path) -> None:
    (project / "out" / "r.xml").write_text(
        '<testsuites><testsuite><testcase name="old"/></testsuite></testsuites>', encoding="utf-8"
    )
    check = {"kind": "tests", "argv": [PY, "-c", "pass"], "junit": "out/r.xml"}
    async with Client(build_server(Settings.build([project], env=dict(SAMPLE_ENV)))) as client:
        contract_id = await _create(client, _criterion(check))
        answer = await client.call_tool("evaluate", {"contract_id": contract_id})
    criterion = answer.structured_content["criteria"][0]
    assert criterion["status"] == "unscored" and "during this run" in criterion["reason"]
    assert (project / "out" / "r.xml").exists()  # read-only: referee deletes nothing of the tree


def _cli(*argv: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, json.loads(out.getvalue() or "{}")


def _cli_contract(project: Path, *criteria: dict[str, Any]) -> str:
    import yaml

    spec = project.parent / "contract.yaml"
    spec.write_text(
        yaml.safe_dump({"goal": "CLI.", "out_of_scope": ["x"], "functional": list(criteria)}),
        encoding="utf-8",
    )
    code, created = _cli("--root", str(project), "contract", "create", str(spec), "--json")
    assert code == 0
    return str(created["contract"]["id"])


def test_a_command_referee_cannot_ask_still_runs_and_says_what_to_add(project: Path) -> None:
    contract_id = _cli_contract(
        project, _criterion({"kind": "tests", "argv": [PY, "-c", "print('ran 3 checks')"]})
    )
    code, result = _cli("--root", str(project), "evaluate", contract_id, "--json")
    criterion = result["criteria"][0]
    assert code == 1 and criterion["status"] == "unscored" and criterion["pass"] is False
    assert "exit code 0" in criterion["reason"] and "`junit` field" in criterion["reason"]
    (evidence,) = [e for e in result["evidence"] if e["id"] == criterion["evidence_ids"][0]]
    assert evidence["exit_code"] == 0 and evidence["duration_s"] > 0


def test_a_detected_antipattern_alone_makes_the_cli_exit_1(project: Path) -> None:
    contract_id = _cli_contract(project, _criterion(pytest_check("tests")))
    code, result = _cli("--root", str(project), "evaluate", contract_id, "--json")
    assert code == 0 and result["criteria"][0]["status"] == "pass"
    test_file = project / "tests" / "test_calc.py"
    text = test_file.read_text(encoding="utf-8")
    test_file.write_text(text.replace("    assert add(-1, -2) == -3\n", "    pass\n"), "utf-8")
    code, result = _cli("--root", str(project), "evaluate", contract_id, "--json")
    assert result["criteria"][0]["status"] == "pass"
    assert [a["id"] for a in result["antipatterns"]] == ["test_emptied"]
    assert code == 1
