"""Rollout speed and precision (``ai.rollout``) per variant.

Run from the project root: ``.venv/bin/python -m bench.rollout [--smoke]``.
Prints figures only. Deterministic positions and dice (seeded); the times depend on the load,
which is printed before and after.

1. Speed: trials (whole games, or ``--truncate`` turns) per second, the two best candidates of
   a mid-game position (a seeded random game's) rolled out by the default 0-ply player, timed
   from the first round of trials to the last (the candidates' ranking left out); the median
   over ``--repeats`` rollouts with different seeds. Classic runs on bgsage (its
   batches of 36 trials), the others in Python.
2. Precision: the best-vs-second difference of the same position and its standard error as
   the trials grow, paired (the same dice for both, as the rollout reports it) and unpaired
   (from the two means' own errors). ``SE x sqrt(n)`` staying level means the error shrinks
   as 1/sqrt(n); the ratio column is what the pairing saves. Classic rolls ten times the
   trials (bgsage's errors come from its batches of 36, so it needs a few of them).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time

from ai.rollout import BATCH, rollout
from engine import Position, Roll, Variant, get_variant, legal_plays

VARIANTS = (
    "classic",
    "pin",
    "pin-mother",
    "blocking",
    "blocking-express",
    "dutch",
    "neverfinishing",
)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def position(rules: Variant, seed: int) -> tuple[Position, Roll]:
    """A mid-game decision with at least two plays, from a seeded random game."""
    rng = random.Random(seed)
    while True:
        pos = rules.initial_position()
        for _ in range(rng.randint(8, 24)):
            dice = Roll.of(rng.randint(1, 6), rng.randint(1, 6))
            if dice.is_double and rules.chains_doubles:
                continue  # a chain's decisions come with their own dice text
            after = rng.choice(legal_plays(pos, dice, rules)).after
            if rules.result(after) is not None:
                break
            pos = after.flip()
        dice = Roll(rng.randint(2, 6), 1)
        if rules.result(pos) is None and len(legal_plays(pos, dice, rules)) > 1:
            return pos, dice


def speed(variants: list[str], trials: int, repeats: int, truncate: int) -> None:
    what = f"truncated after {truncate} turns" if truncate else "to the end"
    print(f"\n== speed: 2 candidates, {trials} trials each ({what}), median of {repeats}")
    print(f"load average before: {load()}")
    print(f"{'variant':<18}{'method':>9}{'trials':>8}{'trials/s':>10}{'min':>8}{'max':>8}")
    for variant_id in variants:
        rules = get_variant(variant_id)
        pos, dice = position(rules, 7)
        rates = []
        made = 0
        method = ""
        for seed in range(repeats):
            # Timed from the first round of trials to the last: the candidates' ranking
            # before them (the strongest level's search) is not a trial's cost.
            stamps: list[tuple[int, float]] = []

            def tick(done: int, planned: int, stamps: list[tuple[int, float]] = stamps) -> None:
                stamps.append((done, time.perf_counter()))

            got = rollout(
                rules,
                pos,
                dice,
                trials=max(trials, 2),
                candidates=2,
                truncate=truncate,
                seed=seed,
                progress=tick,
            )
            (first, start), (last, end) = stamps[0], stamps[-1]
            made, method = got.trials, got.method
            rates.append((last - first) * len(got.plays) / (end - start))
        print(
            f"{variant_id:<18}{method:>9}{made:>8}{statistics.median(rates):>10.1f}"
            f"{min(rates):>8.1f}{max(rates):>8.1f}"
        )
    print(f"load average after: {load()}")


def precision(variants: list[str], steps: list[int], truncate: int) -> None:
    print(f"\n== precision: best minus second as the trials grow (truncate {truncate or 'none'})")
    print(
        f"{'variant':<18}{'trials':>8}{'diff':>10}{'paired SE':>11}{'unpaired':>10}"
        f"{'ratio':>7}{'SE x sqrt(n)':>14}"
    )
    for variant_id in variants:
        rules = get_variant(variant_id)
        pos, dice = position(rules, 7)
        for n in steps:
            if rules.has_cube:
                # bgsage's errors come from its batches of 36: ten times the trials (fast in
                # C++), so that there are a few batches to estimate from.
                n = max(2, math.ceil(10 * n / BATCH)) * BATCH
            # The same seed: trials 1..n of a longer rollout are those of a shorter one.
            done = rollout(rules, pos, dice, trials=n, candidates=2, truncate=truncate, seed=1)
            if len(done.plays) < 2:
                break
            second = done.plays[1]
            ratio = second.diff_se / second.unpaired_se if second.unpaired_se else float("nan")
            print(
                f"{variant_id:<18}{done.trials:>8}{second.diff:>10.3f}{second.diff_se:>11.4f}"
                f"{second.unpaired_se:>10.4f}{ratio:>7.2f}"
                f"{second.diff_se * math.sqrt(done.trials):>14.3f}"
            )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny samples (CI's smoke run)")
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    parser.add_argument("--trials", type=int, default=24, help="trials per speed rollout")
    parser.add_argument("--repeats", type=int, default=3, help="speed rollouts per variant")
    parser.add_argument("--truncate", type=int, default=0, help="turns per trial (0: to the end)")
    parser.add_argument(
        "--steps",
        type=int,
        nargs="+",
        default=[9, 18, 36, 72],
        help="trial counts of the precision table (classic: ten times, in batches of 36)",
    )
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-precision", action="store_true")
    args = parser.parse_args(argv)
    if args.smoke:
        args.trials, args.repeats, args.truncate, args.steps = 2, 1, 2, [2, 4]
    if not args.skip_speed:
        speed(args.variants, args.trials, args.repeats, args.truncate)
    if not args.skip_precision:
        precision(args.variants, args.steps, args.truncate)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
