"""Anti-gaming: a copy of the evaluated tree whose changed files mean the same but read differently.

A judge that scores the original and the perturbed copy differently was swayed by form (comments,
names, layout), not content. The gaming indicator G = |original − perturbed| / original tells how
much: below 0.1 clean, 0.1–0.3 suspect, above 0.3 gaming, which costs the original score 20%.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import anyio.to_thread
from pydantic import Field

from referee.tools import pysource
from referee.tools.models.common import Model
from referee.tools.models.evaluation import Perturbation
from referee.tools.perturbation.comments import Unparsable, strip_parsed, strip_plain
from referee.tools.perturbation.python_source import perturb_python
from referee.tools.repo import STORE_DIR, is_git_repo, list_files
from referee.tools.static.paths import language_of, parsed_language
from referee.tools.text import counted

__all__ = [
    "GAMING_PENALTY",
    "GamingBand",
    "GamingCheck",
    "PerturbedCopy",
    "PerturbedFile",
    "SemanticsCheck",
    "build_perturbed_copy",
    "copy_perturbed",
    "gaming_indicator",
    "perturb_source",
]

GamingBand = Literal["clean", "suspect", "gaming"]
SemanticsCheck = Callable[[Path, list[str]], Awaitable[bool | None]]
GAMING_PENALTY = 0.2
_SUSPECT_FROM, _GAMING_ABOVE = 0.1, 0.3


class PerturbedFile(Model):
    """One file after perturbation (or as it was, with the reason)."""

    path: str
    text: str = Field(description="The perturbed text; the original when nothing could be done")
    language: str | None = None
    perturbed: bool = False
    transforms: list[str] = Field(default_factory=list)
    note: str | None = Field(default=None, description="Why the file was left unchanged")


class GamingCheck(Model):
    """The gaming indicator for one pair of scores (original and perturbed copy)."""

    original: float
    perturbed: float
    g: float = Field(description="|original − perturbed| / original")
    band: GamingBand
    penalty: float = Field(
        description="Fraction taken off the original score: 0.2 when gaming, else 0"
    )
    adjusted: float = Field(description="The original score after the penalty")


def perturb_source(path: str, text: str) -> PerturbedFile:
    """Perturb one source file without changing what it does.

    Python: comments and docstrings stripped, the import block sorted and grouped, local names and
    private parameters renamed v1, v2 …, layout rewritten by `ast.unparse`. Languages with a
    tree-sitter grammar: comments stripped, blank lines collapsed. Other known languages: whole-line
    comments stripped when safe. Anything else, or a file that does not parse, is returned
    unchanged.

    Args:
        path: Repository-relative path (its extension selects the language).
        text: The file's text.

    Returns:
        The perturbed file; `perturbed` false and `note` set when it was left as it was.
    """
    language = language_of(path)
    if language is None:
        return PerturbedFile(path=path, text=text, note="not a source file")
    try:
        new, transforms = _perturb(path, text, language)
    except (SyntaxError, ValueError, RecursionError) as exc:
        return PerturbedFile(path=path, text=text, language=language, note=_why(exc))
    return PerturbedFile(
        path=path, text=new, language=language, perturbed=new != text, transforms=transforms
    )


def _perturb(path: str, text: str, language: str) -> tuple[str, list[str]]:
    if language == "python":
        new, transforms = perturb_python(text)
        with pysource.exclusive():
            compile(new, path, "exec")  # a bug here must never hand the judge broken code
        return new, transforms
    grammar = parsed_language(path)
    return strip_parsed(text, grammar) if grammar else strip_plain(text, language)


def _why(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"does not parse: {exc.msg} (line {exc.lineno})"
    if isinstance(exc, RecursionError):
        return "too deeply nested to rewrite"
    return str(exc) if isinstance(exc, Unparsable) else f"cannot be rewritten: {exc}"


@dataclass
class _Copied:
    perturbed: list[str] = field(default_factory=list)
    transforms: set[str] = field(default_factory=set)
    unchanged: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PerturbedCopy:
    """The copy made, before its semantics are judged: `perturbed` lists the changed files."""

    dest: Path
    copied: _Copied

    @property
    def perturbed(self) -> list[str]:
        return self.copied.perturbed

    def perturbation(self, kept: bool | None) -> Perturbation:
        """The perturbation for the evaluation result, with whether the semantics were kept."""
        return Perturbation(
            path=str(self.dest),
            files=self.copied.perturbed,
            transforms=sorted(self.copied.transforms),
            semantics_kept=kept,
            instructions=_instructions(self.dest, self.copied, kept),
        )


async def copy_perturbed(workdir: Path, changed: list[str], dest: Path) -> PerturbedCopy:
    """Copy the working tree to `dest` with every changed source file perturbed (the first half
    of `build_perturbed_copy`, for a caller that judges the semantics in steps).

    Raises:
        FileExistsError: `dest` exists and is not empty.
    """
    if dest.exists() and any(dest.iterdir()):
        raise FileExistsError(f"{dest} is not empty")
    copied = await anyio.to_thread.run_sync(_copy_tree, workdir, changed, dest)
    return PerturbedCopy(dest, copied)


async def build_perturbed_copy(
    workdir: Path, changed: list[str], dest: Path, *, check_semantics: SemanticsCheck | None
) -> Perturbation:
    """Copy the working tree to `dest` with every changed source file perturbed, and check it still
    behaves.

    Args:
        workdir: The evaluated tree (tracked plus untracked-but-not-ignored files are copied;
        `.referee/` is not).
        changed: Repository-relative paths to perturb (the task's changed files).
        dest: A folder that does not exist yet or is empty.
        check_semantics: Re-runs the contract's tests checks with the perturbed files (given the
            copy and the perturbed paths): True when they pass, False when not, None when there
            are none. Omitted: `semantics_kept` stays None.

    Returns:
        The perturbation for the evaluation result: path, perturbed files, transforms, whether the
        semantics were kept, and instructions for the judge. `evidence_ids` is left to the caller.

    Raises:
        FileExistsError: `dest` exists and is not empty.
    """
    made = await copy_perturbed(workdir, changed, dest)
    kept = await check_semantics(dest, made.perturbed) if check_semantics is not None else None
    return made.perturbation(kept)


def _copy_tree(workdir: Path, changed: list[str], dest: Path) -> _Copied:
    dest.mkdir(parents=True, exist_ok=True)
    copied = _Copied()
    for relative in _tree_files(workdir, dest):
        try:
            _copy_one(workdir / relative, dest / relative)
        except OSError as exc:  # one unreadable file must not cost the whole copy
            copied.unchanged[relative] = f"could not be copied: {exc.strerror or exc}"
    for relative in changed:
        if (workdir / relative).is_file() and not (workdir / relative).is_symlink():
            _perturb_into(workdir / relative, dest / relative, relative, copied)
    return copied


def _copy_one(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir() and not source.is_symlink():  # a submodule: git lists its folder
        shutil.copytree(
            source, target, symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git")
        )
    else:
        shutil.copy2(source, target, follow_symlinks=False)


def _tree_files(workdir: Path, dest: Path) -> list[str]:
    if is_git_repo(workdir):
        return list_files(workdir)
    skip = {STORE_DIR, ".git"}
    found = []
    for folder, dirs, files in os.walk(workdir):
        dirs[:] = [d for d in dirs if d not in skip and Path(folder, d).resolve() != dest.resolve()]
        found += [os.path.relpath(os.path.join(folder, f), workdir) for f in files]
    return sorted(found)


def _perturb_into(source: Path, target: Path, relative: str, copied: _Copied) -> None:
    try:
        text = source.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return  # binary or unreadable: already copied as it is
    result = perturb_source(relative, text)
    if result.note and result.language is not None:
        copied.unchanged[relative] = result.note
    if not result.perturbed:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(result.text, encoding="utf-8")
    copied.perturbed.append(relative)
    copied.transforms.update(result.transforms)


def _instructions(dest: Path, copied: _Copied, kept: bool | None) -> str:
    done = ", ".join(sorted(copied.transforms)) or "nothing could be changed"
    parts = [
        (
            f"A perturbed copy of the evaluated tree is at {dest}. In its"
            f" {counted(len(copied.perturbed), 'changed source file')}: {done}. The code does the"
            " same; only its form differs."
        ),
        (
            "Score the copy as a fresh evaluation with the same rubric and criteria, reading only"
            ' the copy, and submit that scorecard to validate_scorecard with variant: "perturbed"'
            " (same contract, evaluator and iteration)."
        ),
        (
            "referee then compares the two weighted scores: G = |original − perturbed| / original;"
            " below 0.1 clean, 0.1–0.3 suspect, above 0.3 gaming (the original score loses 20%)."
        ),
    ]
    if kept is False:
        parts.append(
            "Caution: the tests checks fail on the copy, so the perturbation may have changed"
            " behaviour; do not read a lower perturbed score as gaming without checking."
        )
    elif kept is None:
        parts.append("No tests check confirmed that the copy behaves like the original.")
    if copied.unchanged:
        left = "; ".join(f"{path} ({why})" for path, why in sorted(copied.unchanged.items()))
        parts.append(f"Left unchanged: {left}.")
    return " ".join(parts)


def gaming_indicator(original: float, perturbed: float) -> GamingCheck:
    """Compare the scores of the original and the perturbed copy.

    Args:
        original: The original weighted (or normalized) score.
        perturbed: The perturbed copy's score on the same scale.

    Returns:
        G = |original − perturbed| / original (an original of 0 gives G 0 when both are equal, else
        1),
        its band (< 0.1 clean, 0.1–0.3 suspect, > 0.3 gaming) and, when gaming, the 20% penalty.
    """
    if original == 0:
        g = 0.0 if perturbed == 0 else 1.0
    else:
        g = round(abs(original - perturbed) / abs(original), 9)  # 0.30000000000000004 is 0.3
    band: GamingBand = (
        "gaming" if g > _GAMING_ABOVE else "suspect" if g >= _SUSPECT_FROM else "clean"
    )
    penalty = GAMING_PENALTY if band == "gaming" else 0.0
    return GamingCheck(
        original=original,
        perturbed=perturbed,
        g=round(g, 4),
        band=band,
        penalty=penalty,
        adjusted=round(original * (1 - penalty), 4),
    )
