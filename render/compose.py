"""Painting a board as recorded pieces, composed in palette mode from a cache of drawn tiles.

The painter (render.board) does not draw directly: it records what it would draw (a sprite
pasted at a place, a text, a rectangle) into a :class:`Canvas`, in groups (a point's stack with
its marks, a band, the dice ...). Groups whose boxes overlap are merged into components, so
every pixel any drawing touches lies in exactly one component, together with all the drawings
that touch it, in their original order. A component's picture therefore only depends on what it
draws and where: it is drawn once onto the empty board (RGB, exactly as before), mapped onto the
theme's palette and kept in a bounded LRU cache; later boards paste it as a plain rectangle into
a palette copy of the empty board. The result is pixel for pixel the board drawn in RGB and
quantised as a whole (the quantisation maps each colour on its own), at a fraction of the
cost: most stacks, labels and dice repeat from board to board.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from render import sprites
from render import text as T
from render.theme import RGB

Box = tuple[int, int, int, int]
#: A drawing: ``("s", sprite_fn, args, x, y)``, ``("t", xy, text, fill, size, bold, anchor)``,
#: ``("rr", box, radius, fill)``, ``("r", box, fill, outline, width)`` or
#: ``("v", x, y, w, h, rgba)`` (a translucent veil).
Op = tuple[Any, ...]

#: Cached tiles: at most this many, holding at most this many pixels (bytes) in all.
TILE_ENTRIES = 2048
TILE_BYTES = 8 * 1024 * 1024
#: Boxes whose empty-board pixels are remembered (a few bytes each).
CLASS_ENTRIES = 8192
NONE = Image.Dither.NONE
#: Groups of drawings remembered by key (Canvas.remember); emptied when full.
REMEMBERED_ENTRIES = 4096
_REMEMBERED: dict[Any, tuple[tuple[int, ...], tuple[Op, ...]]] = {}
#: Held while composing: the tile cache is shared by every theme's composer, and each
#: composer draws its misses on one scratch picture.
_LOCK = threading.Lock()


class Canvas:
    """Records drawings in groups; see the module docstring."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.size = size
        self.groups: list[tuple[list[int], list[tuple[int, Op]]]] = []
        #: Opaque flat rectangles drawn before anything else touches their pixels (the bands):
        #: filled straight into the palette picture instead of joining one big component.
        self.backgrounds: list[tuple[Box, Op]] = []
        self._background_seqs: list[int] = []
        self._seq = 0
        self._loose = False
        self.group()

    def group(self, loose: bool = False) -> None:
        """Start a new group (a unit of caching unless it overlaps another); ``loose``: each
        drawing until the next call is a group of its own (labels side by side on a band)."""
        self._loose = loose
        self.groups.append(([0, 0, 0, 0], []))

    def _add(self, box: tuple[float, float, float, float], op: Op) -> None:
        w, h = self.size
        x0, y0 = max(0, math.floor(box[0])), max(0, math.floor(box[1]))
        x1, y1 = min(w, math.ceil(box[2])), min(h, math.ceil(box[3]))
        if x1 <= x0 or y1 <= y0:
            return
        if self._loose and self.groups[-1][1]:
            self.groups.append(([0, 0, 0, 0], []))
        gbox, ops = self.groups[-1]
        if ops:
            gbox[0], gbox[1] = min(gbox[0], x0), min(gbox[1], y0)
            gbox[2], gbox[3] = max(gbox[2], x1), max(gbox[3], y1)
        else:
            gbox[:] = [x0, y0, x1, y1]
        ops.append((self._seq, op))
        self._seq += 1

    def replay(self, key: Any) -> bool:
        """Start a group; if drawings were remembered under ``key`` (:meth:`remember`), add
        them again and return True (the caller then draws nothing)."""
        self.group()
        found = _REMEMBERED.get(key)
        if found is None:
            return False
        box, ops = found
        if ops:
            seq = self._seq
            self.groups[-1] = (list(box), [(seq + i, op) for i, op in enumerate(ops)])
            self._seq += len(ops)
        return True

    def remember(self, key: Any) -> None:
        """Remember the drawings of the current group under ``key``: what a group draws is a
        pure function of what the key holds (e.g. a point's stack and marks)."""
        box, ops = self.groups[-1]
        if len(_REMEMBERED) >= REMEMBERED_ENTRIES:
            _REMEMBERED.clear()
        _REMEMBERED[key] = (tuple(box), tuple(op for _, op in ops))

    # drawings

    def sprite(self, fn: Callable[..., Image.Image], args: tuple[Any, ...], x: int, y: int) -> None:
        """``fn(*args)`` (a cached sprite) pasted with its top left at ``(x, y)``."""
        w, h = _size(fn, args)
        self._add((x, y, x + w, y + h), ("s", fn, args, x, y))

    def sprite_centred(
        self, fn: Callable[..., Image.Image], args: tuple[Any, ...], centre: tuple[float, float]
    ) -> None:
        w, h = _size(fn, args)
        self.sprite(fn, args, round(centre[0] - w / 2), round(centre[1] - h / 2))

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        fill: RGB,
        size: int,
        bold: bool = False,
        anchor: str = "la",
    ) -> float:
        """Like :func:`render.text.draw`; returns the width."""
        width, box = T.extent(xy, text, size, bold, anchor)
        if box is not None:
            self._add(box, ("t", xy, text, fill, size, bold, anchor))
        return width

    def rounded_rectangle(
        self, box: tuple[float, float, float, float], radius: float, fill: RGB
    ) -> None:
        self._add(_shape_box(box), ("rr", box, radius, fill))

    def rectangle(
        self,
        box: tuple[float, float, float, float],
        fill: RGB | None = None,
        outline: RGB | None = None,
        width: int = 1,
    ) -> None:
        self._add(_shape_box(box), ("r", box, fill, outline, width))

    def background(self, box: Box, fill: RGB) -> None:
        """An opaque rectangle (integer corners, both included) under everything drawn later
        on its pixels; nothing drawn earlier may touch them."""
        x0, y0, x1, y1 = box
        bbox = (x0, y0, x1 + 1, y1 + 1)
        op: Op = ("r", box, fill, None, 1)
        if any(ops and _overlap(gbox, bbox) for gbox, ops in self.groups):
            self._add(bbox, op)  # something is under it after all: an ordinary drawing
            return
        self.backgrounds.append((bbox, op))
        self._background_seqs.append(self._seq)
        self._seq += 1

    def veil(self, x: int, y: int, w: int, h: int, rgba: tuple[int, int, int, int]) -> None:
        self._add((x, y, x + w, y + h), ("v", x, y, w, h, rgba))

    # results

    def ops(self) -> list[Op]:
        """Every drawing in its order."""
        seqs = [o for _, ops in self.groups for o in ops]
        seqs += zip(self._background_seqs, (op for _, op in self.backgrounds), strict=True)
        return [op for _, op in sorted(seqs, key=lambda o: o[0])]

    def components(self) -> list[tuple[Box, tuple[Op, ...]]]:
        """Groups merged while their boxes overlap: ``(box, drawings in order)``, disjoint."""
        comps = [(list(gbox), list(gops)) for gbox, gops in self.groups if gops]
        while True:
            # Sweep from left to right: a box only meets those still open at its left edge.
            comps.sort(key=lambda c: c[0][0])
            merged: list[tuple[list[int], list[tuple[int, Op]]]] = []
            active: list[tuple[list[int], list[tuple[int, Op]]]] = []
            changed = False
            for box, ops in comps:
                x0 = box[0]
                active = [c for c in active if c[0][2] > x0]
                for cbox, cops in active:
                    if cbox[1] < box[3] and box[1] < cbox[3]:
                        cbox[0], cbox[1] = min(cbox[0], box[0]), min(cbox[1], box[1])
                        cbox[2], cbox[3] = max(cbox[2], box[2]), max(cbox[3], box[3])
                        cops += ops
                        changed = True
                        break
                else:
                    merged.append((box, ops))
                    active.append(merged[-1])
            comps = merged
            if not changed:
                break
        out = []
        for cbox, cops in comps:
            cops.sort(key=lambda o: o[0])
            out.append(((cbox[0], cbox[1], cbox[2], cbox[3]), tuple(op for _, op in cops)))
        return out


@lru_cache(maxsize=1024)
def _size(fn: Callable[..., Image.Image], args: tuple[Any, ...]) -> tuple[int, int]:
    size: tuple[int, int] = fn(*args).size
    return size


def forget() -> None:
    """Empty the module's memos (remembered groups, sprite sizes)."""
    _REMEMBERED.clear()
    _size.cache_clear()


def _overlap(a: Sequence[int], b: Sequence[int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _shape_box(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    # ImageDraw fills up to and including the second corner; a pixel of margin for rounding.
    return box[0] - 1, box[1] - 1, box[2] + 2, box[3] + 2


def run(im: Image.Image, op: Op) -> None:
    """Draw one recorded drawing onto the RGB image ``im`` (loaded)."""
    kind = op[0]
    if kind == "s":
        sprites.blit(im, op[1](*op[2]), op[3], op[4])
    elif kind == "t":
        T.draw(im, op[1], op[2], op[3], op[4], op[5], op[6])
    elif kind == "rr":
        ImageDraw.Draw(im).rounded_rectangle(op[1], op[2], fill=op[3])
    elif kind == "r":
        ImageDraw.Draw(im).rectangle(op[1], fill=op[2], outline=op[3], width=op[4])
    elif kind == "v":
        x, y, w, h, rgba = op[1:]
        veil = Image.new("RGBA", (w, h), rgba)
        im.paste(veil, (x, y), veil)
    else:
        raise ValueError(f"unknown drawing {kind!r}")


class TileCache:
    """Drawn components in palette mode (anything with a ``size``: Pillow's core images),
    least recently used first out."""

    def __init__(self, entries: int = TILE_ENTRIES, max_bytes: int = TILE_BYTES) -> None:
        self.entries = entries
        self.max_bytes = max_bytes
        self._tiles: OrderedDict[Any, Any] = OrderedDict()
        self.bytes = 0
        self.hits = 0
        self.misses = 0

    def get(self, key: Any) -> Any:
        tile = self._tiles.get(key)
        if tile is None:
            self.misses += 1
            return None
        self._tiles.move_to_end(key)
        self.hits += 1
        return tile

    def put(self, key: Any, tile: Any) -> None:
        size = _area(tile)
        if size > self.max_bytes:
            return
        old = self._tiles.pop(key, None)
        if old is not None:
            self.bytes -= _area(old)
        self._tiles[key] = tile
        self.bytes += size
        while len(self._tiles) > self.entries or self.bytes > self.max_bytes:
            _, gone = self._tiles.popitem(last=False)
            self.bytes -= _area(gone)

    def __len__(self) -> int:
        return len(self._tiles)

    def clear(self) -> None:
        self._tiles.clear()
        self.bytes = 0
        self.hits = self.misses = 0


def _area(tile: Any) -> int:
    w, h = tile.size
    return int(w) * int(h)


class Composer:
    """Composes recorded boards of one theme (see the module docstring); thread-safe."""

    def __init__(
        self, name: str, base_rgb: Image.Image, palette: Image.Image, tiles: TileCache
    ) -> None:
        self.name = name
        self.base_rgb = base_rgb
        self.palette = palette
        self.base_p = base_rgb.quantize(palette=palette, dither=NONE)
        # The empty board one column to the right of a column of zeros: boards are composed
        # in such a copy, whose bytes are then the PNG's rows as they are (render.png).
        w, h = base_rgb.size
        self.base_rows = Image.new("P", (w + 1, h), 0)
        self.base_rows.putpalette(self.base_p.im.getpalette("RGB", "RGB"))
        self.base_rows.im.paste(self.base_p.im, (1, 0, w + 1, h))
        self.tiles = tiles
        # The empty board each missing component is drawn on, then wiped again.
        self._scratch = base_rgb.copy()
        self._scratch.load()
        self._indices: dict[RGB, int] = {}
        self._classes: dict[Box, bytes] = {}

    def index(self, colour: RGB) -> int:
        """The palette entry a pixel of ``colour`` is mapped to."""
        found = self._indices.get(colour)
        if found is None:
            one = Image.new("RGB", (1, 1), colour).quantize(palette=self.palette, dither=NONE)
            found = self._indices[colour] = int(one.im.getpixel((0, 0)))
        return found

    def _base_class(self, box: Box) -> bytes:
        """Identifies the empty board's pixels in ``box``: components over equal pixels with
        the same sprites at the same places relative to their box share a tile."""
        found = self._classes.get(box)
        if found is None:
            crop = self.base_p.crop(box).tobytes()
            found = hashlib.blake2b(crop, digest_size=16).digest()
            if len(self._classes) >= CLASS_ENTRIES:
                self._classes.clear()
            self._classes[box] = found
        return found

    def _key(self, box: Box, ops: tuple[Op, ...], under: tuple[Op, ...]) -> Any:
        x0, y0, x1, y1 = box
        w, h = self.base_rgb.size
        inside = x0 > 0 and y0 > 0 and x1 < w and y1 < h
        if not under and inside and all(op[0] == "s" for op in ops):
            rel = tuple((op[1], op[2], op[3] - x0, op[4] - y0) for op in ops)
            return (self._base_class(box), x1 - x0, y1 - y0, rel)
        return (self.name, box, under, ops)

    def compose(self, canvas: Canvas) -> Image.Image:
        """The board in the palette."""
        w, h = self.base_rgb.size
        return self.compose_rows(canvas).crop((1, 0, w + 1, h))

    def compose_rows(self, canvas: Canvas) -> Image.Image:
        """The board in the palette, one column to the right of a column of zeros (the
        layout of :func:`render.png.encode_rows`)."""
        out = self.base_rows.copy()
        core = out.im
        with _LOCK:
            if canvas.backgrounds:
                draw = ImageDraw.Draw(out)
                for _, op in canvas.backgrounds:
                    x0, y0, x1, y1 = op[1]
                    draw.rectangle((x0 + 1, y0, x1 + 1, y1), fill=self.index(op[2]))
            for box, ops in canvas.components():
                under = tuple(op for bbox, op in canvas.backgrounds if _overlap(bbox, box))
                key = self._key(box, ops, under)
                tile = self.tiles.get(key)
                if tile is None:
                    tile = self._draw(box, ops, under)
                    self.tiles.put(key, tile)
                core.paste(tile, (box[0] + 1, box[1], box[2] + 1, box[3]))
        return out

    def _draw(self, box: Box, ops: tuple[Op, ...], under: tuple[Op, ...]) -> Any:
        """The component drawn on the empty board, as a core image in the palette (Pillow's
        core calls: Image.quantize's checks and palette copy cost more than a small tile)."""
        scratch = self._scratch
        x0, y0, x1, y1 = box
        for op in under:
            # A background is an axis-aligned rectangle with whole-pixel corners: its part
            # inside the box is the same rectangle clipped to the box (both corners included).
            bx0, by0, bx1, by1 = op[1]
            clipped = (max(bx0, x0), max(by0, y0), min(bx1, x1 - 1), min(by1, y1 - 1))
            if clipped[0] <= clipped[2] and clipped[1] <= clipped[3]:
                run(scratch, ("r", clipped, *op[2:]))
        for op in ops:
            run(scratch, op)
        tile = scratch.im.crop(box).convert("P", int(NONE), self.palette.im)
        scratch.im.paste(self.base_rgb.im.crop(box), box)
        return tile
