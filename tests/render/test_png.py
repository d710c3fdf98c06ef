"""render.png: the palette PNG writer decodes to exactly the pixels and palette it was given."""

from __future__ import annotations

import io
import random
import struct
import zlib

import pytest
from PIL import Image

from render import png
from render.board import palette, render_image
from render.samples import gallery


def decode(data: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(data))
    im.load()
    return im


def chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """``(type, data)`` of every chunk, checking each CRC on the way."""
    assert data[:8] == png.SIGNATURE
    out = []
    i = 8
    while i < len(data):
        (n,) = struct.unpack(">I", data[i : i + 4])
        kind, body = data[i + 4 : i + 8], data[i + 8 : i + 8 + n]
        (crc,) = struct.unpack(">I", data[i + 8 + n : i + 12 + n])
        assert crc == zlib.crc32(body, zlib.crc32(kind)), kind
        out.append((kind, body))
        i += 12 + n
    assert i == len(data)
    return out


def random_p(rng: random.Random, w: int, h: int, colours: int) -> Image.Image:
    im = Image.new("P", (w, h))
    im.putpalette([rng.randrange(256) for _ in range(3 * colours)])
    im.putdata([rng.randrange(colours) for _ in range(w * h)])
    return im


@pytest.mark.parametrize(("w", "h", "colours"), [(1, 1, 1), (3, 7, 2), (257, 5, 256), (40, 90, 17)])
def test_random_palette_images_round_trip(w: int, h: int, colours: int) -> None:
    rng = random.Random(w * 1000 + h)
    im = random_p(rng, w, h, colours)
    data = png.encode_palette_png(im)
    back = decode(data)
    assert back.mode == "P" and back.size == (w, h)
    assert back.tobytes() == im.tobytes()
    n = 3 * colours
    assert (back.getpalette() or [])[:n] == (im.getpalette() or [])[:n]
    kinds = [k for k, _ in chunks(data)]
    assert kinds == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]


def test_rows_are_a_standard_zlib_stream_with_filter_none() -> None:
    im = random_p(random.Random(5), 13, 4, 9)
    idat = dict(chunks(png.encode_palette_png(im)))[b"IDAT"]
    raw = zlib.decompress(idat)  # the standard library reads what ISA-L wrote
    assert len(raw) == 4 * 14
    rows = [raw[r * 14 : (r + 1) * 14] for r in range(4)]
    assert all(row[0] == 0 for row in rows)
    assert b"".join(row[1:] for row in rows) == im.tobytes()


@pytest.mark.parametrize("theme", ["default", "high-contrast"])
def test_boards_decode_exactly_as_pillows_own_png(theme: str) -> None:
    pal = palette(theme)
    for _, sc, _ in gallery()[:6]:
        p = render_image(sc, theme).quantize(palette=pal, dither=Image.Dither.NONE)
        ours = decode(png.encode_palette_png(p))
        buf = io.BytesIO()
        p.save(buf, "PNG", compress_level=3)
        pillows = decode(buf.getvalue())
        assert ours.tobytes() == pillows.tobytes()
        assert ours.convert("RGB").tobytes() == pillows.convert("RGB").tobytes()


@pytest.mark.parametrize("mode", ["RGB", "L", "RGBA", "1"])
def test_other_modes_are_refused(mode: str) -> None:
    with pytest.raises(ValueError, match="palette"):
        png.encode_palette_png(Image.new(mode, (4, 4)))


def test_empty_image_is_refused() -> None:
    with pytest.raises(ValueError):
        png.encode_palette_png(Image.new("P", (0, 3)))


def test_encode_rows_needs_a_palette_image_with_a_picture() -> None:
    with pytest.raises(ValueError, match="palette"):
        png.encode_rows(Image.new("RGB", (5, 5)))
    with pytest.raises(ValueError):
        png.encode_rows(Image.new("P", (1, 4)))  # the filter column only


def test_boards_as_encoded_decode_to_the_composed_picture() -> None:
    """render_board composes straight into the PNG's row layout; decoded, it is the board."""
    from render import render_board
    from render.board import render_palette_image

    for _, sc, theme in gallery():
        expected = render_palette_image(sc, theme)
        got = decode(render_board(sc, theme))
        assert got.size == expected.size
        assert got.tobytes() == expected.tobytes()
        assert got.convert("RGB").tobytes() == expected.convert("RGB").tobytes()
