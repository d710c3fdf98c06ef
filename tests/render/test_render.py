"""The board renderer: real PNGs, decoded and probed at positions computed by render.layout."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from PIL import Image

from engine.play import Step
from engine.position import make_position
from render import THEMES, BoardScene, ChainInfo, LastPlay, render_board
from render import layout as L
from render.samples import gallery, plausible, seen_by_other
from render.theme import RGB

DEFAULT = THEMES["default"]
HC = THEMES["high-contrast"]
LIGHT = DEFAULT.light.fill
DARK = DEFAULT.dark.fill


def scene(stacks: dict[int, str], variant: str = "classic", **kw: object) -> BoardScene:
    fields: dict[str, object] = {
        "variant_name": "Test",
        "x_name": "Alice",
        "o_name": "Bob",
        "x_colour": "light",
        "to_act": "X",
        "dice": None,
    }
    fields.update(kw)
    pos_kw = {k: fields.pop(k) for k in ("bar", "reserve", "off") if k in fields}
    pos = make_position(variant, stacks, **pos_kw)  # type: ignore[arg-type]
    return BoardScene(position=pos, **fields)  # type: ignore[arg-type]


def png(sc: BoardScene, theme: str = "default") -> Image.Image:
    data = render_board(sc, theme)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    im = Image.open(io.BytesIO(data))
    im.load()
    return im.convert("RGB")


def near(a: tuple[int, ...], b: RGB, tol: int = 12) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a[:3], b, strict=True))


def pixel(im: Image.Image, xy: tuple[float, float]) -> tuple[int, ...]:
    value = im.getpixel((round(xy[0]), round(xy[1])))
    assert isinstance(value, tuple)
    return value


def count_near(im: Image.Image, centre: tuple[float, float], radius: int, colour: RGB) -> int:
    """Pixels close to ``colour`` in the square of ``radius`` round ``centre``."""
    cx, cy = round(centre[0]), round(centre[1])
    crop = im.crop((cx - radius, cy - radius, cx + radius + 1, cy + radius + 1))
    return sum(n for n, c in crop.getcolors(1 << 16) or [] if near(c, colour))


# --------------------------------------------------------------------------- basics


def test_png_size_and_mode() -> None:
    data = render_board(scene({6: "XXX", 19: "OOO"}))
    im = Image.open(io.BytesIO(data))
    assert im.format == "PNG"
    assert im.size == (L.WIDTH, L.HEIGHT)
    assert im.mode == "P"  # palette PNG: see board.PALETTE_COLOURS
    assert 800 <= L.WIDTH <= 1000


def test_themes_registry_and_unknown_theme_falls_back() -> None:
    assert set(THEMES) == {"default", "high-contrast"}
    sc = scene({6: "XX"})
    assert render_board(sc, "no-such-theme") == render_board(sc, "default")
    assert render_board(sc, "high-contrast") != render_board(sc, "default")


@pytest.mark.parametrize(("label", "sc", "theme"), gallery(), ids=[g[0] for g in gallery()])
def test_gallery_scenes_are_plausible_and_small(label: str, sc: BoardScene, theme: str) -> None:
    assert plausible(sc.position), label
    data = render_board(sc, theme)
    assert len(data) < 80 * 1024, (label, len(data))


# --------------------------------------------------------------------------- checkers


def test_checker_colours_on_points() -> None:
    im = png(scene({6: "XXX", 19: "OO", 13: "X"}))
    for i in range(3):
        assert near(pixel(im, L.checker_centre(6, i, 3)), LIGHT)
    for i in range(2):
        assert near(pixel(im, L.checker_centre(19, i, 2)), DARK)
    assert near(pixel(im, L.checker_centre(13, 0, 1)), LIGHT)
    # No checker beyond the stack: the point's own colour shows there.
    assert not near(pixel(im, L.checker_centre(6, 3, 4)), LIGHT)


def test_x_colour_dark_swaps_the_colours() -> None:
    im = png(scene({6: "XXX", 19: "OO"}, x_colour="dark"))
    assert near(pixel(im, L.checker_centre(6, 0, 3)), DARK)
    assert near(pixel(im, L.checker_centre(19, 0, 2)), LIGHT)


def test_orientation_flipped_position_is_mirrored() -> None:
    sc = scene({6: "XXX", 12: "OO"})
    other = seen_by_other(sc)  # Bob's view: his 2 on his 13, Alice's 3 on his 19
    a, b = png(sc), png(other)
    assert near(pixel(a, L.checker_centre(6, 0, 3)), LIGHT)
    assert near(pixel(a, L.checker_centre(12, 0, 2)), DARK)
    assert near(pixel(b, L.checker_centre(19, 0, 3)), LIGHT)
    assert near(pixel(b, L.checker_centre(13, 0, 2)), DARK)
    assert not near(pixel(b, L.checker_centre(6, 0, 3)), LIGHT)
    assert not near(pixel(b, L.checker_centre(12, 0, 2)), DARK)


def test_pinned_checker_is_visible_under_its_captor() -> None:
    im = png(scene({9: "OX", 16: "XO"}, variant="pin"))
    for point, under, over in ((9, DARK, LIGHT), (16, LIGHT, DARK)):
        x, y = L.visible_centre(point, 0, 0, 2, True)
        # Beside the lock mark, the visible part of the bottom checker shows its colour ...
        assert near(pixel(im, (x - 19, y)), under)
        # ... with the lock on it ...
        assert count_near(im, (x, y), 8, DEFAULT.pin) > 20
        # ... and the captor on top, nearer the tip.
        assert near(pixel(im, L.checker_centre(point, 1, 2, True)), over)
    # Overlap: the captor's centre is closer than a full checker to the pinned one's.
    assert L.spacing(2, True) < L.CHECKER


def test_lifo_mixed_stack_order_bottom_to_top() -> None:
    stack = "XXOOX"
    im = png(scene({21: stack}, variant="blocking", reserve=(12, 13)))
    drawn, covered = L.drawn_stack(stack)
    assert covered
    for dc in drawn:
        if dc.covered:  # a lock sits on the middle of the visible part
            x, y = L.visible_centre(21, dc.slot, dc.slot, len(drawn), covered)
            probe: tuple[float, float] = (x - 19, y)
        else:
            probe = L.checker_centre(21, dc.slot, len(drawn), covered)
        assert near(pixel(im, probe), LIGHT if dc.colour == "X" else DARK), dc


def test_tall_stack_shows_a_count() -> None:
    text = DEFAULT.light.text
    tall = png(scene({24: "X" * 9, 6: "XXXX"}))
    top = L.checker_centre(24, 8, 9)
    assert count_near(tall, top, 8, text) > 10
    assert count_near(tall, L.checker_centre(6, 3, 4), 8, text) == 0
    # The compressed stack still fits on its point.
    assert abs(L.checker_centre(24, 8, 9)[1] - L.FIELD_TOP) <= L.POINT_LEN


def test_very_tall_mixed_stack_keeps_order_and_top() -> None:
    stack = "X" * 10 + "O" * 6 + "X"
    drawn, covered = L.drawn_stack(stack)
    assert covered and len(drawn) == L.MAX_DRAWN
    assert drawn[0].index == 0 and drawn[-1].index == len(stack) - 1
    colours = "".join(d.colour for d in drawn)
    assert colours.startswith("X") and colours.endswith("OX") and "XO" in colours
    assert [d.index for d in drawn] == sorted(d.index for d in drawn)
    im = png(scene({20: stack}, variant="blocking"))
    # The strip of the last O under the top X (its run's single lock is further down).
    assert near(pixel(im, L.visible_centre(20, 11, 11, L.MAX_DRAWN, True)), DARK)
    top = L.checker_centre(20, L.MAX_DRAWN - 1, L.MAX_DRAWN, True)
    assert count_near(im, top, 8, DEFAULT.light.text) > 10  # the "17"


# --------------------------------------------------------------------------- bar, reserve, off


def fill_probe(centre: tuple[int, int]) -> tuple[int, int]:
    """A point of a checker's face clear of its inner ring and of a count label."""
    return centre[0] - 18, centre[1]


def test_bar_checkers() -> None:
    im = png(scene({6: "X" * 14, 19: "O" * 13}, bar=(1, 2)))
    assert near(pixel(im, L.bar_centre("X", 0, 1)), LIGHT)
    assert near(pixel(im, L.bar_centre("O", 0, 2)), DARK)
    assert near(pixel(im, fill_probe(L.bar_centre("O", 1, 2))), DARK)
    assert count_near(im, L.bar_centre("O", 1, 2), 8, DEFAULT.dark.text) > 10  # "2"
    none = png(scene({6: "X" * 15, 19: "O" * 15}))
    assert near(pixel(none, L.bar_centre("X", 0, 1)), DEFAULT.bar)
    assert near(pixel(none, L.bar_centre("O", 0, 1)), DEFAULT.bar)


def test_reserve_checkers() -> None:
    im = png(scene({20: "X"}, variant="blocking", reserve=(14, 15)))
    for side, n, colour, text in (
        ("X", 14, LIGHT, DEFAULT.light.text),
        ("O", 15, DARK, DEFAULT.dark.text),
    ):
        top = L.reserve_centre(side, n - 1, n)
        assert near(pixel(im, fill_probe(top)), colour)
        assert count_near(im, top, 8, text) > 10  # the count
        # The pile reaches from its owner's edge: the bottom checker's rim is at the edge.
        x, y = L.reserve_centre(side, 0, n)
        assert near(pixel(im, (x, y + (20 if side == "X" else -20))), colour)
    empty = png(scene({20: "X" * 15, 1: "O" * 15}, variant="blocking"))
    x, y = L.reserve_centre("X", 0, 1)
    assert near(pixel(empty, (x, y + 20)), DEFAULT.tray)


def test_borne_off_slabs_and_highlight() -> None:
    lp = LastPlay("O", (Step(2, 0, 2),), "2/off", (2, 1))
    im = png(scene({1: "X" * 12, 20: "O" * 10}, off=(3, 5), last_play=lp))
    x0, y0, x1, y1 = L.off_slab_box("X", 2)
    assert near(pixel(im, ((x0 + x1) / 2, (y0 + y1) / 2)), LIGHT)
    x0, y0, x1, y1 = L.off_slab_box("O", 4)
    assert near(pixel(im, ((x0 + x1) / 2, (y0 + y1) / 2)), DARK)
    assert near(pixel(im, (x0 + 1, (y0 + y1) / 2)), DEFAULT.highlight, 30)  # just borne off
    x0, y0, x1, y1 = L.off_slab_box("O", 3)
    assert not near(pixel(im, (x0 + 1, (y0 + y1) / 2)), DEFAULT.highlight, 30)


# --------------------------------------------------------------------------- cube, dice, chain


@pytest.mark.parametrize("owner", [None, "X", "O"])
def test_cube_position(owner: str | None) -> None:
    im = png(scene({6: "XX"}, cube_value=2, cube_owner=owner))
    for where in (None, "X", "O"):
        x0, y0, _, _ = L.cube_box(where)
        assert near(pixel(im, (x0 + 6, y0 + 6)), DEFAULT.cube_fill) == (where == owner)


def test_no_cube_without_cube_value() -> None:
    im = png(scene({6: "XX"}))
    x0, y0, _, _ = L.cube_box(None)
    assert not near(pixel(im, (x0 + 6, y0 + 6)), DEFAULT.cube_fill)


def test_no_cube_in_the_crawford_game() -> None:
    """Nobody may double in the Crawford game: no centred cube (it would read 64)."""
    x0, y0, _, _ = L.cube_box(None)
    before = png(scene({6: "XX"}, cube_value=1, match_length=5, match_score=(3, 4)))
    assert near(pixel(before, (x0 + 6, y0 + 6)), DEFAULT.cube_fill)
    crawford = png(
        scene({6: "XX"}, cube_value=1, match_length=5, match_score=(4, 3), crawford=True)
    )
    assert not near(pixel(crawford, (x0 + 6, y0 + 6)), DEFAULT.cube_fill)


def test_dice_drawn_in_roller_colour() -> None:
    im = png(scene({6: "XX"}, dice=(6, 1), x_colour="dark"))
    for x0, y0, _, _ in L.dice_boxes(2):
        assert near(pixel(im, (x0 + 23, y0 + 6)), DEFAULT.die_dark)
    blank = png(scene({6: "XX"}, x_colour="dark"))
    x0, y0, _, _ = L.dice_boxes(2)[0]
    assert not near(pixel(blank, (x0 + 23, y0 + 6)), DEFAULT.die_dark)


def test_express_chain_shows_current_dice_and_pending_numbers() -> None:
    chain = ChainInfo(((3, 2), (4, 4), (5, 4), (6, 4)), "X")
    sc = scene({20: "XX"}, variant="blocking-express", reserve=(13, 15), chain=chain)
    im = png(sc)
    for x0, y0, _, _ in L.dice_boxes(2, with_badge=True):
        assert near(pixel(im, (x0 + 23, y0 + 6)), DEFAULT.die_light)
    # The chain panel (banner colour, with text in the highlight colour) in the left field.
    centre = (L.LEFT_FIELD_X + 3 * L.POINT_W, L.MID_Y + 15)
    assert count_near(im, centre, 30, DEFAULT.highlight) > 30
    without = png(replace(sc, chain=None))
    assert count_near(without, centre, 30, DEFAULT.highlight) == 0


# --------------------------------------------------------------------------- last play


def ring_probe(centre: tuple[int, int]) -> tuple[float, float]:
    return centre[0] + 24, centre[1]


def test_last_play_ghost_source_and_ring_destination() -> None:
    # Bob (O) played 13/7 in his numbering = Alice's 12 -> 18.
    lp = LastPlay("O", (Step(13, 7, 6),), "13/7", (6, 1))
    base = scene({6: "X" * 5, 12: "OOOO", 18: "O"})
    marked, plain = png(replace(base, last_play=lp)), png(base)
    dest = L.checker_centre(18, 0, 1)
    assert count_near(marked, ring_probe(dest), 3, DEFAULT.highlight) > 5
    assert count_near(plain, ring_probe(dest), 3, DEFAULT.highlight) == 0
    ghost = L.checker_centre(12, 4, 5)  # above the 4 that stayed
    assert count_near(marked, ghost, 24, DEFAULT.highlight) > 20
    assert count_near(plain, ghost, 24, DEFAULT.highlight) == 0


def test_last_play_of_x_is_not_flipped() -> None:
    lp = LastPlay("X", (Step(13, 7, 6),), "13/7", (6, 1))
    im = png(scene({7: "X", 13: "X" * 4}, to_act="O", last_play=lp))
    assert count_near(im, ring_probe(L.checker_centre(7, 0, 1)), 3, DEFAULT.highlight) > 5


def test_hit_marks_destination_and_bar_checker() -> None:
    lp = LastPlay("O", (Step(13, 7, 6, "hit"),), "13/7*", (6, 1))
    sc = scene({18: "O", 6: "X" * 14, 12: "O" * 14}, bar=(1, 0), last_play=lp)
    im = png(sc)
    x, y = L.checker_centre(18, 0, 1)
    assert count_near(im, (x + 17, y - 17), 6, DEFAULT.hit) > 10  # starburst
    assert count_near(im, ring_probe(L.bar_centre("X", 0, 1)), 3, DEFAULT.hit) > 5


def test_pin_marks_the_pinned_checker() -> None:
    lp = LastPlay("O", (Step(14, 9, 5, "pin"),), "14/9^", (5, 1))
    im = png(scene({16: "XO", 24: "X" * 14, 1: "O" * 14}, variant="pin", last_play=lp))
    under = L.checker_centre(16, 0, 2, True)
    assert count_near(im, (under[0] - 24, under[1]), 3, DEFAULT.pin) > 5


def test_entry_from_reserve_leaves_a_ghost_in_the_reserve() -> None:
    lp = LastPlay("O", (Step(25, 22, 3),), "bar/22", (3, 1))
    im = png(scene({3: "O"}, variant="blocking", reserve=(15, 14), last_play=lp))
    ghost = L.reserve_centre("O", 14, 15)
    assert count_near(im, ghost, 24, DEFAULT.highlight) > 20


# --------------------------------------------------------------------------- game over, theme


def test_game_over_picture_differs_and_shows_a_banner() -> None:
    sc = scene({20: "O" * 15}, off=(15, 0), to_act=None, match_length=5, match_score=(3, 1))
    over = replace(sc, result="Alice wins 2 points (gammon)")
    a, b = png(sc), png(over)
    assert a.tobytes() != b.tobytes()
    centre = (L.BAR_CX - 200, L.MID_Y - 10)
    assert count_near(b, centre, 40, DEFAULT.banner_text) > 20
    assert count_near(a, centre, 40, DEFAULT.banner_text) == 0


def test_high_contrast_checkers_differ_in_grayscale() -> None:
    def grey(c: RGB) -> float:
        return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]

    assert abs(grey(HC.light.fill) - grey(HC.dark.fill)) > 200
    assert abs(grey(HC.light.rim) - grey(HC.dark.rim)) > 200
    im = png(scene({6: "XXX", 19: "OOO"}), "high-contrast").convert("L")
    x = im.getpixel(L.checker_centre(6, 0, 3))
    o = im.getpixel(L.checker_centre(19, 0, 3))
    assert isinstance(x, int) and isinstance(o, int)
    assert abs(x - o) > 200
    # Each checker is set off from the other colour's by its rim: white ones have a dark rim.
    cx, cy = L.checker_centre(6, 0, 3)
    rim = im.getpixel((cx + L.CHECKER // 2 - 1, cy))
    assert isinstance(rim, int) and rim < 100


def test_status_and_names_are_drawn() -> None:
    sc = scene({6: "XX"})
    a = png(sc)
    b = png(replace(sc, status="Alice to roll or double", x_name="Zed"))
    band = a.crop((0, L.X_BAND_Y, L.WIDTH, L.HEIGHT)).tobytes()
    assert band != b.crop((0, L.X_BAND_Y, L.WIDTH, L.HEIGHT)).tobytes()
