"""Where the checks run: in a bubblewrap sandbox where it can run, else in place, said out loud.

The fallback is explicit by design: an evaluation without a sandbox records `sandbox: none`, carries
a warning with the reason, and a contract (or a call) that requires the sandbox is refused instead.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from referee.tools.errors import InvalidInput, Problem
from referee.tools.models.common import Isolation, SandboxKind
from referee.tools.models.contract import Contract
from referee.tools.models.evaluation import EvaluateInput
from referee.tools.process import HostLauncher, Launcher
from referee.tools.sandbox import SandboxLauncher, SandboxProfile, sandbox_support
from referee.tools.settings import Settings

__all__ = ["Isolated", "choose_isolation"]


@dataclass
class Isolated:
    """The isolation an evaluation gets: the tree to use, the launcher, what to tell the user."""

    isolation: Isolation
    sandbox: SandboxKind
    launcher: Launcher
    warnings: list[str] = field(default_factory=list)


def choose_isolation(request: EvaluateInput, contract: Contract, settings: Settings) -> Isolated:
    """Pick the launcher for this evaluation.

    Raises:
        InvalidInput: the sandbox is required (by the contract or the call) but cannot run, or
            was explicitly switched off with `isolation: inplace`.
    """
    required = request.require_sandbox or contract.require_sandbox
    isolation: Isolation = "worktree" if request.ref else request.isolation
    # Said only when the caller asked for something else on purpose: `inplace` cannot hold for
    # a commit that is not the working tree (the default, the sandbox, still runs it sandboxed).
    implied = request.ref is not None and request.isolation == "inplace"
    notes = (
        [
            "`ref` evaluates a commit, not the working tree: isolation inplace"
            " gives way to a worktree of it"
        ]
        if implied
        else []
    )
    if isolation == "inplace":
        if required:
            raise _refused("isolation inplace runs without a sandbox, but the sandbox is required")
        return Isolated("inplace", "none", HostLauncher())
    support = sandbox_support()
    if support.available and support.bwrap:
        launcher = SandboxLauncher(
            support.bwrap,
            shutil.which("unshare") or "unshare",
            _profile(settings),
            nsenter=shutil.which("nsenter") or "nsenter",
        )
        return Isolated(isolation, "bubblewrap", launcher, notes)
    if required:
        raise _refused(f"no sandbox can run here: {support.reason}")
    warning = (
        f"no sandbox: {support.reason}; the checks ran on this machine without isolation "
        "(sandbox: none); `referee doctor` explains, require_sandbox refuses instead"
    )
    fallback: Isolation = "inplace" if isolation == "sandbox" else isolation
    return Isolated(fallback, "none", HostLauncher(), [*notes, warning])


def _profile(settings: Settings) -> SandboxProfile:
    # Hidden: the store (database, artifacts), the key's folder and the hold-out vaults.
    hidden: tuple[Path, ...] = (settings.home, settings.key_file.parent, settings.holdout_base)
    return SandboxProfile.build(settings.env, hidden=hidden)


def _refused(message: str) -> InvalidInput:
    return InvalidInput(
        [
            Problem(
                path="/isolation",
                code="sandbox_unavailable",
                message=(
                    f"{message}; install bubblewrap (apt-get install bubblewrap) on a kernel"
                    " that allows user namespaces, or drop require_sandbox"
                ),
            )
        ]
    )
