"""Text drawing through a glyph cache.

FreeType rasterises every string from scratch (about half a millisecond per label here), so
each glyph is rendered once per font and size as an 8-bit mask and strings are composed by
pasting masks. Kerning is lost, which is invisible at these sizes for labels and names.
A font without metrics (Pillow's bitmap fallback) is drawn directly instead.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from render.fonts import Font, font
from render.theme import RGB

Glyph = tuple[Image.Image | None, int, int, float]

#: Control characters (a newline would switch Pillow to multi-line layout) become spaces.
_CLEAN = {c: " " for c in (*range(32), 127)}


def clean(text: str) -> str:
    return text.translate(_CLEAN)


def _latin1(text: str) -> str:
    """The bitmap fallback font only knows Latin-1."""
    return text.replace("…", "...").encode("latin-1", "replace").decode("latin-1")


@lru_cache(maxsize=4096)
def _glyph(size: int, bold: bool, ch: str) -> Glyph:
    """``(mask, left, top, advance)`` of ``ch``; ``left``/``top`` relative to the pen at the
    ascender line."""
    f = font(size, bold)
    advance = float(f.getlength(ch))
    left, top, right, bottom = (int(v) for v in f.getbbox(ch, anchor="la"))
    if right <= left or bottom <= top:
        return None, 0, 0, advance
    mask = Image.new("L", (right - left, bottom - top), 0)
    ImageDraw.Draw(mask).text((-left, -top), ch, fill=255, font=f, anchor="la")
    return mask, left, top, advance


@lru_cache(maxsize=64)
def _vmetrics(size: int, bold: bool) -> tuple[int, int] | None:
    """``(ascent, descent)`` of a FreeType font, or ``None`` for the bitmap fallback."""
    f = font(size, bold)
    if isinstance(f, ImageFont.FreeTypeFont):
        ascent, descent = f.getmetrics()
        return int(ascent), int(descent)
    return None


@lru_cache(maxsize=4096)
def width(text: str, size: int, bold: bool = False) -> float:
    text = clean(text)
    if _vmetrics(size, bold) is None:
        return float(font(size, bold).getlength(_latin1(text)))
    return sum(_glyph(size, bold, ch)[3] for ch in text)


@lru_cache(maxsize=1024)
def fit(text: str, size: int, bold: bool, max_width: float) -> str:
    """``text`` shortened with an ellipsis so that it fits ``max_width`` pixels."""
    text = clean(text)
    if width(text, size, bold) <= max_width:
        return text
    ell = width("…", size, bold)
    total = 0.0
    for i, ch in enumerate(text):
        total += width(ch, size, bold)
        if total + ell > max_width:
            return text[:i].rstrip() + "…"
    return text  # only rounding made it look too wide


def _origin(
    text: str, xy: tuple[float, float], size: int, bold: bool, anchor: str, metrics: tuple[int, int]
) -> tuple[float, float, float]:
    """``(width, pen x, pen y)`` of ``text`` (cleaned) drawn at ``xy`` with ``anchor``."""
    w = width(text, size, bold)
    x, y = xy
    if anchor[0] == "m":
        x -= w / 2
    elif anchor[0] == "r":
        x -= w
    if anchor[1] == "m":
        ascent, descent = metrics
        y -= (ascent + descent) / 2
    return w, x, y


@lru_cache(maxsize=4096)
def extent(
    xy: tuple[float, float], text: str, size: int, bold: bool = False, anchor: str = "la"
) -> tuple[float, tuple[int, int, int, int] | None]:
    """What :func:`draw` with these arguments returns, and the box of the pixels it would
    touch (``None``: none), without drawing."""
    text = clean(text)
    metrics = _vmetrics(size, bold)
    if metrics is None:
        f: Font = font(size, bold)
        text = _latin1(text)
        if not text:
            return 0.0, None
        left, top, right, bottom = ImageDraw.Draw(Image.new("L", (1, 1))).textbbox(
            xy, text, font=f, anchor=anchor
        )
        # A margin: the bitmap font's box is not promised to the pixel.
        box = (int(left) - 4, int(top) - 4, int(right) + 4, int(bottom) + 4)
        return float(f.getlength(text)), box
    w, pen, y = _origin(text, xy, size, bold, anchor, metrics)
    iy = round(y)
    x0 = y0 = 1 << 30
    x1 = y1 = -(1 << 30)
    for ch in text:
        mask, left, top, advance = _glyph(size, bold, ch)
        if mask is not None:
            gx, gy = round(pen) + left, iy + top
            x0, y0 = min(x0, gx), min(y0, gy)
            x1, y1 = max(x1, gx + mask.width), max(y1, gy + mask.height)
        pen += advance
    return w, ((x0, y0, x1, y1) if x1 > x0 else None)


def draw(
    im: Image.Image,
    xy: tuple[float, float],
    text: str,
    fill: RGB,
    size: int,
    bold: bool = False,
    anchor: str = "la",
) -> float:
    """Draw ``text`` at ``xy`` with a Pillow-style two-letter ``anchor`` (horizontal ``l``,
    ``m`` or ``r``; vertical ``a`` = ascender line or ``m`` = middle). Returns the width."""
    text = clean(text)
    metrics = _vmetrics(size, bold)
    if metrics is None:
        f: Font = font(size, bold)
        text = _latin1(text)
        ImageDraw.Draw(im).text(xy, text, fill=fill, font=f, anchor=anchor)
        return float(f.getlength(text))
    w, pen, y = _origin(text, xy, size, bold, anchor, metrics)
    iy = round(y)
    im.load()
    core = im.im  # direct core pastes: Image.paste's checks cost more than the glyph copy
    for ch in text:
        mask, left, top, advance = _glyph(size, bold, ch)
        if mask is not None:
            gx, gy = round(pen) + left, iy + top
            core.paste(fill, (gx, gy, gx + mask.width, gy + mask.height), mask.im)
        pen += advance
    return w


def clear_caches() -> None:
    """Forget measured and rasterised text (after the fonts changed: tests)."""
    for f in (_glyph, _vmetrics, width, fit, extent):
        f.cache_clear()
