"""Value types shared by the computer players, the command line and the worker pool."""

from __future__ import annotations

from dataclasses import dataclass

from engine import Play

#: Playing levels, weakest first. The last one is the strongest and the default.
LEVELS: tuple[str, ...] = ("beginner", "casual", "intermediate", "strong", "expert")
STRONGEST: str = LEVELS[-1]


@dataclass(frozen=True, slots=True)
class RankedPlay:
    """One legal play with its value for the player who makes it."""

    play: Play
    #: Expected points for the mover after this play (per unit of stake/cube), higher is better.
    equity: float
    #: The mover's winning chance after this play, where the evaluation gives a probability.
    win: float | None


@dataclass(frozen=True, slots=True)
class MatchContext:
    """The match situation a decision is taken in (classic cube and match-score awareness)."""

    #: Match length in points; 0 for a single unlimited game.
    length: int = 0
    score_mover: int = 0
    score_opponent: int = 0
    crawford: bool = False
    cube: int = 1
    #: Who owns the cube: -1 centred, 0 the mover, 1 the opponent.
    cube_owner: int = -1
