"""What a position is worth to the player about to act: the answer to an offer to resign.

The evaluations value a position right after X's play (O on roll). A resignation is answered
at any moment of a turn, so this module values a position for X **about to roll** (the
position seen by O, who has just played, negated) or **about to play a known roll** (X's best
play). Classic goes to bgsage (cubeful, at the match score); the six other variants to the
evaluation a level plays with (the learned network where one is shipped, else the hand one).
"""

from __future__ import annotations

import numpy as np

from ai.learned import LearnedEvaluator, PositionEvaluator
from ai.players import level_evaluation
from ai.types import STRONGEST, MatchContext, PositionValue
from engine import Dice, Position, Variant, legal_plays


def position_value(
    rules: Variant,
    pos: Position,
    *,
    dice: Dice | None = None,
    match: MatchContext | None = None,
    level: str = STRONGEST,
    deadline: float | None = None,
) -> PositionValue:
    """The value of ``pos`` for X, about to roll (``dice`` None) or to play ``dice``.

    ``equity`` is in the variant's points with the cube (the Pin games: pips), capped in a
    match by what each side still needs.
    """
    if rules.has_cube:
        try:
            from ai.classic import classic_value
        except ImportError:  # bgsage missing: the hand evaluation below
            pass
        else:
            return classic_value(pos, dice, match, level=level, deadline=deadline)
    ev = level_evaluation(rules.id, level)
    # The evaluations count the cube only in a match (where it caps the points); a single
    # game's cube multiplies the stake as it is.
    stake = float(max(match.cube, 1)) if match is not None and match.length == 0 else 1.0
    if dice is None:
        seen = pos.flip()  # O has just played, X is on roll
        eq, win = ev.evaluate(rules, [seen], None if match is None else match.for_opponent())
        theirs = _value(ev, seen, float(eq[0]) * stake, float(win[0]))
        return theirs.for_opponent()
    afters = [p.after for p in legal_plays(pos, dice, rules)]
    eq, win = ev.evaluate(rules, afters, match)
    best = int(np.argmax(eq))
    return _value(ev, afters[best], float(eq[best]) * stake, float(win[best]))


def _value(ev: PositionEvaluator, after: Position, equity: float, win: float) -> PositionValue:
    """X's value right after its play to ``after``, with the network's gammon chances where
    it gives them (the hand evaluation gives only the winning chance)."""
    if not isinstance(ev, LearnedEvaluator):
        return PositionValue(equity=equity, win=win)
    heads = ev.net.heads
    out = ev.outputs([after])[0]

    def head(name: str) -> float | None:
        return float(out[heads.index(name)]) if name in heads else None

    return PositionValue(
        equity=equity,
        win=win,
        gammon=head("gammon_win"),
        backgammon=head("bg_win"),
        gammon_loss=head("gammon_loss"),
        backgammon_loss=head("bg_loss"),
    )
