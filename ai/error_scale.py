"""One error scale for every variant: a decision's equity loss in thousandths of a game.

Post-game reviews (``ai.report``, ``app.reports``) and the strength benchmark
(``ai.benchmark_score``) both measure errors here, so a player's error rate in ``/review``
reads like a level's in ``python -m ai benchmark score`` (docs/analysis.md, "The error scale").

A **loss** is in the variant's own unit (``Variant.score_unit``: points; pips in the Pin games).
It is divided by what the decision is **worth** (:func:`decision_worth`): half the width of the
mover's equity range in the position played from, by the hand evaluation
(``Evaluator.game_worth``: the mean of what a win brings and what a loss costs; 1 point in most
variants, a little more where gammons are likely; tens of pips in the Pin games), per unit of
cube. The quotient, times ``ERROR_SCALE``, is the decision's **error in thousandths of a game**
(in backgammon money play gnubg's and XG's thousandths of a point, near enough).
"""

from __future__ import annotations

from dataclasses import replace

from ai.evaluation import evaluator_for
from ai.types import MatchContext
from engine import Position, Variant

#: The unit of errors and error rates: thousandths of a game per decision.
ERROR_SCALE = 1000.0

#: Mistake classes by a decision's error in thousandths of a game: gnubg's default thresholds
#: for money play (0.04, 0.08 and 0.16 of a point), biggest first.
DOUBTFUL, BAD, VERY_BAD = "doubtful", "bad", "very bad"
THRESHOLDS: tuple[tuple[float, str], ...] = ((160.0, VERY_BAD), (80.0, BAD), (40.0, DOUBTFUL))
#: A blunder (the benchmark's share): an error of at least this, the "bad" threshold (XG's
#: blunder at a single game).
BLUNDER = 80.0
#: The performance rating per thousandth of a game lost per decision: gnubg's PR is 500 x the
#: mean normalised error per decision, so half the error rate (0 perfect, about 5 world class).
PR_PER_ERROR = 0.5


def decision_worth(rules: Variant, pos: Position, match: MatchContext | None = None) -> float:
    """What the decision of the player to move (X) in ``pos`` is worth, in the variant's unit
    (``Evaluator.game_worth``, at least 1). Per unit of cube, as the equities it scales are
    (bgsage's, in backgammon, the only variant with a cube): errors are normalised by the cube
    as gnubg's are."""
    if match is not None and match.cube != 1:
        match = replace(match, cube=1)
    return evaluator_for(rules.id).game_worth(rules, pos, match)


def error_of(loss: float, worth: float) -> float:
    """A decision's ``loss`` (equity, in the variant's unit) in thousandths of a game, for a
    decision worth ``worth`` (:func:`decision_worth`)."""
    if worth <= 0:
        raise ValueError("a decision is worth more than nothing")
    return ERROR_SCALE * max(loss, 0.0) / worth


def mistake_class(error: float) -> str | None:
    """ "very bad", "bad", "doubtful" or None (no mistake) for an error in thousandths."""
    for threshold, name in THRESHOLDS:
        if error >= threshold - 1e-9:
            return name
    return None


def performance_rating(error_rate: float) -> float:
    """The performance rating of an error rate (mean thousandths of a game per decision)."""
    return PR_PER_ERROR * error_rate


__all__ = [
    "BAD",
    "BLUNDER",
    "DOUBTFUL",
    "ERROR_SCALE",
    "PR_PER_ERROR",
    "THRESHOLDS",
    "VERY_BAD",
    "decision_worth",
    "error_of",
    "mistake_class",
    "performance_rating",
]
