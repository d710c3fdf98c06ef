"""1-ply expectimax: each candidate is valued by the opponent's best reply to each of his 21
rolls (0-ply evaluation of the reply), weighted by the rolls' chances.

Candidates are searched best-first (by their 0-ply value) until the deadline; a candidate whose
search the deadline interrupts keeps its 0-ply value, so the answer is always the best found.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ai.evaluation import evaluator_for
from ai.types import MatchContext
from engine import Position, Roll, Variant, legal_plays

if TYPE_CHECKING:
    from ai.learned import PositionEvaluator

#: The 21 distinct rolls with their chances.
ROLLS: tuple[tuple[Roll, float], ...] = tuple(
    (Roll(h, l), (1.0 if h == l else 2.0) / 36.0) for h in range(1, 7) for l in range(1, h + 1)
)


def opponent_context(match: MatchContext | None) -> MatchContext | None:
    """The same match seen by the opponent."""
    if match is None:
        return None
    owner = match.cube_owner if match.cube_owner < 0 else 1 - match.cube_owner
    return replace(
        match,
        score_mover=match.score_opponent,
        score_opponent=match.score_mover,
        cube_owner=owner,
    )


def reply_value(
    rules: Variant,
    after: Position,
    match: MatchContext | None,
    deadline: float | None,
    ev: PositionEvaluator | None = None,
) -> tuple[float, float] | None:
    """(equity, win) for X of ``after`` (X has played, O on roll) at 1 ply; None at the deadline.

    ``ev``: the level's evaluation (default: the hand evaluation)."""
    if ev is None:
        ev = evaluator_for(rules.id)
    opp = after.flip()
    replies: list[Position] = []
    bounds: list[int] = []
    weights: list[float] = []
    for roll, chance in ROLLS:
        if deadline is not None and time.monotonic() > deadline:
            return None
        plays = legal_plays(opp, roll, rules)
        bounds.append(len(replies))
        replies.extend(p.after for p in plays)
        weights.append(chance)
    if deadline is not None and time.monotonic() > deadline:
        return None
    eq, win = ev.evaluate(rules, replies, opponent_context(match))
    starts = np.array(bounds)
    best = np.maximum.reduceat(eq, starts)
    # The winning chance of the reply O picks (the one with the best equity for O).
    ends = [*bounds[1:], len(replies)]
    pick = np.array([s + int(np.argmax(eq[s:e])) for s, e in zip(bounds, ends, strict=True)])
    w = np.array(weights)
    return float(-(w @ best)), float(1.0 - w @ win[pick])


def search_values(
    rules: Variant,
    afters: Sequence[Position],
    order: Sequence[int],
    match: MatchContext | None,
    deadline: float | None,
    limit: int,
    ev: PositionEvaluator | None = None,
) -> dict[int, tuple[float, float]]:
    """1-ply values of up to ``limit`` candidates, taken in ``order``, until the deadline."""
    out: dict[int, tuple[float, float]] = {}
    for i in order[:limit]:
        after = afters[i]
        if rules.result(after) is not None:
            # The game is over: the 0-ply value is exact and as good as a searched one.
            eq, win = (ev or evaluator_for(rules.id)).evaluate(rules, [after], match)
            out[i] = (float(eq[0]), float(win[0]))
            continue
        got = reply_value(rules, after, match, deadline, ev)
        if got is None:
            break
        out[i] = got
    return out
