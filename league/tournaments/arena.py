"""Arena: for a fixed time, players who finish are paired again at once.

Scoring (as lichess's arenas, without berserk): a win scores 2, a win while on a streak (the
player's previous two games were both wins: the third win in a row and every one after it)
scores 3, a draw or a double forfeit 1, a loss 0; anything but a win ends the streak.

Pairing: the waiting players sorted by score (then seed) are paired down the list, each with the
nearest player below who was not their last opponent (either's), backtracking when that would
force a later pair into a repeat; a repeat happens only when no pairing of the waiting players
avoids it. With an odd number waiting, the lowest keeps waiting for the next one to finish
(the next lowest if the lowest's waiting would force a repeat).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from league.tournaments import dutch
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
    # "Not the same opponent twice in a row" on either side: a player's own last opponent, and
    # anyone whose last opponent they were.
    avoid: dict[int, set[int]] = {p: set() for p in pool}
    for p in pool:
        last = tallies[p].last_opponent
        if last is not None and last in avoid:
            avoid[p].add(last)
            avoid[last].add(p)
    players = [
        dutch.Player(
            id=p, score=tallies[p].score, pairing_number=seed[p], opponents=frozenset(avoid[p])
        )
        for p in pool
    ]
    if len(players) % 2:
        # The lowest waits, unless that would force a repeat the next lowest's waiting avoids.
        waits = next(
            (
                p
                for p in reversed(players)
                if dutch.can_pair_all([q for q in players if q is not p])
            ),
            players[-1],
        )
        players.remove(waits)
    rank = {p: i for i, p in enumerate(pool)}
    # Down the list, each with the nearest player allowed (backtracking when a later pair
    # would otherwise repeat), the fewest repeats when some cannot be avoided.
    pairs = [
        (a.id, b.id) if rank[a.id] < rank[b.id] else (b.id, a.id)
        for a, b in dutch.pair_in_order(players)
    ]
    pairs.sort(key=lambda ab: rank[ab[0]])
    return [Pairing(round_number, i + 1, a, b) for i, (a, b) in enumerate(pairs)]


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
