"""Rating-history charts (Pillow -> PNG bytes). No Discord here: the cogs attach the bytes.

Pillow draws lines without anti-aliasing, so the chart is drawn at ``SUPERSAMPLE`` times its
size and scaled down by averaging each block of pixels (a box filter: no ringing, so no colour
is brighter than the one drawn): edges of lines, dots and text come out smooth.
"""

from __future__ import annotations

import datetime as dt
import io
import math
from collections.abc import Mapping, Sequence

from PIL import Image, ImageDraw

from render import text
from render.theme import RGB

Point = tuple[float, float]  # (Unix time in seconds, rating)

SUPERSAMPLE = 3
DEFAULT_WIDTH = 800
DEFAULT_HEIGHT = 400
MIN_WIDTH, MAX_WIDTH = 240, 2000
MIN_HEIGHT, MAX_HEIGHT = 160, 1200
#: Dots mark each game only while they stay readable.
MAX_DOTS = 60
MAX_SERIES = 8
#: Ratings outside this band are clipped: a corrupt value must not flatten the whole chart.
RATING_LIMIT = 1e6

BACKGROUND: RGB = (43, 45, 49)  # Discord's dark chat background, so the picture blends in
PLOT: RGB = (49, 51, 56)
GRID: RGB = (72, 75, 82)
BASELINE: RGB = (120, 124, 132)
TEXT: RGB = (230, 231, 233)
TEXT_DIM: RGB = (160, 164, 171)
#: The first series (the overall rating) in white (brighter than the text), the others in the
#: Okabe-Ito palette, which stays distinguishable for the common kinds of colour blindness.
COLOURS: tuple[RGB, ...] = (
    (255, 255, 255),
    (230, 159, 0),
    (86, 180, 233),
    (0, 158, 115),
    (240, 228, 66),
    (0, 114, 178),
    (213, 94, 0),
    (204, 121, 167),
)

_DAY = 86400.0
# Candidate spacings of the time axis, smallest first.
_TIME_STEPS = (
    3600.0,
    3 * 3600.0,
    6 * 3600.0,
    12 * 3600.0,
    _DAY,
    2 * _DAY,
    7 * _DAY,
    14 * _DAY,
    30 * _DAY,
    91 * _DAY,
    182 * _DAY,
    365 * _DAY,
    5 * 365 * _DAY,
)


def _clean(points: Sequence[Point]) -> list[Point]:
    """Finite points only (ratings clipped to a sane band), in time order."""
    out: list[Point] = []
    for point in points:
        try:
            t, r = float(point[0]), float(point[1])
        except (TypeError, ValueError, IndexError, OverflowError):
            continue
        if math.isfinite(t) and math.isfinite(r) and abs(t) < 1e11:
            out.append((t, max(-RATING_LIMIT, min(RATING_LIMIT, r))))
    out.sort(key=lambda p: p[0])
    return out


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round values (1, 2 or 5 times a power of ten apart) spanning about ``count`` steps."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low] if math.isfinite(low) else []
    raw = (high - low) / max(1, count)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next((m * power for m in (1.0, 2.0, 5.0, 10.0) if m * power >= raw), 10.0 * power)
    first = math.ceil(low / step) * step
    ticks: list[float] = []
    value = first
    while value <= high + step * 1e-9 and len(ticks) < 50:
        ticks.append(0.0 if abs(value) < step * 1e-9 else value)
        value = first + step * len(ticks)
    return ticks


def time_ticks(low: float, high: float, count: int = 5) -> tuple[list[float], str]:
    """Tick times (UTC-aligned multiples of a round step) and the strftime format for them."""
    span = max(high - low, 1.0)
    step = next((s for s in _TIME_STEPS if span / s <= count), _TIME_STEPS[-1])
    while span / step > 50:  # beyond the largest candidate: keep the count bounded
        step *= 2
    first = math.ceil(low / step) * step
    ticks = [first + i * step for i in range(int((high - first) // step) + 1)]
    if step < _DAY:
        fmt = "%d %b %H:%M"
    elif step < 30 * _DAY:
        fmt = "%d %b"
    else:
        fmt = "%b %Y"
    return ticks, fmt


def _date(t: float, fmt: str) -> str:
    try:
        return dt.datetime.fromtimestamp(t, dt.UTC).strftime(fmt)
    except (OverflowError, OSError, ValueError):
        return ""


def _rating_label(value: float) -> str:
    return f"{value:.0f}"


def render_rating_chart(
    series: Mapping[str, Sequence[Point]],
    *,
    title: str = "",
    baseline: float | None = 1500.0,
    width: int = DEFAULT_WIDTH,
    height: int = DEFAULT_HEIGHT,
) -> bytes:
    """A line chart of ratings over time as PNG bytes.

    ``series`` maps a legend label to its ``(time, rating)`` points (Unix seconds); the first
    series is drawn on top in the most prominent colour. Empty series are left out of the
    legend; with no point at all the chart says so. ``baseline`` (the starting rating) is drawn
    as a dashed line when it falls near the plotted range. Bad values (NaN, infinities,
    non-numbers) are skipped, never raised.
    """
    w = max(MIN_WIDTH, min(MAX_WIDTH, int(width)))
    h = max(MIN_HEIGHT, min(MAX_HEIGHT, int(height)))
    s = SUPERSAMPLE
    im = Image.new("RGB", (w * s, h * s), BACKGROUND)
    draw = ImageDraw.Draw(im)

    lines = [(str(label), _clean(points)) for label, points in series.items()]
    lines = [(label, pts) for label, pts in lines if pts][:MAX_SERIES]

    title_size, label_size = 16, 12
    pad = 12
    top = pad + (title_size + 10 if title else 0)
    if title:
        avail = (w - 2 * pad) * s
        shown = text.fit(title, title_size * s, True, avail)
        text.draw(im, (pad * s, pad * s), shown, TEXT, title_size * s, True)

    if not lines:
        centre = (w * s / 2, (top + h) * s / 2)
        text.draw(im, centre, "No rated games yet", TEXT_DIM, label_size * 3 // 2 * s, anchor="mm")
        return _png(im)

    all_points = [p for _, pts in lines for p in pts]
    t_lo = min(p[0] for p in all_points)
    t_hi = max(p[0] for p in all_points)
    r_lo = min(p[1] for p in all_points)
    r_hi = max(p[1] for p in all_points)
    if baseline is not None and math.isfinite(baseline):
        near = max(100.0, (r_hi - r_lo) / 2)
        if r_lo - near <= baseline <= r_hi + near:
            r_lo, r_hi = min(r_lo, baseline), max(r_hi, baseline)
        else:
            baseline = None
    else:
        baseline = None
    if t_hi - t_lo < 60.0:  # one moment: centre it in a one-day window
        t_lo, t_hi = t_lo - _DAY / 2, t_hi + _DAY / 2
    else:  # a little air so the first and last dots are not cut by the frame
        margin = (t_hi - t_lo) * 0.03
        t_lo, t_hi = t_lo - margin, t_hi + margin
    spread = max(r_hi - r_lo, 40.0)
    middle = (r_hi + r_lo) / 2
    r_lo, r_hi = middle - spread * 0.58, middle + spread * 0.58

    # Legend: one row of swatches along the top, right-aligned.
    legend_y = top + 2
    legend_items: list[tuple[str, RGB, float]] = []
    for i, (label, _) in enumerate(lines):
        name = text.fit(label, label_size * s, False, 200 * s)
        legend_items.append((name, COLOURS[i % len(COLOURS)], text.width(name, label_size * s)))
    legend_width = sum(lw / s + 30 for _, _, lw in legend_items)
    rows = 1 if legend_width <= w - 2 * pad else 2
    top = legend_y + rows * (label_size + 8) + 4
    x = float(w - pad) if rows == 1 else float(pad)
    y = float(legend_y)
    if rows == 1:
        x -= legend_width
    for name, colour, lw in legend_items:
        if rows == 2 and x + lw / s + 30 > w - pad:
            x, y = float(pad), y + label_size + 8
        sy = y + label_size / 2 + 1
        draw.line([(x * s, sy * s), ((x + 14) * s, sy * s)], fill=colour, width=3 * s)
        text.draw(im, ((x + 19) * s, y * s), name, TEXT, label_size * s)
        x += lw / s + 30

    # Plot area, leaving room for the axis labels.
    y_ticks = nice_ticks(r_lo, r_hi)
    label_w = max((text.width(_rating_label(v), label_size * s) / s for v in y_ticks), default=0)
    left = pad + label_w + 8.0
    right = float(w - pad)
    bottom = float(h - pad - label_size - 8)
    plot_top = float(top)
    if bottom - plot_top < 40 or right - left < 60:  # a tiny canvas: use what there is
        left, right, plot_top, bottom = 4.0, w - 4.0, min(plot_top, h / 3), h - 4.0
    draw.rectangle([left * s, plot_top * s, right * s, bottom * s], fill=PLOT)

    def px(t: float) -> float:
        return (left + (t - t_lo) / (t_hi - t_lo) * (right - left)) * s

    def py(r: float) -> float:
        return (bottom - (r - r_lo) / (r_hi - r_lo) * (bottom - plot_top)) * s

    for value in y_ticks:
        yy = py(value)
        draw.line([(left * s, yy), (right * s, yy)], fill=GRID, width=s)
        text.draw(
            im, ((left - 6) * s, yy), _rating_label(value), TEXT_DIM, label_size * s, anchor="rm"
        )
    ticks, fmt = time_ticks(t_lo, t_hi)
    last_end = -math.inf
    for t in ticks:
        xx = px(t)
        draw.line([(xx, plot_top * s), (xx, bottom * s)], fill=GRID, width=s)
        label = _date(t, fmt)
        half = text.width(label, label_size * s) / 2
        if xx - half > last_end + 8 * s and xx + half <= w * s:  # skip labels that would overlap
            text.draw(im, (xx, (bottom + 5) * s), label, TEXT_DIM, label_size * s, anchor="ma")
            last_end = xx + half
    if baseline is not None:
        yy = py(baseline)
        dash = 8 * s
        xx = left * s
        while xx < right * s:
            draw.line([(xx, yy), (min(xx + dash, right * s), yy)], fill=BASELINE, width=s)
            xx += 2 * dash

    # Series last to first, so the first (overall) is drawn on top.
    for i in reversed(range(len(lines))):
        _, pts = lines[i]
        colour = COLOURS[i % len(COLOURS)]
        xy = [(px(t), py(r)) for t, r in pts]
        thickness = (3 if i == 0 else 2) * s
        if len(xy) > 1:
            draw.line(xy, fill=colour, width=thickness, joint="curve")
        if len(xy) <= MAX_DOTS:
            radius = thickness * 1.3
            for cx, cy in xy:
                draw.ellipse([cx - radius, cy - radius, cx + radius, cy + radius], fill=colour)
    return _png(im)


def _png(im: Image.Image) -> bytes:
    small = im.reduce(SUPERSAMPLE)
    out = io.BytesIO()
    small.save(out, "PNG")
    return out.getvalue()


def render_win_chart(
    series: Sequence[float],
    *,
    title: str = "",
    label: str = "",
    breaks: Sequence[int] = (),
    width: int = DEFAULT_WIDTH,
    height: int = DEFAULT_HEIGHT,
) -> bytes:
    """A player's winning chances move by move (``series[i]`` in 0..1 after move ``i + 1``) as
    PNG bytes, with the 50 % line dashed and a thin vertical line before each index in
    ``breaks`` (where a new game of a match starts). Bad values are skipped, never raised."""
    w = max(MIN_WIDTH, min(MAX_WIDTH, int(width)))
    h = max(MIN_HEIGHT, min(MAX_HEIGHT, int(height)))
    s = SUPERSAMPLE
    im = Image.new("RGB", (w * s, h * s), BACKGROUND)
    draw = ImageDraw.Draw(im)
    title_size, label_size = 16, 12
    pad = 12
    top = pad + (title_size + 10 if title else 0)
    if title:
        shown = text.fit(title, title_size * s, True, (w - 2 * pad) * s)
        text.draw(im, (pad * s, pad * s), shown, TEXT, title_size * s, True)
    points = [
        (i + 1, min(1.0, max(0.0, float(v))))
        for i, v in enumerate(series)
        if isinstance(v, int | float) and math.isfinite(v)
    ]
    if label:
        y = top + 2
        draw.line(
            [((w - pad - 160) * s, (y + 7) * s), ((w - pad - 146) * s, (y + 7) * s)],
            fill=COLOURS[0],
            width=3 * s,
        )
        text.draw(
            im,
            ((w - pad - 141) * s, y * s),
            text.fit(label, label_size * s, False, 140 * s),
            TEXT,
            label_size * s,
        )
        top = y + label_size + 12
    if not points:
        centre = (w * s / 2, (top + h) * s / 2)
        text.draw(im, centre, "No moves to show", TEXT_DIM, label_size * 3 // 2 * s, anchor="mm")
        return _png(im)
    label_w = text.width("100%", label_size * s) / s
    left, right = pad + label_w + 8.0, float(w - pad)
    plot_top, bottom = float(top), float(h - pad - label_size - 8)
    draw.rectangle([left * s, plot_top * s, right * s, bottom * s], fill=PLOT)
    n = max(2, len(series))

    def px(x: float) -> float:
        return (left + (x - 1) / (n - 1) * (right - left)) * s

    def py(v: float) -> float:
        return (bottom - v * (bottom - plot_top)) * s

    for value in (0.0, 0.25, 0.5, 0.75, 1.0):
        yy = py(value)
        if value == 0.5:
            xx = left * s
            while xx < right * s:  # dashed: the even line
                draw.line([(xx, yy), (min(xx + 8 * s, right * s), yy)], fill=BASELINE, width=s)
                xx += 16 * s
        else:
            draw.line([(left * s, yy), (right * s, yy)], fill=GRID, width=s)
        text.draw(im, ((left - 6) * s, yy), f"{value:.0%}", TEXT_DIM, label_size * s, anchor="rm")
    for b in breaks:
        xx = px(b + 0.5)
        draw.line([(xx, plot_top * s), (xx, bottom * s)], fill=BASELINE, width=s)
    for tick in nice_ticks(1, n, 6):
        if 1 <= tick <= n and float(tick).is_integer():
            text.draw(
                im,
                (px(tick), (bottom + 5) * s),
                str(int(tick)),
                TEXT_DIM,
                label_size * s,
                anchor="ma",
            )
    xy = [(px(x), py(v)) for x, v in points]
    if len(xy) > 1:
        draw.line(xy, fill=COLOURS[0], width=3 * s, joint="curve")
    if len(xy) <= MAX_DOTS:
        for cx, cy in xy:
            r = 4 * s
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=COLOURS[0])
    return _png(im)


__all__ = ["Point", "nice_ticks", "render_rating_chart", "render_win_chart", "time_ticks"]
