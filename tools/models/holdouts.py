"""Hold-out files: what `add_holdout_files` accepts and returns."""

from __future__ import annotations

from pydantic import Field

from referee.tools.errors import Problem
from referee.tools.models.common import Model

__all__ = ["AddHoldoutFilesInput", "AddHoldoutFilesResult", "HoldoutContent", "HoldoutFileInfo"]


class HoldoutContent(Model):
    """A hold-out file given inline: it never has to exist in the generator's tree."""

    path: str = Field(
        description="Where the file lies in the tree when its check runs, e.g. tests/test_x.py"
    )
    content: str = Field(description="The file's text (UTF-8)")


class AddHoldoutFilesInput(Model):
    """Everything `add_holdout_files` accepts."""

    contract_id: str = Field(description="The contract whose hold-out criteria these files serve")
    paths: list[str] = Field(
        default_factory=list,
        description=(
            "Files or folders to copy into referee's hold-out store; inside the repository they"
            " keep their repository path unless `to` is given"
        ),
    )
    files: list[HoldoutContent] = Field(
        default_factory=list, description="Files given inline (path in the tree, content)"
    )
    to: str | None = Field(
        default=None,
        description="Tree folder to lay `paths` in (required for paths outside the repository)",
    )
    criterion: str | None = Field(
        default=None,
        description="The hold-out criterion these files serve; default every hold-out criterion",
    )


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
    warnings: list[Problem] = Field(
        default_factory=list,
        description="A file still in the generator's tree or in the repository's history",
    )
