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
    "PlayerReview",
    "Verdict",
    "game_breaks",
    "mistake_points",
    "review_player",
    "win_series",
]
