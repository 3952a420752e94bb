"""Comparing a screenshot with its baseline, pixel by pixel (Pillow).

A pixel differs when one of its channels (red, green, blue, alpha) moved by more than
`threshold` of the channel's range: simpler than Playwright Test's perceptual (YIQ) distance and
as strict for the changes a review cares about (a colour, a moved element, a missing one), and
anti-aliasing noise stays under the default 0.2. Images of different sizes differ as a whole,
said with both sizes. The diff image shows the baseline greyed with every differing pixel red,
as Playwright's does.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageChops

__all__ = ["MAX_PIXELS", "PixelDiff", "UnreadableImage", "compare"]

MAX_PIXELS = 40_000_000
"""The largest image compared (about 6,300 × 6,300): a page that makes its full-page screenshot
larger is refused with its size rather than decoded."""


class UnreadableImage(ValueError):
    """A PNG that cannot be decoded, or one past MAX_PIXELS."""


@dataclass(frozen=True)
class PixelDiff:
    differing: int
    total: int
    size: tuple[int, int]
    baseline_size: tuple[int, int]
    image: bytes | None = None  # the diff as a PNG; None when nothing differs

    @property
    def same_size(self) -> bool:
        return self.size == self.baseline_size

    @property
    def ratio(self) -> float:
        return self.differing / self.total if self.total else 0.0


def compare(actual: bytes, baseline: bytes, threshold: float) -> PixelDiff:
    """Count the pixels of `actual` that differ from `baseline` by more than `threshold`.

    Raises:
        UnreadableImage: either image is no PNG Pillow decodes, or is too large.
    """
    now, then = _open(actual, "the screenshot"), _open(baseline, "the baseline")
    if now.size != then.size:
        total = max(now.width * now.height, then.width * then.height)
        return PixelDiff(total, total, now.size, then.size)
    # The largest channel difference of each pixel, then those past the threshold.
    delta = ImageChops.difference(now, then)
    widest = _widest_channel(delta)
    cut = int(threshold * 255)
    differing = sum(widest.histogram()[cut + 1 :])
    total = now.width * now.height
    image = None
    if differing:
        image = _diff_image(then, widest.point(lambda v: 255 if v > cut else 0, mode="1"))
    return PixelDiff(differing, total, now.size, then.size, image)


def _open(data: bytes, what: str) -> Image.Image:
    try:
        with Image.open(io.BytesIO(data)) as found:
            if found.format != "PNG":
                raise UnreadableImage(f"{what} is not a PNG")
            if found.width * found.height > MAX_PIXELS:
                raise UnreadableImage(
                    f"{what} is {found.width}×{found.height}, past the {MAX_PIXELS:,} pixels"
                    " compared"
                )
            return found.convert("RGBA")
    except (OSError, Image.DecompressionBombError, SyntaxError) as exc:
        raise UnreadableImage(f"{what} cannot be read as a PNG: {exc}") from exc


def _widest_channel(delta: Image.Image) -> Image.Image:
    channels = delta.split()
    widest = channels[0]
    for channel in channels[1:]:
        widest = ImageChops.lighter(widest, channel)
    return widest


def _diff_image(baseline: Image.Image, mask: Image.Image) -> bytes:
    faded = Image.blend(baseline.convert("L").convert("RGBA"), _white(baseline.size), 0.7)
    red = Image.new("RGBA", baseline.size, (220, 20, 20, 255))
    out = io.BytesIO()
    Image.composite(red, faded, mask).save(out, format="PNG")
    return out.getvalue()


def _white(size: tuple[int, int]) -> Image.Image:
    return Image.new("RGBA", size, (255, 255, 255, 255))
