"""The `screenshot` expectation (`toHaveScreenshot`): the page, or one element, against the
baseline the store keeps for it.

As Playwright Test does, the image is taken with animations stopped and the caret hidden, again
until two shots in a row agree (a page still painting is not compared), and what `mask` names is
painted over. Every image a run takes is kept as evidence (`<criterion>.shot-<name>.actual.png`,
and `.diff.png` beside it when pixels differ), so the judge and a person see what was compared.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from referee.tools.browser.baselines import shot_file
from referee.tools.browser.locators import locate
from referee.tools.browser.messages import error_text
from referee.tools.browser.pixels import UnreadableImage, compare
from referee.tools.models.browser import ScreenshotExpect
from referee.tools.store.integrity import StoreTampered

__all__ = ["ShotJudgement", "ShotSource", "judge_screenshot"]

_MASK = "#FF00FF"
_TRIES = 5


@dataclass
class ShotSource:
    """Where a check's screenshots are kept, and its criterion's baselines."""

    folder: Path
    criterion: str
    baseline: Callable[[str], bytes | None]
    """The baseline of a name, None without one; raises StoreTampered for one that was
    replaced outside referee."""
    images: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ShotJudgement:
    ok: bool
    detail: str
    pending: str = ""  # no baseline yet: the judge reads the image


async def judge_screenshot(
    page: Page, exp: ScreenshotExpect, wait_ms: float, source: ShotSource
) -> ShotJudgement:
    try:
        baseline = source.baseline(exp.name)
    except StoreTampered as exc:
        return ShotJudgement(False, f"the baseline {exp.name!r} is refused: {exc}")
    try:
        shot = await _stable_shot(page, exp, wait_ms)
    except PlaywrightError as exc:
        return ShotJudgement(False, f"no screenshot could be taken: {error_text(exc)}")
    actual = _keep(source, exp.name, "actual", shot)
    if baseline is None:
        return ShotJudgement(
            True,
            "",
            pending=(
                f"screenshot {exp.name!r} has no baseline yet: this run's image is kept ({actual});"
                " the judge reads it, and it becomes the baseline when this iteration is delivered"
                " (or with `referee baseline accept`)"
            ),
        )
    try:
        diff = compare(shot, baseline, exp.threshold)
    except UnreadableImage as exc:
        return ShotJudgement(False, str(exc))
    if not diff.same_size:
        (w, h), (bw, bh) = diff.size, diff.baseline_size
        return ShotJudgement(False, f"the image is {w}×{h}, the baseline {bw}×{bh}")
    allowed = exp.max_diff_pixels
    if exp.max_diff_pixel_ratio is not None:
        allowed = max(allowed, int(exp.max_diff_pixel_ratio * diff.total))
    share = f"{diff.differing} of {diff.total} pixels ({diff.ratio:.2%}) differ"
    if diff.differing <= allowed:
        return ShotJudgement(True, f"{share}; at most {allowed} may")
    where = _keep(source, exp.name, "diff", diff.image) if diff.image else ""
    return ShotJudgement(
        False, f"{share} from the baseline, more than the {allowed} allowed; the diff: {where}"
    )


async def _stable_shot(page: Page, exp: ScreenshotExpect, wait_ms: float) -> bytes:
    """Shots until two in a row are the same, within the wait; the last one taken."""
    # One capture for the whole page or an element; only the page takes full_page.
    options: dict[str, Any] = {
        "animations": "disabled",
        "caret": "hide",
        "mask": [locate(page, m) for m in exp.mask],
        "mask_color": _MASK,
        "scale": "css",
    }
    if exp.selector is None:
        capture = partial(page.screenshot, full_page=exp.full_page, **options)
    else:
        capture = partial(locate(page, exp.selector).screenshot, **options)
    end = time.monotonic() + wait_ms / 1000
    previous: bytes | None = None
    for _ in range(_TRIES):
        shot = await capture(timeout=max(1.0, (end - time.monotonic()) * 1000))
        if shot == previous or time.monotonic() >= end:
            return shot
        previous = shot
    return shot


def _keep(source: ShotSource, name: str, kind: str, data: bytes) -> str:
    path = source.folder / shot_file(source.criterion, name, kind)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    source.images.append(str(path))
    return path.name
