"""Round robin by the Berger tables (FIDE Handbook C.05, Annex 1).

Players are numbered by seed; with an odd number a dummy player n + 1 is added and whoever
meets it has a bye. The schedule is fixed by the entrants, so a withdrawn player's remaining
opponents get byes instead of a match.
"""

from __future__ import annotations

from collections.abc import Sequence

from league.tournaments.model import Entrant, Pairing, seeded

MAX_PLAYERS = 16


def rounds_needed(players: int) -> int:
    if players < 2:
        return 0
    return players - 1 if players % 2 == 0 else players


def berger_round(players: int, round_number: int) -> list[tuple[int, int]]:
    """The pairs of seed numbers (1-based) of a round of the Berger table for ``players``
    (made even with a dummy), in the table's order and colours.

    Players i and j (both below n) meet in the round r where i + j - 2 = r - 1 (mod n - 1),
    and player n meets the i with 2i - 2 = r - 1 (mod n - 1)."""
    n = players + players % 2
    if not 1 <= round_number <= n - 1:
        raise ValueError(f"a round robin of {players} has no round {round_number}")
    m = n - 1
    r = round_number - 1
    # The player who meets n: 2i - 2 = r (mod m), i in 1..m.
    partner = next(i for i in range(1, n) if (2 * i - 2 - r) % m == 0)
    pairs = [(partner, n) if round_number % 2 == 1 else (n, partner)]
    for k in range(1, n // 2):
        up = (partner - 1 + k) % m + 1
        down = (partner - 1 - k) % m + 1
        pairs.append((up, down))
    return pairs


def pair(
    entrants: Sequence[Entrant], round_number: int, withdrawn: frozenset[int]
) -> list[Pairing]:
    seeds = [e.player_id for e in seeded(entrants)]
    pairings: list[Pairing] = []
    for a, b in berger_round(len(seeds), round_number):
        live = [seeds[s - 1] for s in (a, b) if s <= len(seeds) and seeds[s - 1] not in withdrawn]
        if not live:
            continue
        second = live[1] if len(live) == 2 else None
        pairings.append(Pairing(round_number, len(pairings) + 1, live[0], second))
    return pairings
