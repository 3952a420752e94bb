"""The code under test never reaches the evaluator: each attack of a hostile generator, through
the public interface (create_contract → evaluate → validate_scorecard → aggregate, and the CLI)."""

from __future__ import annotations

import base64
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from gitrepo import git
from mcp import Client
from mcp_calls import call
from projects import calc_repo, command_check, pytest_check, server_env, stored_text
from runs import judged

from referee.server.app import build_server
from referee.server.cli import main as cli
from referee.tools.sandbox import Support, sandbox_support
from referee.tools.settings import Settings
from referee.tools.store import Store

pytestmark = pytest.mark.anyio

TOKEN = "ghp_" + "Zq8Lw3Nv5Tx7Bc9Dm1Fh2Jk4Pr6St0Uy8Wa"
SECRET = "correct horse battery staple 7731"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(tmp_path / "calc")


@pytest.fixture
def settings(project: Path) -> Settings:
    return Settings.build(
        [project], env=server_env(project, GITHUB_TOKEN=TOKEN, DB_PASSWORD=SECRET)
    )


@pytest.fixture
async def agent(settings: Settings) -> AsyncIterator[Client]:
    async with Client(build_server(settings)) as client:
        yield client


async def contract(agent: Client, *criteria: dict[str, Any], **fields: Any) -> str:
    made = await call(
        agent,
        "create_contract",
        goal="Keep the calculator correct.",
        out_of_scope=["ui"],
        functional=list(criteria),
        **fields,
    )
    return str(made["contract"]["id"])


def suite_check() -> dict[str, Any]:
    return {
        "criterion": "tests pass",
        "verification_method": "test",
        "check": pytest_check("tests"),
    }


async def test_a_conftest_cannot_read_the_key_or_rewrite_the_store(
    agent: Client, project: Path, settings: Settings
) -> None:
    key_file, db = settings.key_file, settings.home / "referee.db"
    (project / "conftest.py").write_text(
        textwrap.dedent(f"""
        import os, sqlite3
        found = []
        for path in [{str(key_file)!r}, {str(settings.home / "signing.key")!r}]:
            try:
                found.append(open(path).read())
            except OSError as exc:
                found.append(f"unreadable {{path}}: {{exc.strerror}}")
        try:
            conn = sqlite3.connect({str(db)!r})
            conn.execute("CREATE TRIGGER evil AFTER INSERT ON scorecards BEGIN "
                         "UPDATE scorecards SET computed = '{{}}'; END")
            conn.commit()
            found.append("trigger planted")
        except sqlite3.Error as exc:
            found.append(f"no trigger: {{exc}}")
        print("ATTACK", found)
        open("stolen.txt", "w").write(repr(found))
    """),
        encoding="utf-8",
    )
    cid = await contract(agent, suite_check())
    evaluation = await call(agent, "evaluate", contract_id=cid)
    assert evaluation["sandbox"] == "bubblewrap"
    key = key_file.read_text(encoding="utf-8").strip()
    assert key not in stored_text(settings.home)
    assert not (project / "stolen.txt").exists()  # the write stayed in the overlay
    assert "stolen.txt" in evaluation["tree_changed"]["paths"]
    with sqlite3.connect(db) as conn:
        assert (
            conn.execute("SELECT count(*) FROM sqlite_master WHERE type='trigger'").fetchone()[0]
            == 0
        )
    assert not (settings.home / "signing.key").exists()  # no key in the store at all


async def test_a_row_edited_outside_referee_is_refused_with_store_tampered(
    agent: Client, project: Path, settings: Settings
) -> None:
    cid = await contract(agent, suite_check())
    evaluation = await call(agent, "evaluate", contract_id=cid)
    with sqlite3.connect(settings.home / "referee.db") as conn:
        body = conn.execute("SELECT body FROM runs").fetchone()[0]
        conn.execute("UPDATE runs SET body = ?", (body.replace('"pass":true', '"pass":false'),))
    result = await agent.call_tool(
        "validate_scorecard", {"scorecard": judged(evaluation["draft_scorecard"])}
    )
    assert result.is_error and "store_tampered" in str(result.content)
    decided = await agent.call_tool("aggregate", {"contract_id": cid})
    assert decided.is_error and "store_tampered" in str(decided.content)
    with pytest.raises(Exception, match="store_tampered"):
        await agent.read_resource(f"report://{cid}")


async def test_a_planted_trigger_makes_every_command_refuse_the_store(
    project: Path, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    Store(settings.home, key=settings.key_source.load()).close()
    with sqlite3.connect(settings.home / "referee.db") as conn:
        conn.execute("CREATE TRIGGER evil AFTER INSERT ON scorecards BEGIN SELECT 1; END")
    code = cli(["--root", str(project), "--home", str(settings.home), "contract", "list"])
    assert code == 2
    assert "store_tampered" in capsys.readouterr().err


async def test_a_daemon_started_by_a_test_dies_with_its_check(
    agent: Client, settings: Settings
) -> None:
    marker = "10007"
    check = {
        "kind": "command",
        "argv": [f"(setsid env -i sleep {marker} &) ; sleep 0.2"],
        "shell": True,
    }
    cid = await contract(
        agent, {"criterion": "runs", "verification_method": "test", "check": check}
    )
    evaluation = await call(agent, "evaluate", contract_id=cid)
    alive = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, text=True)
    assert alive.stdout.strip() == ""
    run = evaluation["run_id"]
    item = await agent.read_resource(
        f"evidence://{run}/{evaluation['criteria'][0]['evidence_ids'][0]}"
    )
    assert '"stray_processes": 1' in item.contents[0].text  # type: ignore[union-attr]


PLANTS_A_REPORT = """
import json, os
folder = "/tmp/.referee-meta"
with open(os.path.join(folder, "report.json"), "w") as out:
    json.dump({"exit_code": 0, "error": None, "strays": 0}, out)
os.chmod(os.path.join(folder, "report.json"), 0o444)
os.chmod(folder, 0o555)
raise SystemExit(1)
"""


async def test_a_command_cannot_plant_the_sandboxs_own_report_of_how_it_ended(
    agent: Client, project: Path
) -> None:
    # The sandbox's first process reports the exit status from a folder the command can write:
    # a planted "exit 0" (made read-only, the folder locked) must not turn exit 1 into a pass.
    (project / "check.py").write_text(PLANTS_A_REPORT, encoding="utf-8")
    check = {"kind": "command", "argv": [sys.executable, "check.py"]}
    cid = await contract(
        agent, {"criterion": "exits 0", "verification_method": "test", "check": check}
    )
    evaluation = await call(agent, "evaluate", contract_id=cid)
    assert evaluation["sandbox"] == "bubblewrap"
    criterion = evaluation["criteria"][0]
    assert criterion["status"] == "fail" and "exit code 1" in criterion["reason"], criterion


async def test_the_code_under_test_sees_no_referee_variable_and_no_secret(
    agent: Client, settings: Settings
) -> None:
    script = "import os, json; print(json.dumps(dict(os.environ)))"
    cid = await contract(
        agent, {"criterion": "env", "verification_method": "test", "check": command_check(script)}
    )
    evaluation = await call(agent, "evaluate", contract_id=cid)
    item = await agent.read_resource(
        f"evidence://{evaluation['run_id']}/{evaluation['criteria'][0]['evidence_ids'][0]}"
    )
    text = item.contents[0].text  # type: ignore[union-attr]
    assert "REFEREE_" not in text and TOKEN not in text and SECRET not in text
    assert '\\"HOME\\": \\"/tmp/home\\"' in text


async def test_secrets_printed_encoded_or_broken_up_never_reach_the_store(
    agent: Client, settings: Settings
) -> None:
    # A hostile test gets secrets the only way a sandboxed command can (the check's own env,
    # `${NAME}` from the server's environment) and prints them in disguise.
    script = textwrap.dedent("""
        import base64, os
        t, s = os.environ["T"], os.environ["S"]
        print(base64.b64encode(t.encode()).decode())
        print(base64.b64encode(b"xx" + t.encode()).decode())
        print(s.encode().hex())
        print(t[:12] + "\\n    " + t[12:])
        print(" ".join(s))
        print(s)
    """)
    check = {**command_check(script), "env": {"T": "${GITHUB_TOKEN}", "S": "${DB_PASSWORD}"}}
    cid = await contract(
        agent, {"criterion": "prints", "verification_method": "test", "check": check}
    )
    evaluation = await call(agent, "evaluate", contract_id=cid)
    stored = stored_text(settings.home) + str(evaluation)
    squeezed = "".join(stored.split())
    forms = {
        "base64": base64.b64encode(TOKEN.encode()).decode(),
        "offset-base64": base64.b64encode(b"xx" + TOKEN.encode()).decode()[4:-4],
        "hex": SECRET.encode().hex(),
        "split": TOKEN,
        "spaced": "".join(SECRET.split()),
        "plain": SECRET,
    }
    for name, form in forms.items():
        assert form not in stored and "".join(form.split()) not in squeezed, name
    assert "[REDACTED:" in stored


async def test_repository_hooks_fsmonitor_and_filters_never_run(
    agent: Client, project: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n", encoding="utf-8")
    script.chmod(0o755)
    hooks = project / ".git" / "hooks"
    for name in ("post-checkout", "pre-commit", "reference-transaction"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {marker}\n", encoding="utf-8")
        (hooks / name).chmod(0o755)
    git(project, "config", "core.fsmonitor", str(script))
    git(project, "config", "filter.evil.clean", str(script))
    git(project, "config", "filter.evil.smudge", str(script))
    git(project, "config", "diff.external", str(script))
    (project / ".gitattributes").write_text("* filter=evil\n", encoding="utf-8")
    marker.unlink(missing_ok=True)
    cid = await contract(agent, suite_check())
    first = await call(agent, "evaluate", contract_id=cid)
    await call(agent, "evaluate", contract_id=cid, ref="HEAD")
    await agent.call_tool("validate_scorecard", {"scorecard": judged(first["draft_scorecard"])})
    assert not marker.exists()


async def test_index_flags_and_info_exclude_cannot_hide_tampering(
    agent: Client, project: Path
) -> None:
    cid = await contract(agent, suite_check(), task_type="bug")
    head_tree = git(project, "rev-parse", "HEAD^{tree}")
    test = project / "tests" / "test_calc.py"
    test.write_text(
        test.read_text().replace(
            "def test_add_negative", "import pytest\n\n@pytest.mark.skip\ndef test_add_negative"
        )
    )
    git(project, "update-index", "--assume-unchanged", "tests/test_calc.py")
    (project / "conftest.py").write_text("# decides outcomes\n", encoding="utf-8")
    (project / ".git" / "info" / "exclude").write_text("conftest.py\n", encoding="utf-8")
    evaluation = await call(agent, "evaluate", contract_id=cid)
    assert evaluation["target"]["tree"] != head_tree
    assert {"tests/test_calc.py", "conftest.py"} <= set(evaluation["target"]["changed_files"])
    assert "test_skipped" in {a["id"] for a in evaluation["antipatterns"]}


async def test_a_source_file_rewritten_and_restored_is_tree_modified(
    agent: Client, project: Path
) -> None:
    (project / "tests" / "test_restore.py").write_text(
        textwrap.dedent("""
        from pathlib import Path

        def test_patch_and_restore():
            src = Path(__file__).parent.parent / "src" / "calc.py"
            old = src.read_text()
            src.write_text("def add(a, b):\\n    return 3\\n")
            src.write_text(old)
    """),
        encoding="utf-8",
    )
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "add a test")
    cid = await contract(agent, suite_check())
    evaluation = await call(agent, "evaluate", contract_id=cid)
    ids = {a["id"] for a in evaluation["antipatterns"]}
    assert "tree_modified" in ids
    assert "src/calc.py" in evaluation["tree_changed"]["paths"]
    assert evaluation["draft_scorecard"]["verdict"] != "ACCEPT"
    assert (project / "src" / "calc.py").read_text().endswith("return a + b\n")


async def test_without_a_sandbox_the_fallback_is_explicit_and_require_sandbox_refuses(
    agent: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = Support(False, None, None, "bubblewrap is not installed")
    monkeypatch.setattr("referee.tools.evaluate.isolation.sandbox_support", lambda: missing)
    cid = await contract(agent, suite_check())
    evaluation = await call(agent, "evaluate", contract_id=cid)
    assert evaluation["sandbox"] == "none" and evaluation["isolation"] == "inplace"
    assert any("no sandbox" in w for w in evaluation["warnings"])
    strict = await contract(agent, suite_check(), require_sandbox=True)
    refused = await agent.call_tool("evaluate", {"contract_id": strict})
    assert refused.is_error and "sandbox_unavailable" in str(refused.content)


def test_doctor_says_whether_the_sandbox_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["doctor"]) == 0
    line = next(row for row in capsys.readouterr().out.splitlines() if row.startswith("sandbox"))
    assert ("bubblewrap" in line) == sandbox_support().available


def test_the_sandbox_is_available_on_this_machine() -> None:
    support = sandbox_support()
    if not support.available:  # CI (REFEREE_NO_SKIP=1) installs bubblewrap: a skip fails there
        pytest.skip(f"no sandbox here: {support.reason}")
    assert support.bwrap and support.version


async def test_tools_installed_under_tmp_run_but_the_rest_of_tmp_stays_hidden(
    agent: Client, tmp_path: Path
) -> None:
    # A clone checked out in /tmp keeps its virtualenv there; the sandbox's /tmp is a tmpfs.
    venv = tmp_path / "venv"
    subprocess.run(["python3", "-m", "venv", "--without-pip", str(venv)], check=True)
    other = tmp_path / "other-run" / "notes.txt"
    other.parent.mkdir()
    other.write_text(SECRET)
    script = f"import sys, pathlib; print(sys.prefix); print(pathlib.Path({str(other)!r}).exists())"
    check = {"kind": "command", "argv": [str(venv / "bin" / "python"), "-c", script]}
    cid = await contract(
        agent, {"criterion": "venv", "verification_method": "test", "check": check}
    )
    evaluation = await call(agent, "evaluate", contract_id=cid)
    assert evaluation["sandbox"] == "bubblewrap"
    assert evaluation["criteria"][0]["status"] == "pass", evaluation["criteria"][0]
    item = await agent.read_resource(
        f"evidence://{evaluation['run_id']}/{evaluation['criteria'][0]['evidence_ids'][0]}"
    )
    text = item.contents[0].text  # type: ignore[union-attr]
    assert str(venv) in text and "False" in text and "True" not in text
