"""`screenshot` expectations (toHaveScreenshot) on a real page in a real Chromium: no baseline
yet, the same look, a changed colour, a changed size, a masked clock, a tolerance, a baseline
replaced outside referee."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from browser_pages import browser_check, run
from PIL import Image

from referee.tools.browser.baselines import Baseline, BaselineStore
from referee.tools.browser.chromium import ChromiumNotFound, find_chromium
from referee.tools.browser.pixels import UnreadableImage, compare
from referee.tools.browser.pool import BrowserPool
from referee.tools.store.integrity import StoreTampered

try:
    find_chromium()
except ChromiumNotFound as exc:
    pytest.skip(f"no Chromium to drive ({exc})", allow_module_level=True)

pytestmark = [pytest.mark.slow, pytest.mark.anyio, pytest.mark.browser]

CLOCK = "#clock"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def _check(look: str = "", **shot: Any) -> Any:
    expect = {"type": "screenshot", "name": "plan", "mask": [CLOCK], **shot}
    return browser_check(f"/shot.html#{look}", expect=[expect])


async def _shoot(
    pool: BrowserPool, base_url: str, folder: Path, baseline: bytes | None, **kw: Any
) -> Any:
    check = _check(**kw)
    return await run(pool, check, folder, base_url, name="AC-1", baselines=lambda _: baseline)


async def _baseline(pool: BrowserPool, base_url: str, folder: Path) -> bytes:
    first = await _shoot(pool, base_url, folder, None)
    return Path(first.images[0]).read_bytes()


async def test_no_baseline_leaves_the_image_to_the_judge(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    outcome = await _shoot(pool, base_url, tmp_path, None)
    assert outcome.status == "unscored" and outcome.passed is None, outcome.reason
    assert "no baseline yet" in outcome.reason and "AC-1.shot-plan.actual.png" in outcome.reason
    assert [Path(p).name for p in outcome.images] == ["AC-1.shot-plan.actual.png"]
    with Image.open(outcome.images[0]) as image:
        assert image.format == "PNG"


async def test_the_same_look_holds_and_a_changed_colour_fails_with_its_diff(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    baseline = await _baseline(pool, base_url, tmp_path / "first")
    # The clock differs on every load and the spinner moves: masked and stopped, they match.
    same = await _shoot(pool, base_url, tmp_path / "same", baseline)
    assert same.status == "pass", same.reason
    changed = await _shoot(pool, base_url, tmp_path / "red", baseline, look="red")
    assert changed.status == "fail", changed.reason
    assert "pixels" in changed.reason and "more than the 0 allowed" in changed.reason
    names = sorted(Path(p).name for p in changed.images)
    assert names == ["AC-1.shot-plan.actual.png", "AC-1.shot-plan.diff.png"]


async def test_a_tolerance_lets_a_small_change_through(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    baseline = await _baseline(pool, base_url, tmp_path / "first")
    loose = await _shoot(pool, base_url, tmp_path / "loose", baseline, look="red",
                         max_diff_pixel_ratio=0.5)  # fmt: skip
    assert loose.status == "pass", loose.reason
    # A colour change past the threshold counts; one within it does not.
    within = await _shoot(pool, base_url, tmp_path / "t", baseline, look="red", threshold=1.0)
    assert within.status == "pass", within.reason


async def test_an_element_that_changed_size_is_told_by_its_sizes(
    pool: BrowserPool, base_url: str, tmp_path: Path
) -> None:
    first = await _shoot(pool, base_url, tmp_path / "first", None, selector="#badge")
    baseline = Path(first.images[0]).read_bytes()
    wider = await _shoot(pool, base_url, tmp_path / "wide", baseline, selector="#badge",
                         look="wide")  # fmt: skip
    assert wider.status == "fail" and "the baseline" in wider.reason, wider.reason
    assert "×" in wider.reason


async def test_a_baseline_replaced_outside_referee_is_refused(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path / "baselines", b"k" * 32)
    png = _png((0, 0, 0))
    import hashlib

    record = Baseline("SC-1", "AC-1", "plan", hashlib.sha256(png).hexdigest(), "R1", "by hand", "t")
    image = store.save(Baseline(**{**record.__dict__, "png": png}))
    assert store.load("SC-1", "AC-1", "plan").png == png  # type: ignore[union-attr]
    image.write_bytes(_png((255, 255, 255)))  # the generator's own page, say
    with pytest.raises(StoreTampered):
        store.load("SC-1", "AC-1", "plan")
    other = BaselineStore(tmp_path / "baselines", b"j" * 32)  # another store's key
    image.write_bytes(png)
    with pytest.raises(StoreTampered):
        other.load("SC-1", "AC-1", "plan")
    assert store.load("SC-1", "AC-1", "none") is None
    with pytest.raises(ValueError):
        store.load("../x", "AC-1", "plan")


def test_an_image_that_is_no_png_or_too_large_is_said_so() -> None:
    with pytest.raises(UnreadableImage, match="as a PNG"):
        compare(b"GIF89a", _png((0, 0, 0)), 0.2)
    huge = io.BytesIO()
    Image.new("1", (7000, 7000)).save(huge, format="PNG")
    with pytest.raises(UnreadableImage, match="past the"):
        compare(huge.getvalue(), _png((0, 0, 0)), 0.2)


def _png(colour: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(out, format="PNG")
    return out.getvalue()
