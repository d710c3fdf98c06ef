"""The computer players: rank every legal play of a decision, choose one, per level.

Classic goes to ``ai.classic`` (the bgsage adapter) when it is installed; the six other
variants (and classic without it) use the hand evaluation (``ai.evaluation``) with the 1-ply
search (``ai.search``) on the strong levels. Weak levels add noise to the evaluation, as a
person misjudges close plays more than clear ones.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ai.evaluation import Evaluator, evaluator_for
from ai.features import FloatArray
from ai.learned import PositionEvaluator
from ai.learned import evaluator as level_evaluator
from ai.search import chain_values, search_values
from ai.types import LEVELS, STRONGEST, MatchContext, RankedPlay, on_searched_scale
from engine import ChainDice, Dice, Play, Position, Variant, legal_plays


@dataclass(frozen=True, slots=True)
class LevelSpec:
    """How one level plays the hand-evaluated variants."""

    #: Standard deviation of the noise added to each play's equity, in units of the stake.
    noise: float
    #: Candidates searched at 1 ply (0: the 0-ply evaluation only).
    search: int
    #: Time budget per decision (seconds) when the caller gives no deadline.
    budget: float
    #: Searched plays are those within this much equity (per unit of stake) of the 0-ply best.
    margin: float = 0.0
    #: Weight of the 1-ply value against the 0-ply one for searched plays (1: pure 1-ply).
    blend: float = 1.0
    #: Use the learned evaluation (``ai.learned``) in the variants that ship weights for it.
    learned: bool = False
    #: Candidates of an Express chain decision valued at the chain's end (``search.chain_values``).
    chain: int = 0
    #: Chain decisions' candidates valued at the chain's end are those within this much equity
    #: (per unit of stake) of the 0-ply best, which misjudges them: it sees the chain as over.
    chain_margin: float = 0.10
    #: 1: a chain decision's candidates are valued at 1 ply where the chain ends (O's rolls).
    chain_ply: int = 0
    #: Every 1-ply search (``search``, ``chain_ply``) plays O's Express doubles out as whole
    #: chains (not four steps).
    chain_replies: bool = False
    #: The 1-ply search values O's Express doubles (chains) by the candidate's own 0-ply value.
    static_doubles: bool = False
    #: Weight of the hand evaluation averaged into the learned one (0: the learned one alone).
    mix: float = 0.0


LEVEL_SPECS: dict[str, LevelSpec] = {
    "beginner": LevelSpec(noise=0.60, search=0, budget=0.5),
    "casual": LevelSpec(noise=0.25, search=0, budget=0.5),
    "intermediate": LevelSpec(noise=0.10, search=0, budget=0.5),
    "strong": LevelSpec(noise=0.0, search=0, budget=0.5),
    # Express only (ai/weights/README.md): chain=4 values chain decisions where the chain ends
    # (eleventh session: +1.0 points of win rate against the baseline over 6,000 games, the
    # same seeds with and without it); chain_replies plays the opponent's doubles in the 1-ply
    # search as whole chains (thirteenth session: +0.6, +1.0 and +1.1 points on three seeds of
    # 2,000 games each, +0.9 ± 0.5 together, paired game by game with the expert without it).
    "expert": LevelSpec(
        noise=0.0, search=4, budget=0.7, margin=0.10, learned=True, chain=4, chain_replies=True
    ),
}
assert tuple(LEVEL_SPECS) == LEVELS

#: The greedy 0-ply player the strength benchmark measures against.
BASELINE = "strong"


class MixedEvaluator:
    """A weighted average of two evaluations' equities and winning chances: the learned
    evaluation and the hand one err in different places, so their average errs less."""

    def __init__(self, a: PositionEvaluator, b: PositionEvaluator, weight_b: float) -> None:
        self.a, self.b, self.w = a, b, weight_b

    def evaluate(
        self, rules: Variant, positions: Sequence[Position], match: MatchContext | None = None
    ) -> tuple[FloatArray, FloatArray]:
        ea, wa = self.a.evaluate(rules, positions, match)
        eb, wb = self.b.evaluate(rules, positions, match)
        w = self.w
        return (1.0 - w) * ea + w * eb, (1.0 - w) * wa + w * wb


def level_spec(level: str) -> LevelSpec:
    """The settings of ``level``; ValueError for an unknown level."""
    spec = LEVEL_SPECS.get(level)
    if spec is None:
        raise ValueError(f"unknown level {level!r} (one of {', '.join(LEVELS)})")
    return spec


def level_evaluation(variant_id: str, level: str | LevelSpec) -> PositionEvaluator:
    """The evaluation ``level`` plays a hand-evaluated variant with (0 ply and search leaves)."""
    spec = level if isinstance(level, LevelSpec) else level_spec(level)
    ev = level_evaluator(variant_id, spec.learned)
    if spec.mix > 0 and not isinstance(ev, Evaluator):
        return MixedEvaluator(ev, evaluator_for(variant_id), spec.mix)
    return ev


ClassicRanker = Callable[..., list[RankedPlay]]


def _classic_ranker() -> ClassicRanker | None:
    """``ai.classic.rank_classic`` when that module (and bgsage) is available."""
    try:
        module = importlib.import_module("ai.classic")
    except ImportError:
        return None
    ranker: Any = getattr(module, "rank_classic", None)
    return ranker if callable(ranker) else None


def _plays(rules: Variant, pos: Position, dice: Dice) -> list[Play]:
    return legal_plays(pos, dice, rules)


def rank_hand(
    rules: Variant,
    pos: Position,
    dice: Dice,
    *,
    level: str = STRONGEST,
    deadline: float | None = None,
    rng: random.Random | None = None,
    match: MatchContext | None = None,
    plays: list[Play] | None = None,
    spec: LevelSpec | None = None,
) -> list[RankedPlay]:
    """Rank with the hand evaluation (+ search and noise per level), best first.

    ``spec``: settings to play with instead of the level's (benchmarks try variations)."""
    if spec is None:
        spec = level_spec(level)
    ev = level_evaluation(rules.id, spec)
    if plays is None:
        plays = _plays(rules, pos, dice)
    if len(plays) == 1:
        eq, win = ev.evaluate(rules, [plays[0].after], match)
        return [RankedPlay(plays[0], float(eq[0]), float(win[0]))]
    if deadline is None:
        deadline = time.monotonic() + spec.budget
    afters = [p.after for p in plays]
    eq, win = ev.evaluate(rules, afters, match)
    equity = eq.copy()
    wins = win.copy()
    order = [int(i) for i in np.argsort(-eq, kind="stable")]
    searched: dict[int, tuple[float, float]] = {}
    scale = evaluator_for(rules.id).stake_scale(rules, pos, match)
    if spec.chain > 0 and isinstance(dice, ChainDice):
        # An Express chain decision is followed by more of the same chain, not by the
        # opponent's roll: its candidates are valued where the chain ends.
        close = [
            i for i in order[: spec.chain] if eq[i] >= eq[order[0]] - spec.chain_margin * scale
        ]
        if len(close) > 1:
            searched = chain_values(
                rules,
                plays,
                close,
                dice,
                match,
                deadline,
                spec.chain,
                ev,
                spec.chain_ply,
                spec.chain_replies,
            )
        for i, (e, w) in searched.items():
            equity[i], wins[i] = e, w
    elif spec.search > 0 and not isinstance(dice, ChainDice):
        # Only plays close to the best are worth a search: a clear 0-ply choice stays.
        close = [i for i in order[: spec.search] if eq[i] >= eq[order[0]] - spec.margin * scale]
        if len(close) > 1:
            statics = (
                [(float(e), float(w)) for e, w in zip(eq, win, strict=True)]
                if spec.static_doubles
                else None
            )
            searched = search_values(
                rules, afters, close, match, deadline, spec.search, ev, spec.chain_replies, statics
            )
        b = spec.blend
        for i, (e, w) in searched.items():
            equity[i] = b * e + (1.0 - b) * eq[i]
            wins[i] = b * w + (1.0 - b) * win[i]
    first_look = eq
    if spec.noise > 0:
        rng = rng or random.Random()
        sigma = spec.noise * scale
        noise = np.array([rng.gauss(0.0, sigma) for _ in plays])
        equity = equity + noise
        first_look = eq + noise
    if searched:
        _onto_searched_scale(equity, wins, first_look, win, searched)
    # Best first; on a tie the searched play (the better-known value) goes first.
    rank = sorted(range(len(plays)), key=lambda i: (-equity[i], 0 if i in searched else 1))
    return [
        RankedPlay(
            plays[i],
            float(equity[i]),
            float(wins[i]),
            searched=i in searched,
            first_look=float(first_look[i]) if searched else None,
        )
        for i in rank
    ]


def _onto_searched_scale(
    equity: np.ndarray,
    wins: np.ndarray,
    first_look: np.ndarray,
    first_win: np.ndarray,
    searched: Collection[int],
) -> None:
    """Value the plays the search skipped on the searched plays' scale (``on_searched_scale``).

    A search (1 ply, or an Express chain's end) moves every value of a position by a common
    amount (whose roll comes next, the evaluation's bias at that depth) plus a part of its own.
    """
    best = max(equity[i] for i in searched)
    corrections = [float(equity[i] - first_look[i]) for i in searched]
    win_shift = sum(float(wins[i] - first_win[i]) for i in searched) / len(searched)
    for i in range(len(equity)):
        if i not in searched:
            equity[i] = on_searched_scale(float(first_look[i]), corrections, float(best))
            wins[i] = min(1.0, max(0.0, first_win[i] + win_shift))


def rank_plays(
    rules: Variant,
    pos: Position,
    dice: Dice,
    *,
    level: str = STRONGEST,
    deadline: float | None = None,
    rng: random.Random | None = None,
    match: MatchContext | None = None,
) -> list[RankedPlay]:
    """Every legal play of ``dice`` in ``pos`` (X to play), best first, valued for X."""
    level_spec(level)
    if rules.has_cube:
        ranker = _classic_ranker()
        if ranker is not None:
            return ranker(pos, dice, level=level, deadline=deadline, match=match, rng=rng)
    return rank_hand(rules, pos, dice, level=level, deadline=deadline, rng=rng, match=match)


def choose_play(
    rules: Variant,
    pos: Position,
    dice: Dice,
    *,
    level: str = STRONGEST,
    deadline: float | None = None,
    rng: random.Random | None = None,
    match: MatchContext | None = None,
) -> Play:
    """The play the computer makes at ``level``."""
    plays = _plays(rules, pos, dice)
    if len(plays) == 1:
        return plays[0]
    ranked = rank_plays(rules, pos, dice, level=level, deadline=deadline, rng=rng, match=match)
    return ranked[0].play


# --- reference players for the benchmark ------------------------------------------------------


def random_play(rules: Variant, pos: Position, dice: Dice, rng: random.Random) -> Play:
    """A uniformly random legal play."""
    return rng.choice(_plays(rules, pos, dice))


def pip_greedy_play(rules: Variant, pos: Position, dice: Dice) -> Play:
    """The play with the best pip-count difference (own pips down, the opponent's up)."""
    plays = _plays(rules, pos, dice)
    return max(plays, key=lambda p: p.after.pips("O") - p.after.pips("X"))
