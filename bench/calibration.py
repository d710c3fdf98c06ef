"""How well an evaluation predicts who wins, at 0 ply and through the 1-ply search.

Run from the project root: ``.venv/bin/python -m bench.calibration [options]``.

Self-play games of the strongest level's evaluation at 0 ply (the learned network where one is
shipped) are sampled after ordinary turns (O to roll, no chain under way); each sampled position
is valued by the evaluation itself (0 ply) and by the 1-ply search over O's 21 rolls (in Blocking
Express also with O's doubles played out as whole chains), and every value is scored against
the game's result. Printed per variant: the Brier score (mean squared error of the winning
chance; lower is better) of each with its 95 % interval, the mean change the search makes, and
the paired difference of the Brier scores with its 95 % interval.

Why: a search can only improve play where it predicts better than the evaluation it searches
with. If the 1-ply values predict no better than the 0-ply ones, neither more search nor a
network trained towards 1-ply targets (TD-Leaf) has anything to gain from them.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

import ai  # noqa: F401  (numpy thread limits before numpy works)
from ai.learned import evaluator
from ai.search import reply_value
from bench._selfplay import chosen_variants, self_play, variant_parser
from engine import Position, Variant, get_variant

Estimator = Callable[[Variant, Position], float]


@dataclass
class Sample:
    game: int
    estimates: tuple[float, ...]
    won: float


def estimators(rules: Variant) -> dict[str, Estimator]:
    ev = evaluator(rules.id, True)

    def zero_ply(r: Variant, after: Position) -> float:
        return float(ev.evaluate(r, [after])[1][0])

    def one_ply(chains: bool) -> Estimator:
        def value(r: Variant, after: Position) -> float:
            got = reply_value(r, after, None, None, ev, chains)
            assert got is not None  # no deadline
            return got[1]

        return value

    out = {"0 ply": zero_ply, "1 ply": one_ply(False)}
    if rules.chains_doubles:
        out["1 ply, chains"] = one_ply(True)
    return out


def collect(rules: Variant, games: int, seed: int, rate: float) -> tuple[list[str], list[Sample]]:
    """Self-play games at 0 ply; about ``rate`` of the positions after ordinary turns sampled."""
    named = estimators(rules)
    samples: list[Sample] = []
    taken: list[tuple[int, tuple[float, ...]]] = []
    for turn in self_play(rules, games, seed):
        seat, after = turn.before.mover, turn.after
        ordinary = turn.before.chain is None and after.chain is None and after.mover != seat
        if ordinary and not after.is_over and turn.rng.random() < rate:
            pos = turn.plays[turn.chosen].after
            taken.append((seat, tuple(f(rules, pos) for f in named.values())))
        if after.is_over:
            result = after.result
            assert result is not None
            for taker, est in taken:
                won = 0.5 if result.winner is None else float(result.winner == taker)
                samples.append(Sample(turn.game, est, won))
            taken = []
    return list(named), samples


def mean_ci(values: Sequence[float], games: Sequence[int]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % interval. The positions of one game share its
    result, so the variance is taken over games (a cluster-robust standard error)."""
    a = np.asarray(values, dtype=np.float64)
    if len(a) == 0:
        return math.nan, math.nan
    mean = float(a.mean())
    ids = np.unique(np.asarray(games), return_inverse=True)[1]
    clusters = np.bincount(ids, weights=a - mean)
    if len(clusters) < 2:
        return mean, math.nan
    k = len(clusters)
    se = math.sqrt(float(np.sum(clusters**2)) * k / (k - 1)) / len(a)
    return mean, 1.96 * se


def report(variant: str, names: list[str], samples: list[Sample]) -> list[str]:
    lines = [f"{variant}: {len(samples)} positions of {len({s.game for s in samples})} games"]
    if not samples:
        return lines
    won = np.array([s.won for s in samples])
    games = [s.game for s in samples]
    est = np.array([s.estimates for s in samples])
    errors = (est - won[:, None]) ** 2
    for k, name in enumerate(names):
        m, h = mean_ci(errors[:, k], games)
        lines.append(f"  {name:<14} Brier {m:.4f} ± {h:.4f}   mean win {est[:, k].mean():.3f}")
    for k, name in enumerate(names[1:], start=1):
        change = float(np.mean(np.abs(est[:, k] - est[:, 0])))
        d, h = mean_ci(errors[:, k] - errors[:, 0], games)
        lines.append(
            f"  {name} - 0 ply: Brier {d:+.4f} ± {h:.4f} (negative: the search predicts "
            f"better); mean |change| {change:.4f}"
        )
    lines.append(f"  outcome mean {won.mean():.3f}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = variant_parser(__doc__, games=200, seed=20264000)
    parser.add_argument("--rate", type=float, default=0.25, help="share of positions sampled")
    args = parser.parse_args(argv)
    variants = chosen_variants(parser, args)
    if not 0 < args.rate <= 1:
        parser.error("--rate must be in (0, 1]")
    print(f"bench/calibration.py: {args.games} games per variant, seed {args.seed}", flush=True)
    for variant in variants:
        names, samples = collect(get_variant(variant), args.games, args.seed, args.rate)
        print("\n".join(report(variant, names, samples)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
