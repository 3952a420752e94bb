"""The channels of tests/holdout_channels.py between two real sandboxes: those that cross reach a
sandbox running at the same time (which is why referee never runs a hold-out beside a visible
run), the others are cut by the sandbox's own namespaces, and none reaches a sandbox that starts
after the sender's has ended."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from holdout_channels import CHANNELS, LEFT_BEHIND, Channel, channels_alone, script

from referee.tools.process import Command, ProcessResult
from referee.tools.sandbox import SandboxLauncher, SandboxProfile, sandbox_support

pytestmark = [
    pytest.mark.slow,
    pytest.mark.anyio,
    pytest.mark.skipif(not sandbox_support().available, reason="no sandbox here"),
]
DATA = b"assert add(10**20, 1) == 10**20 + 1"


@pytest.fixture(autouse=True)
def _alone() -> Iterator[None]:
    with channels_alone():
        yield


def _launcher() -> SandboxLauncher:
    support = sandbox_support()
    assert support.bwrap is not None
    profile = SandboxProfile.build(dict(os.environ), hidden=())
    return SandboxLauncher(
        support.bwrap, shutil.which("unshare") or "unshare", profile, shutil.which("nsenter") or ""
    )


def _command(tmp_path: Path, name: str, code: str, channel: Channel) -> Command:
    tree = tmp_path / name
    tree.mkdir()
    return Command(
        argv=(sys.executable, "-c", code),
        cwd=tree,
        tree=tree,
        timeout_s=60,
        stdout_path=tmp_path / f"{name}.out",
        stderr_path=tmp_path / f"{name}.err",
        network=channel.network,
    )


def _received(result: ProcessResult) -> bytes:
    out = result.stdout_path.read_text(encoding="utf-8")
    assert result.exit_code == 0, (out, result.stderr_path.read_text(encoding="utf-8"))
    return bytes.fromhex(out.split("received", 1)[1].strip())


@pytest.mark.parametrize("name", list(CHANNELS))
async def test_a_channel_reaches_a_sandbox_running_at_the_same_time_only_if_it_crosses(
    name: str, tmp_path: Path
) -> None:
    channel, launcher = CHANNELS[name], _launcher()
    sender = _command(tmp_path, "sender", script(channel, "send", DATA), channel)
    receiver = _command(tmp_path, "receiver", script(channel, "receive"), channel)
    results: dict[str, ProcessResult] = {}

    async def run(role: str, command: Command) -> None:
        results[role] = await launcher.run(command)

    async with anyio.create_task_group() as group:
        group.start_soon(run, "sender", sender)
        group.start_soon(run, "receiver", receiver)
    assert results["sender"].exit_code == 0, sender.stderr_path.read_text(encoding="utf-8")
    assert (_received(results["receiver"]) == DATA) is channel.crosses


@pytest.mark.parametrize("name", [*CHANNELS, *LEFT_BEHIND])
async def test_nothing_reaches_a_sandbox_that_starts_after_the_senders_has_ended(
    name: str, tmp_path: Path
) -> None:
    channel, launcher = {**CHANNELS, **LEFT_BEHIND}[name], _launcher()
    sent = await launcher.run(
        _command(tmp_path, "sender", script(channel, "send", DATA, hold=0.5), channel)
    )
    assert sent.exit_code == 0, sent.stderr_path.read_text(encoding="utf-8")
    receiver = _command(tmp_path, "receiver", script(channel, "receive", wait=1.5), channel)
    assert _received(await launcher.run(receiver)) == b""
