"""Bad or odd input never crashes the renderer, and it works without the bundled fonts."""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageFont

from engine.play import Step
from engine.position import Position, make_position
from render import BoardScene, ChainInfo, LastPlay, board, fonts, render_board, sprites, text
from render import layout as L
from render.samples import VARIANT_NAMES, plausible, random_scene


def decode(data: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(data))
    im.load()
    assert im.size == (L.WIDTH, L.HEIGHT)
    return im


def _clear_caches() -> None:
    for f in (
        fonts.font,
        text._glyph,
        text._vmetrics,
        board.base_board,
        board.palette,
        sprites.die,
        sprites.cube,
    ):
        f.cache_clear()
    board.clear_caches()  # tiles and measured text drawn with the previous fonts


@pytest.fixture
def fresh_caches() -> Iterator[None]:
    _clear_caches()
    yield
    _clear_caches()


ints = st.integers(min_value=-5, max_value=10**6)
small = st.integers(min_value=-3, max_value=40)
names = st.text(max_size=80)
sides = st.sampled_from(["X", "O", "", "Q"])


@st.composite
def odd_scenes(draw: st.DrawFn) -> BoardScene:
    n_points = draw(st.sampled_from([25, 25, 25, 3, 0, 30]))
    stack = st.text(alphabet="XOXOxZ ", max_size=35)
    points = tuple(draw(stack) for _ in range(n_points))
    pair = st.tuples(small, small)
    pos = Position(
        draw(st.sampled_from([*VARIANT_NAMES, "nope"])),
        points,
        draw(pair),
        draw(pair),
        draw(pair),
        (False, False),
    )
    step = st.builds(Step, ints, ints, small, st.sampled_from(["", "hit", "pin", "trap", "?"]))
    last = st.none() | st.builds(
        LastPlay,
        sides,
        st.lists(step, max_size=6).map(tuple),
        names,
        st.none() | st.lists(small, max_size=5).map(tuple),
    )
    chain = st.none() | st.builds(
        ChainInfo, st.lists(st.tuples(small, small), max_size=8).map(tuple), sides
    )
    return BoardScene(
        position=pos,
        variant_name=draw(names),
        x_name=draw(names),
        o_name=draw(names),
        x_colour=draw(st.sampled_from(["light", "dark", "purple"])),
        to_act=draw(st.none() | sides),
        dice=draw(st.none() | st.lists(small, max_size=5).map(tuple)),
        chain=draw(chain),
        cube_value=draw(st.none() | ints),
        cube_owner=draw(st.none() | sides),
        match_length=draw(small),
        match_score=draw(st.tuples(ints, ints)),
        last_play=draw(last),
        result=draw(st.none() | names),
        status=draw(st.none() | names),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_scenes(), st.sampled_from(["default", "high-contrast", "bogus"]))
def test_odd_scenes_render(scene: BoardScene, theme: str) -> None:
    decode(render_board(scene, theme))


def test_awkward_text() -> None:
    pos = make_position("classic", {6: "X" * 15, 19: "O" * 15})
    for name in ("a\nb\tc\x00", "\ud800", "😀中文 " * 30, "", "W" * 500):
        sc = BoardScene(pos, name, name, name, "light", "X", (1, 2), status=name, result=name)
        decode(render_board(sc))


def test_random_scenes_are_plausible_and_render() -> None:
    rng = random.Random(7)
    for _ in range(25):
        sc = random_scene(rng)
        assert plausible(sc.position)
        decode(render_board(sc))


def test_without_bundled_fonts_uses_pillow_default(
    monkeypatch: pytest.MonkeyPatch, fresh_caches: None
) -> None:
    monkeypatch.setattr(fonts, "REGULAR", Path("/nonexistent/font.ttf"))
    monkeypatch.setattr(fonts, "BOLD", Path("/nonexistent/font-bold.ttf"))
    f = fonts.font(22)
    assert not str(getattr(f, "path", "")).endswith("DejaVuSans.ttf")
    pos = make_position("classic", {6: "X" * 15, 19: "O" * 15})
    sc = BoardScene(pos, "Backgammon", "Alice", "Bob", "light", "X", (3, 1), status="hello")
    im = decode(render_board(sc)).convert("RGB")
    # Text is still drawn: the status line is not blank.
    footer = im.crop((0, L.FOOTER_Y, L.WIDTH, L.HEIGHT))
    assert len(footer.getcolors(1 << 16) or []) > 2


def test_bitmap_font_fallback_draws_text(
    monkeypatch: pytest.MonkeyPatch, fresh_caches: None
) -> None:
    # Without FreeType, Pillow's default is a fixed-size bitmap font with no metrics.
    monkeypatch.setattr(text, "font", lambda size, bold=False: ImageFont.load_default_imagefont())
    im = Image.new("RGB", (200, 40), (0, 0, 0))
    w = text.draw(im, (100, 20), "hello", (255, 255, 255), 20, True, "mm")
    assert w > 0
    assert im.getbbox() is not None
    assert text.fit("hello world " * 20, 20, False, 100).endswith("…")
