"""Can a sandbox run here? bubblewrap installed, user and mount namespaces allowed, overlayfs.

The answer is found by running a real sandboxed command once per process (about 20 ms), so a
machine that forbids user namespaces (some containers, AppArmor-restricted distributions) or has
no bubblewrap gets an explicit reason instead of a sandbox that silently does nothing.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

__all__ = ["Support", "sandbox_support"]

_PROBE_TIMEOUT_S = 15.0


@dataclass(frozen=True)
class Support:
    """Whether the sandbox can run, with what, and why not when it cannot."""

    available: bool
    bwrap: str | None
    version: str | None
    reason: str | None = None


@cache
def sandbox_support() -> Support:
    """Probe once per process: bubblewrap on PATH, an overlay mounted inside a user namespace."""
    bwrap, unshare = shutil.which("bwrap"), shutil.which("unshare")
    if bwrap is None:
        reason = "bubblewrap is not installed (apt-get install bubblewrap)"
        return Support(False, None, None, reason)
    version = _version(bwrap)
    if unshare is None:
        return Support(False, bwrap, version, "util-linux's unshare is not installed")
    problem = _try_overlay(bwrap, unshare)
    return Support(problem is None, bwrap, version, problem)


def _version(bwrap: str) -> str | None:
    try:
        done = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip().removeprefix("bubblewrap ") or None


def _try_overlay(bwrap: str, unshare: str) -> str | None:
    with tempfile.TemporaryDirectory(prefix="referee-probe-") as tmp:
        root = Path(tmp)
        for name in ("lower", "upper", "work", "merged"):
            (root / name).mkdir()
        (root / "lower" / "probe").write_text("ok", encoding="utf-8")
        options = f"userxattr,lowerdir={root}/lower,upperdir={root}/upper,workdir={root}/work"
        script = 'mount -t overlay overlay -o "$1" "$2" && shift 2 && exec "$@"'
        argv = [
            unshare,
            "--user",
            "--map-root-user",
            "--mount",
            "--",
            "/bin/sh",
            "-c",
            script,
            "sh",
            options,
            f"{root}/merged",
            bwrap,
            "--ro-bind",
            "/",
            "/",
            "--bind",
            f"{root}/merged",
            f"{root}/merged",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--unshare-pid",
            "--unshare-net",
            "--die-with-parent",
            "--",
            "/bin/sh",
            "-c",
            f"echo written > {root}/merged/probe",
        ]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=_PROBE_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"the sandbox probe could not run: {exc}"
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().splitlines()
            return "user namespaces or overlayfs are not available: " + (
                detail[-1] if detail else f"exit code {done.returncode}"
            )
        if not (root / "upper" / "probe").is_file():
            return "the overlay did not record the probe's write"
    return None
