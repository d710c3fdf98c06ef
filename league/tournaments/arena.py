"""Arena: for a fixed time, players who finish are paired again at once.

Scoring (as lichess's arenas, without berserk): a win scores 2, a win while on a streak (the
player's previous two games were both wins: the third win in a row and every one after it)
scores 3, a draw or a double forfeit 1, a loss 0; anything but a win ends the streak.

Pairing: the waiting players sorted by score (then seed) are paired down the list, each with the
nearest player below who was not their last opponent; a repeat of the last opponent happens only
when nobody else is waiting. An odd player out keeps waiting for the next one to finish.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from league.tournaments.model import Entrant, Pairing, Result, Standing, seeded

WIN = 2
STREAK_WIN = 3
DRAW = 1
#: Wins in a row before a win scores STREAK_WIN.
STREAK = 2
TIEBREAKS = ("match wins", "points difference")


@dataclass
class _Tally:
    score: int = 0
    streak: int = 0
    wins: int = 0
    losses: int = 0
    byes: int = 0
    difference: int = 0
    last_opponent: int | None = None


def _in_order(results: Sequence[Result]) -> list[Result]:
    return sorted(results, key=lambda r: (r.sequence, r.round))


def tally(entrants: Sequence[Entrant], results: Sequence[Result]) -> dict[int, _Tally]:
    tallies = {e.player_id: _Tally() for e in entrants}
    for r in _in_order(results):
        for p in r.players():
            t = tallies.setdefault(p, _Tally())
            if r.second is None:
                # Arenas have no byes; one recorded anyway counts as a plain win.
                t.byes += 1
                t.score += WIN
                continue
            mine, theirs = r.points_of(p)
            t.difference += mine - theirs
            t.last_opponent = r.opponent_of(p)
            if r.winner == p:
                t.score += STREAK_WIN if t.streak >= STREAK else WIN
                t.streak += 1
                t.wins += 1
            elif r.winner is None:
                t.score += DRAW
                t.streak = 0
            else:
                t.streak = 0
                t.losses += 1
    return tallies


def scores(entrants: Sequence[Entrant], results: Sequence[Result]) -> dict[int, int]:
    return {p: t.score for p, t in tally(entrants, results).items()}


def pair(
    waiting: Sequence[int],
    entrants: Sequence[Entrant],
    results: Sequence[Result],
    round_number: int,
) -> list[Pairing]:
    tallies = tally(entrants, results)
    seed = {e.player_id: i for i, e in enumerate(seeded(entrants))}
    pool = sorted(
        dict.fromkeys(p for p in waiting if p in seed),
        key=lambda p: (-tallies[p].score, seed[p]),
    )
    pairings: list[Pairing] = []
    while len(pool) >= 2:
        top = pool.pop(0)
        last = tallies[top].last_opponent
        pick = next(
            (i for i, p in enumerate(pool) if p != last and tallies[p].last_opponent != top), 0
        )
        opponent = pool.pop(pick)
        pairings.append(Pairing(round_number, len(pairings) + 1, top, opponent))
    return pairings


def standings(
    entrants: Sequence[Entrant], results: Sequence[Result], withdrawn: frozenset[int]
) -> list[Standing]:
    """By score, then wins, then points difference; ties share a rank."""
    tallies = tally(entrants, results)

    def key(p: int) -> tuple[float, ...]:
        t = tallies[p]
        return (t.score, t.wins, t.difference)

    order = [e.player_id for e in seeded(entrants)]
    ranked = sorted(order, key=lambda p: tuple(-x for x in key(p)))
    out: list[Standing] = []
    for i, p in enumerate(ranked):
        rank = out[-1].rank if i and key(ranked[i - 1]) == key(p) else i + 1
        t = tallies[p]
        out.append(
            Standing(
                player_id=p,
                rank=rank,
                score=float(t.score),
                tiebreaks=(float(t.wins), float(t.difference)),
                wins=t.wins,
                losses=t.losses,
                byes=t.byes,
                withdrawn=p in withdrawn,
            )
        )
    return out
