"""Pre-drawn, cached RGBA sprites: checkers, marks, dice, cube, slabs.

Each is drawn once at :data:`SS` times its size and downscaled with LANCZOS, which gives
smooth anti-aliased edges; a render then only pastes them. Transparent pixels carry the
sprite's edge colour so that resampling never bleeds black into the anti-aliased rim.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from render import layout
from render.fonts import font
from render.theme import RGB, CheckerStyle, Theme, get_theme

SS = 4


def blit(dst: Image.Image, sprite: Image.Image, x: int, y: int) -> None:
    """Alpha-paste ``sprite`` with its top left at ``(x, y)`` (clipped at the edges).

    Calls the core directly: ``Image.paste`` re-validates its arguments on every call, which
    was half the painting time with ~100 sprites per board. ``dst`` must be loaded and owned.
    """
    w, h = sprite.size
    dst.im.paste(sprite.im, (x, y, x + w, y + h), sprite.im)


def _a(colour: RGB, alpha: int) -> tuple[int, int, int, int]:
    return (*colour, alpha)


def _canvas(size: tuple[int, int], edge: RGB) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    im = Image.new("RGBA", (size[0] * SS, size[1] * SS), _a(edge, 0))
    return im, ImageDraw.Draw(im)


def _finish(im: Image.Image, size: tuple[int, int]) -> Image.Image:
    return im.resize(size, Image.Resampling.LANCZOS)


def style_of(theme: Theme, shade: str) -> CheckerStyle:
    return theme.light if shade == "light" else theme.dark


@lru_cache(maxsize=64)
def checker(theme_name: str, shade: str, diameter: int = layout.CHECKER) -> Image.Image:
    """A checker with a soft shadow; the sprite is ``diameter + 4`` square, centred."""
    st = style_of(get_theme(theme_name), shade)
    size = diameter + 4
    im, d = _canvas((size, size), st.rim)
    c = size * SS / 2
    r = diameter * SS / 2
    # Shadow slightly below: separates overlapping checkers of the same colour.
    sh = Image.new("RGBA", im.size, (0, 0, 0, 0))
    ImageDraw.Draw(sh).ellipse((c - r, c - r + 1.5 * SS, c + r, c + r + 1.5 * SS), (0, 0, 0, 90))
    im = Image.alpha_composite(im, sh)
    d = ImageDraw.Draw(im)
    rim = max(2, diameter // 22) * SS
    d.ellipse((c - r, c - r, c + r, c + r), _a(st.rim, 255))
    d.ellipse((c - r + rim, c - r + rim, c + r - rim, c + r - rim), _a(st.fill, 255))
    if st.ring_width:
        rr = r * 0.62
        d.ellipse(
            (c - rr, c - rr, c + rr, c + rr), outline=_a(st.ring, 255), width=st.ring_width * SS
        )
    return _finish(im, (size, size))


@lru_cache(maxsize=16)
def ring(
    theme_name: str, colour: RGB, diameter: int = layout.CHECKER, width: int = 4
) -> Image.Image:
    """A highlight ring drawn just outside a checker; sprite is ``diameter + 8`` square."""
    size = diameter + 8
    im, d = _canvas((size, size), colour)
    c = size * SS / 2
    r = (diameter / 2 + 3) * SS
    d.ellipse((c - r, c - r, c + r, c + r), outline=(0, 0, 0, 160), width=(width + 2) * SS)
    r2 = r - SS
    d.ellipse((c - r2, c - r2, c + r2, c + r2), outline=_a(colour, 255), width=width * SS)
    return _finish(im, (size, size))


@lru_cache(maxsize=16)
def ghost(theme_name: str, shade: str, diameter: int = layout.CHECKER) -> Image.Image:
    """Where a checker left: a faint checker with a dashed highlight outline."""
    theme = get_theme(theme_name)
    st = style_of(theme, shade)
    size = diameter + 4
    im, d = _canvas((size, size), theme.highlight)
    c = size * SS / 2
    r = (diameter / 2 - 1) * SS
    d.ellipse((c - r, c - r, c + r, c + r), _a(st.fill, 70))
    box = (c - r, c - r, c + r, c + r)
    inner = (c - r + SS, c - r + SS, c + r - SS, c + r - SS)
    dashes = 12
    for k in range(dashes):
        a0 = k * 360 / dashes
        # A dark under-stroke keeps the dashes visible on light points too.
        d.arc(box, a0 - 2, a0 + 20, fill=(0, 0, 0, 170), width=5 * SS)
        d.arc(inner, a0, a0 + 18, fill=_a(theme.highlight, 255), width=3 * SS)
    return _finish(im, (size, size))


@lru_cache(maxsize=8)
def lock(theme_name: str) -> Image.Image:
    """Mark of a pinned/trapped checker: a small padlock in the theme's pin colour."""
    theme = get_theme(theme_name)
    w, h = 20, 22
    im, d = _canvas((w, h), theme.pin)
    s = SS
    outline = (0, 0, 0, 255)
    # Shackle: a thick arc above the body.
    d.arc((5 * s, 1 * s, 15 * s, 13 * s), 180, 360, fill=outline, width=5 * s)
    d.arc((6 * s, 2 * s, 14 * s, 12 * s), 180, 360, fill=_a(theme.pin, 255), width=3 * s)
    d.line((6.5 * s, 7 * s, 6.5 * s, 10 * s), fill=_a(theme.pin, 255), width=3 * s)
    d.line((13.5 * s, 7 * s, 13.5 * s, 10 * s), fill=_a(theme.pin, 255), width=3 * s)
    d.rounded_rectangle(
        (2 * s, 9 * s, 18 * s, 21 * s), 3 * s, fill=_a(theme.pin, 255), outline=outline, width=s
    )
    d.ellipse((8.5 * s, 12.5 * s, 11.5 * s, 15.5 * s), fill=outline)
    d.rectangle((9.4 * s, 14 * s, 10.6 * s, 18 * s), fill=outline)
    return _finish(im, (w, h))


@lru_cache(maxsize=8)
def starburst(theme_name: str, size: int = 26) -> Image.Image:
    """Mark of a hit: an eight-pointed burst in the theme's hit colour."""
    theme = get_theme(theme_name)
    im, d = _canvas((size, size), theme.hit)
    c = size * SS / 2
    outer, inner = c - SS, c * 0.5
    pts = []
    for k in range(16):
        r = outer if k % 2 == 0 else inner
        a = math.pi * k / 8 - math.pi / 2
        pts.append((c + r * math.cos(a), c + r * math.sin(a)))
    d.polygon(pts, fill=_a(theme.hit, 255), outline=(255, 255, 255, 255), width=SS * 2)
    return _finish(im, (size, size))


@lru_cache(maxsize=32)
def slab(theme_name: str, shade: str, highlighted: bool = False) -> Image.Image:
    """A borne-off checker seen from the side."""
    theme = get_theme(theme_name)
    st = style_of(theme, shade)
    w, h = layout.SLAB_W, layout.SLAB_H
    im, d = _canvas((w, h), st.rim)
    edge = theme.highlight if highlighted else st.rim
    d.rounded_rectangle((0, 0, w * SS - 1, h * SS - 1), 4 * SS, fill=_a(edge, 255))
    b = (3 if highlighted else 2) * SS
    d.rounded_rectangle((b, b, w * SS - 1 - b, h * SS - 1 - b), 3 * SS, fill=_a(st.fill, 255))
    return _finish(im, (w, h))


_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)),
}


@lru_cache(maxsize=64)
def die(theme_name: str, shade: str, value: int, size: int = layout.DIE) -> Image.Image:
    """A die in a player's colour; values outside 1..6 show the number instead of pips."""
    theme = get_theme(theme_name)
    face = theme.die_light if shade == "light" else theme.die_dark
    pip = theme.die_dark if shade == "light" else theme.die_light
    edge = style_of(theme, shade).rim
    full = size + 4
    im, d = _canvas((full, full), edge)
    o = 2 * SS
    s = size * SS
    sh = (o + SS, o + 2 * SS, o + s + SS, o + s + 2 * SS)
    d.rounded_rectangle(sh, 8 * SS, fill=(0, 0, 0, 110))
    d.rounded_rectangle(
        (o, o, o + s, o + s), 8 * SS, fill=_a(face, 255), outline=_a(edge, 255), width=2 * SS
    )
    pr = s * 0.09
    for fx, fy in _PIPS.get(value, ()):
        x, y = o + fx * s, o + fy * s
        d.ellipse((x - pr, y - pr, x + pr, y + pr), fill=_a(pip, 255))
    out = _finish(im, (full, full))
    if value not in _PIPS:
        label = str(value)[:3]
        ImageDraw.Draw(out).text(
            (full / 2, full / 2), label, fill=pip, font=font(22, True), anchor="mm"
        )
    return out


@lru_cache(maxsize=32)
def cube(theme_name: str, value: int) -> Image.Image:
    """The doubling cube; a centred cube at 1 shows 64, as on a real board."""
    theme = get_theme(theme_name)
    size = layout.CUBE + 4
    im, d = _canvas((size, size), theme.cube_fill)
    o = 2 * SS
    s = layout.CUBE * SS
    d.rounded_rectangle(
        (o + SS, o + 2 * SS, o + s + SS, o + s + 2 * SS), 7 * SS, fill=(0, 0, 0, 120)
    )
    d.rounded_rectangle(
        (o, o, o + s, o + s),
        7 * SS,
        fill=_a(theme.cube_fill, 255),
        outline=(0, 0, 0, 255),
        width=2 * SS,
    )
    out = _finish(im, (size, size))
    text = str(value) if value < 10_000 else "big"
    f = font(24 if len(text) <= 2 else 18 if len(text) == 3 else 14, True)
    ImageDraw.Draw(out).text((size / 2, size / 2), text, fill=theme.cube_text, font=f, anchor="mm")
    return out
