"""Classic computer players on bgsage: decision time per level and level-against-level matches.

Run from the project root: ``.venv/bin/python -m bench.ai_classic [--smoke]``.
Prints figures only. Deterministic positions and dice (seeded); the times depend on the load.

1. Decision time per level (``rank_classic`` with the bot's deadline) over positions sampled
   from seeded random classic games, contact and race, bar and bear-off included: median, p95,
   worst; and the same for cube decisions. The 1-ply network's own time is the baseline
   measured in the same run (the ratio column), since this machine's load varies.
2. Each level against the next lower one: 1-point games without cube (gammons do not count),
   seats alternating, the same seeded dice for both orders of a game pair (half the luck
   cancels). Win rate with its 95 % interval.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Iterator

from ai.classic import cube_action, rank_classic, warm_up
from ai.types import LEVELS, MatchContext
from engine import Position, Roll, get_variant, legal_plays

CLASSIC = get_variant("classic")


def positions(count: int, seed: int) -> Iterator[tuple[Position, Roll]]:
    """Positions with dice, every 3rd decision of seeded random games."""
    rng = random.Random(seed)
    made = step = 0
    while made < count:
        pos = CLASSIC.initial_position()
        while made < count:
            dice = Roll.of(rng.randint(1, 6), rng.randint(1, 6))
            step += 1
            if step % 3 == 0:
                yield pos, dice
                made += 1
            pos = rng.choice(legal_plays(pos, dice, CLASSIC)).after
            if CLASSIC.result(pos) is not None:
                break
            pos = pos.flip()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def timings(count: int, budget: float) -> None:
    sample = list(positions(count, seed=2026))
    print(f"\n== decision time, {len(sample)} positions, deadline {budget:.1f} s")
    print(f"{'level':<13}{'median ms':>10}{'p95 ms':>10}{'worst ms':>10}{'vs 1-ply':>10}")
    base: float | None = None
    for level in ("intermediate", "strong", "expert"):
        times = []
        rng = random.Random(1)
        for pos, dice in sample:
            start = time.monotonic()
            rank_classic(pos, dice, level=level, deadline=start + budget, rng=rng)
            times.append((time.monotonic() - start) * 1000)
        med = statistics.median(times)
        if base is None:
            base = med
        print(
            f"{level:<13}{med:>10.1f}{pct(times, 0.95):>10.1f}{max(times):>10.1f}"
            f"{med / base:>9.1f}x"
        )
    cube_times = []
    for pos, _dice in sample[: max(20, count // 4)]:
        start = time.monotonic()
        cube_action(pos, MatchContext(length=7, score_mover=2, score_opponent=3))
        cube_times.append((time.monotonic() - start) * 1000)
    print(
        f"{'cube expert':<13}{statistics.median(cube_times):>10.1f}"
        f"{pct(cube_times, 0.95):>10.1f}{max(cube_times):>10.1f}"
    )


def play_game(levels: tuple[str, str], seed: int, budget: float) -> int:
    """0 or 1: the seat that wins. Seat 0 moves first; dice from ``seed``."""
    dice_rng = random.Random(seed)
    noise = [random.Random(seed * 2 + 1), random.Random(seed * 2 + 2)]
    pos = CLASSIC.initial_position()
    seat = 0
    while True:
        a, b = dice_rng.randint(1, 6), dice_rng.randint(1, 6)
        if pos == CLASSIC.initial_position() and a == b:
            continue  # the opening roll is never a double
        dice = Roll.of(a, b)
        start = time.monotonic()
        ranked = rank_classic(
            pos, dice, level=levels[seat], deadline=start + budget, rng=noise[seat]
        )
        pos = ranked[0].play.after
        if CLASSIC.result(pos) is not None:
            return seat
        pos = pos.flip()
        seat = 1 - seat


def ladder(games: int, budget: float, pairs: list[tuple[str, str]]) -> None:
    print(f"\n== level against the next lower one, {games} one-point games per pair, no cube")
    print(f"{'stronger':<13}{'weaker':<13}{'wins':>7}{'rate':>8}{'95% interval':>18}{'s':>7}")
    for strong, weak in pairs:
        wins = 0
        start = time.monotonic()
        for g in range(games):
            # Game pairs share their dice with the seats swapped.
            seed = 1000 + g // 2
            if g % 2 == 0:
                wins += play_game((strong, weak), seed, budget) == 0
            else:
                wins += play_game((weak, strong), seed, budget) == 1
        rate = wins / games
        half = 1.96 * math.sqrt(rate * (1 - rate) / games)
        print(
            f"{strong:<13}{weak:<13}{wins:>7}{rate:>8.1%}"
            f"{f'[{rate - half:.1%}, {rate + half:.1%}]':>18}{time.monotonic() - start:>7.0f}",
            flush=True,
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny samples (CI's smoke run)")
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--games", type=int, default=400, help="games per weak-level pair")
    parser.add_argument("--strong-games", type=int, default=100, help="games with a searcher")
    parser.add_argument("--budget", type=float, default=1.0, help="deadline per decision (s)")
    parser.add_argument("--skip-timing", action="store_true")
    parser.add_argument("--skip-ladder", action="store_true")
    parser.add_argument(
        "--pair",
        action="append",
        default=[],
        metavar="STRONGER:WEAKER",
        help="play only these pairs (--games games each); repeatable",
    )
    args = parser.parse_args(argv)
    if args.smoke:
        args.positions, args.games, args.strong_games, args.budget = 4, 2, 1, 0.1
    t = time.monotonic()
    warm_up()
    print(f"bgsage networks loaded in {time.monotonic() - t:.2f} s")
    if not args.skip_timing:
        timings(args.positions, args.budget)
    if args.pair:
        chosen = [tuple(p.split(":", 1)) for p in args.pair]
        if any(len(p) != 2 or not set(p) <= set(LEVELS) for p in chosen):
            parser.error(f"--pair takes two levels of {', '.join(LEVELS)}")
        ladder(args.games, args.budget, [(a, b) for a, b in chosen])
    elif not args.skip_ladder:
        pairs = list(zip(LEVELS[1:], LEVELS[:-1], strict=True))
        ladder(args.games, args.budget, pairs[:3])
        ladder(args.strong_games, args.budget, pairs[3:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
