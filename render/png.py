"""A PNG writer for 8-bit palette pictures, faster than Pillow's for the boards.

Deflating the ~720 KB of pixel rows of a board took ~3 ms of the ~5 ms a board cost, with
Pillow's zlib at level 3. ISA-L's deflate (the ``isal`` package) does the same rows in ~0.4 ms
at its level 1, for files ~5 % larger (measured by bench/render.py). Without ``isal`` the
standard zlib is used at level 3, as Pillow did. Every row gets PNG filter 0 ("None"): for a
palette picture the other filters made the files larger here, and cost time besides.
"""

from __future__ import annotations

import struct
import zlib
from types import ModuleType

from PIL import Image

_deflater: ModuleType
try:
    from isal import isal_zlib

    _deflater, LEVEL = isal_zlib, 1
except ImportError:  # pragma: no cover - isal is in the runtime lock; stdlib zlib still works
    _deflater, LEVEL = zlib, 3

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_IEND = struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(data, zlib.crc32(kind))
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def deflater() -> str:
    """Which deflate the writer uses (for benchmarks and logs)."""
    return f"{_deflater.__name__} level {LEVEL}"


def encode_palette_png(im: Image.Image) -> bytes:
    """PNG bytes of a ``P`` image with 8 bits per pixel (its palette, no transparency)."""
    if im.mode != "P":
        raise ValueError(f"a palette image is needed, not mode {im.mode}")
    w, h = im.size
    if w < 1 or h < 1:
        raise ValueError("an empty image has no PNG")
    # Each row is its filter byte (0) followed by its pixels: pasting the picture one column
    # to the right of a zeroed canvas lays out exactly that, in one copy done by Pillow's core.
    rows = Image.new("P", (w + 1, h), 0)
    rows.im.paste(im.im, (1, 0, w + 1, h))
    rows.putpalette(im.im.getpalette("RGB", "RGB"))
    return encode_rows(rows)


def encode_rows(rows: Image.Image) -> bytes:
    """PNG bytes of the picture ``rows`` holds from its second column on: a ``P`` image one
    column wider than the picture whose first column is all 0 (each row's filter byte), so
    that its bytes are the PNG's rows as they are (a renderer can compose into such an image
    and save a copy)."""
    if rows.mode != "P":
        raise ValueError(f"a palette image is needed, not mode {rows.mode}")
    w, h = rows.width - 1, rows.height
    if w < 1 or h < 1:
        raise ValueError("an empty image has no PNG")
    palette = rows.im.getpalette("RGB", "RGB")
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 3, 0, 0, 0)
    return b"".join(
        (
            SIGNATURE,
            _chunk(b"IHDR", ihdr),
            _chunk(b"PLTE", palette),
            _chunk(b"IDAT", _deflater.compress(rows.tobytes(), LEVEL)),
            _IEND,
        )
    )
