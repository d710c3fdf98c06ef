"""render.compose: boards composed from cached tiles are pixel for pixel the boards drawn whole."""

from __future__ import annotations

import random
import threading
from dataclasses import replace

import pytest
from PIL import Image

from render import board, compose
from render import text as T
from render.board import palette, render_image, render_palette_image
from render.samples import gallery, random_scene
from render.scene import BoardScene


def drawn_whole(sc: BoardScene, theme: str) -> bytes:
    """The board drawn in RGB at once, then mapped onto the palette (the plain way)."""
    pal = palette(theme)
    return render_image(sc, theme).quantize(palette=pal, dither=Image.Dither.NONE).tobytes()


def scenes(n: int, seed: int) -> list[BoardScene]:
    rng = random.Random(seed)
    return [sc for _, sc, _ in gallery()] + [random_scene(rng) for _ in range(n)]


@pytest.mark.parametrize("theme", ["default", "high-contrast"])
def test_composed_boards_equal_boards_drawn_whole(theme: str) -> None:
    board.clear_caches()
    for sc in scenes(60, 7):
        first = render_palette_image(sc, theme)
        assert first.mode == "P"
        assert first.tobytes() == drawn_whole(sc, theme)
        # Second time every component comes from the cache.
        assert render_palette_image(sc, theme).tobytes() == first.tobytes()


def test_shared_tiles_are_only_shared_where_the_board_under_them_is_the_same() -> None:
    """The same stack on every point, one board after the other: tiles may be shared between
    points over identical empty-board pixels, and every board must still be exact."""
    from engine.position import make_position

    board.clear_caches()
    for stack in ("X", "XX", "OOO", "XXXXXX", "O" * 9):
        for p in range(1, 25):
            pos = make_position("classic", {p: stack})
            sc = BoardScene(pos, "Backgammon", "A", "B", "light", "X", (3, 1))
            assert render_palette_image(sc).tobytes() == drawn_whole(sc, "default"), (stack, p)


def test_threads_compose_the_same_boards() -> None:
    board.clear_caches()
    todo = scenes(24, 11)
    expected = {i: drawn_whole(sc, "default") for i, sc in enumerate(todo)}
    got: dict[int, bytes] = {}
    errors: list[BaseException] = []

    def worker(k: int) -> None:
        try:
            for i in range(k, len(todo), 4):
                got[i] = render_palette_image(todo[i]).tobytes()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert got == expected


def test_tile_cache_is_bounded_and_least_recently_used_goes_first() -> None:
    cache = compose.TileCache(entries=3, max_bytes=10_000)
    tiles = {k: Image.new("P", (10, 10)) for k in "abcd"}
    for k in "abc":
        cache.put(k, tiles[k])
    assert cache.get("a") is tiles["a"]  # a is now the most recently used
    cache.put("d", tiles["d"])
    assert len(cache) == 3 and cache.get("b") is None and cache.get("a") is tiles["a"]
    cache.put("big", Image.new("P", (60, 100)))  # 6,000 bytes: the others must make room
    assert cache.bytes <= 10_000 and cache.get("big") is not None
    cache.put("huge", Image.new("P", (200, 100)))  # over the whole budget: never kept
    assert cache.get("huge") is None and cache.bytes <= 10_000


def test_board_tiles_stay_within_their_budget() -> None:
    board.clear_caches()
    rng = random.Random(3)
    for _ in range(150):
        render_palette_image(random_scene(rng))
    assert 0 < board.TILES.bytes <= compose.TILE_BYTES
    assert len(board.TILES) <= compose.TILE_ENTRIES


def test_components_are_disjoint_and_hold_every_drawing() -> None:
    for sc in scenes(30, 5):
        canvas = board._Painter(replace(sc), board.get_theme("default")).paint()
        comps = canvas.components()
        boxes = [box for box, _ in comps]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                assert not compose._overlap(a, b)
        assert sum(len(ops) for _, ops in comps) + len(canvas.backgrounds) == len(canvas.ops())


def test_background_under_an_earlier_drawing_becomes_an_ordinary_drawing() -> None:
    canvas = compose.Canvas((100, 100))
    canvas.background((0, 0, 99, 9), (1, 2, 3))
    assert len(canvas.backgrounds) == 1
    canvas.text((5, 20), "hi", (255, 255, 255), 20)
    canvas.group()
    canvas.background((0, 15, 99, 40), (4, 5, 6))  # the text is already there
    assert len(canvas.backgrounds) == 1
    assert [op[0] for op in canvas.ops()] == ["r", "t", "r"]


@pytest.mark.parametrize("anchor", ["la", "lm", "mm", "rm"])
@pytest.mark.parametrize("text", ["Alice played ", "167 pips", "fjord ×4 …", "Wq", "  "])
def test_text_extent_holds_every_pixel_drawn(text: str, anchor: str) -> None:
    for size, bold in ((20, True), (22, False), (24, True)):
        im = Image.new("RGB", (400, 120), (0, 0, 0))
        xy = (200.37, 60.5)
        drawn = T.draw(im, xy, text, (255, 255, 255), size, bold, anchor)
        width, box = T.extent(xy, text, size, bold, anchor)
        assert width == drawn
        ink = im.getbbox()
        if ink is None:
            continue
        assert box is not None
        assert box[0] <= ink[0] and box[1] <= ink[1] and ink[2] <= box[2] and ink[3] <= box[3]


def test_shapes_stay_within_their_recorded_boxes() -> None:
    for box in ((10.5, 20.25, 80.75, 47.5), (3, 4, 50, 30)):
        canvas = compose.Canvas((120, 80))
        canvas.rounded_rectangle(box, 9.5, (200, 10, 10))
        canvas.rectangle(box, outline=(10, 200, 10), width=3)
        ((cbox, ops),) = canvas.components()
        im = Image.new("RGB", (120, 80))
        for op in ops:
            compose.run(im, op)
        ink = im.getbbox()
        assert ink is not None
        assert cbox[0] <= ink[0] and cbox[1] <= ink[1] and ink[2] <= cbox[2] and ink[3] <= cbox[3]


def test_composed_boards_equal_boards_drawn_whole_with_the_bitmap_fallback_font(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from PIL import ImageFont

    def forget_all() -> None:  # the empty board and palette hold text too
        board.clear_caches()
        board.base_board.cache_clear()
        board.palette.cache_clear()

    forget_all()
    monkeypatch.setattr(T, "font", lambda size, bold=False: ImageFont.load_default_imagefont())
    try:
        for sc in scenes(10, 13):
            assert render_palette_image(sc).tobytes() == drawn_whole(sc, "default")
    finally:
        forget_all()
