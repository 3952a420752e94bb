"""A check cannot hoard memory or hold its sandbox still, over MCP and the CLI: above its memory
limit (the check's `memory_mb`, else the server's) it is killed with `memory_limit`; a test that
stops or traces the sandbox's first processes is killed at once with `sandbox_stopped`, long
before its timeout."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client
from mcp_calls import call
from projects import PY, calc_repo, command_check, pytest_check

from referee.server.app import build_server
from referee.server.cli import main as cli
from referee.tools.sandbox import sandbox_support
from referee.tools.settings import Settings

pytestmark = [
    pytest.mark.slow,
    pytest.mark.anyio,
    pytest.mark.skipif(not sandbox_support().available, reason="no sandbox here"),
]
MIB = 1024 * 1024
# Long enough that a held sandbox would show as a timeout, were it not killed first.
TIMEOUT_S = 120
_CHUNKS = "chunk = b'x' * (1024 * 1024)\n"


def held(code: str) -> str:
    """Python that allocates with `code`, then keeps it (a hog does not let go)."""
    return f"import time\n{code}\ntime.sleep({TIMEOUT_S})"


def stopper(code: str) -> str:
    return f"import ctypes, os, signal, time\n{code}\nprint('still running', flush=True)"


PTRACE = "libc = ctypes.CDLL(None, use_errno=True); libc.ptrace.restype = ctypes.c_long\n"
MEMORY = {
    "python bytes, the server's limit": (held("b = b'x' * (3 * 1024 ** 3)"), None),
    "node, 3 GiB": (None, 256),
    "forked children": (
        held(
            "import os\nfor _ in range(8):\n"
            "    if os.fork() == 0:\n"
            f"        b = b'x' * (64 * {MIB}); time.sleep({TIMEOUT_S})\n"
        ),
        256,
    ),
    "shared anonymous mmap": (
        held(f"import mmap\nm = mmap.mmap(-1, 512 * {MIB})\nm.write(b'x' * (512 * {MIB}))"),
        256,
    ),
    "above the check's own limit": (held(f"b = b'x' * (300 * {MIB})"), 128),
}
NODE_HOG = f"const b = Buffer.alloc(3 * 1024 ** 3, 1); setTimeout(() => {{}}, {TIMEOUT_S * 1000});"
STOPS = {
    "python stops its parent": stopper("os.kill(os.getppid(), signal.SIGSTOP); time.sleep(60)"),
    "python traces the sandbox's init": stopper(
        PTRACE + "print('attach', libc.ptrace(16, 1, 0, 0), flush=True); time.sleep(60)"
    ),
}


def memory_criteria() -> list[dict[str, Any]]:
    criteria = []
    for name, (code, limit) in MEMORY.items():
        if code is None:
            check = {"kind": "command", "argv": ["node", "-e", NODE_HOG]}
        else:
            check = command_check(code)
        if limit is not None:
            check["memory_mb"] = limit
        criteria.append(criterion(name, {**check, "timeout_s": TIMEOUT_S}))
    return criteria


def criterion(name: str, check: dict[str, Any]) -> dict[str, Any]:
    return {"criterion": name, "verification_method": "test", "check": check}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(
        tmp_path / "calc",
        {
            "tests/test_hog.py": (
                f"def test_hoards_memory():\n    kept = b'x' * (400 * {MIB})\n    assert kept\n"
            ),
            "stopper/conftest.py": ("import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\n"),
            "stopper/test_after.py": "def test_after():\n    assert True\n",
        },
    )


@pytest.fixture
async def agent(project: Path) -> AsyncIterator[Client]:
    settings = Settings.build([project], env=dict(os.environ))
    async with Client(build_server(settings)) as client:
        yield client


async def evaluate(agent: Client, criteria: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    made = await call(
        agent,
        "create_contract",
        goal="Keep the calculator correct.",
        out_of_scope=["ui"],
        functional=criteria,
    )
    return await call(agent, "evaluate", contract_id=made["contract"]["id"], **more)


def outcomes(evaluation: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(c["status"], c["reason_code"]) for c in evaluation["criteria"]]


# A fork bomb, bounded (2,048 processes at most) so that a failure here cannot hurt the machine.
FORK_BOMB = "f() { if [ $1 -gt 0 ]; then f $(($1-1)) & f $(($1-1)) & fi; sleep 120; }; f 11"


async def test_a_check_above_its_memory_limit_is_killed_and_says_so(agent: Client) -> None:
    hog = pytest_check("tests/test_hog.py", memory_mb=128, timeout_s=TIMEOUT_S)
    bomb = {"kind": "command", "argv": [FORK_BOMB], "shell": True, "memory_mb": 128}
    ev = await evaluate(
        agent,
        [
            *memory_criteria(),
            criterion("a fork bomb", {**bomb, "timeout_s": TIMEOUT_S}),
            criterion("a test hoards memory", hog),
        ],
    )
    assert outcomes(ev) == [("unscored", "memory_limit")] * (len(MEMORY) + 2)
    for result in ev["criteria"]:
        assert result["reason"].startswith("killed after "), result["reason"]
        assert "MiB of memory" in result["reason"]
    assert "used more than 2048 MiB" in ev["criteria"][0]["reason"]
    assert "used more than 128 MiB" in ev["criteria"][-1]["reason"]


async def test_tmp_and_shared_memory_files_count_against_the_limit(agent: Client) -> None:
    write = (
        "import sys\n" + _CHUNKS + "with open(sys.argv[1], 'wb') as out:\n"
        "    for _ in range(512):\n        out.write(chunk)\n"
    )
    checks = [
        criterion(f"fills {where}", {**command_check(write), "memory_mb": 256})
        for where in ("/tmp/big", "/dev/shm/big")
    ]
    for made, where in zip(checks, ("/tmp/big", "/dev/shm/big"), strict=True):
        made["check"]["argv"].append(where)
    ev = await evaluate(agent, checks)
    # The tmpfs is capped at the limit and what it holds is counted: the write fails once it is
    # full, unless the watchdog sees the full tmpfs (with the process) first and kills it.
    for result in ev["criteria"]:
        if (result["status"], result["reason_code"]) == ("unscored", "memory_limit"):
            assert "in its tmpfs mounts" in result["reason"], result["reason"]
            continue
        assert (result["status"], result["reason_code"]) == ("fail", "exit_code")
        text = await agent.read_resource(f"evidence://{ev['run_id']}/{result['evidence_ids'][0]}")
        assert "No space left on device" in json.loads(text.contents[0].text)["stderr"]


async def test_within_its_own_limit_a_check_runs_as_usual(agent: Client) -> None:
    fits = command_check(f"b = b'x' * (300 * {MIB}); print(len(b))", memory_mb=1024)
    suite = pytest_check("tests/test_calc.py")
    ev = await evaluate(agent, [criterion("fits", fits), criterion("suite", suite)])
    assert outcomes(ev) == [("pass", "passed")] * 2


async def test_a_test_that_stops_or_traces_its_sandbox_is_killed_at_once(agent: Client) -> None:
    stops = [
        criterion(name, {**command_check(code), "timeout_s": TIMEOUT_S})
        for name, code in STOPS.items()
    ]
    shell = {
        "kind": "command",
        "argv": ["kill -STOP $PPID; sleep 60"],
        "shell": True,
        "timeout_s": TIMEOUT_S,
    }
    node = {
        "kind": "command",
        "argv": ["node", "-e", "process.kill(process.ppid, 'SIGSTOP'); setTimeout(() => {}, 6e4)"],
        "timeout_s": TIMEOUT_S,
    }
    suite = pytest_check("stopper", timeout_s=TIMEOUT_S)
    ev = await evaluate(
        agent,
        [
            *stops,
            criterion("a shell stops its parent", shell),
            criterion("node stops its parent", node),
            criterion("a conftest stops its parent", suite),
        ],
    )
    assert outcomes(ev) == [("unscored", "sandbox_stopped")] * 5
    reasons = [c["reason"] for c in ev["criteria"]]
    assert "first process (PID 2) was stopped" in reasons[0]
    assert "init (bubblewrap, PID 1) was traced (ptrace)" in reasons[1]
    assert all("timed out" not in r for r in reasons)


async def test_what_the_sandbox_refuses_changes_nothing(agent: Client) -> None:
    # A tracer on referee's first process is refused (it is not dumpable), and the init of a PID
    # namespace ignores a stop sent from inside: both commands go on and end as usual.
    refused = {
        "traces its parent": stopper(
            PTRACE + "print('attach', libc.ptrace(16, os.getppid(), 0, 0), ctypes.get_errno())"
        ),
        "seizes its parent": stopper(
            PTRACE + "print('seize', libc.ptrace(0x4206, os.getppid(), 0, 0), ctypes.get_errno())"
        ),
        "stops the init": stopper("os.kill(1, signal.SIGSTOP); time.sleep(0.5)"),
    }
    ev = await evaluate(
        agent,
        [criterion(n, {**command_check(c), "timeout_s": TIMEOUT_S}) for n, c in refused.items()],
    )
    assert outcomes(ev) == [("pass", "passed")] * 3


@pytest.mark.parametrize(
    ("code", "expected", "said"),
    [
        (held(f"b = b'x' * (600 * {MIB})"), "memory_limit", "was killed: used more than 128 MiB"),
        (STOPS["python stops its parent"], "sandbox_stopped", "first process (PID 2) was stopped"),
    ],
    ids=["memory", "stopped"],
)
async def test_a_served_app_is_watched_like_any_check(
    agent: Client, code: str, expected: str, said: str
) -> None:
    made = await call(
        agent,
        "create_contract",
        goal="A page.",
        has_ui=True,
        out_of_scope=["ui"],
        serve={"argv": [PY, "-c", code], "url": "http://127.0.0.1:5173/", "memory_mb": 128},
        functional=[
            {
                "criterion": "page",
                "verification_method": "e2e",
                "check": {
                    "kind": "browser",
                    "url": "/",
                    "expect": [{"type": "visible", "text": "x"}],
                },
            }
        ],
    )
    ev = await call(agent, "evaluate", contract_id=made["contract"]["id"])
    [result] = ev["criteria"]
    assert (result["status"], result["reason_code"]) == ("unscored", expected)
    assert said in result["reason"]


def test_the_cli_sets_the_server_limit_and_a_check_its_own(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    contract = {
        "goal": "Keep the calculator correct.",
        "out_of_scope": ["ui"],
        "functional": [
            criterion("hog", command_check(held(f"b = b'x' * (300 * {MIB})"), timeout_s=TIMEOUT_S)),
            criterion("own", command_check(f"b = b'x' * (300 * {MIB})", memory_mb=1024)),
            criterion("stops", command_check(STOPS["python stops its parent"])),
        ],
    }
    source = tmp_path / "contract.yaml"
    source.write_text(yaml.safe_dump(contract), encoding="utf-8")
    assert cli(["--root", str(project), "contract", "create", str(source)]) == 0
    cid = capsys.readouterr().out.split()[1]
    assert cli(["--root", str(project), "evaluate", cid, "--memory-mb", "128", "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert outcomes(result) == [
        ("unscored", "memory_limit"),
        ("pass", "passed"),
        ("unscored", "sandbox_stopped"),
    ]
    assert "used more than 128 MiB" in result["criteria"][0]["reason"]
