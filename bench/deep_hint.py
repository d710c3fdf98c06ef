"""How long `/hint depth:deep` (and `/analyze`) takes per variant, through the real AI pool.

Run from the project root: ``.venv/bin/python -m bench.deep_hint [--positions 8] [--smoke]``.
Prints figures only. Each request is the very call the bot makes
(``app.analysis.rank_by_rollouts``: the best four plays rolled out within the 4 s budget,
classic on bgsage truncated after 5 turns) on a worker process of a real ``AIPool``, one at a
time, on mid-game positions of seeded random games (``bench.rollout.position``). Per variant:
the wall time from the request to the answer (median, p95, max), the time the rollout itself
reports (the candidates' first look included), the trials per play, and requests that failed
(a worker over its time limit plus grace). A first request per variant, on another position,
warms the worker (its evaluation loaded): its time is given apart ("cold"). The load average is
printed before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass, field

from ai.pool import AIPool, PoolError
from app.analysis import DEEP_HINT_SECONDS, rank_by_rollouts
from bench.rollout import VARIANTS, position
from engine import get_variant


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile (``q`` in 0..1) of a non-empty sample."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


@dataclass
class Timings:
    variant: str
    wall: list[float] = field(default_factory=list)
    inside: list[float] = field(default_factory=list)
    trials: list[int] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    #: The first request's wall time (or its failure), the worker cold for the variant.
    cold: str = "-"


async def measure(variants: list[str], positions: int, seconds: float) -> list[Timings]:
    pool = AIPool(workers=1)
    await pool.start()
    out = []
    try:
        for variant_id in variants:
            rules = get_variant(variant_id)
            got = Timings(variant_id)
            # Apart: the worker's first request of a variant loads its evaluation.
            warm, warm_dice = position(rules, 99)
            started = time.perf_counter()
            try:
                await rank_by_rollouts(pool, rules, warm, warm_dice, seconds)
                got.cold = f"{time.perf_counter() - started:.2f}"
            except PoolError as exc:
                got.cold = type(exc).__name__
            for seed in range(positions):
                pos, dice = position(rules, 100 + seed)
                started = time.perf_counter()
                try:
                    rolled = await rank_by_rollouts(pool, rules, pos, dice, seconds)
                except PoolError as exc:
                    got.failed.append(type(exc).__name__)
                    print(f"  {variant_id} #{seed}: {exc}", flush=True)
                    continue
                got.wall.append(time.perf_counter() - started)
                got.inside.append(rolled.seconds)
                got.trials.append(rolled.trials)
            out.append(got)
            print(f"  {variant_id} done, load {load()}", flush=True)
    finally:
        await pool.close()
    return out


def report(results: list[Timings], seconds: float) -> None:
    print(
        f"\n== deep hint: best 4 plays rolled out, budget {seconds:g} s "
        "(wall: request to answer through the pool)"
    )
    print(
        f"{'variant':<18}{'n':>4}{'wall p50':>10}{'p95':>8}{'max':>8}{'rollout p50':>13}"
        f"{'trials p50':>12}{'min':>6}{'failed':>8}{'cold':>17}"
    )
    for r in results:
        if not r.wall:
            print(
                f"{r.variant:<18}{0:>4}{'-':>10}{'-':>8}{'-':>8}{'-':>13}{'-':>12}{'-':>6}"
                f"{len(r.failed):>8}"
            )
            continue
        print(
            f"{r.variant:<18}{len(r.wall):>4}{statistics.median(r.wall):>10.2f}"
            f"{percentile(r.wall, 0.95):>8.2f}{max(r.wall):>8.2f}"
            f"{statistics.median(r.inside):>13.2f}{statistics.median(r.trials):>12.0f}"
            f"{min(r.trials):>6}{len(r.failed):>8}{r.cold:>17}"
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="one short request (CI's smoke run)")
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    parser.add_argument("--positions", type=int, default=8, help="requests per variant")
    parser.add_argument(
        "--seconds", type=float, default=DEEP_HINT_SECONDS, help="the budget (the bot's)"
    )
    args = parser.parse_args(argv)
    if args.smoke:
        args.variants, args.positions, args.seconds = ["pin"], 1, 0.5
    print(f"load average before: {load()}")
    results = asyncio.run(measure(args.variants, args.positions, args.seconds))
    report(results, args.seconds)
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
