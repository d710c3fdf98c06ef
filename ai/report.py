"""Post-game review figures from per-play verdicts (pure: no pool, no Discord).

A verdict compares the play made with the evaluation's best play of the same roll. Per player
the review counts the decisions that were real choices (forced plays are left out, as gnubg
and XG do), adds up the equity given away, in the variant's unit and in thousandths of a game
(``ai.error_scale``, the benchmark's scale), and keeps the biggest mistakes; where the
evaluation measures luck (classic), it adds up how much better or worse the rolls were than
average.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ai.error_scale import BAD, DOUBTFUL, VERY_BAD, error_of, mistake_class, performance_rating

#: How many mistakes a review lists per player.
MISTAKES = 3
#: Equity below this is evaluation noise, not a mistake.
EPSILON = 1e-6


@dataclass(frozen=True, slots=True)
class Verdict:
    """One play of the game, judged."""

    seat: int
    game: int
    #: The record line of the play (e.g. "Alice 64: 24/18 13/9").
    line: str
    played: str
    best: str
    #: Equity the play gave up against the best play (>= 0; 0 for a forced play).
    lost: float
    #: The mover's winning chance after the play, where the evaluation gives one.
    win: float | None
    #: The roll's luck for the mover in equity (classic), else None.
    luck: float | None
    #: Number of legal plays (1 = forced).
    choices: int
    #: What the decision was worth in the variant's unit (``ai.error_scale.decision_worth``).
    worth: float

    @property
    def error(self) -> float:
        """The loss in thousandths of a game (``ai.error_scale``): the scale of the
        benchmark's error rates, mistake classes and the performance rating."""
        return error_of(self.lost, self.worth)


@dataclass(frozen=True, slots=True)
class PlayerReview:
    seat: int
    #: Plays that were a choice (more than one legal play).
    decisions: int
    forced: int
    #: Equity given away in the variant's unit, and the same in thousandths of a game.
    total_lost: float
    total_error: float
    mistakes: tuple[Verdict, ...]
    #: Sum of the rolls' luck (None where the evaluation does not measure it).
    luck: float | None

    @property
    def average_lost(self) -> float:
        return self.total_lost / self.decisions if self.decisions else 0.0

    @property
    def error_rate(self) -> float:
        """Mean error per decision in thousandths of a game (``ai.error_scale``), as the
        benchmark gives a level's."""
        return self.total_error / self.decisions if self.decisions else 0.0

    @property
    def rating(self) -> float:
        """The performance rating (``ai.error_scale.performance_rating``)."""
        return performance_rating(self.error_rate)


def class_counts(verdicts: Sequence[Verdict], seat: int) -> dict[str, int]:
    """How many of ``seat``'s choices were doubtful, bad and very bad."""
    out = {DOUBTFUL: 0, BAD: 0, VERY_BAD: 0}
    for v in verdicts:
        if v.seat == seat and v.choices > 1:
            kind = mistake_class(v.error)
            if kind is not None:
                out[kind] += 1
    return out


def worst_mistakes(
    verdicts: Sequence[Verdict], seat: int | None = None, count: int = MISTAKES
) -> list[Verdict]:
    """The ``count`` biggest errors (of ``seat``, or of both players), biggest first."""
    chosen = [v for v in verdicts if v.choices > 1 and v.lost > EPSILON and seat in (None, v.seat)]
    return sorted(chosen, key=lambda v: -v.error)[:count]


def review_player(verdicts: Sequence[Verdict], seat: int) -> PlayerReview:
    mine = [v for v in verdicts if v.seat == seat]
    chosen = [v for v in mine if v.choices > 1]
    mistakes = sorted((v for v in chosen if v.lost > EPSILON), key=lambda v: -v.error)
    lucks = [v.luck for v in mine if v.luck is not None]
    return PlayerReview(
        seat=seat,
        decisions=len(chosen),
        forced=len(mine) - len(chosen),
        total_lost=sum(v.lost for v in chosen),
        total_error=sum(v.error for v in chosen),
        mistakes=tuple(mistakes[:MISTAKES]),
        luck=sum(lucks) if lucks else None,
    )


def win_series(verdicts: Sequence[Verdict], seat: int = 0) -> list[float]:
    """``seat``'s winning chances after each play (plays without a chance are skipped)."""
    out = []
    for v in verdicts:
        if v.win is not None:
            out.append(v.win if v.seat == seat else 1.0 - v.win)
    return out


def game_breaks(verdicts: Sequence[Verdict]) -> list[int]:
    """Indices into :func:`win_series` where a new game of the match starts."""
    breaks = []
    shown = [v for v in verdicts if v.win is not None]
    for i in range(1, len(shown)):
        if shown[i].game != shown[i - 1].game:
            breaks.append(i)
    return breaks


def mistake_points(
    verdicts: Sequence[Verdict], reviews: Sequence[PlayerReview]
) -> list[tuple[int, Verdict]]:
    """Where the mistakes the ``reviews`` list fall in :func:`win_series`: ``(index,
    verdict)`` pairs in play order. The reviews must come from these very verdicts (they are
    matched by identity: two plays may be judged alike)."""
    listed = {id(v) for r in reviews for v in r.mistakes}
    out = []
    shown = [v for v in verdicts if v.win is not None]
    for i, v in enumerate(shown):
        if id(v) in listed:
            out.append((i, v))
    return out


__all__ = [
    "BAD",
    "DOUBTFUL",
    "VERY_BAD",
    "PlayerReview",
    "Verdict",
    "class_counts",
    "game_breaks",
    "mistake_points",
    "review_player",
    "win_series",
    "worst_mistakes",
]
