"""Fonts: the bundled DejaVu Sans (see fonts/LICENSE-DejaVu.txt), else Pillow's built-in font.

A fresh machine may have no system fonts at all, so nothing here looks outside the package.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

FONT_DIR = Path(__file__).resolve().parent / "fonts"
REGULAR = FONT_DIR / "DejaVuSans.ttf"
BOLD = FONT_DIR / "DejaVuSans-Bold.ttf"


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> Font:
    """A font of ``size`` pixels; never fails."""
    path = BOLD if bold else REGULAR
    try:
        # BASIC layout: no dependency on libraqm, and faster for short Latin labels.
        return ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.BASIC)
    except OSError:
        return ImageFont.load_default(size=size)
