"""A sandbox's tmpfs is counted only where its mount point really is that tmpfs."""

from __future__ import annotations

import os
from pathlib import Path

from referee.tools.process.memory import _used


def test_a_mount_point_that_resolves_elsewhere_counts_nothing(tmp_path: Path) -> None:
    """Read while a sandbox starts (or after its process ended), a tmpfs's point can resolve to
    the host's disk: its whole use was once counted as the sandbox's memory (41,908 MiB)."""
    (tmp_path / "f").write_bytes(b"x" * 65536)
    disk = os.stat(tmp_path).st_dev
    tmpfs = os.stat("/dev/shm").st_dev if os.path.isdir("/dev/shm") else disk + 1
    assert tmpfs != disk
    assert _used(str(tmp_path), tmpfs) == 0
    assert _used(str(tmp_path), disk) > 0
    assert _used(str(tmp_path / "gone"), disk) == 0
