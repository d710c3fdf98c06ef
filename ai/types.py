"""Value types shared by the computer players, the command line and the worker pool."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine import Play

#: Playing levels, weakest first. The last one is the strongest and the default.
LEVELS: tuple[str, ...] = ("beginner", "casual", "intermediate", "strong", "expert")
STRONGEST: str = LEVELS[-1]
#: Who can play a rollout's trials (``ai.rollout``): greedy on the 0-ply evaluation (the
#: default: cheap, and the same whatever the load) or one of the levels.
EVALUATION: str = "0ply"
ROLLOUT_LEVELS: tuple[str, ...] = (EVALUATION, *LEVELS)
#: Candidates a rollout takes by default: the best few of the first look.
DEFAULT_CANDIDATES = 5


@dataclass(frozen=True, slots=True)
class RankedPlay:
    """One legal play with its value for the player who makes it."""

    play: Play
    #: Expected points for the mover after this play (per unit of stake/cube), higher is better.
    equity: float
    #: The mover's winning chance after this play, where the evaluation gives a probability.
    win: float | None
    #: True when ``equity`` comes from the ranking's deeper search. Only the best few plays of a
    #: decision are searched; the others' values are their first look moved onto the searched
    #: scale (``on_searched_scale``), so every value of a ranking is on one scale, best first.
    searched: bool = False
    #: The value at the ranking's first look (one depth for every play); None when the ranking
    #: searched nothing, so ``equity`` is that value.
    first_look: float | None = None


def on_searched_scale(first_look: float, corrections: Sequence[float], best: float) -> float:
    """The value of a play the search skipped, on the scale of the searched plays.

    Its own search correction (searched value minus first look) is unknown: the searched plays'
    mean correction estimates it (the best play's alone is biased upwards, since a big
    correction is part of why it is best). Never above ``best``, the best searched value: the
    searched plays were the best at the first look, and a skipped play stays behind them.
    """
    return min(best, first_look + sum(corrections) / len(corrections))


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

    def for_opponent(self) -> MatchContext:
        """The same match seen by the other player (scores and cube ownership swapped)."""
        owner = self.cube_owner if self.cube_owner < 0 else 1 - self.cube_owner
        return replace(
            self, score_mover=self.score_opponent, score_opponent=self.score_mover, cube_owner=owner
        )


@dataclass(frozen=True, slots=True)
class PositionValue:
    """What a position is worth to one player (X): about to roll, or to play a known roll.

    ``equity`` is in the variant's points, the cube included (the Pin games: pips); the chances
    are given where the evaluation knows them (None otherwise). ``gammon`` and ``backgammon``
    count the wins of at least that size, ``gammon_loss``/``backgammon_loss`` the losses.
    """

    equity: float
    win: float | None = None
    gammon: float | None = None
    backgammon: float | None = None
    gammon_loss: float | None = None
    backgammon_loss: float | None = None

    def for_opponent(self) -> PositionValue:
        """The same position seen by the other player."""
        return PositionValue(
            equity=-self.equity,
            win=None if self.win is None else 1.0 - self.win,
            gammon=self.gammon_loss,
            backgammon=self.backgammon_loss,
            gammon_loss=self.gammon,
            backgammon_loss=self.backgammon,
        )
