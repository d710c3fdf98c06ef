"""Board renderer speed and size: ``.venv/bin/python -m bench.render [N] [--baseline-rev REV]``.

Renders N boards per round after a warm-up and prints the median/p95 time of render+encode
(wall clock and CPU), the split between painting and encoding, median/max PNG size, and the
cost of a cold first render (empty caches) against a cached one. Prints figures only: nothing
here asserts on time.

The boards (``--source``) are either those a bot draws during games (``games``: random legal
plays in every variant, each board seen by the player to act, with its last play marked) or
random plausible scenes (``random``, with the gallery's tricky ones). Every board of a run is
a different scene, so caches of drawn pieces only help as far as they would in a real game.

``--baseline-rev REV`` measures the renderer of an older commit in the same run: both checkouts
draw the same boards, each in its own process (``git archive`` of REV in a temporary
directory), round after round in alternating order (A B B A ...), then the decoded pictures of
both are compared pixel by pixel; the ratios new / baseline are printed with the load average.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import pickle
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench._checkout import unpack_revision
from engine import VARIANTS
from engine.game import GAME_OVER, MOVE, ROLL, GameState
from render import board, png, sprites, text
from render.board import encode_png, render_board
from render.game_scene import scene_for_game
from render.samples import gallery, random_scene
from render.scene import BoardScene

ROOT = Path(__file__).resolve().parents[1]
WARM_UP = 20

#: The program each side runs (``python -c``, in the root of its checkout, so that ``render`` is
#: that checkout's): it loads the scenes, then answers ``time A B`` (render scenes[A:B], one JSON
#: line of per-board wall and CPU seconds and sizes), ``png A B`` (their PNGs, base64) and
#: ``mem`` (its peak resident memory).
_SIDE = r"""
import base64, json, pickle, sys, time
from render.board import render_board
with open(sys.argv[1], "rb") as f:
    scenes = pickle.load(f)
theme = sys.argv[2]
print(json.dumps("ready"), flush=True)
for line in sys.stdin:
    cmd, *rest = line.split()
    if cmd == "time":
        a, b = int(rest[0]), int(rest[1])
        wall, cpu, size = [], [], []
        for sc in scenes[a:b]:
            c0 = time.process_time()
            t0 = time.perf_counter()
            data = render_board(sc, theme)
            t1 = time.perf_counter()
            c1 = time.process_time()
            wall.append(t1 - t0)
            cpu.append(c1 - c0)
            size.append(len(data))
        reply = {"wall": wall, "cpu": cpu, "size": size}
    elif cmd == "png":
        a, b = int(rest[0]), int(rest[1])
        reply = [base64.b64encode(render_board(sc, theme)).decode() for sc in scenes[a:b]]
    elif cmd == "mem":
        with open("/proc/self/status") as f:
            reply = {k: v.split()[0] for k, v in (l.split(":", 1) for l in f) if k == "VmHWM"}
    else:
        reply = None
    print(json.dumps(reply), flush=True)
"""


# --------------------------------------------------------------------------- scenes


def game_scenes(rng: random.Random, n: int) -> list[BoardScene]:
    """Boards of games with random legal plays, all variants in turn: after every play, the
    board the bot shows, seen by the player to act."""
    names = ("Alice", "Bob")
    out: list[BoardScene] = []
    variants = sorted(VARIANTS)
    game = 0
    while len(out) < n:
        variant = variants[game % len(variants)]
        game += 1
        state = GameState.new(variant, names, rng, match_length=rng.choice((1, 1, 3, 5)))
        for _ in range(400):
            if state.phase == ROLL:
                state = state.roll(state.mover, rng)
            elif state.phase == MOVE:
                plays = state.legal_plays()
                text_ = rng.choice(plays).text if plays else "pass"
                state = state.play(state.mover, text_ or "pass", rng)
                out.append(scene_for_game(state, names))
            elif state.phase == GAME_OVER:
                break
            else:
                break
            if len(out) >= n:
                break
    return out


def random_scenes(rng: random.Random, n: int) -> list[BoardScene]:
    scenes: list[BoardScene] = [sc for _, sc, _ in gallery()]
    while len(scenes) < n:
        scenes.append(random_scene(rng))
    return scenes[:n]


def make_scenes(source: str, seed: int, n: int) -> list[BoardScene]:
    rng = random.Random(seed)
    return game_scenes(rng, n) if source == "games" else random_scenes(rng, n)


# --------------------------------------------------------------------------- figures


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
    clear = getattr(board, "clear_caches", None)
    if callable(clear):
        clear()


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def load_average() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} CPUs)"


def in_process(scenes: list[BoardScene], theme: str) -> None:
    """This checkout's figures, measured here: the split between painting and encoding."""
    _clear_caches()
    t0 = time.perf_counter()
    render_board(scenes[0], theme)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    render_board(scenes[0], theme)
    warm_same = time.perf_counter() - t0

    for sc in scenes[:WARM_UP]:  # warm-up: sprites, glyphs
        render_board(sc, theme)

    # The picture before encoding: composed in the palette from cached tiles where the
    # renderer does that (render_palette_image), else drawn in RGB.
    picture = getattr(board, "render_palette_image", board.render_image)
    tiles = getattr(board, "TILES", None)
    if tiles is not None:
        tiles.hits = tiles.misses = 0
    totals: list[float] = []
    paints: list[float] = []
    encodes: list[float] = []
    sizes: list[int] = []
    cpus: list[float] = []
    for sc in scenes[WARM_UP:]:
        c0 = time.process_time()
        t0 = time.perf_counter()
        im = picture(sc, theme)
        t1 = time.perf_counter()
        data = encode_png(im, theme)
        t2 = time.perf_counter()
        cpus.append(time.process_time() - c0)
        paints.append(t1 - t0)
        encodes.append(t2 - t1)
        totals.append(t2 - t0)
        sizes.append(len(data))

    ms = [t * 1000 for t in totals]
    print(f"boards rendered:        {len(ms)} (theme {theme}, {im.width}x{im.height} px)")
    cpu = [t * 1000 for t in cpus]
    print(f"render+encode median:   {statistics.median(ms):.2f} ms   p95 {_pct(ms, 0.95):.2f} ms")
    print(f"  CPU median:           {statistics.median(cpu):.2f} ms   p95 {_pct(cpu, 0.95):.2f} ms")
    print(f"  paint median:         {statistics.median(paints) * 1000:.2f} ms ({picture.__name__})")
    print(f"  encode median:        {statistics.median(encodes) * 1000:.2f} ms ({png.deflater()})")
    print(
        f"PNG size median:        {statistics.median(sizes) / 1024:.1f} KB   "
        f"max {max(sizes) / 1024:.1f} KB"
    )
    if tiles is not None:
        looked_up = max(1, tiles.hits + tiles.misses)
        print(
            f"tile cache:             {tiles.misses / looked_up:.0%} of {looked_up} lookups "
            f"missed ({tiles.misses / len(ms):.1f} per board); {len(tiles)} tiles, "
            f"{tiles.bytes / 2**20:.1f} MB"
        )
    print(
        f"cold first render:      {cold * 1000:.1f} ms   cached same board "
        f"{warm_same * 1000:.2f} ms   ratio {cold / warm_same:.0f}x"
    )


# --------------------------------------------------------------------------- two checkouts


class Side:
    """One checkout's renderer in a process of its own."""

    def __init__(self, label: str, root: Path, scenes_file: Path, theme: str) -> None:
        self.label = label
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _SIDE, str(scenes_file), theme],
            cwd=root,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        if self.ask("") != "ready":
            raise RuntimeError(f"the {label} renderer did not start")
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.size: list[int] = []

    def ask(self, line: str) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if line:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        if not reply:
            raise RuntimeError(f"the {self.label} renderer stopped")
        return json.loads(reply)

    def time(self, a: int, b: int) -> None:
        r = self.ask(f"time {a} {b}")
        self.wall += r["wall"]
        self.cpu += r["cpu"]
        self.size += r["size"]

    def pngs(self, a: int, b: int) -> list[bytes]:
        return [base64.b64decode(s) for s in self.ask(f"png {a} {b}")]

    def peak_kb(self) -> int:
        return int(self.ask("mem").get("VmHWM", 0))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def compare_pixels(old: list[bytes], new: list[bytes]) -> str:
    """How the decoded pictures of the two checkouts differ."""
    import numpy as np
    from PIL import Image

    same = 0
    differing = 0
    worst_board = 0
    max_delta = 0
    for a, b in zip(old, new, strict=True):
        ia = np.asarray(Image.open(io.BytesIO(a)).convert("RGB"), dtype=np.int16)
        ib = np.asarray(Image.open(io.BytesIO(b)).convert("RGB"), dtype=np.int16)
        if ia.shape != ib.shape:
            return f"pictures differ in size: {ia.shape} against {ib.shape}"
        delta = np.abs(ia - ib).max(axis=2)
        n = int((delta > 0).sum())
        if n == 0:
            same += 1
        differing += n
        worst_board = max(worst_board, n)
        max_delta = max(max_delta, int(delta.max()))
    total = len(old)
    return (
        f"{same} of {total} boards pixel-identical; differing pixels {differing} in all "
        f"(worst board {worst_board}), largest channel difference {max_delta}"
    )


def _fmt(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"median {statistics.median(ms):6.2f} ms   p95 {_pct(ms, 0.95):6.2f} ms"


def against_baseline(
    rev: str, scenes: list[BoardScene], n: int, rounds: int, theme: str, compare: int
) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-render-") as tmp:
        scenes_file = Path(tmp) / "scenes.pickle"
        scenes_file.write_bytes(pickle.dumps(scenes, pickle.HIGHEST_PROTOCOL))
        base_root = unpack_revision(rev, Path(tmp) / "baseline")
        print(f"baseline {rev} against this checkout, {rounds} rounds of {n} boards; ", end="")
        print(load_average())
        sides = [
            Side(f"baseline {rev}", base_root, scenes_file, theme),
            Side("new", ROOT, scenes_file, theme),
        ]
        try:
            for side in sides:  # cold start and warm-up, not measured
                side.ask(f"time 0 {WARM_UP}")
                side.wall, side.cpu, side.size = [], [], []
            for r in range(rounds):
                a = WARM_UP + r * n
                for side in sides if r % 2 == 0 else reversed(sides):
                    side.time(a, a + n)
            base, new = sides
            print(f"after the rounds: {load_average()}")
            for side in sides:
                print(f"{side.label:>22}: wall {_fmt(side.wall)}")
                print(f"{'':>22}  CPU  {_fmt(side.cpu)}")
                size, peak = statistics.median(side.size) / 1024, side.peak_kb() / 1024
                print(
                    f"{'':>22}  PNG  median {size:.1f} KB   max {max(side.size) / 1024:.1f} KB"
                    f"   peak RSS {peak:.0f} MB"
                )
            for what, b, c in (("wall", base.wall, new.wall), ("CPU", base.cpu, new.cpu)):
                med = statistics.median(c) / statistics.median(b)
                p95 = _pct(c, 0.95) / _pct(b, 0.95)
                print(f"{'ratio new/baseline':>22}: {what:4} median {med:.2f}   p95 {p95:.2f}")
            size = statistics.median(new.size) / statistics.median(base.size)
            print(f"{'':>22}  PNG size median {size:.2f}")
            k = min(compare, len(scenes) - WARM_UP)
            if k > 0:
                a, b = WARM_UP, WARM_UP + k
                print(f"pixels ({k} boards): {compare_pixels(base.pngs(a, b), new.pngs(a, b))}")
        finally:
            for side in sides:
                side.close()


def main() -> None:
    ap = argparse.ArgumentParser(description="Board renderer speed and size.")
    ap.add_argument("n", nargs="?", type=int, default=300, help="boards per round")
    ap.add_argument("--theme", default="default")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--source", choices=("games", "random"), default="games")
    ap.add_argument("--baseline-rev", help="also measure the renderer of this commit")
    ap.add_argument("--rounds", type=int, default=4, help="alternating rounds (with a baseline)")
    ap.add_argument(
        "--compare", type=int, default=300, help="boards compared pixel by pixel (baseline)"
    )
    ap.add_argument("--smoke", action="store_true", help="20 boards, a second (CI)")
    args = ap.parse_args()
    if args.smoke:
        args.n, args.rounds, args.compare = 20, 1, 5
    if args.n < 1 or args.rounds < 1:
        ap.error("N and --rounds must be at least 1")
    rounds = args.rounds if args.baseline_rev else 1
    scenes = make_scenes(args.source, args.seed, WARM_UP + rounds * args.n)
    print(f"boards: {args.source} (seed {args.seed}); {load_average()}")
    in_process(scenes[: WARM_UP + args.n], args.theme)
    if args.baseline_rev:
        against_baseline(args.baseline_rev, scenes, args.n, rounds, args.theme, args.compare)


if __name__ == "__main__":
    main()
