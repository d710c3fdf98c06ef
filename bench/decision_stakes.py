"""How much equity a player's decisions put at stake, per variant.

Run from the project root: ``.venv/bin/python -m bench.decision_stakes [options]``.

Self-play games of the strongest level's evaluation at 0 ply (the learned network where one is
shipped). At every decision with a choice, the evaluation values all the legal plays; printed
per variant: decisions per game, the mean gap between the best play and the second, the median
and the worst play (in the variant's points, with 95 % intervals over games), the share of
decisions where the median play loses more than 0.05 and 0.10 points, and the sum of the
best-to-median gaps per game: how much a player who chose at random would give away per game,
as this evaluation sees it.

Why: a strong player's edge over a weaker one can only come from the decisions in which plays
differ. Where the decisions put little at stake, no evaluation or search wins much, however
good. The gaps are the evaluation's own view (a weak evaluation sees small gaps too), and an
Express chain decision is valued as if the opponent rolled next, as the players value it.
Compare variants with the same scoring (the default: the Blocking games, 1 point a game).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bench._selfplay import chosen_variants, self_play, variant_parser
from bench.calibration import mean_ci
from engine import Variant, get_variant


@dataclass
class Decision:
    game: int
    second: float
    median: float
    worst: float


def collect(rules: Variant, games: int, seed: int) -> tuple[list[Decision], int]:
    """Every decision with a choice in ``games`` self-play games, and the decisions in all."""
    found: list[Decision] = []
    total = 0
    for turn in self_play(rules, games, seed):
        total += 1
        if turn.equity is not None:
            ranked = np.sort(turn.equity)[::-1]
            best = float(ranked[0])
            second, median, worst = ranked[1], np.median(ranked), ranked[-1]
            found.append(
                Decision(turn.game, best - float(second), best - float(median), best - float(worst))
            )
    return found, total


def report(variant: str, games: int, decisions: list[Decision], total: int) -> list[str]:
    lines = [
        f"{variant}: {games} games, {total / games:.1f} decisions a game, "
        f"{len(decisions) / games:.1f} with a choice"
    ]
    if not decisions:
        return lines
    ids = [d.game for d in decisions]
    for name in ("second", "median", "worst"):
        m, h = mean_ci([getattr(d, name) for d in decisions], ids)
        lines.append(f"  best - {name:<6} {m:.4f} ± {h:.4f} points a decision")
    median = np.array([d.median for d in decisions])
    lines.append(
        f"  median play loses > 0.05: {np.mean(median > 0.05):.0%}, "
        f"> 0.10: {np.mean(median > 0.10):.0%} of the decisions with a choice"
    )
    per_game = np.bincount(ids, weights=median, minlength=games)
    half = 1.96 * float(per_game.std(ddof=1)) / np.sqrt(games) if games > 1 else float("nan")
    lines.append(f"  best - median summed over a game: {per_game.mean():.2f} ± {half:.2f} points")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = variant_parser(__doc__, games=100, seed=20280000)
    args = parser.parse_args(argv)
    variants = chosen_variants(parser, args)
    print(f"bench/decision_stakes.py: {args.games} games per variant, seed {args.seed}", flush=True)
    for variant in variants:
        decisions, total = collect(get_variant(variant), args.games, args.seed)
        print("\n".join(report(variant, args.games, decisions, total)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
