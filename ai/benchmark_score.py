"""Error rates on a benchmark (``ai.benchmark``): how much equity each player gives away.

For each decision of a benchmark a player's play is compared with the rollout's best
candidate: the **loss** is the best candidate's equity minus the played one's (0 when the
player found the best), in the variant's unit (``Variant.score_unit``). Each loss is put on
the error scale shared with ``/review`` (``ai.error_scale``): divided by what the decision is
worth (``decision_worth``, half the equity's range there: 1 point in most variants, tens of
pips in the Pin games), in **thousandths of a game**, so the figures of all
seven variants, and a player's review, read alike.

The **error rate** is the mean error per decision, with a 95 % interval from the spread of
the errors over the games the decisions come from (cluster-robust: a game's decisions are
alike; the rollouts' own errors are left out, they are shared by every player). A **blunder**
is an error of at least ``BLUNDER`` (80 thousandths, the "bad" threshold of a review).

A play that is not one of the rolled-out candidates is charged at least the worst candidate's
loss, and more when the 0-ply screen thinks it worse still (the screen's gap to the best
candidate); ``outside`` counts them.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ai.benchmark import Decision, screen_values
from ai.error_scale import BLUNDER, decision_worth, error_of, performance_rating
from ai.evaluation import evaluator_for
from ai.learned import evaluator
from ai.players import BASELINE, choose_play
from ai.types import LEVELS
from engine import Dice, Play, Position, Variant, get_variant, legal_plays
from engine.text import parse_position

#: The players scored: the levels, then the 0-ply evaluations alone.
LEARNED_0PLY = "learned-0ply"
HAND_0PLY = "hand-0ply"
LEVEL_NAMES: tuple[str, ...] = (*LEVELS, LEARNED_0PLY, HAND_0PLY)
#: No time limit for a level's search: a score must not depend on the machine's load.
_FAR = 1e9

Chooser = Callable[[Variant, Position, Dice, list[Play], int], Play]


@dataclass(frozen=True)
class LevelScore:
    level: str
    decisions: int
    #: Mean error in thousandths of a game (``ai.error_scale``), and its 95 % interval.
    error_rate: float
    low: float
    high: float
    #: Mean loss in the variant's unit (points or pips).
    raw: float
    #: Share of blunders and its 95 % interval.
    blunders: float
    blunders_low: float
    blunders_high: float
    #: Plays that were not among the rolled-out candidates.
    outside: int
    #: Each decision's error in thousandths (for paired comparisons of two players).
    losses: tuple[float, ...]
    #: Each decision's game (its interval is taken over games), or None.
    groups: tuple[object, ...] | None = None

    @property
    def rating(self) -> float:
        """The performance rating of the error rate, as ``/review`` gives a player's."""
        return performance_rating(self.error_rate)


def mean_interval(
    values: Sequence[float], groups: Sequence[object] | None = None
) -> tuple[float, float, float]:
    """The mean and its 95 % interval (normal approximation).

    ``groups`` (each value's game): decisions of one game are alike, so the error is taken
    from the games' summed deviations (a cluster-robust standard error), which is wider than
    treating every decision as independent when there are few games."""
    n = len(values)
    mean = statistics.fmean(values)
    if n < 2:
        return mean, -math.inf, math.inf
    if groups is None or len(set(groups)) < 2:
        half = 1.96 * statistics.stdev(values) / math.sqrt(n)
        return mean, mean - half, mean + half
    sums: dict[object, float] = {}
    for x, g in zip(values, groups, strict=True):
        sums[g] = sums.get(g, 0.0) + (x - mean)
    k = len(sums)
    variance = k / (k - 1) * sum(v * v for v in sums.values()) / (n * n)
    half = 1.96 * math.sqrt(variance)
    return mean, mean - half, mean + half


def wilson(hits: int, n: int) -> tuple[float, float]:
    """95 % Wilson interval of a share (sound near 0 and 1, where blunder shares live)."""
    if n == 0:
        return 0.0, 1.0
    z = 1.96
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def summarise(
    level: str,
    losses: Sequence[float],
    raw: Sequence[float],
    outside: int,
    groups: Sequence[object] | None = None,
) -> LevelScore:
    """A player's scores from its errors (thousandths of a game, ``ai.error_scale.error_of``)
    and raw losses (the variant's unit) per decision (``groups``: each decision's game, for
    the interval)."""
    mean, low, high = mean_interval(losses, groups)
    hits = sum(1 for x in losses if x >= BLUNDER - 1e-9)
    b_low, b_high = wilson(hits, len(losses))
    return LevelScore(
        level=level,
        decisions=len(losses),
        error_rate=mean,
        low=low,
        high=high,
        raw=statistics.fmean(raw),
        blunders=hits / len(losses),
        blunders_low=b_low,
        blunders_high=b_high,
        outside=outside,
        losses=tuple(losses),
        groups=None if groups is None else tuple(groups),
    )


def loss_of(
    decision: Decision, played: str, screen: Callable[[Sequence[str]], list[float]] | None = None
) -> tuple[float, bool]:
    """(loss in the variant's unit, whether the play was outside the candidates).

    ``screen`` values play texts at 0 ply; it charges a play outside the candidates its gap
    to the best candidate when that is more than the worst candidate's loss."""
    best = decision.best
    for text, equity, _se in decision.candidates:
        if text == played:
            return max(0.0, best - equity), False
    worst = best - decision.candidates[-1][1]
    if screen is None:
        return worst, True
    best_text = decision.candidates[0][0]
    values = screen([best_text, played])
    return max(worst, values[0] - values[1]), True


def _level_chooser(level: str) -> Chooser:
    def choose(rules: Variant, pos: Position, dice: Dice, plays: list[Play], index: int) -> Play:
        # Noisy levels: a fixed draw per decision, so a score can be reproduced.
        rng = random.Random(f"benchmark-score:{level}:{index}")
        return choose_play(rules, pos, dice, level=level, rng=rng, deadline=_FAR)

    return choose


def _zero_ply(learned: bool) -> Chooser:
    def choose(rules: Variant, pos: Position, dice: Dice, plays: list[Play], index: int) -> Play:
        if learned and rules.has_cube:
            values = screen_values(rules, pos, dice, plays)
            return plays[int(np.argmax(values))]
        ev = evaluator(rules.id, True) if learned else evaluator_for(rules.id)
        eq, _ = ev.evaluate(rules, [p.after for p in plays])
        return plays[int(np.argmax(eq))]

    return choose


def chooser(level: str) -> Chooser:
    if level == LEARNED_0PLY:
        return _zero_ply(True)
    if level == HAND_0PLY:
        return _zero_ply(False)
    return _level_chooser(level)


def score_variant(
    variant_id: str, decisions: Sequence[Decision], levels: Sequence[str]
) -> list[LevelScore]:
    """Every level's scores on ``decisions`` (a benchmark of ``variant_id``)."""
    rules = get_variant(variant_id)
    prepared = []
    for d in decisions:
        pos, dice = parse_position(d.position)
        assert dice is not None
        plays = legal_plays(pos, dice, rules)
        worth = d.worth if d.worth is not None else decision_worth(rules, pos)
        by_text = {p.text: p for p in plays}
        prepared.append((d, pos, dice, plays, worth, by_text))
        if any(c[0] not in by_text for c in d.candidates):
            raise ValueError(f"a candidate is not a legal play of {d.position}")
    out = []
    for level in levels:
        choose = chooser(level)
        losses, raw, outside = [], [], 0
        for i, (d, pos, dice, plays, worth, by_text) in enumerate(prepared):
            # The deadline of a level's search is measured from now: a far one, no time limit.
            played = choose(rules, pos, dice, plays, i).text
            loss, out_of_set = loss_of(d, played, _screen(rules, pos, dice, by_text))
            outside += out_of_set
            raw.append(loss)
            losses.append(error_of(loss, worth))
        games = [d.source.get("game") for d, *_ in prepared]
        out.append(summarise(level, losses, raw, outside, games))
    return out


def _screen(
    rules: Variant, pos: Position, dice: Dice, by_text: dict[str, Play]
) -> Callable[[Sequence[str]], list[float]]:
    def screen(texts: Sequence[str]) -> list[float]:
        return screen_values(rules, pos, dice, [by_text[t] for t in texts])

    return screen


def paired(a: LevelScore, b: LevelScore, factor: float = 1.0) -> tuple[float, float, float]:
    """``a``'s error rate minus ``factor`` times ``b``'s, decision by decision, with its 95 %
    interval (the same decisions: far tighter than the two intervals apart)."""
    diffs = [x - factor * y for x, y in zip(a.losses, b.losses, strict=True)]
    return mean_interval(diffs, a.groups)


def print_scores(variant_id: str, count: int, scores: Sequence[LevelScore]) -> None:
    unit = get_variant(variant_id).score_unit
    print(f"\n== {variant_id}: {count} decisions (error rate: thousandths of a game per decision)")
    print(
        f"{'player':<22}{'error rate':>11}{'95% interval':>18}{'PR':>7}{f'{unit}s/dec':>12}"
        f"{'blunders':>10}{'95% interval':>16}{'outside':>9}"
    )
    for s in scores:
        name = f"{s.level} (baseline)" if s.level == BASELINE else s.level
        interval = f"{s.low:.1f} .. {s.high:.1f}"
        blunders = f"{100 * s.blunders_low:.1f} .. {100 * s.blunders_high:.1f}%"
        print(
            f"{name:<22}{s.error_rate:>11.1f}{interval:>18}{s.rating:>7.1f}{s.raw:>12.4f}"
            f"{100 * s.blunders:>9.1f}%{blunders:>16}{s.outside:>9}"
        )
    by_level = {s.level: s for s in scores}
    if "expert" in by_level and BASELINE in by_level:
        mean, low, high = paired(by_level["expert"], by_level[BASELINE], 0.5)
        verdict = "holds" if high < 0 else ("fails" if low > 0 else "undecided")
        print(
            f"target expert <= half of {BASELINE}: expert - 0.5 x {BASELINE} = {mean:.1f} "
            f"({low:.1f} .. {high:.1f}): {verdict}"
        )
    if LEARNED_0PLY in by_level and HAND_0PLY in by_level:
        mean, low, high = paired(by_level[LEARNED_0PLY], by_level[HAND_0PLY])
        verdict = "holds" if high < 0 else ("fails" if low > 0 else "undecided")
        print(
            f"target learned-0ply < hand-0ply: difference {mean:.1f} ({low:.1f} .. {high:.1f}): "
            f"{verdict}"
        )
