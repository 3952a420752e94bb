"""run_process, background_process and wait_for_url against real processes."""

from __future__ import annotations

import os
import socket
import sys
import uuid
from pathlib import Path

import anyio
import pytest

from referee.tools.process import (
    background_process,
    command_line,
    run_process,
    tagged_pids,
    wait_for_url,
)

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent.parent / "fixtures" / "process"
PY = sys.executable


@pytest.fixture
def mark() -> str:
    """A value put in the child's environment so the test can look for survivors on its own."""
    return uuid.uuid4().hex


def survivors(mark: str) -> list[int]:
    """Live processes carrying REFEREE_TEST_MARK=mark (a zombie's environ is empty)."""
    needle = f"REFEREE_TEST_MARK={mark}".encode()
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                if needle in handle.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            continue
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


async def run(
    argv: list[str], tmp_path: Path, mark: str, timeout_s: float = 10.0, **kwargs: object
):
    return await run_process(
        argv,
        cwd=tmp_path,
        timeout_s=timeout_s,
        stdout_path=tmp_path / "out.log",
        stderr_path=tmp_path / "err.log",
        env={"REFEREE_TEST_MARK": mark},
        **kwargs,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_a_passing_command_writes_its_output_to_the_files(tmp_path: Path, mark: str) -> None:
    result = await run(
        [PY, "-c", "import sys; print('hello'); print('warn', file=sys.stderr)"], tmp_path, mark
    )
    assert (result.exit_code, result.timed_out, result.error) == (0, False, None)
    assert (tmp_path / "out.log").read_text(encoding="utf-8") == "hello\n"
    assert (tmp_path / "err.log").read_text(encoding="utf-8") == "warn\n"
    assert result.started_at.endswith("+00:00") and result.duration_s > 0
    assert survivors(mark) == []


async def test_a_failing_command_reports_its_exit_code(tmp_path: Path, mark: str) -> None:
    result = await run([PY, "-c", "raise SystemExit(3)"], tmp_path, mark)
    assert (result.exit_code, result.timed_out, result.error) == (3, False, None)


@pytest.mark.slow
async def test_a_hanging_tree_is_killed_at_the_timeout_with_every_descendant(
    tmp_path: Path, mark: str
) -> None:
    pidfile = tmp_path / "pids"
    result = await run(
        [PY, str(FIXTURES / "spawner.py"), str(pidfile)], tmp_path, mark, timeout_s=2.0
    )
    assert result.timed_out and result.exit_code == -15
    # SIGTERM is enough here (-15), so the 2 s grace is not used up
    assert result.duration_s >= 2.0
    pids = [int(pid) for pid in pidfile.read_text(encoding="utf-8").split()]
    assert len(pids) == 4 and not any(alive(pid) for pid in pids)
    assert survivors(mark) == [] and tagged_pids(result.run_id) == []
    assert result.stray_processes == 3
    assert (tmp_path / "out.log").read_text(encoding="utf-8") == "spawned\n"


async def test_a_child_that_ignores_sigterm_is_killed_after_the_grace(
    tmp_path: Path, mark: str
) -> None:
    result = await run(
        ["/bin/sh", "-c", "trap '' TERM; sleep 30"], tmp_path, mark, timeout_s=0.5, grace_s=0.5
    )
    assert result.timed_out and result.exit_code == -9
    assert result.duration_s >= 1.0
    assert survivors(mark) == []


async def test_a_background_child_left_behind_after_exit_is_stopped(
    tmp_path: Path, mark: str
) -> None:
    result = await run(["/bin/sh", "-c", "sleep 30 & echo started"], tmp_path, mark)
    assert (result.exit_code, result.timed_out, result.stray_processes) == (0, False, 1)
    assert survivors(mark) == []


@pytest.mark.slow
async def test_cancellation_from_outside_leaves_nothing_running(tmp_path: Path, mark: str) -> None:
    pidfile = tmp_path / "pids"
    with anyio.move_on_after(2.0) as scope:
        await run([PY, str(FIXTURES / "spawner.py"), str(pidfile)], tmp_path, mark, timeout_s=60)
    assert scope.cancelled_caught
    pids = [int(pid) for pid in pidfile.read_text(encoding="utf-8").split()]
    assert not any(alive(pid) for pid in pids)
    assert survivors(mark) == []


async def test_a_missing_program_is_a_result_with_a_reason(tmp_path: Path, mark: str) -> None:
    result = await run(["referee-no-such-runner-xyz", "--version"], tmp_path, mark)
    assert result.exit_code is None and not result.timed_out
    assert (
        result.error == "runner 'referee-no-such-runner-xyz' not found "
        "(not on PATH, no such file, or its interpreter is missing)"
    )
    assert (tmp_path / "out.log").exists()


async def test_a_program_without_execute_permission_is_a_result_with_a_reason(
    tmp_path: Path, mark: str
) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n", encoding="utf-8")
    result = await run([str(script)], tmp_path, mark)
    assert result.exit_code is None and "permission denied" in (result.error or "")


@pytest.mark.parametrize("name", ["missing", "a-file"])
async def test_a_bad_working_directory_is_a_result_with_a_reason(
    tmp_path: Path, mark: str, name: str
) -> None:
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    result = await run_process(
        ["ls"],
        cwd=tmp_path / name,
        timeout_s=5,
        stdout_path=tmp_path / "o",
        stderr_path=tmp_path / "e",
    )
    assert result.exit_code is None
    assert result.error is not None and result.error.startswith(
        f"working directory '{tmp_path / name}'"
    )


async def test_env_is_merged_over_the_inherited_environment(tmp_path: Path, mark: str) -> None:
    code = (
        "import os; print(os.environ['REFEREE_TEST_MARK'], 'PATH' in os.environ,"
        " os.environ['REFEREE_RUN_ID'])"
    )
    result = await run([PY, "-c", code], tmp_path, mark)
    assert (tmp_path / "out.log").read_text(encoding="utf-8").split() == [
        mark,
        "True",
        result.run_id,
    ]


async def test_a_nested_run_keeps_the_outer_cookie(tmp_path: Path) -> None:
    code = "import os; print(os.environ['REFEREE_RUN_ID'])"
    result = await run_process(
        [PY, "-c", code],
        cwd=tmp_path,
        timeout_s=10,
        stdout_path=tmp_path / "o",
        stderr_path=tmp_path / "e",
        env={"REFEREE_RUN_ID": "outer"},
    )
    assert (tmp_path / "o").read_text(encoding="utf-8").strip() == f"outer:{result.run_id}"


async def test_shell_mode_joins_the_items_into_one_command_line(tmp_path: Path, mark: str) -> None:
    result = await run(["echo", "$REFEREE_TEST_MARK", "&&", "echo two"], tmp_path, mark, shell=True)
    assert result.argv == ("/bin/sh", "-c", "echo $REFEREE_TEST_MARK && echo two")
    assert (tmp_path / "out.log").read_text(encoding="utf-8") == f"{mark}\ntwo\n"


async def test_stdout_and_stderr_can_share_one_file(tmp_path: Path) -> None:
    both = tmp_path / "both.log"
    code = "import sys; print('a', flush=True); print('b', file=sys.stderr, flush=True); print('c')"
    await run_process(
        [PY, "-c", code], cwd=tmp_path, timeout_s=10, stdout_path=both, stderr_path=both
    )
    assert both.read_text(encoding="utf-8") == "a\nb\nc\n"


def test_command_line_quotes_each_argument() -> None:
    assert command_line(["pytest", "-k", "a and b", "x's"]) == "pytest -k 'a and b' 'x'\"'\"'s'"


async def test_a_served_directory_becomes_ready_and_is_stopped_afterwards(
    tmp_path: Path, mark: str
) -> None:
    port = free_port()
    argv = [PY, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(tmp_path)]
    async with background_process(
        argv,
        cwd=tmp_path,
        stdout_path=tmp_path / "o",
        stderr_path=tmp_path / "e",
        env={"REFEREE_TEST_MARK": mark},
    ) as proc:
        ready = await wait_for_url(
            f"http://127.0.0.1:{port}/", 15, proc
        )  # wide: interpreter start under load
        assert (ready.ready, ready.status, ready.reason) == (True, 200, None)
        assert proc.running and proc.pid is not None
    assert not proc.running and proc.returncode == -15
    assert survivors(mark) == []


async def test_a_server_that_never_answers_is_not_ready_after_the_timeout(
    tmp_path: Path, mark: str
) -> None:
    port = free_port()
    async with background_process(
        [PY, "-c", "import time; time.sleep(60)"],
        cwd=tmp_path,
        stdout_path=tmp_path / "o",
        stderr_path=tmp_path / "e",
        env={"REFEREE_TEST_MARK": mark},
    ) as proc:
        ready = await wait_for_url(f"http://127.0.0.1:{port}/", 1.0, proc)
    assert not ready.ready and ready.elapsed_s >= 1.0
    assert ready.reason is not None and ready.reason.startswith(
        f"no HTTP answer from http://127.0.0.1:{port}/"
    )
    assert survivors(mark) == []


async def test_a_server_that_exits_at_once_stops_the_wait_early(tmp_path: Path, mark: str) -> None:
    async with background_process(
        [PY, "-c", "raise SystemExit(4)"],
        cwd=tmp_path,
        stdout_path=tmp_path / "o",
        stderr_path=tmp_path / "e",
    ) as proc:
        ready = await wait_for_url(f"http://127.0.0.1:{free_port()}/", 20, proc)
    assert not ready.ready  # the exit ends the wait, as the reason says
    assert ready.reason == f"'{PY}' exited with code 4 before it was ready"


async def test_a_server_that_cannot_start_is_not_ready_with_the_reason(tmp_path: Path) -> None:
    async with background_process(
        ["referee-no-such-server"],
        cwd=tmp_path,
        stdout_path=tmp_path / "o",
        stderr_path=tmp_path / "e",
    ) as proc:
        ready = await wait_for_url("http://127.0.0.1:9/", 5, proc)
    assert proc.pid is None and not proc.running
    assert not ready.ready and ready.reason is not None and "not found" in ready.reason


async def test_an_error_inside_the_block_still_stops_the_server(tmp_path: Path, mark: str) -> None:
    pidfile = tmp_path / "pids"
    with pytest.raises(RuntimeError, match="boom"):
        async with background_process(
            [PY, str(FIXTURES / "spawner.py"), str(pidfile)],
            cwd=tmp_path,
            stdout_path=tmp_path / "o",
            stderr_path=tmp_path / "e",
            env={"REFEREE_TEST_MARK": mark},
        ):
            with anyio.fail_after(10):
                while not pidfile.exists() or not pidfile.read_text(encoding="utf-8").endswith(
                    "\n"
                ):
                    await anyio.sleep(0.05)  # the fixture has to get going
            raise RuntimeError("boom")
    assert survivors(mark) == []


async def test_cancelling_a_served_block_stops_the_server(tmp_path: Path, mark: str) -> None:
    with anyio.move_on_after(1.0):
        async with background_process(
            [PY, "-c", "import time; time.sleep(60)"],
            cwd=tmp_path,
            stdout_path=tmp_path / "o",
            stderr_path=tmp_path / "e",
            env={"REFEREE_TEST_MARK": mark},
        ):
            await anyio.sleep(30)
    assert survivors(mark) == []


async def test_only_http_urls_are_polled() -> None:
    ready = await wait_for_url("file:///etc/passwd", 5)
    assert not ready.ready
    assert (
        ready.reason == "cannot poll 'file:///etc/passwd': only absolute http(s) URLs can be polled"
    )


def test_the_store_url_and_libpq_variables_never_reach_a_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from referee.tools.process.run import child_env
    from referee.tools.sandbox.profile import SandboxProfile

    secret = "postgresql://referee:hunter2@db.example/referee"
    server_env = {"PATH": "/usr/bin", "REFEREE_STORE_URL": secret, "PGPASSWORD": "hunter2"}
    for name, value in {**server_env, "PGSERVICEFILE": "/etc/pg", "PGHOST": "db"}.items():
        monkeypatch.setenv(name, value)
    unsandboxed = child_env({}, "R1")
    sandboxed = SandboxProfile.build(server_env, hidden=()).env
    for env in (unsandboxed, sandboxed):
        assert not any(k.startswith("PG") for k in env)
        assert "REFEREE_STORE_URL" not in env and "hunter2" not in repr(env)
