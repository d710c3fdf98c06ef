"""Charts (Pillow -> PNG bytes): a player's rating history and a game's winning chances with
its mistakes marked. No Discord here: the callers attach the bytes (and write the alt text).

Pillow draws lines without anti-aliasing, so a chart is drawn at ``SUPERSAMPLE`` times its
size and scaled down by averaging each block of pixels (a box filter: no ringing, so no colour
is brighter than the one drawn): edges of lines, dots and text come out smooth.

Discord shows an embedded image about 400-550 px wide, so a default 800 px chart is seen at
about 0.6 of its size: the type sizes below are chosen for that (tick labels ~11 px seen).
"""

from __future__ import annotations

import datetime as dt
import io
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from render import text
from render.theme import RGB, Theme, get_theme

Point = tuple[float, float]  # (Unix time in seconds, rating)

SUPERSAMPLE = 3
DEFAULT_WIDTH = 800
DEFAULT_HEIGHT = 450
MIN_WIDTH, MAX_WIDTH = 240, 2000
MIN_HEIGHT, MAX_HEIGHT = 160, 1200
#: Dots mark each game only while they stay readable.
MAX_DOTS = 60
MAX_SERIES = 8
#: Ratings outside this band are clipped: a corrupt value must not flatten the whole chart.
RATING_LIMIT = 1e6


@dataclass(frozen=True)
class Palette:
    """A chart's colours, taken from the board theme so charts sit with the boards."""

    background: RGB
    plot: RGB
    grid: RGB
    baseline: RGB
    text: RGB
    text_dim: RGB


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def palette(theme: str | Theme = "default") -> Palette:
    """The chart colours of a board theme (an unknown name gives the default's)."""
    t = get_theme(theme) if isinstance(theme, str) else theme
    return Palette(
        background=t.background,
        plot=_mix(t.background, t.text, 0.06),
        grid=_mix(t.background, t.text, 0.2),
        baseline=_mix(t.background, t.text_dim, 0.7),
        text=t.text,
        text_dim=t.text_dim,
    )


_DEFAULT = palette()
BACKGROUND: RGB = _DEFAULT.background
PLOT: RGB = _DEFAULT.plot
GRID: RGB = _DEFAULT.grid
BASELINE: RGB = _DEFAULT.baseline
TEXT: RGB = _DEFAULT.text
TEXT_DIM: RGB = _DEFAULT.text_dim
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
#: Mistake markers of the first and second player (Okabe-Ito orange and sky blue: apart for
#: the common colour blindnesses, and both far from the white curve).
MARK_COLOURS: tuple[RGB, RGB] = ((230, 159, 0), (86, 180, 233))
MISTAKE = "mistake"
BLUNDER = "blunder"


@dataclass(frozen=True)
class Mark:
    """A marked play on the winning-chances chart."""

    #: Index into the chart's series (the play after which the chance is plotted).
    index: int
    #: Whose play: 0 (the player whose chances are drawn) or 1.
    seat: int
    #: Drawn beside the marker, e.g. the equity lost "-0.142 pt".
    note: str = ""
    #: :data:`MISTAKE` (a triangle) or :data:`BLUNDER` (a larger ringed diamond).
    kind: str = MISTAKE


@dataclass(frozen=True)
class _Sizes:
    title: int
    label: int
    small: int
    pad: int


def _sizes(w: int) -> _Sizes:
    """Type sizes in proportion to the width: a chart is shown at a fixed width in Discord,
    whatever its own."""
    k = w / DEFAULT_WIDTH
    return _Sizes(
        title=max(11, round(26 * k)),
        label=max(9, round(19 * k)),
        small=max(9, round(16 * k)),
        pad=max(6, round(14 * k)),
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


class _Canvas:
    """A supersampled picture drawn in output pixel coordinates."""

    def __init__(self, w: int, h: int, pal: Palette) -> None:
        self.w, self.h, self.pal = w, h, pal
        self.s = SUPERSAMPLE
        self.sz = _sizes(w)
        #: Line widths grow with the picture, as the type does.
        self.k = w / DEFAULT_WIDTH
        self.im = Image.new("RGB", (w * self.s, h * self.s), pal.background)
        self.draw = ImageDraw.Draw(self.im)

    def width(self, label: str, size: int, bold: bool = False) -> float:
        return text.width(label, size * self.s, bold) / self.s

    def fit(self, label: str, size: int, max_width: float, bold: bool = False) -> str:
        return text.fit(label, size * self.s, bold, max(1.0, max_width) * self.s)

    def text(
        self,
        xy: tuple[float, float],
        label: str,
        colour: RGB,
        size: int,
        bold: bool = False,
        anchor: str = "la",
    ) -> None:
        s = self.s
        text.draw(self.im, (xy[0] * s, xy[1] * s), label, colour, size * s, bold, anchor)

    def vtext(self, centre: tuple[float, float], label: str, colour: RGB, size: int) -> None:
        """``label`` read bottom to top (a y axis title), centred at ``centre`` on the
        background: drawn flat on a tile of the background and turned."""
        s = self.s
        tile = Image.new(
            "RGB",
            (math.ceil(text.width(label, size * s)) + 2 * s, 2 * size * s),
            self.pal.background,
        )
        text.draw(tile, (tile.width / 2, tile.height / 2), label, colour, size * s, anchor="mm")
        tile = tile.transpose(Image.Transpose.ROTATE_90)
        cx, cy = centre[0] * s, centre[1] * s
        self.im.paste(tile, (round(cx - tile.width / 2), round(cy - tile.height / 2)))

    def line(self, xy: Sequence[tuple[float, float]], colour: RGB, width: float) -> None:
        s = self.s
        pts = [(x * s, y * s) for x, y in xy]
        self.draw.line(pts, fill=colour, width=max(1, round(width * s)), joint="curve")

    def dashed(self, x0: float, x1: float, y: float, colour: RGB, dash: float) -> None:
        x = x0
        while x < x1:
            self.line([(x, y), (min(x + dash, x1), y)], colour, 1)
            x += 2 * dash

    def dot(self, cx: float, cy: float, r: float, colour: RGB) -> None:
        s = self.s
        self.draw.ellipse([(cx - r) * s, (cy - r) * s, (cx + r) * s, (cy + r) * s], fill=colour)

    def polygon(self, xy: Sequence[tuple[float, float]], fill: RGB) -> None:
        self.draw.polygon([(x * self.s, y * self.s) for x, y in xy], fill=fill)

    def png(self) -> bytes:
        small = self.im.reduce(self.s)
        out = io.BytesIO()
        small.save(out, "PNG")
        return out.getvalue()


#: Draws a legend key centred at (x, y).
Swatch = Callable[[_Canvas, float, float], None]


def _line_swatch(colour: RGB, width: float) -> Swatch:
    def swatch(c: _Canvas, x: float, y: float) -> None:
        half = c.sz.label * 0.55
        c.line([(x - half, y), (x + half, y)], colour, width * c.k)

    return swatch


def _title(c: _Canvas, title: str) -> float:
    """Draw the title; the y where what follows starts."""
    sz = c.sz
    if not title:
        return float(sz.pad)
    c.text(
        (sz.pad, sz.pad), c.fit(title, sz.title, c.w - 2 * sz.pad, True), c.pal.text, sz.title, True
    )
    return sz.pad + sz.title * 1.25 + sz.pad * 0.5


def _legend(c: _Canvas, items: Sequence[tuple[str, Swatch]], y: float) -> float:
    """One row of keys right-aligned, or rows from the left when they do not fit; the y
    below the legend."""
    if not items:
        return y
    sz = c.sz
    size = sz.label
    key, gap = size * 1.3, size * 1.2
    entries = []
    for name, swatch in items:
        shown = c.fit(name, size, c.w * 0.45)
        entries.append((shown, swatch, key + size * 0.35 + c.width(shown, size)))
    total = sum(e[2] for e in entries) + gap * (len(entries) - 1)
    one_row = total <= c.w - 2 * sz.pad
    x = c.w - sz.pad - total if one_row else float(sz.pad)
    row = size * 1.45
    for shown, swatch, ew in entries:
        if not one_row and x > sz.pad and x + ew > c.w - sz.pad:
            x, y = float(sz.pad), y + row
        swatch(c, x + key / 2, y + size * 0.6)
        c.text((x + key + size * 0.35, y), shown, c.pal.text, size)
        x += ew + gap
    return y + row + sz.pad * 0.3


@dataclass(frozen=True)
class _Box:
    left: float
    right: float
    top: float
    bottom: float
    #: Whether there is room for the axis titles.
    titled: bool


def _plot_box(c: _Canvas, top: float, tick_width: float) -> _Box:
    """The plot area below ``top``, leaving the margins for the tick labels and axis titles."""
    sz = c.sz
    title_band = sz.label * 1.35
    left = sz.pad + title_band + tick_width + 8 * c.k
    right = c.w - sz.pad - sz.label  # half of a last date label may stand out on the right
    bottom = c.h - sz.pad - title_band - sz.label * 1.4
    if bottom - top >= 40 and right - left >= 60:
        return _Box(left, right, top, bottom, True)
    # A tiny canvas: no axis titles, tick labels only if they fit.
    left = min(4 + tick_width + 6, c.w / 3)
    return _Box(left, c.w - 4.0, min(top, c.h / 3), c.h - 4.0 - sz.label * 1.4, False)


def _axis_titles(c: _Canvas, box: _Box, x_title: str, y_title: str) -> None:
    if not box.titled:
        return
    sz, pal = c.sz, c.pal
    x_shown = c.fit(x_title, sz.label, box.right - box.left)
    c.text(
        ((box.left + box.right) / 2, c.h - sz.pad - sz.label * 1.05),
        x_shown,
        pal.text,
        sz.label,
        anchor="ma",
    )
    y_shown = c.fit(y_title, sz.label, box.bottom - box.top)
    c.vtext((sz.pad + sz.label * 0.6, (box.top + box.bottom) / 2), y_shown, pal.text, sz.label)


def render_rating_chart(
    series: Mapping[str, Sequence[Point]],
    *,
    title: str = "",
    baseline: float | None = 1500.0,
    width: int = DEFAULT_WIDTH,
    height: int = DEFAULT_HEIGHT,
    theme: str | Theme = "default",
) -> bytes:
    """A line chart of ratings over time as PNG bytes, in the colours of the board ``theme``.

    ``series`` maps a legend label to its ``(time, rating)`` points (Unix seconds); the first
    series is drawn on top in the most prominent colour. Empty series are left out of the
    legend; with no point at all the chart says so. ``baseline`` (the starting rating) is drawn
    as a dashed line when it falls near the plotted range. Bad values (NaN, infinities,
    non-numbers) are skipped, never raised. The axes are titled "Date (UTC)" and "Rating".
    """
    w = max(MIN_WIDTH, min(MAX_WIDTH, int(width)))
    h = max(MIN_HEIGHT, min(MAX_HEIGHT, int(height)))
    c = _Canvas(w, h, palette(theme))
    pal, sz = c.pal, c.sz

    lines = [(str(label), _clean(points)) for label, points in series.items()]
    lines = [(label, pts) for label, pts in lines if pts][:MAX_SERIES]

    top = _title(c, title)
    if not lines:
        c.text((w / 2, (top + h) / 2), "No rated games yet", pal.text_dim, sz.title, anchor="mm")
        return c.png()

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

    thickness = [3.0 if i == 0 else 2.0 for i in range(len(lines))]
    top = _legend(
        c,
        [
            (label, _line_swatch(COLOURS[i % len(COLOURS)], thickness[i]))
            for i, (label, _) in enumerate(lines)
        ],
        top,
    )

    y_ticks = nice_ticks(r_lo, r_hi)
    tick_w = max((c.width(_rating_label(v), sz.label) for v in y_ticks), default=0.0)
    box = _plot_box(c, top, tick_w)
    left, right, plot_top, bottom = box.left, box.right, box.top, box.bottom
    c.draw.rectangle([left * c.s, plot_top * c.s, right * c.s, bottom * c.s], fill=pal.plot)

    def px(t: float) -> float:
        return left + (t - t_lo) / (t_hi - t_lo) * (right - left)

    def py(r: float) -> float:
        return bottom - (r - r_lo) / (r_hi - r_lo) * (bottom - plot_top)

    for value in y_ticks:
        yy = py(value)
        c.line([(left, yy), (right, yy)], pal.grid, 1)
        c.text((left - 6 * c.k, yy), _rating_label(value), pal.text_dim, sz.label, anchor="rm")
    ticks, fmt = time_ticks(t_lo, t_hi)
    last_end = -math.inf
    for t in ticks:
        xx = px(t)
        c.line([(xx, plot_top), (xx, bottom)], pal.grid, 1)
        label = _date(t, fmt)
        half = c.width(label, sz.label) / 2
        if xx - half > last_end + 8 and xx + half <= w:  # skip labels that would overlap
            c.text((xx, bottom + 5 * c.k), label, pal.text_dim, sz.label, anchor="ma")
            last_end = xx + half
    if baseline is not None:
        c.dashed(left, right, py(baseline), pal.baseline, 8 * c.k)
    _axis_titles(c, box, "Date (UTC)", "Rating")

    # Series last to first, so the first (overall) is drawn on top.
    for i in reversed(range(len(lines))):
        _, pts = lines[i]
        colour = COLOURS[i % len(COLOURS)]
        xy = [(px(t), py(r)) for t, r in pts]
        if len(xy) > 1:
            c.line(xy, colour, thickness[i] * c.k)
        if len(xy) <= MAX_DOTS:
            for cx, cy in xy:
                c.dot(cx, cy, thickness[i] * 1.3 * c.k, colour)
    return c.png()


def _marker(c: _Canvas, cx: float, cy: float, seat: int, kind: str) -> None:
    """A mistake is a triangle pointing the way it moved the curve (the first player's
    chances: down for theirs, up for the opponent's); a blunder a larger diamond ringed in the
    text colour. Both are outlined in the background colour to stand out on the line."""
    colour = MARK_COLOURS[seat % 2]
    r = 9.0 * c.k
    if kind == BLUNDER:
        r *= 1.3

        def diamond(d: float) -> list[tuple[float, float]]:
            return [(cx, cy - d), (cx + d, cy), (cx, cy + d), (cx - d, cy)]

        c.polygon(diamond(r + 4 * c.k), c.pal.text)
        c.polygon(diamond(r + 1.5 * c.k), c.pal.background)
        c.polygon(diamond(r), colour)
        return
    sign = 1.0 if seat % 2 == 0 else -1.0  # image y grows downwards

    def triangle(d: float) -> list[tuple[float, float]]:
        return [
            (cx - d, cy - sign * d * 0.6),
            (cx + d, cy - sign * d * 0.6),
            (cx, cy + sign * d * 1.1),
        ]

    c.polygon(triangle(r + 2.5 * c.k), c.pal.background)
    c.polygon(triangle(r), colour)


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _mark_swatch(seat: int, kind: str) -> Swatch:
    def swatch(c: _Canvas, x: float, y: float) -> None:
        _marker(c, x, y, seat, kind)

    return swatch


def render_win_chart(
    series: Sequence[float],
    *,
    title: str = "",
    label: str = "",
    breaks: Sequence[int] = (),
    marks: Sequence[Mark] = (),
    players: Sequence[str] = (),
    width: int = DEFAULT_WIDTH,
    height: int = DEFAULT_HEIGHT,
    theme: str | Theme = "default",
) -> bytes:
    """A player's winning chances move by move (``series[i]`` in 0..1 after move ``i + 1``) as
    PNG bytes, in the colours of the board ``theme``: the 50 % line dashed, a thin vertical
    line before each index in ``breaks`` (where a new game of a match starts), and each of
    ``marks`` on the curve with its note, keyed in the legend by ``players[mark.seat]``.
    ``label`` names the player whose chances are drawn. Bad values are skipped, never raised.
    """
    w = max(MIN_WIDTH, min(MAX_WIDTH, int(width)))
    h = max(MIN_HEIGHT, min(MAX_HEIGHT, int(height)))
    c = _Canvas(w, h, palette(theme))
    pal, sz = c.pal, c.sz
    top = _title(c, title)
    points = {
        i: min(1.0, max(0.0, float(v)))
        for i, v in enumerate(series)
        if isinstance(v, int | float) and math.isfinite(v)
    }
    shown = [m for m in marks if isinstance(m, Mark) and m.index in points]

    def who(seat: int) -> str:
        name = players[seat] if 0 <= seat < len(players) and players[seat] else ""
        # Long names are cut, never the words after them that say what is keyed.
        return c.fit(name, sz.label, c.w * 0.22) if name else f"Player {seat + 1}"

    name = c.fit(label, sz.label, c.w * 0.22)
    keys: list[tuple[str, Swatch]] = [(name, _line_swatch(COLOURS[0], 3))] if label else []
    present = {(m.seat % 2, m.kind if m.kind == BLUNDER else MISTAKE) for m in shown}
    for seat in (0, 1):
        for kind in (MISTAKE, BLUNDER):
            if (seat, kind) in present:
                keys.append((f"{who(seat)}: {kind}s", _mark_swatch(seat, kind)))
    if not points:
        c.text((w / 2, (top + h) / 2), "No moves to show", pal.text_dim, sz.title, anchor="mm")
        return c.png()
    top = _legend(c, keys, top)
    box = _plot_box(c, top, c.width("100%", sz.label))
    left, right, plot_top, bottom = box.left, box.right, box.top, box.bottom
    c.draw.rectangle([left * c.s, plot_top * c.s, right * c.s, bottom * c.s], fill=pal.plot)
    n = max(2, len(series))

    def px(x: float) -> float:
        return left + (x - 1) / (n - 1) * (right - left)

    def py(v: float) -> float:
        return bottom - v * (bottom - plot_top)

    for value in (0.0, 0.25, 0.5, 0.75, 1.0):
        yy = py(value)
        if value == 0.5:  # dashed: the even line
            c.dashed(left, right, yy, pal.baseline, 8 * c.k)
        else:
            c.line([(left, yy), (right, yy)], pal.grid, 1)
        c.text((left - 6 * c.k, yy), f"{value:.0%}", pal.text_dim, sz.label, anchor="rm")
    for b in breaks:
        if 0 < b < len(series):
            xx = px(b + 0.5)
            c.line([(xx, plot_top), (xx, bottom)], pal.baseline, 1.5 * c.k)
    for tick in nice_ticks(1, n, 8):
        if 1 <= tick <= n and float(tick).is_integer():
            xx = px(tick)
            c.line([(xx, bottom), (xx, bottom + 4 * c.k)], pal.text_dim, 1)
            c.text((xx, bottom + 5 * c.k), str(int(tick)), pal.text_dim, sz.label, anchor="ma")
    x_title = "Move number (both players' moves)"
    if breaks:
        x_title += "; vertical line: next game"
    y_title = "Winning chance (%)"
    if label:
        room = box.bottom - box.top - c.width("Winning chance of  (%)", sz.label)
        y_title = f"Winning chance of {c.fit(label, sz.label, room)} (%)"
    _axis_titles(c, box, x_title, y_title)

    xy = [(px(i + 1), py(v)) for i, v in sorted(points.items())]
    if len(xy) > 1:
        c.line(xy, COLOURS[0], 3 * c.k)
    if len(xy) <= MAX_DOTS:
        for cx, cy in xy:
            c.dot(cx, cy, 3.5 * c.k, COLOURS[0])

    # Markers over the curve, then their notes where they do not overlap each other.
    for m in shown:
        _marker(c, px(m.index + 1), py(points[m.index]), m.seat % 2, m.kind)
    # Each note where it covers the fewest points of the curve (and no other note or marker).
    samples = [
        (x0 + (x1 - x0) * f / 8, y0 + (y1 - y0) * f / 8)
        for (x0, y0), (x1, y1) in itertools.pairwise(xy)
        for f in range(8)
    ] + xy[-1:]
    r = 12 * c.k
    taken = [
        (px(m.index + 1) - r, py(points[m.index]) - r, px(m.index + 1) + r, py(points[m.index]) + r)
        for m in shown
    ]
    for m in shown:
        if not m.note:
            continue
        cx, cy = px(m.index + 1), py(points[m.index])
        note = c.fit(m.note, sz.small, right - left)
        nw, nh = c.width(note, sz.small), sz.small * 1.2
        gap = 14 * c.k
        below = (cx - nw / 2, cy + gap)
        above = (cx - nw / 2, cy - gap - nh)
        first = [below, above] if m.seat % 2 == 0 else [above, below]  # at the triangle's tip
        candidates = [*first, (cx + gap, cy - nh / 2), (cx - gap - nw, cy - nh / 2)]
        best: tuple[float, float, float, float] | None = None
        best_cost = math.inf
        for x0, y0 in candidates:
            x0 = min(max(x0, left + 2), right - 2 - nw)
            if y0 < plot_top or y0 + nh > bottom:
                continue
            spot = (x0, y0, x0 + nw, y0 + nh)
            if any(_overlap(a, spot) for a in taken):
                continue
            cost = sum(
                1 for sx, sy in samples if spot[0] <= sx <= spot[2] and spot[1] <= sy <= spot[3]
            )
            if cost < best_cost:
                best, best_cost = spot, cost
            if cost == 0:
                break
        if best is None:  # crowded: the legend and the alt text still tell
            continue
        taken.append(best)
        c.text((best[0], best[1]), note, MARK_COLOURS[m.seat % 2], sz.small)
    return c.png()


__all__ = [
    "BLUNDER",
    "MISTAKE",
    "Mark",
    "Palette",
    "Point",
    "nice_ticks",
    "palette",
    "render_rating_chart",
    "render_win_chart",
    "time_ticks",
]
