"""The values every event format shares: formats, entrants, pairings, results, standings.

Standard library only, no I/O, immutable values. A pairing is a table of a round; a result is
what the table produced. Every pairing gets exactly one result, a bye's included
(:func:`bye_result`): advancement in a knockout and the points of a bye are read from results.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


class Format(enum.Enum):
    SWISS = "swiss"
    KNOCKOUT = "knockout"
    ROUND_ROBIN = "round-robin"
    ARENA = "arena"


@dataclass(frozen=True)
class Entrant:
    """A registered player. Seeds are by rating (highest first), then by sign-up ``order``."""

    player_id: int
    rating: float
    order: int


@dataclass(frozen=True)
class Pairing:
    """A table of a round; ``second`` is None for a bye (or a knockout walk-over)."""

    round: int
    table: int
    first: int
    second: int | None


@dataclass(frozen=True)
class Result:
    """What a table produced.

    ``winner`` is None for a double forfeit (and an arena draw); a bye is ``second=None`` with
    ``winner=first``. ``first_points``/``second_points`` are the match points each side scored
    (for points difference); ``sequence`` orders results as they finished (arena streaks)."""

    round: int
    first: int
    second: int | None
    winner: int | None
    first_points: int = 0
    second_points: int = 0
    forfeit: bool = False
    sequence: int = 0

    @property
    def is_bye(self) -> bool:
        return self.second is None

    def players(self) -> tuple[int, ...]:
        return (self.first,) if self.second is None else (self.first, self.second)

    def opponent_of(self, player: int) -> int | None:
        if player == self.first:
            return self.second
        if player == self.second:
            return self.first
        raise ValueError(f"player {player} is not in this result")

    def points_of(self, player: int) -> tuple[int, int]:
        """(points scored, points conceded) from ``player``'s side."""
        if player == self.first:
            return self.first_points, self.second_points
        return self.second_points, self.first_points


@dataclass(frozen=True)
class Standing:
    """A player's line in the standings. ``rank`` is shared by players tied on score and every
    tiebreak (listed in seed order); :func:`tiebreak_names` names the tiebreaks of a format."""

    player_id: int
    rank: int
    score: float
    tiebreaks: tuple[float, ...]
    wins: int
    losses: int
    byes: int
    withdrawn: bool = False


def seeded(entrants: Iterable[Entrant]) -> list[Entrant]:
    """Entrants in seed order: rating, highest first, then sign-up order."""
    return sorted(entrants, key=lambda e: (-e.rating, e.order, e.player_id))


def bye_result(pairing: Pairing) -> Result:
    """The result to record for a bye pairing (the player wins it)."""
    if pairing.second is not None:
        raise ValueError("not a bye")
    return Result(round=pairing.round, first=pairing.first, second=None, winner=pairing.first)


def results_by_round(results: Sequence[Result]) -> dict[int, list[Result]]:
    rounds: dict[int, list[Result]] = {}
    for result in results:
        rounds.setdefault(result.round, []).append(result)
    return rounds


def check_entrants(entrants: Sequence[Entrant]) -> None:
    ids = [e.player_id for e in entrants]
    if len(set(ids)) != len(ids):
        raise ValueError("an entrant is listed twice")
