"""Hold-out files: what `add_holdout_files` accepts and returns."""

from __future__ import annotations

from pydantic import Field

from referee.tools.errors import Problem
from referee.tools.models.common import Model

__all__ = ["AddHoldoutFilesInput", "AddHoldoutFilesResult", "HoldoutContent", "HoldoutFileInfo"]


class HoldoutContent(Model):
    """A hold-out file given inline."""

    path: str
    content: str


class AddHoldoutFilesInput(Model):
    """Everything `add_holdout_files` accepts."""

    # The tool's description says what each field does: tools/list has a budget.
    contract_id: str
    paths: list[str] = Field(default_factory=list)
    files: list[HoldoutContent] = Field(default_factory=list)
    to: str | None = None
    criterion: str | None = None
    keep: bool = False


class HoldoutFileInfo(Model):
    """One stored hold-out file."""

    path: str = Field(description="Where it lies in the tree when a hold-out check runs")
    sha256: str
    size: int
    criterion: str | None = Field(default=None, description="Its criterion; null: every hold-out")
    added_at: str
    replaced: bool = Field(
        default=False, description="An earlier version of this path was replaced"
    )


class AddHoldoutFilesResult(Model):
    """What `add_holdout_files` returns."""

    contract_id: str
    files: list[HoldoutFileInfo] = Field(description="The files stored by this call")
    stored: int = Field(description="How many hold-out files the contract now has")
    removed: list[str] = Field(
        default_factory=list,
        description="Files read from the working tree and removed from it once stored",
    )
    warnings: list[Problem] = Field(
        default_factory=list,
        description="A file still in the generator's tree or in the repository's history",
    )
