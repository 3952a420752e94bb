"""What every grader shares: the context of one evaluation and the result of one criterion."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import anyio

from referee.tools.evidence.recorder import EvidenceRecorder
from referee.tools.models.contract import Contract, Criterion
from referee.tools.settings import Settings

Status = Literal["pass", "fail", "unscored"]


@dataclass
class GradeResult:
    """A criterion's outcome: `unscored` means the check could not judge (and the criterion does not pass)."""

    status: Status
    reason: str
    evidence_ids: list[str] = field(default_factory=list)
    regressions: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.status == "pass"


@dataclass
class GradeContext:
    """One evaluation's shared state, handed to every grader."""

    contract: Contract
    repo: Path
    workdir: Path
    scratch: Path
    recorder: EvidenceRecorder
    settings: Settings
    base: str | None
    scope_files: list[str]
    static_report: Callable[[], Awaitable[Any]]
    base_worktree: Callable[[], Awaitable[Path | None]]
    limiter: anyio.CapacityLimiter
    browser: Any = None
    child_env: Mapping[str, str] = field(default_factory=dict)

    def env_for(self, declared: Mapping[str, str]) -> dict[str, str]:
        """The child's extra variables: the check's env, `${NAME}` taken from the server's environment."""
        return {**self.child_env, **{k: expand(v, self.settings.env) for k, v in declared.items()}}

    def raw_paths(self, label: str) -> tuple[Path, Path]:
        """Fresh files for a command's raw output, outside the evaluated tree."""
        return self.scratch / f"{label}.stdout", self.scratch / f"{label}.stderr"


class Grader(Protocol):
    async def __call__(self, ctx: GradeContext, criterion: Criterion) -> GradeResult: ...


_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand(value: str, source: Mapping[str, str]) -> str:
    """Replace `${NAME}` with the server environment's value (empty when unset): secrets stay out of contracts."""
    return _REFERENCE.sub(lambda m: source.get(m.group(1), ""), value)


def unscored(reason: str, evidence_ids: list[str] | None = None) -> GradeResult:
    return GradeResult(status="unscored", reason=reason, evidence_ids=evidence_ids or [])


def working_dir(ctx: GradeContext, cwd: str | None, root: Path | None = None) -> Path | None:
    """The check's cwd inside the evaluated tree, or None when it escapes the tree."""
    top = (root or ctx.workdir).resolve()
    target = (top / (cwd or ".")).resolve()
    return target if target == top or top in target.parents else None
