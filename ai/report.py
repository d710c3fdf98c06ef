"""Post-game review figures from per-play verdicts (pure: no pool, no Discord).

A verdict compares the play made with the evaluation's best play of the same roll. Per player
the review counts the decisions that were real choices (forced plays are left out, as gnubg
and XG do), adds up the equity given away, and keeps the biggest mistakes; where the
evaluation measures luck (classic), it adds up how much better or worse the rolls were than
average.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: How many mistakes a review lists per player.
MISTAKES = 3
#: Equity below this is evaluation noise, not a mistake.
EPSILON = 1e-6

#: Mistake classes by the equity lost in game values (the loss divided by the variant's
#: ``typical_game_value``): gnubg's default thresholds for money play (docs/analysis.md).
DOUBTFUL, BAD, VERY_BAD = "doubtful", "bad", "very bad"
THRESHOLDS: tuple[tuple[float, str], ...] = ((0.16, VERY_BAD), (0.08, BAD), (0.04, DOUBTFUL))
#: Performance rating per game value lost per decision (gnubg's PR: 500 x the mean error per
#: decision in normalised equity; 0 is perfect play, about 5 a world-class player).
PR_FACTOR = 500.0


def mistake_class(lost: float, game_value: float = 1.0) -> str | None:
    """ "very bad", "bad", "doubtful" or None (no mistake) for ``lost`` equity in a variant
    whose typical game is worth ``game_value`` of its unit."""
    scaled = lost / game_value
    for threshold, name in THRESHOLDS:
        if scaled >= threshold:
            return name
    return None


def performance_rating(average_lost: float, game_value: float = 1.0) -> float:
    """One scale for every variant: ``PR_FACTOR`` x the mean equity lost per decision,
    measured in typical game values."""
    return PR_FACTOR * average_lost / game_value


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


@dataclass(frozen=True, slots=True)
class PlayerReview:
    seat: int
    #: Plays that were a choice (more than one legal play).
    decisions: int
    forced: int
    total_lost: float
    mistakes: tuple[Verdict, ...]
    #: Sum of the rolls' luck (None where the evaluation does not measure it).
    luck: float | None

    @property
    def average_lost(self) -> float:
        return self.total_lost / self.decisions if self.decisions else 0.0

    @property
    def error_rate(self) -> float:
        """Average equity lost per decision in thousandths (gnubg's and XG's "error rate")."""
        return 1000.0 * self.average_lost

    def rating(self, game_value: float = 1.0) -> float:
        """The performance rating (:func:`performance_rating`)."""
        return performance_rating(self.average_lost, game_value)


def class_counts(verdicts: Sequence[Verdict], seat: int, game_value: float = 1.0) -> dict[str, int]:
    """How many of ``seat``'s choices were doubtful, bad and very bad."""
    out = {DOUBTFUL: 0, BAD: 0, VERY_BAD: 0}
    for v in verdicts:
        if v.seat == seat and v.choices > 1:
            kind = mistake_class(v.lost, game_value)
            if kind is not None:
                out[kind] += 1
    return out


def worst_mistakes(
    verdicts: Sequence[Verdict], seat: int | None = None, count: int = MISTAKES
) -> list[Verdict]:
    """The ``count`` biggest losses (of ``seat``, or of both players), biggest first."""
    chosen = [v for v in verdicts if v.choices > 1 and v.lost > EPSILON and seat in (None, v.seat)]
    return sorted(chosen, key=lambda v: -v.lost)[:count]


def review_player(verdicts: Sequence[Verdict], seat: int) -> PlayerReview:
    mine = [v for v in verdicts if v.seat == seat]
    chosen = [v for v in mine if v.choices > 1]
    mistakes = sorted((v for v in chosen if v.lost > EPSILON), key=lambda v: -v.lost)
    lucks = [v.luck for v in mine if v.luck is not None]
    return PlayerReview(
        seat=seat,
        decisions=len(chosen),
        forced=len(mine) - len(chosen),
        total_lost=sum(v.lost for v in chosen),
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
    "PR_FACTOR",
    "THRESHOLDS",
    "VERY_BAD",
    "PlayerReview",
    "Verdict",
    "class_counts",
    "game_breaks",
    "mistake_class",
    "mistake_points",
    "performance_rating",
    "review_player",
    "win_series",
    "worst_mistakes",
]
