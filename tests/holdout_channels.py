"""Channels between two sandboxes, for the hold-out isolation tests: the code under test, run in a
hold-out's run, `send`s what the hidden test asserts; run in a visible run, it `receive`s it, and
a visible test's ids carry it to the generator's brief.

Each channel is Python source that defines `send(data)` (holds the data out for `HOLD_S` seconds,
or leaves something behind that does) and `receive()` (looks for `WAIT_S` seconds; b"" when
nothing came). `crosses` says whether it reaches from one sandbox into another running at the same
time (a shared inode, the host's network for checks with `network: true`); the other channels
are cut by the sandbox's own namespaces (IPC, PID, mount, network) even then. No channel may reach
a run that starts after the sender's sandbox has ended (its processes, locks, namespaces and
/tmp die with it), and referee runs the hold-outs after every visible run
(tools/evaluate/phases.py): through referee, none reaches the brief.
"""

from __future__ import annotations

import base64
import fcntl
import re
import tempfile
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

HOLD_S = 4.0
WAIT_S = 4.0
LIMIT = 64  # bytes of the hidden test's assertions carried (its first one, whole)


@dataclass(frozen=True)
class Channel:
    code: str
    crosses: bool
    network: bool = False


_D = textwrap.dedent
# The machine's temp folder, read on import (at collection), before each test gets its own.
_LOCKS = Path(tempfile.gettempdir())


@contextmanager
def channels_alone() -> Iterator[None]:
    """Hold the block alone among the suite's workers: these channels cross between any two
    sandboxes of the machine (a shared inode, the host's network), so another worker's sender
    would be received here. A lock, not a folder: nothing is written beside it."""
    with open(_LOCKS / "referee-tests-channels.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# Byte i with value b is a lock on one byte at BASE + 256 i + b, on the interpreter's binary: every
# sandbox shows it from the same inode, read-only, and a read lock needs only a read descriptor.
_RANGES = """
import fcntl, struct
_F = os.open(os.path.realpath(sys.executable), os.O_RDONLY)


def _probe(start, length):
    asked = struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, start, length, 0)
    kind, _, first, _, _ = struct.unpack("hhqqi4x", fcntl.fcntl(_F, {getlk}, asked))
    return None if kind == fcntl.F_UNLCK else first


def send(data):
    for i, b in enumerate(data):
        _lock(BASE + i * 256 + b)
    _lock(BASE - 1)
    time.sleep(HOLD_S)


def receive():
    until = time.monotonic() + WAIT_S
    while time.monotonic() < until and _probe(BASE - 1, 1) is None:
        time.sleep(0.05)
    out = bytearray()
    while (at := _probe(BASE + len(out) * 256, 256)) is not None:
        out.append(at - BASE - len(out) * 256)
    return bytes(out)
"""
POSIX_LOCK = _RANGES.format(getlk="fcntl.F_GETLK") + _D("""
    BASE = 1 << 40


    def _lock(at):
        fcntl.lockf(_F, fcntl.LOCK_SH, 1, at)
""")
# Open file description locks (F_OFD_SETLK 37, F_OFD_GETLK 36): owned by the open file, not the
# process, but kept on the same inode.
OFD_LOCK = _RANGES.format(getlk="36") + _D("""
    BASE = 1 << 41


    def _lock(at):
        fcntl.fcntl(_F, 37, struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, at, 1, 0))
""")
# Files of the standard library nothing imports (its tests, idle, lib2to3 …), one per bit: an
# flock(2) on each set bit; the first file says the data is there.
_QUIET = """
import glob
_LIB = os.path.dirname(os.__file__)
_QUIET = sorted(
    p for p in glob.glob(os.path.join(_LIB, "**", "*.py"), recursive=True)
    if any(f"/{part}/" in p for part in ("test", "tests", "idlelib", "lib2to3", "turtledemo"))
)
"""
FLOCK = _QUIET + _D("""
    import fcntl
    _FILES = _QUIET[: 1 + 8 * (1 + LIMIT)]
    _HELD = []


    def _held(path):
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False
        except BlockingIOError:
            return True
        finally:
            os.close(fd)


    def send(data):
        bits = [1] + [(byte >> k) & 1 for byte in bytes([len(data)]) + data for k in range(8)]
        # The data first, the mark that says it is there last: a receiver never reads half.
        for path, bit in [*list(zip(_FILES, bits))[1:], (_FILES[0], 1)]:
            if bit:
                _HELD.append(os.open(path, os.O_RDONLY))
                fcntl.flock(_HELD[-1], fcntl.LOCK_SH)
        time.sleep(HOLD_S)


    def receive():
        until = time.monotonic() + WAIT_S
        while time.monotonic() < until and not _held(_FILES[0]):
            time.sleep(0.05)
        if not _held(_FILES[0]):
            return b""
        bits = [_held(path) for path in _FILES[1:]]
        data = bytes(sum(bits[8 * i + k] << k for k in range(8)) for i in range(len(bits) // 8))
        return data[1 : 1 + data[0]]
""")
# inotify(7) on files every sandbox shares: the sender opens file number b for each byte b, framed
# by file 256 and spaced by file 257, again and again; the receiver reads the order of the opens.
INOTIFY = _QUIET + _D("""
    import ctypes, select, struct
    _FILES = _QUIET[:258]
    _LIBC = ctypes.CDLL(None, use_errno=True)


    def send(data):
        # File 257 between bytes: inotify merges two identical events the reader has not read yet,
        # so a repeated byte ("**") sent back to back would arrive once on a busy machine.
        spaced = [i for byte in data for i in (byte, 257)][:-1]
        until = time.monotonic() + HOLD_S
        while time.monotonic() < until:
            for index in (256, *spaced, 256):
                os.close(os.open(_FILES[index], os.O_RDONLY))
                time.sleep(0.002)
            time.sleep(0.2)


    def receive():
        fd = _LIBC.inotify_init1(os.O_NONBLOCK)
        watches = {_LIBC.inotify_add_watch(fd, p.encode(), 0x20): i for i, p in enumerate(_FILES)}
        seen, until = [], time.monotonic() + WAIT_S
        while time.monotonic() < until:
            if not select.select([fd], [], [], 0.1)[0]:
                continue
            chunk = os.read(fd, 65536)
            while chunk:
                wd, _, _, size = struct.unpack("iIII", chunk[:16])
                seen.append(watches.get(wd, -1))
                chunk = chunk[16 + size:]
            frames = [i for i, index in enumerate(seen) if index == 256]
            for start, end in zip(frames, frames[1:]):
                if end - start > 1:
                    return bytes(b for b in seen[start + 1:end] if 0 <= b < 256)
        return b""
""")
# A server on the host's network: with `network: true` a check shares it.
_SERVER = """
import socket


def send(data):
    server = _listening()
    server.settimeout(0.1)
    until = time.monotonic() + HOLD_S
    while time.monotonic() < until:
        try:
            conn, _ = server.accept()
        except OSError:
            continue
        with conn:
            conn.sendall(data)


def receive():
    until = time.monotonic() + WAIT_S
    while time.monotonic() < until:
        try:
            conn = _connected()
        except OSError:
            time.sleep(0.05)
            continue
        with conn:
            conn.settimeout(2)
            got = b""
            while chunk := conn.recv(4096):
                got += chunk
            return got
    return b""
"""
ABSTRACT_SOCKET = _SERVER + _D("""
    _NAME = "\\0referee-holdout-channel"


    def _listening():
        server = socket.socket(socket.AF_UNIX)
        server.bind(_NAME)
        server.listen()
        return server


    def _connected():
        conn = socket.socket(socket.AF_UNIX)
        conn.connect(_NAME)
        return conn
""")
LOOPBACK_TCP = _SERVER + _D("""
    _PORT = 47391


    def _listening():
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", _PORT))
        server.listen()
        return server


    def _connected():
        return socket.create_connection(("127.0.0.1", _PORT), timeout=1)
""")
# A daemon the sender leaves behind (setsid and a double fork): it serves the data after the
# sender's run has ended, for as long as it lives.
DAEMON = ABSTRACT_SOCKET.replace("def send(data):", "def _serve(data):") + _D("""
    def send(data):
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                _serve(data)
            os._exit(0)
        os.wait()
""")
SYSV_QUEUE = _D("""
    import ctypes
    _LIBC = ctypes.CDLL(None, use_errno=True)
    _KEY = 0x5EC12E7


    class _Message(ctypes.Structure):
        _fields_ = [("kind", ctypes.c_long), ("text", ctypes.c_char * 256)]


    def send(data):
        queue = _LIBC.msgget(_KEY, 0o1600)
        _LIBC.msgsnd(queue, ctypes.byref(_Message(1, data)), len(data), 0)
        time.sleep(HOLD_S)


    def receive():
        until = time.monotonic() + WAIT_S
        while time.monotonic() < until:
            queue = _LIBC.msgget(_KEY, 0)
            if queue >= 0:
                message = _Message()
                size = _LIBC.msgrcv(queue, ctypes.byref(message), 256, 0, 0o4000)
                return message.text[:size] if size > 0 else b""
            time.sleep(0.05)
        return b""
""")
_FILE = """
def send(data):
    with open(_PATH + ".tmp", "wb") as out:
        out.write(data)
    os.replace(_PATH + ".tmp", _PATH)
    time.sleep(HOLD_S)


def receive():
    until = time.monotonic() + WAIT_S
    while time.monotonic() < until:
        try:
            with open(_PATH, "rb") as found:
                return found.read()
        except OSError:
            time.sleep(0.05)
    return b""
"""
SHM_FILE = '_PATH = "/dev/shm/referee-holdout-channel"\n' + _FILE
TMP_FILE = '_PATH = "/tmp/referee-holdout-channel"\n' + _FILE
CACHE_FILE = (
    '_PATH = os.path.join(os.environ.get("XDG_CACHE_HOME", "/tmp"), "referee-holdout-channel")\n'
    + _FILE
)
# The process list: a process whose command line carries the data.
PROCESS_LIST = _D("""
    import subprocess


    def send(data):
        subprocess.Popen(["sh", "-c", f"sleep {HOLD_S}", "leak-" + data.hex()])
        time.sleep(HOLD_S)


    def receive():
        until = time.monotonic() + WAIT_S
        while time.monotonic() < until:
            for entry in os.listdir("/proc"):
                try:
                    with open(f"/proc/{entry}/cmdline", "rb") as found:
                        args = found.read().split(b"\\0")
                except OSError:
                    continue
                for arg in args:
                    if arg.startswith(b"leak-"):
                        return bytes.fromhex(arg[5:].decode())
            time.sleep(0.05)
        return b""
""")

CHANNELS: dict[str, Channel] = {
    "a POSIX byte-range lock on a shared file": Channel(POSIX_LOCK, crosses=True),
    "an open file description lock on a shared file": Channel(OFD_LOCK, crosses=True),
    "flock(2) on shared files, a bit each": Channel(FLOCK, crosses=True),
    "inotify on shared files, the order of opens": Channel(INOTIFY, crosses=True),
    "an abstract unix socket (network: true)": Channel(ABSTRACT_SOCKET, crosses=True, network=True),
    "a loopback TCP port (network: true)": Channel(LOOPBACK_TCP, crosses=True, network=True),
    "an abstract unix socket (no network)": Channel(ABSTRACT_SOCKET, crosses=False),
    "a SysV message queue": Channel(SYSV_QUEUE, crosses=False),
    "a file in /dev/shm": Channel(SHM_FILE, crosses=False),
    "a file in /tmp": Channel(TMP_FILE, crosses=False),
    "a file in the tool cache": Channel(CACHE_FILE, crosses=False),
    "the process list": Channel(PROCESS_LIST, crosses=False),
}
# Channels only a run after the sender's could use: what it leaves behind.
LEFT_BEHIND: dict[str, Channel] = {
    "a daemon serving it (network: true)": Channel(DAEMON, crosses=True, network=True),
}

_PREAMBLE = "import os, sys, time\nHOLD_S, WAIT_S, LIMIT = {hold}, {wait}, {limit}\n"


def script(
    channel: Channel, role: str, data: bytes = b"", hold: float = HOLD_S, wait: float = WAIT_S
) -> str:
    """A program that plays one side of `channel`: 'send' `data`, or 'receive' and print it."""
    body = _PREAMBLE.format(hold=hold, wait=wait, limit=LIMIT) + channel.code
    if role == "send":
        return body + f"\nsend({data!r})\n"
    return body + "\nprint('received', receive().hex())\n"


# The code under test: in the hold-out's run it sends the hidden test's first assertion; in a
# visible run it receives, and test_notes.py turns what came into failing test ids.
CALC = """
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
_MINE = {{"test_calc.py", "test_notes.py"}}
_TESTS = os.path.join(ROOT, "tests")
_HELD = [n for n in os.listdir(_TESTS) if n.endswith(".py") and n not in _MINE]
LEAKED = ""
if _HELD:
    with open(os.path.join(_TESTS, _HELD[0]), "rb") as _f:
        _lines = [line.strip() for line in _f.read().splitlines() if b"assert" in line]
    send(b"\\n".join(_lines)[:LIMIT])
else:
    LEAKED = receive().decode("utf-8", "replace")


def add(a, b):
    return int(float(a) + float(b))
"""


def leaky_calc(channel: Channel) -> str:
    return _PREAMBLE.format(hold=HOLD_S, wait=WAIT_S, limit=LIMIT) + channel.code + CALC.format()


NOTES = """
import base64, os, sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
import calc

CODE = base64.b32encode(calc.LEAKED.encode()).decode().rstrip("=")
PIECES = [f"{n:02d}" + CODE[i:i + 40] for n, i in enumerate(range(0, len(CODE), 40))]


@pytest.mark.parametrize("seen", PIECES or ["none"])
def test_notes(seen):
    assert seen == "none"
"""


def decoded(seen: str) -> str:
    """What the failing test ids of NOTES carry, read back from the generator's side."""
    pieces = dict(re.findall(r"test_notes\[(\d\d)([A-Z2-7]+)\]", seen))
    code = "".join(pieces.get(f"{n:02d}", "") for n in range(len(pieces)))
    try:
        return base64.b32decode(code + "=" * (-len(code) % 8)).decode("utf-8", "replace")
    except ValueError:
        return ""
