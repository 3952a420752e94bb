"""The gate that runs a hold-out phase alone (tools/evaluate/phases.py): visible phases side by
side, a hidden one with no other phase, and no visible phase starting while a hidden one waits."""

from __future__ import annotations

import anyio
import pytest

from referee.tools.evaluate import PhaseGate

pytestmark = pytest.mark.anyio


async def test_the_gate_holds_visible_phases_while_a_hidden_one_waits_or_runs() -> None:
    gate, order = PhaseGate(), []
    release = anyio.Event()

    async def visible(name: str, wait: anyio.Event | None = None) -> None:
        async with gate.visible():
            order.append(f"{name} in")
            if wait is not None:
                await wait.wait()
            order.append(f"{name} out")

    async def hidden() -> None:
        async with gate.hidden():
            order.append("hidden in")
            order.append("hidden out")

    async with anyio.create_task_group() as group:
        group.start_soon(visible, "first", release)
        while not gate.busy:
            await anyio.sleep(0.01)
        group.start_soon(hidden)
        while not gate.waiting:
            await anyio.sleep(0.01)
        # A hidden phase waits: a visible one asking now waits behind it, however long it is given.
        group.start_soon(visible, "second")
        await anyio.sleep(0.2)
        assert order == ["first in"]
        release.set()
    assert order == ["first in", "first out", "hidden in", "hidden out", "second in", "second out"]
    assert not gate.busy


async def test_commands_of_every_evaluation_hold_one_slot_in_turn() -> None:
    """Two visible phases run side by side, their commands never: a command of one evaluation
    must not stand beside a command of another (a lock on a shared file would let them talk)."""
    gate, inside, most = PhaseGate(), 0, 0

    async def command() -> None:
        nonlocal inside, most
        async with gate.visible(), gate.command():
            inside += 1
            most = max(most, inside)
            await anyio.sleep(0.05)
            inside -= 1

    async with anyio.create_task_group() as group:
        for _ in range(4):
            group.start_soon(command)
    assert most == 1
