"""Board picture: :func:`render_board` turns a :class:`BoardScene` into PNG bytes.

The empty board of each theme is drawn once (at twice the size, then downscaled) and cached.
The painter records what goes on it (cached sprites and glyphs, labels, bands) and
render.compose assembles the picture in the theme's fixed palette from cached tiles of those
drawings (drawn in RGB on a miss); render.png encodes it. ``render_image`` still draws the
whole board in RGB (replays, the palette), and the composed board is pixel for pixel that
picture mapped onto the palette.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.variants import VARIANTS
from render import compose, sprites
from render import layout as L
from render import text as T
from render.compose import Canvas, Composer, TileCache, run
from render.png import encode_palette_png, encode_rows
from render.scene import BoardScene
from render.theme import RGB, Theme, get_theme

SIDES = ("X", "O")

#: PNG settings (measured by bench/render.py). The picture is flat colours plus anti-aliased
#: edges between them, so a fixed 256-colour palette per theme (built once from sample boards)
#: loses nothing visible, while an RGB PNG is 3-4x larger and 5-10x slower to encode; mapping
#: onto a known palette costs ~2 ms where adaptive quantisation costs 10-20 ms.
#: Palette boards are written by render.png (ISA-L deflate); COMPRESS_LEVEL is Pillow's zlib
#: level for an RGB board (PALETTE_COLOURS = 0): level 3 is the knee there.
PALETTE_COLOURS = 256
COMPRESS_LEVEL = 3

COUNT_SIZE = 20
#: Spacing below which covered checkers get one lock per run instead of one each.
LOCK_ROOM = 30


# --------------------------------------------------------------------------- cached board


@lru_cache(maxsize=8)
def base_board(theme_name: str) -> Image.Image:
    """The empty board: frame, field, points, trays, bar and point numbers."""
    theme = get_theme(theme_name)
    k = 2
    big = Image.new("RGB", (L.WIDTH * k, L.HEIGHT * k), theme.background)
    d = ImageDraw.Draw(big)

    def box(x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        return x0 * k, y0 * k, x1 * k - 1, y1 * k - 1

    frame = box(L.BOARD_LEFT, L.BOARD_TOP, L.BOARD_RIGHT, L.BOARD_BOTTOM)
    d.rounded_rectangle(frame, 10 * k, fill=theme.frame)
    for x0 in (L.LEFT_FIELD_X, L.RIGHT_FIELD_X):
        d.rectangle(box(x0, L.FIELD_TOP, x0 + 6 * L.POINT_W, L.FIELD_BOTTOM), fill=theme.field)
    for x0 in (L.LEFT_TRAY_X, L.RIGHT_TRAY_X):
        tray = box(x0, L.FIELD_TOP, x0 + L.TRAY_W, L.FIELD_BOTTOM)
        d.rounded_rectangle(tray, 6 * k, fill=theme.tray)
    d.rectangle(box(L.BAR_X, L.FIELD_TOP, L.BAR_X + L.BAR_W, L.FIELD_BOTTOM), fill=theme.bar)
    for p in range(1, 25):
        colour = theme.point_a if p % 2 else theme.point_b
        d.polygon([(x * k, y * k) for x, y in L.point_triangle(p)], fill=colour)
    im = big.resize((L.WIDTH, L.HEIGHT), Image.Resampling.LANCZOS)
    for p in range(1, 25):
        T.draw(im, L.point_number_centre(p), str(p), theme.frame_text, 20, True, "mm")
    return im


# --------------------------------------------------------------------------- last play


@dataclass
class _Marks:
    """The last play translated into what to draw, in the scene's frame."""

    mover: str = ""
    ghosts: Counter[int] = field(default_factory=Counter)  # point -> checkers that left
    arrivals: Counter[int] = field(default_factory=Counter)  # point -> checkers that arrived
    hits: Counter[int] = field(default_factory=Counter)  # point -> blots hit there
    pins: Counter[int] = field(default_factory=Counter)  # point -> blots pinned/trapped there
    entries: int = 0
    entry_pile: str = ""  # "bar" | "reserve" | "" (cannot tell)
    borne_off: int = 0


def _entry_pile(scene: BoardScene, mover: str) -> str:
    rules = VARIANTS.get(scene.position.variant)  # a scene may name no known variant
    pile = rules.entry_pile if rules is not None else None
    if pile is not None:
        return pile
    # Dutch: bar checkers must enter first, so checkers still on the bar mean the entries
    # came from it; otherwise the pile cannot be told from the position after the play.
    return "bar" if _count(scene.position.bar, SIDES.index(mover)) > 0 else ""


def _marks(scene: BoardScene) -> _Marks:
    lp = scene.last_play
    if lp is None or lp.mover not in SIDES:
        return _Marks()
    m = _Marks(mover=lp.mover, entry_pile=_entry_pile(scene, lp.mover))
    net: Counter[int] = Counter()
    flip = lp.mover == "O"
    for step in lp.steps:
        try:
            src, dst, effect = int(step[0]), int(step[1]), str(step[3])
        except (TypeError, ValueError, IndexError):
            continue
        if not (1 <= src <= 25 and 0 <= dst <= 24):
            continue
        if src == 25:
            m.entries += 1
        else:
            net[25 - src if flip else src] -= 1
        if dst == 0:
            m.borne_off += 1
            continue
        d = 25 - dst if flip else dst
        net[d] += 1
        if effect == "hit":
            m.hits[d] += 1
        elif effect in ("pin", "trap"):
            m.pins[d] += 1
    for p, n in net.items():
        if n < 0:
            m.ghosts[p] = -n
        elif n > 0:
            m.arrivals[p] = n
    return m


# --------------------------------------------------------------------------- small helpers


def _other(side: str) -> str:
    return "O" if side == "X" else "X"


def _int(v: object, default: int = 0) -> int:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    try:
        return int(str(v))
    except ValueError:
        return default


def _count(pair: object, i: int) -> int:
    """``pair[i]`` as a count in 0..99 (the scene may come from anywhere)."""
    try:
        return max(0, min(_int(pair[i]), 99))  # type: ignore[index]
    except (TypeError, IndexError, KeyError):
        return 0


def _pair(p: object) -> tuple[int, int]:
    try:
        return _int(p[0]), max(0, min(_int(p[1]), 99))  # type: ignore[index]
    except (TypeError, IndexError, KeyError):
        return 0, 0


def _safe_pips(scene: BoardScene, side: str) -> int:
    try:
        return int(scene.position.pips(side))
    except (TypeError, ValueError, IndexError, AttributeError):
        return 0


def _pill(
    im: Canvas, left_mid: tuple[float, float], text: str, bg: RGB, fg: RGB, size: int
) -> float:
    """A rounded label; returns its width."""
    x, y = left_mid
    w = T.width(text, size, True) + 22
    h = size + 10
    im.rounded_rectangle((x, y - h / 2, x + w, y + h / 2), h / 2, fill=bg)
    im.text((x + w / 2, y), text, fg, size, True, "mm")
    return w


# --------------------------------------------------------------------------- painter


class _Painter:
    def __init__(self, scene: BoardScene, theme: Theme) -> None:
        self.scene = scene
        self.theme = theme
        self.tn = theme.name
        x_shade = "dark" if scene.x_colour == "dark" else "light"
        self.shade = {"X": x_shade, "O": "light" if x_shade == "dark" else "dark"}
        self.im = Canvas((L.WIDTH, L.HEIGHT))
        self.marks = _marks(scene)

    def count_label(self, centre: tuple[float, float], n: int, side: str) -> None:
        colour = sprites.style_of(self.theme, self.shade[side]).text
        self.im.text(centre, str(n), colour, COUNT_SIZE, True, "mm")

    def name(self, side: str) -> str:
        return str(self.scene.x_name if side == "X" else self.scene.o_name)

    # ---------------------------------------------------------------- points

    def points(self) -> None:
        pts = self.scene.position.points
        for p in range(1, 25):
            stack = pts[p] if p < len(pts) and isinstance(pts[p], str) else ""
            if stack.strip("XO"):
                stack = "".join(c for c in stack if c in SIDES)
            self.point(p, stack)

    def point(self, p: int, stack: str) -> None:
        m = self.marks
        im = self.im
        # What a point draws depends on these only (the theme and colours, its stack, its
        # marks): a point seen before is replayed instead of laid out again.
        key = (
            self.tn,
            self.shade["X"],
            p,
            stack,
            m.mover,
            m.ghosts.get(p, 0),
            m.arrivals.get(p, 0),
            bool(m.pins.get(p)),
            bool(m.hits.get(p)),
        )
        if im.replay(key):
            return
        self.draw_point(p, stack)
        im.remember(key)

    def draw_point(self, p: int, stack: str) -> None:
        m = self.marks
        im = self.im
        drawn, covered = L.drawn_stack(stack)
        ghosts = min(m.ghosts.get(p, 0), 15)
        slots = len(drawn) + ghosts
        centres = [L.checker_centre(p, i, slots, covered) for i in range(slots)]
        for dc in drawn:
            im.sprite_centred(sprites.checker, (self.tn, self.shade[dc.colour]), centres[dc.slot])
        # Locks go on after all checkers, on the visible part of covered ones: one per checker
        # where there is room, else one per run of covered checkers of the same colour.
        runs: list[list[int]] = []
        for dc in drawn:
            if not dc.covered:
                continue
            if runs and runs[-1][1] == dc.slot - 1 and drawn[runs[-1][1]].colour == dc.colour:
                runs[-1][1] = dc.slot
            else:
                runs.append([dc.slot, dc.slot])
        if L.spacing(slots, covered) >= LOCK_ROOM:
            runs = [[i, i] for first, last in runs for i in range(first, last + 1)]
        for first, last in runs:
            centre = L.visible_centre(p, first, last, slots, covered)
            im.sprite_centred(sprites.lock, (self.tn,), centre)
        for g in range(ghosts):
            im.sprite_centred(
                sprites.ghost, (self.tn, self.shade[m.mover]), centres[len(drawn) + g]
            )
        arrived = m.arrivals.get(p, 0)
        for dc in reversed(drawn):
            if arrived <= 0 or dc.colour != m.mover:
                break
            im.sprite_centred(sprites.ring, (self.tn, self.theme.highlight), centres[dc.slot])
            arrived -= 1
        if m.pins.get(p):
            victim = _other(m.mover)
            for dc in reversed(drawn):
                if dc.colour == victim:
                    im.sprite_centred(sprites.ring, (self.tn, self.theme.pin), centres[dc.slot])
                    break
        if len(stack) > L.FULL_STACK and drawn:
            top = drawn[-1]
            self.count_label(centres[top.slot], len(stack), top.colour)
        if m.hits.get(p):
            x, y = L.checker_centre(p, max(len(drawn) - 1, 0), max(slots, 1), covered)
            burst = (x + 17, y + (-17 if L.is_top(p) else 17))
            im.sprite_centred(sprites.starburst, (self.tn,), burst)

    # ---------------------------------------------------------------- bar, reserve, off

    def pile(self, side: str, where: str, count: int, ghosts: int, ringed: int) -> None:
        shown = min(count, 15)
        slots = shown + ghosts
        centre = L.bar_centre if where == "bar" else L.reserve_centre
        im = self.im
        im.group()
        for i in range(shown):
            im.sprite_centred(sprites.checker, (self.tn, self.shade[side]), centre(side, i, slots))
        for i in range(shown - min(ringed, shown), shown):
            im.sprite_centred(sprites.ring, (self.tn, self.theme.hit), centre(side, i, slots))
        for g in range(ghosts):
            ghost_centre = centre(side, shown + g, slots)
            im.sprite_centred(sprites.ghost, (self.tn, self.shade[side]), ghost_centre)
        if count > 1 and shown:
            self.count_label(centre(side, shown - 1, slots), count, side)

    def bar_and_reserve(self) -> None:
        pos = self.scene.position
        m = self.marks
        for i, side in enumerate(SIDES):
            mine = m.mover == side
            hits = sum(m.hits.values()) if (m.mover and not mine) else 0
            bar_ghosts = min(m.entries, 15) if mine and m.entry_pile == "bar" else 0
            res_ghosts = min(m.entries, 15) if mine and m.entry_pile == "reserve" else 0
            self.pile(side, "bar", _count(pos.bar, i), bar_ghosts, hits)
            self.pile(side, "reserve", _count(pos.reserve, i), res_ghosts, 0)

    def off(self) -> None:
        pos = self.scene.position
        m = self.marks
        for i, side in enumerate(SIDES):
            total = _count(pos.off, i)
            n = min(total, 15)
            fresh = m.borne_off if side == m.mover else 0
            self.im.group()
            for k in range(n):
                x0, y0, _, _ = L.off_slab_box(side, k)
                self.im.sprite(sprites.slab, (self.tn, self.shade[side], k >= n - fresh), x0, y0)
            if n:
                x0, y0, x1, y1 = L.off_slab_box(side, n - 1)
                y = y0 - 14 if side == "X" else y1 + 14
                label = str(total)
                self.im.text(((x0 + x1) / 2, y), label, self.theme.frame_text, 20, True, "mm")

    # ---------------------------------------------------------------- cube, dice, chain

    def cube(self) -> None:
        s = self.scene
        if s.cube_value is None or s.crawford:
            # No doubling in the Crawford game: a centred cube there would say "64, free to
            # double" (the title band says Crawford instead).
            return
        owner = s.cube_owner if s.cube_owner in SIDES else None
        value = max(1, _int(s.cube_value, 1))
        shown = 64 if (owner is None and value == 1) else value
        x0, y0, x1, y1 = L.cube_box(owner)
        self.im.group()
        self.im.sprite_centred(sprites.cube, (self.tn, shown), ((x0 + x1) / 2, (y0 + y1) / 2))

    def dice(self) -> None:
        s = self.scene
        roller = s.to_act if s.to_act in SIDES else "X"
        chain = s.chain
        copies: int | None = None
        values: tuple[int, ...] = ()
        if chain is not None and chain.pending:
            v, copies = _pair(chain.pending[0])
            values = (v, v)
            if chain.controller in SIDES:
                roller = chain.controller
        elif s.dice:
            values = tuple(_int(v) for v in s.dice[:4])
            if len(values) >= 2 and len(set(values)) == 1:
                copies = len(values) if len(values) > 2 else 4
                values = values[:2]
        self.im.group()
        if values:
            boxes = L.dice_boxes(len(values), with_badge=copies is not None)
            for v, (x0, y0, x1, y1) in zip(values, boxes, strict=True):
                centre = ((x0 + x1) / 2, (y0 + y1) / 2)
                self.im.sprite_centred(sprites.die, (self.tn, self.shade[roller], v), centre)
            if copies is not None:
                x1, y0, y1 = boxes[-1][2], boxes[-1][1], boxes[-1][3]
                t = self.theme
                badge = f"×{copies}"
                _pill(self.im, (x1 + 10, (y0 + y1) / 2), badge, t.turn_pill, t.turn_pill_text, 22)
        if chain is not None and chain.pending:
            self.chain_panel()

    def chain_panel(self) -> None:
        chain = self.scene.chain
        assert chain is not None
        t = self.theme
        later = [_pair(p) for p in chain.pending[1:]]
        rest = "  ".join(f"{v}×{k}" for v, k in later)
        who = self.name(chain.controller) if chain.controller in SIDES else "?"
        x0, x1 = L.LEFT_FIELD_X + 6, L.LEFT_FIELD_X + 6 * L.POINT_W - 6
        cx, width = (x0 + x1) / 2, x1 - x0 - 16
        y0 = L.MID_Y - 33
        self.im.group()
        self.im.rounded_rectangle((x0, y0, x1, y0 + 66), 10, fill=t.banner)
        line1 = T.fit(f"Chain: {who} to play", 20, True, width)
        line2 = T.fit(f"then {rest}" if rest else "last number of the chain", 20, True, width)
        self.im.text((cx, L.MID_Y - 14), line1, t.banner_text, 20, True, "mm")
        self.im.text((cx, L.MID_Y + 15), line2, t.highlight, 20, True, "mm")

    # ---------------------------------------------------------------- text bands

    def title(self) -> None:
        s = self.scene
        t = self.theme
        right = ""
        if s.match_length > 1:
            sx, so = _count(s.match_score, 0), _count(s.match_score, 1)
            right = f"Match to {s.match_length} · {sx}-{so}"
            if s.crawford:
                right += " · Crawford"
        rw = T.width(right, 22)
        title = T.fit(str(s.variant_name), 24, True, L.WIDTH - 2 * L.MARGIN - rw - 30)
        y = L.TITLE_H // 2 + 2
        self.im.group(loose=True)
        self.im.text((L.MARGIN + 4, y), title, t.text, 24, True, "lm")
        if right:
            self.im.text((L.WIDTH - L.MARGIN - 4, y), right, t.text_dim, 22, False, "rm")

    def band(self, side: str) -> None:
        s = self.scene
        t = self.theme
        im = self.im
        y0 = L.O_BAND_Y if side == "O" else L.X_BAND_Y
        acting = s.to_act == side
        band = (0, y0 + 3, L.WIDTH, y0 + L.BAND_H - 3)
        im.group(loose=True)
        im.background(band, t.turn_band if acting else t.band)
        cy = y0 + L.BAND_H // 2
        x: float = L.MARGIN + 4
        swatch = sprites.checker(self.tn, self.shade[side], 32)
        im.sprite(
            sprites.checker, (self.tn, self.shade[side], 32), round(x), cy - swatch.height // 2
        )
        x += swatch.width + 10
        i = SIDES.index(side)
        segments = [(f"{_safe_pips(s, side)} pips", t.text)]
        if s.match_length > 1:
            segments.append((f"score {_count(s.match_score, i)}", t.text))
        for pile, where in ((s.position.bar, "on the bar"), (s.position.reserve, "in reserve")):
            if _count(pile, i):
                segments.append((f"{_count(pile, i)} {where}", t.text_dim))
        right_x: float = L.WIDTH - L.MARGIN - 6
        for segment, colour in segments:
            right_x -= im.text((right_x, cy), segment, colour, 22, False, "rm") + 26
        rw = L.WIDTH - L.MARGIN - 6 - right_x
        pill = "to play" if acting else ""
        pill_w = T.width(pill, 20, True) + 36 if acting else 0
        name = T.fit(self.name(side), 24, True, L.WIDTH - L.MARGIN - 30 - rw - x - pill_w)
        x += im.text((x, cy), name, t.text, 24, True, "lm") + 14
        if acting:
            _pill(im, (x, cy), pill, t.turn_pill, t.turn_pill_text, 20)

    def footer(self) -> None:
        s = self.scene
        t = self.theme
        im = self.im
        y = L.FOOTER_Y + 8 + L.FOOTER_LINE // 2
        right_edge = L.WIDTH - L.MARGIN - 4
        lp = s.last_play
        im.group(loose=True)
        if lp is not None:
            x: float = L.MARGIN + 4
            if lp.mover in SIDES:
                sw = sprites.checker(self.tn, self.shade[lp.mover], 22)
                im.sprite(
                    sprites.checker,
                    (self.tn, self.shade[lp.mover], 22),
                    round(x),
                    y - sw.height // 2,
                )
                x += sw.width + 8
                who = self.name(lp.mover)
            else:
                who = "?"
            head = T.fit(f"{who} played ", 22, True, (right_edge - x) / 2)
            x += im.text((x, y), head, t.text_dim, 22, True, "lm")
            dice = "-".join(str(_int(v)) for v in lp.dice[:4]) + ": " if lp.dice else ""
            body = T.fit(dice + (str(lp.text) or "no move"), 22, False, right_edge - x)
            im.text((x, y), body, t.highlight, 22, False, "lm")
            y += L.FOOTER_LINE
        if s.status:
            status = T.fit(str(s.status), 22, False, right_edge - L.MARGIN - 4)
            im.text((L.MARGIN + 4, y), status, t.text, 22, False, "lm")

    def game_over(self) -> None:
        s = self.scene
        if s.result is None:
            return
        t = self.theme
        x0, x1 = L.LEFT_FIELD_X + 10, L.RIGHT_FIELD_X + 6 * L.POINT_W - 10
        lines = [str(s.result)]
        if s.match_length > 1:
            sx, so = _count(s.match_score, 0), _count(s.match_score, 1)
            lines.append(f"{self.name('X')} {sx} – {so} {self.name('O')}")
        h = 24 + 40 * len(lines)
        top = L.MID_Y - h // 2
        self.im.group()
        self.im.veil(x0, top, x1 - x0, h, (*t.banner, 230))
        edge = (x0, top, x1 - 1, top + h - 1)
        self.im.rectangle(edge, outline=t.highlight, width=3)
        y = top + 12 + 20
        for k, line in enumerate(lines):
            size = 28 if k == 0 else 22
            fitted = T.fit(line, size, True, x1 - x0 - 24)
            self.im.text(((x0 + x1) / 2, y), fitted, t.banner_text, size, True, "mm")
            y += 40

    def paint(self) -> Canvas:
        self.title()
        self.band("O")
        self.band("X")
        self.points()
        self.bar_and_reserve()
        self.off()
        self.cube()
        self.dice()
        self.footer()
        self.game_over()
        return self.im


# --------------------------------------------------------------------------- encoding


@lru_cache(maxsize=8)
def palette(theme_name: str) -> Image.Image:
    """A 'P' image carrying the theme's fixed 256-colour palette (built once, ~0.5 s).

    The theme's own colours are kept exactly. The rest comes from median-cut quantisation of
    the distinct colours of sample boards that hold every kind of element, each colour counted
    once: the flat areas are already exact, so the spare entries go to the anti-aliased blends
    (weighting by pixel count instead doubles the mean error).
    """
    from render.samples import palette_scenes  # samples import this module's users

    theme = get_theme(theme_name)
    exact = theme.colours()
    known = set(exact)
    seen: set[tuple[int, int, int]] = set()
    for scene in palette_scenes():
        for _, colour in (
            _draw_rgb(_Painter(scene, theme).paint(), theme.name).getcolors(1 << 17) or []
        ):
            if isinstance(colour, tuple) and colour not in known:
                seen.add((int(colour[0]), int(colour[1]), int(colour[2])))
    spare = PALETTE_COLOURS - len(exact)
    colours = list(exact)
    if seen and spare > 0:
        blends = Image.new("RGB", (len(seen), 1))
        ordered: list[tuple[int, int, int]] = sorted(seen)  # deterministic palette
        blends.putdata(ordered)
        q = blends.quantize(spare, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        flat = (q.getpalette() or [])[: 3 * spare]
        colours += [(flat[i], flat[i + 1], flat[i + 2]) for i in range(0, len(flat) - 2, 3)]
    pal = Image.new("P", (1, 1))
    pal.putpalette([v for c in colours[:PALETTE_COLOURS] for v in c])
    return pal


def warm_up(themes: tuple[str, ...] = ("default", "high-contrast")) -> None:
    """Build the caches (board, sprites, glyphs, palette) so that the first real render is
    fast; a bot calls this once at start-up, off the event loop."""
    for name in themes:
        composer(get_theme(name).name)


#: Drawn components of boards, all themes together (see render.compose).
TILES = TileCache()


@lru_cache(maxsize=8)
def composer(theme_name: str) -> Composer:
    return Composer(theme_name, base_board(theme_name), palette(theme_name), TILES)


def clear_caches() -> None:
    """Forget the drawn components, composers and measured text (a cold start, new fonts)."""
    TILES.clear()
    composer.cache_clear()
    compose.forget()
    T.clear_caches()


def _draw_rgb(canvas: Canvas, theme_name: str) -> Image.Image:
    im = base_board(theme_name).copy()
    im.load()  # sprites.blit writes to the core image directly
    for op in canvas.ops():
        run(im, op)
    return im


def encode_png(im: Image.Image, theme_name: str = "default") -> bytes:
    """PNG bytes of a rendered board; see :data:`PALETTE_COLOURS` and :mod:`render.png`."""
    if PALETTE_COLOURS:
        if im.mode != "P":
            im = im.quantize(palette=palette(theme_name), dither=Image.Dither.NONE)
        return encode_palette_png(im)
    out = io.BytesIO()
    im.save(out, "PNG", compress_level=COMPRESS_LEVEL)
    return out.getvalue()


def render_image(scene: BoardScene, theme: str = "default") -> Image.Image:
    """The board as an RGB image, before encoding (every drawing made afresh)."""
    t = get_theme(theme)
    return _draw_rgb(_Painter(scene, t).paint(), t.name)


def render_palette_image(scene: BoardScene, theme: str = "default") -> Image.Image:
    """The board in the theme's palette ('P'), composed from cached components: pixel for
    pixel ``render_image`` mapped onto :func:`palette`."""
    t = get_theme(theme)
    return composer(t.name).compose(_Painter(scene, t).paint())


def render_board(scene: BoardScene, theme: str = "default") -> bytes:
    """The board of ``scene`` as PNG bytes, in ``theme`` (unknown names fall back to default)."""
    t = get_theme(theme)
    if not PALETTE_COLOURS:
        return encode_png(render_image(scene, t.name), t.name)
    return encode_rows(composer(t.name).compose_rows(_Painter(scene, t).paint()))
