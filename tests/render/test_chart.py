"""The rating chart: real PNGs, decoded and probed."""

from __future__ import annotations

import datetime as dt
import io
import itertools
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops

from render import chart
from render.chart import COLOURS, PLOT, nice_ticks, render_rating_chart, time_ticks

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
    from render.chart import render_win_chart

    png = render_win_chart(
        [0.5, 0.62, float("nan"), 0.9, 1.7, -1.0], title="t", label="A", breaks=[2]
    )
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.size == (800, 400)
    empty = Image.open(io.BytesIO(render_win_chart([])))
    assert empty.size == (800, 400)
