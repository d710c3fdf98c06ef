"""The rating and review charts: real PNGs, decoded and probed."""

from __future__ import annotations

import collections
import datetime as dt
import io
import itertools
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops

from render import chart
from render.chart import (
    BLUNDER,
    COLOURS,
    MARK_COLOURS,
    PLOT,
    Mark,
    nice_ticks,
    palette,
    render_rating_chart,
    render_win_chart,
    time_ticks,
)

T0 = 1_700_000_000.0
DAY = 86400.0


def decode(data: bytes) -> Image.Image:
    assert data.startswith(b"\x89PNG")
    im = Image.open(io.BytesIO(data))
    im.load()
    return im.convert("RGB")


def pixels_of(
    im: Image.Image, colour: tuple[int, int, int], tol: int = 12
) -> list[tuple[int, int]]:
    """Coordinates of the pixels within ``tol`` of ``colour`` on every channel."""
    diff = ImageChops.difference(im, Image.new("RGB", im.size, colour))
    r, g, b = diff.split()
    worst = ImageChops.lighter(ImageChops.lighter(r, g), b)
    mask = worst.point(lambda v: 255 if v <= tol else 0)
    w = im.width
    return [(i % w, i // w) for i, v in enumerate(mask.getdata()) if v]


def test_size_and_defaults() -> None:
    im = decode(render_rating_chart({"Overall": [(T0, 1500.0), (T0 + DAY, 1600.0)]}))
    assert im.size == (chart.DEFAULT_WIDTH, chart.DEFAULT_HEIGHT)
    im = decode(render_rating_chart({"Overall": [(T0, 1500.0)]}, width=500, height=300))
    assert im.size == (500, 300)
    # Absurd sizes are clamped, not obeyed.
    assert decode(render_rating_chart({}, width=1, height=10**6)).size == (
        chart.MIN_WIDTH,
        chart.MAX_HEIGHT,
    )


def test_a_rising_series_goes_up_left_to_right() -> None:
    points = [(T0 + i * DAY, 1400.0 + 20 * i) for i in range(11)]
    im = decode(render_rating_chart({"Overall": points}, baseline=None))
    line = pixels_of(im, COLOURS[0], tol=6)
    assert len(line) > 200
    xs = sorted(x for x, _ in line)
    third = (xs[-1] - xs[0]) / 3
    left = [y for x, y in line if x < xs[0] + third]
    right = [y for x, y in line if x > xs[-1] - third]
    assert sum(left) / len(left) > sum(right) / len(right) + 50  # image y grows downwards


def test_each_series_has_its_colour_and_the_first_is_on_top() -> None:
    a = [(T0 + i * DAY, 1500.0 + 10 * i) for i in range(5)]
    b = [(T0 + i * DAY, 1500.0 - 10 * i) for i in range(5)]
    im = decode(render_rating_chart({"Overall": a, "Backgammon": b, "Empty": []}))
    assert pixels_of(im, COLOURS[0], tol=6)
    assert pixels_of(im, COLOURS[1], tol=6)
    # The empty series gets no colour (not even a legend swatch).
    assert not pixels_of(im, COLOURS[2], tol=6)
    # Both are one dot at the same place: the overall (first) series is drawn over the other.
    one = decode(render_rating_chart({"Overall": a[:1], "Backgammon": a[:1]}, baseline=None))
    below_legend = 45

    def in_plot(colour: tuple[int, int, int]) -> list[tuple[int, int]]:
        return [p for p in pixels_of(one, colour, tol=6) if p[1] > below_legend]

    assert in_plot(COLOURS[0]) and not in_plot(COLOURS[1])
    assert [p for p in pixels_of(one, COLOURS[1], tol=6) if p[1] <= below_legend]  # legend


def test_lines_are_anti_aliased() -> None:
    # A steep diagonal: without anti-aliasing the plot would hold only two colours near it.
    points = [(T0, 1000.0), (T0 + DAY, 2000.0)]
    im = decode(render_rating_chart({"Overall": points}, baseline=None))
    line = pixels_of(im, COLOURS[0], tol=6)
    cx = sorted(x for x, _ in line)[len(line) // 2]
    cy = sorted(y for _, y in line)[len(line) // 2]
    patch = im.crop((cx - 6, cy - 6, cx + 6, cy + 6))
    colours = [c for _, c in patch.getcolors(maxcolors=patch.width * patch.height) or []]
    greys = {c for c in colours if isinstance(c, tuple) and c != PLOT and max(c) - min(c) < 20}
    assert len(greys) > 8  # intermediate shades between the line and the plot background


def test_empty_chart_says_so() -> None:
    im = decode(render_rating_chart({}, title="Rating history: nobody"))
    for colour in COLOURS:
        assert not pixels_of(im, colour, tol=4)
    # Some text was drawn on the background.
    assert len(set(im.getdata())) > 5


def test_bad_values_are_skipped() -> None:
    nan, inf = math.nan, math.inf
    points = [(nan, 1500.0), (T0, inf), (T0 + 1, -inf), (inf, 3.0), (T0 + 2, 1510.0)]
    im = decode(render_rating_chart({"Overall": points, "junk": [(nan, nan)]}))
    assert pixels_of(im, COLOURS[0], tol=6)
    assert not pixels_of(im, COLOURS[1], tol=6)
    decode(render_rating_chart({"x": [("a", "b"), (1,), None]}))  # type: ignore[list-item]
    decode(render_rating_chart({"x": [(T0, 1e300), (T0 + DAY, -1e300)]}))


def test_many_series_and_long_labels() -> None:
    series = {
        f"A very long variant name number {i} " * 3: [
            (T0 + d * DAY, 1500.0 + i * d) for d in range(3)
        ]
        for i in range(12)
    }
    im = decode(render_rating_chart(series, title="x" * 500, width=300, height=200))
    assert im.size == (300, 200)


def test_nice_ticks() -> None:
    ticks = nice_ticks(1432.0, 1618.0)
    assert ticks == [1450.0, 1500.0, 1550.0, 1600.0]
    ticks = nice_ticks(0.3, 0.9)
    assert all(0.3 <= t <= 0.9 for t in ticks) and len(ticks) >= 3
    assert nice_ticks(5.0, 5.0) == [5.0]
    assert nice_ticks(math.nan, 1.0) == []


@given(
    st.floats(-1e7, 1e7, allow_nan=False),
    st.floats(0.001, 1e7, allow_nan=False),
)
def test_nice_ticks_are_inside_and_evenly_spaced(low: float, span: float) -> None:
    high = low + span
    ticks = nice_ticks(low, high)
    assert 1 <= len(ticks) <= 50
    assert all(low - span * 1e-6 <= t <= high + span * 1e-6 for t in ticks)
    steps = {round(b - a, 6) for a, b in itertools.pairwise(ticks)}
    assert len(steps) <= 1 or max(steps) - min(steps) <= max(steps) * 1e-6


def test_time_ticks_are_round_utc_times() -> None:
    ticks, fmt = time_ticks(T0, T0 + 20 * DAY)
    assert fmt == "%d %b" and 2 <= len(ticks) <= 6
    for t in ticks:
        moment = dt.datetime.fromtimestamp(t, dt.UTC)
        assert (moment.hour, moment.minute) == (0, 0)
    ticks, fmt = time_ticks(T0, T0 + 6 * 3600)
    assert "%H" in fmt and all(t % 3600 == 0 for t in ticks)
    ticks, fmt = time_ticks(T0, T0 + 3 * 365 * DAY)
    assert fmt == "%b %Y" and 1 <= len(ticks) <= 6


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.text(max_size=40),
        st.lists(
            st.tuples(st.floats(allow_nan=True), st.floats(allow_nan=True)),
            max_size=30,
        ),
        max_size=4,
    ),
    st.text(max_size=60),
)
def test_any_input_gives_a_png(series: dict[str, list[tuple[float, float]]], title: str) -> None:
    im = decode(render_rating_chart(series, title=title, width=320, height=200))
    assert im.size == (320, 200)


def test_win_chart_is_a_png_and_survives_bad_values() -> None:
    png = render_win_chart(
        [0.5, 0.62, float("nan"), 0.9, 1.7, -1.0], title="t", label="A", breaks=[2]
    )
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.size == (chart.DEFAULT_WIDTH, chart.DEFAULT_HEIGHT)
    empty = Image.open(io.BytesIO(render_win_chart([])))
    assert empty.size == (chart.DEFAULT_WIDTH, chart.DEFAULT_HEIGHT)
    # Marks off the series, on a skipped value or of a strange seat are not fatal.
    odd = [Mark(99, 0), Mark(2, 1), Mark(0, 7, "x" * 300), Mark(-1, 0)]
    decode(render_win_chart([0.5, 0.6, float("nan")], marks=odd, width=300, height=200))


# --- the review chart: axes and mistake markers ------------------------------------------------

N = 41  # moves in the synthetic game: move m is drawn at a known fraction of the plot width


def plot_box(im: Image.Image, plot: tuple[int, int, int] = PLOT) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) of the plot area: the rows and columns mostly of its colour
    (anti-aliased text edges elsewhere may match the colour too, but only here and there)."""
    inside = pixels_of(im, plot, tol=2)
    rows = collections.Counter(y for _, y in inside)
    ys = sorted(y for y, n in rows.items() if n > im.width / 3)
    cols = collections.Counter(x for x, y in inside if ys[0] <= y <= ys[-1])
    xs = sorted(x for x, n in cols.items() if n > (ys[-1] - ys[0]) / 3)
    return xs[0], ys[0], xs[-1], ys[-1]


def move_x(box: tuple[int, int, int, int], index: int) -> float:
    """Where the chart puts series ``index`` (move ``index + 1``) of an ``N``-move series."""
    left, _, right, _ = box
    return left + index / (N - 1) * (right - left)


def near(
    points: list[tuple[int, int]], x: float, box: tuple[int, int, int, int], reach: float = 14
) -> list[tuple[int, int]]:
    _, top, _, bottom = box
    return [(px, py) for px, py in points if abs(px - x) <= reach and top <= py <= bottom]


FLAT = [0.5] * N  # a level curve: every marker sits at mid-height


def test_mistakes_and_blunders_are_marked_at_their_moves() -> None:
    marks = [Mark(5, 0), Mark(20, 1), Mark(30, 0, kind=BLUNDER), Mark(35, 1, kind=BLUNDER)]
    im = decode(render_win_chart(FLAT, label="Alice", players=("Alice", "Bob"), marks=marks))
    box = plot_box(im)
    first = pixels_of(im, MARK_COLOURS[0])
    second = pixels_of(im, MARK_COLOURS[1])
    for m in marks:
        mine = first if m.seat == 0 else second
        assert len(near(mine, move_x(box, m.index), box)) > 60, m
    # Nothing of either colour anywhere else in the plot.
    for colour, points in ((0, first), (1, second)):
        expected = [move_x(box, m.index) for m in marks if m.seat == colour]
        _, top, _, bottom = box
        stray = [
            p for p in points if top <= p[1] <= bottom and all(abs(p[0] - x) > 14 for x in expected)
        ]
        assert not stray
    # A mistake is a triangle pointing the way it moved the first player's curve: the first
    # player's points down (wide top), the second player's up (wide bottom).
    mid = box[1] + (box[3] - box[1]) / 2
    down = near(first, move_x(box, 5), box)
    up = near(second, move_x(box, 20), box)
    assert sum(1 for _, y in down if y < mid) > 1.5 * sum(1 for _, y in down if y > mid)
    assert sum(1 for _, y in up if y > mid) > 1.5 * sum(1 for _, y in up if y < mid)
    # A blunder is ringed in the text colour, a mistake is not.
    ring = pixels_of(im, chart.TEXT, tol=10)
    assert len(near(ring, move_x(box, 30), box)) > 30
    assert len(near(ring, move_x(box, 35), box)) > 30
    # (a stray pixel or two: the white curve fades through the text colour at its edges)
    assert len(near(ring, move_x(box, 5), box)) < 5
    assert len(near(ring, move_x(box, 20), box)) < 5
    # The legend (above the plot) keys each kind of marker of each player.
    for colour in MARK_COLOURS:
        assert [p for p in pixels_of(im, colour) if p[1] < box[1]]


def test_a_review_without_mistakes_has_no_marker_pixels() -> None:
    im = decode(render_win_chart(FLAT, label="Alice", players=("Alice", "Bob")))
    for colour in MARK_COLOURS:
        assert not pixels_of(im, colour, tol=20)


def test_mistake_notes_are_drawn_near_their_marker() -> None:
    marks = [Mark(10, 0, "−0.142 pt"), Mark(25, 1, "−3.5 pips")]
    bare = decode(render_win_chart(FLAT, marks=[Mark(10, 0), Mark(25, 1)]))
    noted = decode(render_win_chart(FLAT, marks=marks))
    box = plot_box(noted)
    for m in marks:
        colour = MARK_COLOURS[m.seat]
        x = move_x(box, m.index)
        assert (
            len(near(pixels_of(noted, colour), x, box, 90))
            > len(near(pixels_of(bare, colour), x, box, 90)) + 40
        )


def axis_text(im: Image.Image, colour: tuple[int, int, int]) -> tuple[int, int]:
    """Pixels of ``colour`` in the left margin (y axis) and below the plot (x axis)."""
    left, top, right, bottom = plot_box(im)
    found = pixels_of(im, colour, tol=10)
    y_axis = sum(1 for x, y in found if x < left - 2 and top <= y <= bottom)
    x_axis = sum(1 for x, y in found if y > bottom + 2 and left <= x <= right)
    return y_axis, x_axis


def test_both_charts_have_axis_titles_and_tick_labels() -> None:
    review = decode(render_win_chart(FLAT, label="Alice"))
    points = [(T0 + i * DAY, 1500.0 + 7 * i) for i in range(20)]
    rating = decode(render_rating_chart({"Overall": points}))
    for im in (review, rating):
        titles = axis_text(im, chart.TEXT)  # axis titles in the text colour
        ticks = axis_text(im, chart.TEXT_DIM)  # tick labels dimmer
        assert titles[0] > 80 and titles[1] > 80, titles
        assert ticks[0] > 80 and ticks[1] > 80, ticks


def test_the_y_axis_title_reads_bottom_to_top() -> None:
    im = decode(render_win_chart(FLAT, label="Alice"))
    left, top, _, bottom = plot_box(im)
    title = [p for p in pixels_of(im, chart.TEXT, tol=10) if p[0] < left and top <= p[1] <= bottom]
    xs = [x for x, _ in title]
    ys = [y for _, y in title]
    assert max(ys) - min(ys) > 3 * (max(xs) - min(xs))  # taller than wide: turned


def test_type_is_sized_for_discords_preview() -> None:
    """Seen at about 450 px wide, an 800 px chart's tick labels must stay ~11 px tall."""
    im = decode(render_win_chart(FLAT, label="Alice"))
    *_, bottom = plot_box(im)
    # The first band of rows of dim text below the plot (past the 4 px tick marks): the
    # move numbers.
    rows = sorted({y for _, y in pixels_of(im, chart.TEXT_DIM, tol=10) if y > bottom + 5})
    band = [rows[0]]
    for y in rows[1:]:
        if y != band[-1] + 1:
            break
        band.append(y)
    digit_height = len(band)
    assert digit_height * 450 / chart.DEFAULT_WIDTH >= 7.5  # digits ~0.7 of the type size


def test_charts_take_the_board_theme() -> None:
    high = palette("high-contrast")
    assert high.background == (0, 0, 0) and high.text == (255, 255, 255)
    assert palette("no such theme") == palette("default")
    for png in (
        render_win_chart(FLAT, label="A", marks=[Mark(3, 0)], theme="high-contrast"),
        render_rating_chart({"A": [(T0, 1500.0), (T0 + DAY, 1550.0)]}, theme="high-contrast"),
    ):
        im = decode(png)
        assert im.getpixel((1, 1)) == high.background
        assert pixels_of(im, high.plot, tol=1)
        left, top, _, bottom = plot_box(im, high.plot)
        # The axis titles in the theme's text colour, left of and below the plot.
        title = pixels_of(im, high.text, tol=10)
        assert any(x < left and top <= y <= bottom for x, y in title)
        assert any(y > bottom + 2 for _, y in title)
