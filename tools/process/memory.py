"""What a process tree holds in memory, counted from the host.

What a sandbox holds is not what it maps: a file in a tmpfs, a memfd written and never mapped, a
detached SysV segment or a swapped-out page is memory no process's resident set shows. Without a
memory cgroup to read (a delegated cgroup v2 subtree is not something referee can count on: CI
runners and containers rarely offer one, and this machine's memory hierarchy is cgroup v1, owned
by the host), the watchdog adds up every place a sandbox can keep pages, each counted where it
lives:

- per process: anonymous pages, resident or swapped (RssAnon, VmSwap), shared-memory pages it
  maps (RssShmem: shared anonymous mappings, mapped tmpfs files, SysV segments, memfds), its page
  tables (VmPTE) and hugetlb pages (HugetlbPages);
- memfds held open, mapped or not, each counted once however many descriptors share it;
- every tmpfs of the sandbox's own mount namespaces (its /tmp, /dev/shm, /dev, the masks, and any
  the command could mount itself), by what is used in it, open-but-deleted files included;
- the folders the sandbox writes on the host (overlay upper layers, report folders), by their
  files, when they live in memory (a host whose temporary folder is a tmpfs); then open-but-deleted
  files there too;
- what the sandbox's first process reports from inside its IPC namespace (SysV segments and
  message queues), which no host process can read.

A shared-memory object that is also mapped counts twice (as the object and in each mapper's
RssShmem): the count errs on the side of the limit, and a partly mapped object cannot be told
from a whole one. What stays outside (kernel memory charged to no process: pipe and socket
buffers, descriptors in flight in a socket, kernel stacks) needs a memory cgroup.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Held", "MemoryCount", "process_kib"]

# Per-process fields of /proc/PID/status, in KiB (see the module docstring for why each).
_PER_PROCESS = ("RssAnon", "RssShmem", "VmSwap", "VmPTE", "HugetlbPages")
_MEMORY_FS = frozenset({"tmpfs", "ramfs"})
_WALK_SHARE = 10  # a folder walk may take at most a tenth of the time between walks


def process_kib(fields: dict[str, str]) -> int:
    """The memory one process holds, in KiB, from its /proc/PID/status fields."""
    return sum(_kib(fields.get(name, "")) for name in _PER_PROCESS)


@dataclass(frozen=True)
class Held:
    """What a tree holds beyond its processes' own pages, in KiB, by where it is."""

    memfds: int = 0
    mounts: int = 0
    folders: int = 0
    reported: int = 0

    @property
    def total(self) -> int:
        return self.memfds + self.mounts + self.folders + self.reported


@dataclass
class MemoryCount:
    """Counts what a tree holds outside its processes' pages, sample after sample.

    Args:
        folders: Host folders the tree writes into (a sandbox's upper layers and report folders):
            counted by their files when they live in memory.
        reported: What the tree reports from inside its IPC namespace, in KiB (a sandbox's
            first process), or None.
    """

    folders: tuple[Path, ...] = ()
    reported: Callable[[], int] | None = None
    _host_devices: frozenset[int] = field(default_factory=frozenset, init=False)
    _own_namespace: str = field(default="", init=False)
    _in_memory: tuple[Path, ...] = field(default=(), init=False)
    _walked: int = field(default=0, init=False)
    _next_walk: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        mounts = list(_mounts(Path("/proc/self/mountinfo")))
        self._host_devices = frozenset(m.device for m in mounts)
        self._own_namespace = _namespace(os.getpid())
        self._in_memory = tuple(f for f in self.folders if _memory_backed(f, mounts))

    def held(self, pids: Iterable[int]) -> Held:
        """What the processes `pids` hold beyond their own pages, now."""
        pids = list(pids)
        own, mounts = self._own_mounts(pids)
        return Held(
            memfds=self._open_files(pids, own) // 1024,
            mounts=mounts // 1024,
            folders=self._folders() // 1024,
            reported=self.reported() if self.reported is not None else 0,
        )

    def _own_mounts(self, pids: list[int]) -> tuple[frozenset[int], int]:
        """The devices of the tree's own memory-backed mounts, and the bytes used in them.

        A mount the tree's namespaces share with the host (a bind of the host's /tmp) is the
        host's: only the devices the host does not have are the sandbox's.
        """
        seen: dict[int, int] = {}
        for pid in _one_per_namespace(pids, self._own_namespace):
            for mount in _mounts(Path(f"/proc/{pid}/mountinfo")):
                if mount.fstype in _MEMORY_FS and mount.device not in self._host_devices:
                    if mount.device not in seen:
                        seen[mount.device] = _used(f"/proc/{pid}/root{mount.point}", mount.device)
        return frozenset(seen), sum(seen.values())

    def _open_files(self, pids: list[int], own: frozenset[int]) -> int:
        """Bytes of memfds, and of deleted files in memory-backed host folders, held open."""
        counted: dict[tuple[int, int], int] = {}
        for pid in pids:
            for path, target in _descriptors(pid):
                memfd = target.startswith("/memfd:")
                if not memfd and not (self._in_memory and target.endswith(" (deleted)")):
                    continue
                with suppress(OSError):
                    info = os.stat(path)
                    # A deleted file on the sandbox's own tmpfs is counted with that tmpfs.
                    if stat.S_ISREG(info.st_mode) and (memfd or info.st_dev not in own):
                        counted[(info.st_dev, info.st_ino)] = info.st_blocks * 512
        return sum(counted.values())

    def _folders(self) -> int:
        """Bytes of the files in the memory-backed folders, walked at a bounded cost: a walk
        taking d seconds is not repeated within _WALK_SHARE × d (the last figure stands)."""
        if not self._in_memory or time.monotonic() < self._next_walk:
            return self._walked
        began = time.monotonic()
        self._walked = sum(_tree_bytes(folder) for folder in self._in_memory)
        self._next_walk = began + _WALK_SHARE * (time.monotonic() - began)
        return self._walked


@dataclass(frozen=True)
class _Mount:
    device: int
    point: str
    fstype: str


def _mounts(mountinfo: Path) -> Iterator[_Mount]:
    try:
        lines = mountinfo.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return
    for line in lines:
        before, _, after = line.partition(" - ")
        fields, kind = before.split(), after.split()
        if len(fields) < 5 or not kind:
            continue
        major, _, minor = fields[2].partition(":")
        with suppress(ValueError):
            yield _Mount(os.makedev(int(major), int(minor)), _unescaped(fields[4]), kind[0])


def _unescaped(point: str) -> str:
    # mountinfo writes a blank, tab, newline and backslash in a path as octal escapes.
    for code in ("\\040", "\\011", "\\012", "\\134"):
        point = point.replace(code, chr(int(code[1:], 8)))
    return point


def _memory_backed(folder: Path, mounts: list[_Mount]) -> bool:
    """Whether `folder` lives on a tmpfs (or ramfs): the mount whose point is its longest
    prefix decides."""
    path = str(folder.resolve())
    best: _Mount | None = None
    for mount in mounts:
        point = mount.point.rstrip("/") or "/"
        inside = path == point or path.startswith(point if point == "/" else point + "/")
        if inside and (best is None or len(point) >= len(best.point.rstrip("/") or "/")):
            best = mount
    return best is not None and best.fstype in _MEMORY_FS


def _namespace(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/ns/mnt")
    except OSError:
        return ""


def _one_per_namespace(pids: list[int], own: str) -> Iterator[int]:
    seen = {own}
    for pid in pids:
        namespace = _namespace(pid)
        if namespace and namespace not in seen:
            seen.add(namespace)
            yield pid


def _used(path: str, device: int) -> int:
    """Bytes used in the mount `device` seen at `path`; 0 unless `path` is that mount, before and
    after the reading. A sandbox's mounts change while it starts (bubblewrap mounts under a staging
    root, then pivots) and a process may end between the two reads: its mount point would then
    resolve to the host's disk, whose whole use is no memory of the sandbox."""
    try:
        if os.stat(path).st_dev != device:
            return 0
        info = os.statvfs(path)
        if os.stat(path).st_dev != device:
            return 0
    except OSError:
        return 0
    return (info.f_blocks - info.f_bfree) * info.f_frsize


def _descriptors(pid: int) -> Iterator[tuple[str, str]]:
    with suppress(OSError):
        for entry in os.scandir(f"/proc/{pid}/fd"):
            with suppress(OSError):
                yield entry.path, os.readlink(entry.path)


def _tree_bytes(folder: Path) -> int:
    total, pending = 0, [str(folder)]
    while pending:
        with suppress(OSError), os.scandir(pending.pop()) as entries:
            for entry in entries:
                with suppress(OSError):
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    else:
                        total += entry.stat(follow_symlinks=False).st_blocks * 512
    return total


def _kib(value: str) -> int:
    parts = value.split()
    try:
        return int(parts[0]) if parts else 0
    except ValueError:
        return 0
