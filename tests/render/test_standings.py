"""Standings tables and knockout brackets: real PNGs, decoded and probed."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from render.standings import (
    GOLD,
    MAX_ROWS,
    ROW,
    WIDTH,
    BracketMatch,
    StandingRow,
    render_bracket,
    render_standings,
)


def decode(data: bytes) -> Image.Image:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    im = Image.open(io.BytesIO(data))
    im.load()
    assert im.format == "PNG"
    return im.convert("RGB")


def rows(count: int) -> list[StandingRow]:
    return [
        StandingRow(n + 1, f"Player {n + 1}", float(count - n), (float(n), 4.5, -2.0, 0.0))
        for n in range(count)
    ]


def test_standings_table_is_a_png_growing_with_its_rows() -> None:
    names = ("match wins", "Buchholz", "median Buchholz", "points difference")
    small = decode(render_standings("Swiss", rows(4), names))
    large = decode(render_standings("Swiss", rows(12), names))
    assert small.width == large.width == WIDTH
    assert large.height - small.height == 8 * ROW
    assert 200 < small.height < 500
    # The leader's rank is drawn in gold; nobody else's is.
    assert GOLD in {small.getpixel((x, y)) for x in range(30, 70) for y in range(100, 200)}


def test_long_standings_are_cut_with_a_last_line() -> None:
    im = decode(render_standings("Big Swiss", rows(500)))
    cut = decode(render_standings("Big Swiss", rows(MAX_ROWS + 1)))
    assert im.size == cut.size
    assert im.height < 2600


def test_empty_standings_and_odd_names() -> None:
    im = decode(render_standings("Nobody yet", []))
    assert im.width == WIDTH and im.height > 100
    weird = [StandingRow(1, "x" * 300, 0.5, (), "withdrawn"), StandingRow(2, "\n\t🎲", -1.0)]
    assert decode(render_standings("Weird\nnames", weird)).width == WIDTH


def test_bracket_of_five_players() -> None:
    first = [
        BracketMatch("Ann", None, 0),
        BracketMatch("Dan", "Eve", 1, "3-5"),
        BracketMatch("Bob", None, 0),
        BracketMatch("Cy", None, 0),
    ]
    rounds = [first, [BracketMatch("Ann", "Eve", 0), BracketMatch("Bob", "Cy")], []]
    im = decode(render_bracket("Knockout", rounds))
    # Three rounds and the champion's column, four tables tall.
    assert 800 < im.width < 1100
    assert 250 < im.height < 500
    done = decode(render_bracket("Knockout", rounds, champion="Ann"))
    assert done.size == im.size and done.tobytes() != im.tobytes()


def test_bracket_sizes_follow_the_field() -> None:
    sixteen = decode(render_bracket("K", [[BracketMatch(f"P{i}", f"Q{i}") for i in range(8)]]))
    two = decode(render_bracket("K", [[BracketMatch("A", "B")]]))
    assert sixteen.width > two.width and sixteen.height > two.height
    with pytest.raises(ValueError):
        render_bracket("K", [])


def test_a_huge_bracket_starts_where_it_fits() -> None:
    # 1,024 players: 512 first-round tables; the picture starts at the round of 64 (32 tables).
    first = [BracketMatch(f"P{i}", f"Q{i}", 0) for i in range(512)]
    im = decode(render_bracket("Huge", [first, [], [], [], [], [], [], [], [], []]))
    thirty_two = decode(render_bracket("K", [[BracketMatch("A", "B")] * 32]))
    assert im.height == thirty_two.height
    assert im.width == thirty_two.width
