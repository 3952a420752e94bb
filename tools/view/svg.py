"""Plots as inline SVG drawn here: nothing fetched from a CDN (the machines that run referee and
many CI runners reach no network), nothing to install. Each figure has a text alternative and a
table of its numbers beside it, for screen readers and for reading exact values."""

from __future__ import annotations

import html

from referee.tools.view.pages import AgreementBar, Plot

# Colours with at least 3:1 contrast against white (WCAG's bar for graphics), told apart also
# by the marker each line carries.
COLOURS = ("#1f4fbf", "#b42318", "#067647", "#7a2e9a", "#8a5a00", "#0e6a7a", "#4a4a4a")
MARKERS = ("circle", "square", "diamond")
W, H, PAD = 560, 220, 40


def _x(i: int, n: int) -> float:
    return PAD + (W - 2 * PAD) * (i / max(n - 1, 1))


def _y(v: float, top: float) -> float:
    return H - PAD - (H - 2 * PAD) * (v / top if top else 0)


def _marker(kind: str, x: float, y: float, colour: str) -> str:
    if kind == "square":
        return f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{colour}"/>'
    if kind == "diamond":
        pts = f"{x:.1f},{y - 5:.1f} {x + 5:.1f},{y:.1f} {x:.1f},{y + 5:.1f} {x - 5:.1f},{y:.1f}"
        return f'<polygon points="{pts}" fill="{colour}"/>'
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"/>'


def _axes(plot: Plot) -> str:
    n = len(plot.xs)
    ticks = "".join(
        f'<text x="{_x(i, n):.1f}" y="{H - PAD + 16}" text-anchor="middle">{x}</text>'
        for i, x in enumerate(plot.xs)
    )
    levels = "".join(
        f'<line x1="{PAD}" x2="{W - PAD}" y1="{_y(v, plot.y_max):.1f}" y2="{_y(v, plot.y_max):.1f}"'
        f' class="grid"/><text x="{PAD - 6}" y="{_y(v, plot.y_max) + 4:.1f}"'
        f' text-anchor="end">{v:g}</text>'
        for v in (0, plot.y_max / 2, plot.y_max)
    )
    label = html.escape(plot.x_label)
    return levels + ticks + f'<text x="{W / 2}" y="{H - 4}" text-anchor="middle">{label}</text>'


def _line(plot: Plot, k: int) -> str:
    s, n = plot.series[k], len(plot.xs)
    colour, marker = COLOURS[k % len(COLOURS)], MARKERS[k % len(MARKERS)]
    points = [(_x(i, n), _y(v, plot.y_max)) for i, v in enumerate(s.values) if v is not None]
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    dots = "".join(_marker(marker, x, y, colour) for x, y in points)
    return (
        f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>{dots}'
        f'<text x="{W - PAD + 4}" y="{PAD + 14 * k}" fill="{colour}">{html.escape(s.label)}</text>'
    )


def line_chart(plot: Plot, ident: str) -> str:
    """A line per series over the iterations, with a legend, as an `<svg>` element."""
    lines = "".join(_line(plot, k) for k in range(len(plot.series)))
    title = html.escape(plot.title)
    return (
        f'<svg role="img" aria-labelledby="{ident}" viewBox="0 0 {W + 120} {H}" class="plot">'
        f'<title id="{ident}">{title}: see the table below</title>{_axes(plot)}{lines}</svg>'
    )


def agreement_bars(bars: list[AgreementBar], ident: str) -> str:
    """One bar per evaluator (and prompt version): the share of verdicts a human agreed with,
    labelled with the count and Cohen's kappa."""
    row = 30
    height = PAD + row * max(len(bars), 1)
    body = "".join(_bar(b, i, row) for i, b in enumerate(bars))
    return (
        f'<svg role="img" aria-labelledby="{ident}" viewBox="0 0 {W + 120} {height}"'
        f' class="plot"><title id="{ident}">Agreement with humans per evaluator: see the table'
        f" below</title>{body}</svg>"
    )


def _bar(b: AgreementBar, i: int, row: int) -> str:
    y = 10 + i * row
    width = (W - 200) * b.rate
    kappa = "κ undefined" if b.kappa is None else f"κ {b.kappa:.2f}"
    label = html.escape(b.label)
    return (
        f'<text x="0" y="{y + 15}">{label}</text>'
        f'<rect x="200" y="{y}" width="{W - 200}" height="20" class="track"/>'
        f'<rect x="200" y="{y}" width="{width:.1f}" height="20" fill="{COLOURS[0]}"/>'
        f'<text x="{W + 6}" y="{y + 15}">{b.rate:.0%} of {b.count} · {kappa}</text>'
    )
