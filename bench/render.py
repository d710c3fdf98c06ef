"""Board renderer speed and size: ``.venv/bin/python -m bench.render [N] [--smoke]``.

Renders N random plausible boards of all variants (plus the gallery scenes) after a warm-up
and prints the median/p95 time of render+encode, the split between painting and encoding,
median/max PNG size, and the cost of a cold first render (empty caches) against a cached one.
Prints figures only: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from render import board, sprites, text
from render.board import encode_png, render_board, render_image
from render.samples import gallery, random_scene
from render.scene import BoardScene


def _clear_caches() -> None:
    for f in (
        board.base_board,
        board.palette,
        sprites.checker,
        sprites.ring,
        sprites.ghost,
        sprites.lock,
        sprites.starburst,
        sprites.slab,
        sprites.die,
        sprites.cube,
        text._glyph,
        text._vmetrics,
    ):
        f.cache_clear()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="?", type=int, default=300)
    ap.add_argument("--theme", default="default")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--smoke", action="store_true", help="20 boards, a second (CI)")
    args = ap.parse_args()
    if args.smoke:
        args.n = 20
    rng = random.Random(args.seed)
    scenes: list[BoardScene] = [sc for _, sc, _ in gallery()]
    while len(scenes) < args.n:
        scenes.append(random_scene(rng))
    scenes = scenes[: args.n]

    _clear_caches()
    t0 = time.perf_counter()
    render_board(scenes[0], args.theme)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    render_board(scenes[0], args.theme)
    warm_same = time.perf_counter() - t0

    for sc in scenes[:20]:  # warm-up: sprites, glyphs
        render_board(sc, args.theme)

    totals: list[float] = []
    paints: list[float] = []
    encodes: list[float] = []
    sizes: list[int] = []
    for sc in scenes:
        t0 = time.perf_counter()
        im = render_image(sc, args.theme)
        t1 = time.perf_counter()
        data = encode_png(im, args.theme)
        t2 = time.perf_counter()
        paints.append(t1 - t0)
        encodes.append(t2 - t1)
        totals.append(t2 - t0)
        sizes.append(len(data))

    ms = [t * 1000 for t in totals]
    print(f"boards rendered:        {len(scenes)} (theme {args.theme}, {im.width}x{im.height} px)")
    print(f"render+encode median:   {statistics.median(ms):.2f} ms   p95 {_pct(ms, 0.95):.2f} ms")
    print(f"  paint median:         {statistics.median(paints) * 1000:.2f} ms")
    print(f"  encode median:        {statistics.median(encodes) * 1000:.2f} ms")
    print(
        f"PNG size median:        {statistics.median(sizes) / 1024:.1f} KB   "
        f"max {max(sizes) / 1024:.1f} KB"
    )
    print(
        f"cold first render:      {cold * 1000:.1f} ms   cached same board "
        f"{warm_same * 1000:.2f} ms   ratio {cold / warm_same:.0f}x"
    )


if __name__ == "__main__":
    main()
