"""The sandbox launcher: every command of the evaluated project runs under bubblewrap.

How one command is started (Linux, bubblewrap 0.8 has no overlay option of its own):

    unshare --user --map-root-user --mount -- /bin/sh -c MOUNT_OVERLAYS …  (a private mount
        namespace where the tree and the tool caches get an overlay with a throwaway upper layer)
      bwrap --ro-bind / / … --bind TREE TREE --ro-bind TREE/.git … --tmpfs STORE …
        /bin/sh -c COUNT_STRAYS CMD…   (PID 2 of a new PID namespace)

Why each part:
- the overlay lets tests write (caches, temp files) while the real tree never changes, and its
  upper layer lists every write, a tracked file written and restored included;
- a new PID namespace: when the command ends, every process it started ends with it (setsid,
  `env -i`, double forks: the namespace's init takes them all down);
- no network unless the check allows it; `serve` runs in the evaluation's private network
  (network.py), which the browser joins, so the app reaches nothing but its own loopback;
- a watchdog on the host (process/watch.py) kills the sandbox above its memory limit, or as soon
  as its first processes are stopped or traced. It counts what the sandbox holds, not only what
  it maps (process/memory.py): its tmpfs mounts, memfds, the files it writes on the host when
  they live in memory, and what the first process reports of its IPC namespace (SysV segments and
  message queues). Every tmpfs is capped at the limit too, and /dev, which nothing needs to write
  into, is read-only;
- `.git` read-only, referee's store and key masked, a fresh HOME and /tmp, `--cap-drop ALL` and
  no new privileges (bubblewrap sets PR_SET_NO_NEW_PRIVS), so nothing can unmask what is hidden.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio

from referee.tools.process import (
    BackgroundProcess,
    Command,
    Limits,
    Network,
    ProcessResult,
    background_process,
    effective_argv,
    run_process,
)
from referee.tools.repo.tree import STORE_DIR
from referee.tools.sandbox.gauge import Gauge
from referee.tools.sandbox.home import SYSTEM_SECRETS, argv_paths, masked_entries
from referee.tools.sandbox.network import NetworkUnavailable, private_network
from referee.tools.sandbox.profile import SANDBOX_HOME, SANDBOX_TMP, SandboxProfile
from referee.tools.sandbox.writes import Writes, read_upper

__all__ = ["SandboxLauncher"]

# Runs in the private mount namespace, where it has the privileges both need: "W path" makes a
# whiteout (a file the overlay shows as absent, e.g. a harness file the base did not have), "M
# options target" mounts an overlay; then bwrap is exec'd.
_MOUNT = (
    'while [ "$1" != "--" ]; do case "$1" in '
    'W) mkdir -p "$(dirname "$2")" && mknod "$2" c 0 0 && shift 2;; '
    'M) mount -t overlay overlay -o "$2" "$3" && shift 3;; '
    "*) exit 125;; esac || exit 125; done; "
    'shift; exec "$@"'
)
# The first process inside: referee's own Python, isolated from the environment (-I) and site (-S).
_INNER = Path(__file__).with_name("inner.py")
_META = SANDBOX_TMP / ".referee-meta"


@dataclass
class _Layout:
    """The folders of one sandboxed command, outside every tree the command can see."""

    root: Path
    overlays: list[tuple[str, Path]] = field(default_factory=list)  # (mount options, target)
    tree_upper: Path | None = None

    def overlay(self, lowers: Sequence[Path], target: Path) -> Path:
        index = len(self.overlays)
        upper, work = self.root / f"o{index}" / "upper", self.root / f"o{index}" / "work"
        upper.mkdir(parents=True)
        work.mkdir()
        lower = ":".join(str(p) for p in lowers)
        self.overlays.append(
            (f"userxattr,lowerdir={lower},upperdir={upper},workdir={work}", target)
        )
        return upper


class SandboxLauncher:
    """Runs commands under bubblewrap; collects what each wrote into its tree.

    Args:
        bwrap: The bubblewrap executable.
        unshare: util-linux's unshare.
        profile: What every sandbox hides, overlays and passes (see profile.py).
        nsenter: util-linux's nsenter (to join the evaluation's private network).
    """

    keeps_writes = False

    def __init__(
        self, bwrap: str, unshare: str, profile: SandboxProfile, nsenter: str = "nsenter"
    ) -> None:
        self._bwrap, self._unshare, self.profile = bwrap, unshare, profile
        self._nsenter = nsenter
        self.writes = Writes()

    async def run(self, command: Command) -> ProcessResult:
        layout = _Layout(Path(tempfile.mkdtemp(prefix="referee-sbx-")))
        try:
            with Gauge() as gauge:
                argv = self._argv(command, layout, network=command.network, gauge=gauge.fd)
                result = await run_process(
                    argv,
                    cwd=command.cwd,
                    timeout_s=command.timeout_s,
                    stdout_path=command.stdout_path,
                    stderr_path=command.stderr_path,
                    limits=_limits(command, layout, gauge),
                    pass_fds=(gauge.fd,),
                )
            return _as_seen(result, command, layout)
        finally:
            with anyio.CancelScope(shield=True):
                self._collect(command, layout)

    def background(self, command: Command) -> AbstractAsyncContextManager[BackgroundProcess]:
        return self._background(command)

    def private_network(self) -> AbstractAsyncContextManager[Network | str]:
        return self._private_network()

    @asynccontextmanager
    async def _private_network(self) -> AsyncIterator[Network | str]:
        async with AsyncExitStack() as stack:
            try:
                network = await stack.enter_async_context(
                    private_network(self._unshare, self._nsenter)
                )
            except NetworkUnavailable as exc:
                yield f"{exc}; the served app and the browser share this machine's network"
                return
            yield network

    @asynccontextmanager
    async def _background(self, command: Command) -> AsyncIterator[BackgroundProcess]:
        layout = _Layout(Path(tempfile.mkdtemp(prefix="referee-sbx-")))
        # The served app needs a network the browser can reach: the evaluation's private one
        # when the command enters it, else (the recorded fallback) the host's. Everything else
        # about the sandbox is the same.
        gauge = Gauge()
        argv = [*command.enter_network, *self._argv(command, layout, network=True, gauge=gauge.fd)]
        try:
            async with background_process(
                argv,
                cwd=command.cwd,
                stdout_path=command.stdout_path,
                stderr_path=command.stderr_path,
                limits=_limits(command, layout, gauge),
                pass_fds=(gauge.fd,),
            ) as proc:
                yield proc
        finally:
            gauge.close()
            with anyio.CancelScope(shield=True):
                self._collect(command, layout)

    def _collect(self, command: Command, layout: _Layout) -> None:
        if layout.tree_upper is not None and (command.own_writes or command.holdout):
            written = read_upper(layout.tree_upper, command.hide)
            self.writes.add(command.tree, written, holdout=command.holdout)
        if layout.tree_upper is not None and command.export_to is not None:
            _export(layout.tree_upper, command.export, command.export_to)
        shutil.rmtree(layout.root, ignore_errors=True)

    def _argv(
        self, command: Command, layout: _Layout, *, network: bool, gauge: int | None = None
    ) -> list[str]:
        tree = command.tree.resolve()
        layout.tree_upper = layout.overlay([*command.layers, tree], tree)
        for cache in self._caches(tree):
            layout.overlay([cache], cache)
        meta = layout.root / "meta"
        meta.mkdir()
        tree_upper = layout.tree_upper
        whiteouts = [item for rel in command.hide for item in ("W", str(tree_upper / rel))]
        mounts = [
            item for options, target in layout.overlays for item in ("M", options, str(target))
        ]
        inner = [
            sys.executable,
            "-I",
            "-S",
            str(_INNER),
            str(_META / "report.json"),
            "-" if gauge is None else str(gauge),
            *effective_argv(command.argv, command.shell),
        ]
        return [
            self._unshare,
            "--user",
            "--map-root-user",
            "--mount",
            "--",
            "/bin/sh",
            "-c",
            _MOUNT,
            "sh",
            *whiteouts,
            *mounts,
            "--",
            self._bwrap,
            *self._bwrap_args(command, tree, meta, network),
            "--",
            *inner,
        ]

    def _personal(self, command: Command, tree: Path) -> list[str]:
        """Masks over the user's own files in the home folder and the password hashes."""
        needed = [tree, command.cwd, *self.profile.caches, *argv_paths(command.argv)]
        needed += [p for pair in command.readonly for p in pair] + list(command.writable)
        env = {**self.profile.env, **command.env}
        args: list[str] = []
        for entry in masked_entries(self.profile.home, needed, env):
            if entry.is_dir():
                args += [*_sized(command.memory_mb), "--tmpfs", str(entry)]
            elif entry.is_file():
                args += ["--ro-bind", "/dev/null", str(entry)]
        for secret in SYSTEM_SECRETS:
            if secret.is_file():
                args += ["--ro-bind", "/dev/null", str(secret)]
        return args

    def _caches(self, tree: Path) -> list[Path]:
        """The folders seen through a throwaway overlay: the tool caches, and installed
        dependencies the tree links to from outside (a shared node_modules): tools write there
        (vite's .vite-temp, jest's cache) and must not change them for the next run."""
        linked = [p for p in _linked_dependencies(tree) if not _overlaps(p, tree)]
        found = [c for c in (*self.profile.caches, *linked) if not _overlaps(c, tree)]
        return [c for i, c in enumerate(found) if not any(_overlaps(c, o) for o in found[:i])]

    def _tool_roots(self, command: Command) -> list[Path]:
        """Installations under /tmp the command needs although /tmp is a fresh tmpfs.

        A clone checked out in /tmp (CI does this) keeps its virtualenv and tools there, and
        referee's own interpreter may live there too. Only the installation roots are shown, read
        only: the program's, those of absolute paths in its arguments (the contract's, not the
        player's), referee's interpreter's, and those of PATH, VIRTUAL_ENV and PYTHONPATH entries.
        The rest of the host's /tmp (other runs' outputs, other users' files) stays out of sight.
        """
        env = {**self.profile.env, **command.env}
        path = env.get("PATH", "")
        program = effective_argv(command.argv, command.shell)[0]
        found = shutil.which(program, path=path) if "/" not in program else program
        candidates = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable), _INNER]
        if found:
            candidates.append(Path(command.cwd, found))
        if not command.shell:  # a script the contract names by path (`node /x/vite.js`)
            candidates += [Path(a) for a in command.argv[1:] if a.startswith("/")]
        for name in ("PATH", "PYTHONPATH", "NODE_PATH"):
            candidates += [Path(p) for p in env.get(name, "").split(os.pathsep) if p]
        if env.get("VIRTUAL_ENV"):
            candidates.append(Path(env["VIRTUAL_ENV"]))
        roots = []
        for candidate in candidates:
            for form in (Path(os.path.abspath(candidate)), _resolved(candidate)):
                if SANDBOX_TMP in form.parents and form.exists():
                    roots.append(_install_root(form))
        unique = sorted(set(roots), key=lambda p: len(p.parts))
        return [r for i, r in enumerate(unique) if not any(o in r.parents for o in unique[:i])]

    def _bwrap_args(self, command: Command, tree: Path, meta: Path, network: bool) -> list[str]:
        args = [
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            *_sized(command.memory_mb),
            "--tmpfs",
            str(SANDBOX_TMP),
            *_sized(command.memory_mb),
            "--tmpfs",
            "/dev/shm",
        ]
        # Before the tree's bind, so that the tree (an overlay) wins where the two meet.
        for root in self._tool_roots(command):
            args += ["--ro-bind", str(root), str(root)]
        args += ["--bind", str(tree), str(tree)]
        if (tree / ".git").exists():
            args += ["--ro-bind", str(tree / ".git"), str(tree / ".git")]
        for cache in self._caches(tree):
            args += ["--bind", str(cache), str(cache)]
        for source, target in command.readonly:
            args += ["--ro-bind", str(source), str(target)]
        for folder in command.writable:
            args += ["--bind", str(folder), str(folder)]
        # Masks come last, so that no bind above can reopen what they hide. Each is a tmpfs the
        # command could write into: capped like /tmp (and counted by the watchdog).
        for hidden in self.profile.hidden:
            if hidden.exists() and not _within(tree, hidden):
                args += [*_sized(command.memory_mb), "--tmpfs", str(hidden)]
        args += self._personal(command, tree)
        # `.referee/` is no part of the evaluated tree (its hash, its diff, what the readers
        # read): what the tree holds there must not be there for the run either, wherever the
        # store is (the gate keeps its own elsewhere, and a pull request may commit the folder).
        store = tree / STORE_DIR
        if store.is_dir() and not store.is_symlink() and store not in self.profile.hidden:
            args += [*_sized(command.memory_mb), "--tmpfs", str(store)]
        # The one file a masked folder may hold that a command with network needs: the resolver
        # configuration, which systemd-resolved keeps under /run.
        resolver = _resolved(Path("/etc/resolv.conf"))
        if any(h in resolver.parents for h in self.profile.hidden) and resolver.is_file():
            args += ["--ro-bind", str(resolver), str(resolver)]
        args += ["--dir", str(SANDBOX_HOME), "--bind", str(meta), str(_META)]
        # bubblewrap's /dev is a tmpfs it cannot size; nothing writes files there (its devices
        # and /dev/shm are mounts of their own and stay writable), so it holds nothing at all.
        args += ["--remount-ro", "/dev"]
        args += ["--clearenv", *_setenv({**self.profile.env, **command.env})]
        args += [
            "--chdir",
            str(command.cwd),
            "--new-session",
            "--die-with-parent",
            "--cap-drop",
            "ALL",
        ]
        # No cgroup namespace: the JVM reads its limits from /sys/fs/cgroup by /proc/self/cgroup,
        # and a namespaced view of the one without the other makes it fail at start.
        args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts"]
        if not network:
            args.append("--unshare-net")
        if self.profile.uid != 0:  # appear as the user who runs referee, not as root
            args += [
                "--unshare-user",
                "--uid",
                str(self.profile.uid),
                "--gid",
                str(self.profile.gid),
            ]
        return args


def _limits(command: Command, layout: _Layout, gauge: Gauge) -> Limits:
    # The first processes are guarded in every sandbox, a memory limit only where one is set.
    # What the sandbox writes on the host (its upper layers, its report folders) is memory too
    # where the host's temporary folder is a tmpfs.
    return Limits(
        memory_mb=command.memory_mb,
        sandbox_init=True,
        folders=(layout.root, *command.writable),
        reported=gauge.kib,
    )


def _sized(memory_mb: int | None) -> list[str]:
    """A tmpfs is memory: without this, a file in /tmp would hold RAM the watchdog never sees."""
    return [] if memory_mb is None else ["--size", str(memory_mb * 1024 * 1024)]


_EXPORT_LIMIT = 256 * 1024 * 1024  # a larger "report" is not copied: the reader refuses it anyway


def _export(upper: Path, paths: tuple[tuple[str, str | None], ...], dest: Path) -> None:
    """Copy what the command wrote under `paths` (its upper layer) to `dest`, symlinks as links."""
    for rel, only in paths:
        source = upper / rel
        if source.is_dir() and not source.is_symlink():
            for folder, _dirs, files in os.walk(source):
                if only is not None and only not in Path(folder).relative_to(source).parts:
                    continue
                for name in files:
                    _copy_one(Path(folder) / name, dest / Path(folder, name).relative_to(upper))
        elif source.is_file() or source.is_symlink():
            _copy_one(source, dest / rel)


def _copy_one(source: Path, target: Path) -> None:
    try:
        if not source.is_symlink() and source.stat().st_size > _EXPORT_LIMIT:
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    except OSError:  # a whiteout or an unreadable file: nothing to export
        return


_LINKED = ("node_modules", ".venv", "venv")


def _linked_dependencies(tree: Path, depth: int = 2) -> list[Path]:
    """Dependency folders of the tree that are symlinks to folders outside it."""
    found, level = [], [tree]
    for _ in range(depth):
        deeper = []
        for folder in level:
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                path = Path(entry.path)
                if entry.name in _LINKED and entry.is_symlink() and path.is_dir():
                    found.append(path.resolve())
                elif entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
                    deeper.append(path)
        level = deeper
    return found


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def _install_root(path: Path) -> Path:
    """The installation a file or folder belongs to: the nearest virtualenv (pyvenv.cfg) or
    node_modules above it, else the folder above a `bin`, else its own folder."""
    folder = path if path.is_dir() else path.parent
    for above in (folder, *folder.parents):
        if above == SANDBOX_TMP:
            break
        if (above / "pyvenv.cfg").is_file() or above.name == "node_modules":
            return above
    return folder.parent if folder.name == "bin" and folder.parent != SANDBOX_TMP else folder


def _setenv(env: dict[str, str]) -> list[str]:
    return [item for key, value in sorted(env.items()) for item in ("--setenv", key, value)]


def _overlaps(a: Path, b: Path) -> bool:
    return a == b or a in b.parents or b in a.parents


def _within(tree: Path, hidden: Path) -> bool:
    """A hidden folder that contains the tree itself cannot be masked without hiding the tree."""
    return hidden == tree or hidden in tree.parents


def _as_seen(result: ProcessResult, command: Command, layout: _Layout) -> ProcessResult:
    """The result as the caller knows it: its own argv, and what the sandbox's first process saw.

    The host side only sees bubblewrap: a signal as 128+N, a missing program as a failed exec.
    The inner report says what happened to the command itself.
    """
    seen = replace(result, argv=effective_argv(command.argv, command.shell), stray_processes=0)
    report = _report(layout.root / "meta" / "report.json")
    if report is None:  # stopped from outside (timeout, cancellation): the host's account holds
        return seen
    # The report lies in a folder the command can write: it counts only where it agrees with
    # the exit status bubblewrap passed up, which the command cannot choose apart from its own.
    if not _agrees(report, result.exit_code):
        return seen
    if report.get("error"):
        return replace(seen, exit_code=None, error=_start_error(report["error"], command))
    code = report.get("exit_code")
    return replace(
        seen,
        exit_code=code if isinstance(code, int) else seen.exit_code,
        stray_processes=int(report.get("strays") or 0),
    )


def _agrees(report: dict[str, Any], host_code: int | None) -> bool:
    """Does the inner report match bubblewrap's exit status (inner.py's own mapping)?"""
    if report.get("error"):
        return host_code == 127
    code = report.get("exit_code")
    if not isinstance(code, int) or isinstance(code, bool):
        return False
    return host_code == (code if code >= 0 else 128 - code) % 256


def _report(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _start_error(kind: str, command: Command) -> str:
    program = effective_argv(command.argv, command.shell)[0]
    if kind == "not_found":
        return (
            f"runner '{program}' not found (not on PATH, no such file, or its interpreter is "
            "missing)"
        )
    if kind == "permission":
        return f"runner '{program}' cannot be executed: permission denied"
    return f"runner '{program}' could not start: {kind}"
