"""Colour themes. ``high-contrast`` is colour-blind safe and keeps both checker colours far
apart in grayscale (white with a black rim against black with a white ring)."""

from __future__ import annotations

from dataclasses import astuple, dataclass

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class CheckerStyle:
    fill: RGB
    rim: RGB
    #: Inner decorative ring (also the grayscale pattern in high-contrast).
    ring: RGB
    #: Text drawn on the checker (stack counts).
    text: RGB
    ring_width: int


@dataclass(frozen=True)
class Theme:
    name: str
    background: RGB
    text: RGB
    text_dim: RGB
    frame: RGB
    frame_text: RGB
    field: RGB
    point_a: RGB
    point_b: RGB
    bar: RGB
    tray: RGB
    light: CheckerStyle
    dark: CheckerStyle
    #: Last play: ring round arrived checkers, ghost outline where they left.
    highlight: RGB
    #: Hit marker and ring round a checker just hit.
    hit: RGB
    #: Pinned/trapped checkers' lock mark.
    pin: RGB
    #: Background of the band of the player to act.
    turn_band: RGB
    band: RGB
    turn_pill: RGB
    turn_pill_text: RGB
    die_light: RGB
    die_dark: RGB
    cube_fill: RGB
    cube_text: RGB
    banner: RGB
    banner_text: RGB

    def colours(self) -> list[RGB]:
        """Every colour the theme names, without repeats (kept exactly in the PNG palette)."""
        out: list[RGB] = []

        def walk(v: object) -> None:
            if isinstance(v, tuple) and len(v) == 3 and all(isinstance(c, int) for c in v):
                if v not in out:
                    out.append((int(v[0]), int(v[1]), int(v[2])))
            elif isinstance(v, tuple):
                for item in v:
                    walk(item)

        walk(astuple(self))
        return out


DEFAULT = Theme(
    name="default",
    background=(32, 34, 37),
    text=(236, 236, 236),
    text_dim=(170, 174, 180),
    frame=(92, 58, 38),
    frame_text=(240, 222, 190),
    field=(46, 104, 84),
    point_a=(214, 190, 142),
    point_b=(150, 52, 40),
    bar=(92, 58, 38),
    tray=(64, 40, 27),
    light=CheckerStyle(
        fill=(244, 238, 224),
        rim=(120, 108, 88),
        ring=(214, 204, 182),
        text=(40, 34, 28),
        ring_width=2,
    ),
    dark=CheckerStyle(
        fill=(38, 36, 40),
        rim=(170, 166, 160),
        ring=(78, 74, 80),
        text=(240, 240, 240),
        ring_width=2,
    ),
    highlight=(255, 200, 40),
    hit=(255, 86, 60),
    pin=(90, 190, 255),
    turn_band=(58, 70, 56),
    band=(32, 34, 37),
    turn_pill=(255, 200, 40),
    turn_pill_text=(30, 30, 30),
    die_light=(250, 248, 240),
    die_dark=(36, 34, 38),
    cube_fill=(250, 248, 240),
    cube_text=(30, 30, 30),
    banner=(20, 20, 24),
    banner_text=(255, 255, 255),
)

# Okabe-Ito accents (yellow, vermillion, sky blue, orange) stay distinct for the common
# colour-vision deficiencies; checkers are pure white vs pure black with opposite rims, so
# they differ in grayscale by almost the full range.
HIGH_CONTRAST = Theme(
    name="high-contrast",
    background=(0, 0, 0),
    text=(255, 255, 255),
    text_dim=(210, 210, 210),
    frame=(60, 60, 60),
    frame_text=(255, 255, 255),
    field=(120, 120, 120),
    point_a=(170, 170, 170),
    point_b=(85, 85, 85),
    bar=(60, 60, 60),
    tray=(40, 40, 40),
    light=CheckerStyle(
        fill=(255, 255, 255), rim=(0, 0, 0), ring=(0, 0, 0), text=(0, 0, 0), ring_width=0
    ),
    dark=CheckerStyle(
        fill=(0, 0, 0),
        rim=(255, 255, 255),
        ring=(255, 255, 255),
        text=(255, 255, 255),
        ring_width=3,
    ),
    highlight=(240, 228, 66),
    hit=(213, 94, 0),
    pin=(86, 180, 233),
    turn_band=(0, 60, 100),
    band=(0, 0, 0),
    turn_pill=(230, 159, 0),
    turn_pill_text=(0, 0, 0),
    die_light=(255, 255, 255),
    die_dark=(0, 0, 0),
    cube_fill=(255, 255, 255),
    cube_text=(0, 0, 0),
    banner=(0, 0, 0),
    banner_text=(255, 255, 255),
)

THEMES: dict[str, Theme] = {t.name: t for t in (DEFAULT, HIGH_CONTRAST)}


def get_theme(name: str) -> Theme:
    """The named theme; unknown names fall back to the default rather than failing a turn."""
    return THEMES.get(name, DEFAULT)
