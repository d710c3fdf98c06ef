"""Scores and tiebreaks of Swiss and round-robin events.

A win scores 1 (a forfeit win too), a bye 1, a loss or a double forfeit 0.

Swiss tiebreaks, in order: match wins (byes excluded), Buchholz (the sum of the opponents'
scores; a bye counts as an opponent with the player's own score, as FIDE's tie-break
regulations C.07 treat unplayed rounds), median Buchholz (Buchholz without the highest and the
lowest opponent, when there are three or more), points difference (match points scored minus
conceded), head-to-head (the score in games between the players still tied on everything
before). Round robin: match wins, head-to-head, Sonneborn-Berger (the scores of the opponents
beaten), points difference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from league.tournaments.model import Entrant, Result, Standing, seeded

SWISS_TIEBREAKS = ("match wins", "Buchholz", "median Buchholz", "points difference", "head-to-head")
ROUND_ROBIN_TIEBREAKS = ("match wins", "head-to-head", "Sonneborn-Berger", "points difference")


@dataclass
class Record:
    """One player's games, as the tiebreaks need them."""

    score: float = 0.0
    wins: int = 0
    losses: int = 0
    byes: int = 0
    difference: int = 0
    opponents: list[int] = field(default_factory=list)
    beaten: list[int] = field(default_factory=list)


def records(entrants: Sequence[Entrant], results: Sequence[Result]) -> dict[int, Record]:
    recs = {e.player_id: Record() for e in entrants}
    for r in results:
        if r.second is None:
            rec = recs.setdefault(r.first, Record())
            if r.winner == r.first:
                rec.byes += 1
                rec.score += 1.0
            continue
        for p, other in ((r.first, r.second), (r.second, r.first)):
            rec = recs.setdefault(p, Record())
            rec.opponents.append(other)
            mine, theirs = r.points_of(p)
            rec.difference += mine - theirs
            if r.winner == p:
                rec.wins += 1
                rec.score += 1.0
                rec.beaten.append(other)
            else:
                rec.losses += 1
    return recs


def _head_to_head(group: Sequence[int], recs: dict[int, Record]) -> dict[int, float]:
    members = set(group)
    return {p: float(sum(1 for o in recs[p].beaten if o in members)) for p in group}


def _rank(
    entrants: Sequence[Entrant],
    results: Sequence[Result],
    withdrawn: frozenset[int],
    recs: dict[int, Record],
    keys: Sequence[Callable[[int], float] | None],
) -> list[Standing]:
    """Sorts by score then ``keys`` in turn; a None key is head-to-head, computed inside each
    group still tied on everything before it."""
    order = [e.player_id for e in seeded(entrants)]
    values: dict[int, list[float]] = {p: [recs[p].score] for p in order}
    groups: list[list[int]] = [order]
    for key in keys:
        for p in order:
            if key is not None:
                values[p].append(key(p))
        if key is None:
            for group in groups:
                h2h = _head_to_head(group, recs)
                for p in group:
                    values[p].append(h2h[p])
        groups = _split(order, values)
    ranked = sorted(order, key=lambda p: [-v for v in values[p]])
    out: list[Standing] = []
    for i, p in enumerate(ranked):
        tied = i and values[ranked[i - 1]] == values[p]
        rec = recs[p]
        out.append(
            Standing(
                player_id=p,
                rank=out[-1].rank if tied else i + 1,
                score=rec.score,
                tiebreaks=tuple(values[p][1:]),
                wins=rec.wins,
                losses=rec.losses,
                byes=rec.byes,
                withdrawn=p in withdrawn,
            )
        )
    return out


def _split(order: Sequence[int], values: dict[int, list[float]]) -> list[list[int]]:
    groups: dict[tuple[float, ...], list[int]] = {}
    for p in order:
        groups.setdefault(tuple(values[p]), []).append(p)
    return list(groups.values())


def swiss_standings(
    entrants: Sequence[Entrant], results: Sequence[Result], withdrawn: frozenset[int]
) -> list[Standing]:
    recs = records(entrants, results)

    def opponent_scores(p: int) -> list[float]:
        rec = recs[p]
        # A bye is an opponent with the player's own score (unplayed rounds, FIDE C.07).
        return [recs[o].score for o in rec.opponents] + [rec.score] * rec.byes

    def buchholz(p: int) -> float:
        return sum(opponent_scores(p))

    def median_buchholz(p: int) -> float:
        scores = sorted(opponent_scores(p))
        return sum(scores[1:-1]) if len(scores) >= 3 else sum(scores)

    return _rank(
        entrants,
        results,
        withdrawn,
        recs,
        [
            lambda p: float(recs[p].wins),
            buchholz,
            median_buchholz,
            lambda p: float(recs[p].difference),
            None,
        ],
    )


def round_robin_standings(
    entrants: Sequence[Entrant], results: Sequence[Result], withdrawn: frozenset[int]
) -> list[Standing]:
    recs = records(entrants, results)
    return _rank(
        entrants,
        results,
        withdrawn,
        recs,
        [
            lambda p: float(recs[p].wins),
            None,
            lambda p: sum(recs[o].score for o in recs[p].beaten),
            lambda p: float(recs[p].difference),
        ],
    )
