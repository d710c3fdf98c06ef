"""Swiss pairing (placeholder: greedy with backtracking; the Dutch system replaces it)."""

from __future__ import annotations

from collections.abc import Sequence

from league.tournaments.model import Entrant, Pairing, Result, seeded
from league.tournaments.scoring import records


def pair(
    entrants: Sequence[Entrant],
    results: Sequence[Result],
    round_number: int,
    withdrawn: frozenset[int],
) -> list[Pairing]:
    recs = records(entrants, [r for r in results if r.round < round_number])
    seed = {e.player_id: i for i, e in enumerate(seeded(entrants))}
    players = sorted(
        (p for p in seed if p not in withdrawn), key=lambda p: (-recs[p].score, seed[p])
    )
    met = {p: set(recs[p].opponents) for p in players}
    bye: int | None = None
    if len(players) % 2:
        bye = next((p for p in reversed(players) if recs[p].byes == 0), players[-1])
        players.remove(bye)
    pairs: list[tuple[int, int]] = []
    pool = list(players)
    while pool:
        top = pool.pop(0)
        pick = next((i for i, p in enumerate(pool) if p not in met[top]), 0)
        pairs.append((top, pool.pop(pick)))
    out = [Pairing(round_number, i + 1, a, b) for i, (a, b) in enumerate(pairs)]
    if bye is not None:
        out.append(Pairing(round_number, len(out) + 1, bye, None))
    return out
