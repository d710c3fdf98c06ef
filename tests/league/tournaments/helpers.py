"""Builders shared by the tournament tests."""

from __future__ import annotations

from league.tournaments import Entrant, Pairing, Result, bye_result


def entrants(count: int) -> list[Entrant]:
    """Players 1..count, seeded in that order (rating falls with the number)."""
    return [Entrant(player_id=n, rating=2000.0 - n, order=n) for n in range(1, count + 1)]


def won_by(pairing: Pairing, winner: int, points: tuple[int, int] = (0, 0)) -> Result:
    if pairing.second is None:
        return bye_result(pairing)
    return Result(pairing.round, pairing.first, pairing.second, winner, points[0], points[1])


def higher_seed_wins(pairings: list[Pairing]) -> list[Result]:
    return [won_by(p, p.first if p.second is None else min(p.first, p.second)) for p in pairings]
