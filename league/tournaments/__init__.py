"""Event formats: Swiss, knockout, round robin and arena, as pure functions of the entrants and
the results so far (standard library only, no I/O, immutable values).

Conventions the callers keep: every pairing gets exactly one :class:`Result` (a bye's is
:func:`bye_result`); results of a round are all recorded before the next round is paired;
withdrawn players stay entrants (their results count) and are never paired again. See
docs/tournaments.md for the rules of each format.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from league.tournaments import arena, knockout, round_robin, scoring, swiss
from league.tournaments.model import (
    Entrant,
    Format,
    Pairing,
    Result,
    Standing,
    bye_result,
    check_entrants,
    seeded,
)

__all__ = [
    "Entrant",
    "Format",
    "Pairing",
    "Result",
    "Standing",
    "bye_result",
    "is_finished",
    "knockout_bracket",
    "pair_arena",
    "pair_round",
    "rounds_for",
    "seeded",
    "standings",
    "tiebreak_names",
]

#: Round robins are limited to this many players (the issue: everyone once, up to 16).
ROUND_ROBIN_MAX_PLAYERS = round_robin.MAX_PLAYERS


def rounds_for(fmt: Format, players: int, requested: int | None) -> int:
    """How many rounds an event of ``players`` has. Swiss: ``requested``, else ceil(log2 n);
    round robin: n - 1 (n even) or n; knockout: log2 of the bracket (next power of two); arena
    is timed: 0. Fewer than two players: 0."""
    if requested is not None and requested < 1:
        raise ValueError("an event needs at least one round")
    if players < 2:
        return 0
    if fmt is Format.SWISS:
        return requested if requested is not None else max(1, math.ceil(math.log2(players)))
    if fmt is Format.ROUND_ROBIN:
        return round_robin.rounds_needed(players)
    if fmt is Format.KNOCKOUT:
        return knockout.rounds_needed(players)
    return 0


def pair_round(
    fmt: Format,
    entrants: Sequence[Entrant],
    results: Sequence[Result],
    round_number: int,
    withdrawn: frozenset[int] = frozenset(),
) -> list[Pairing]:
    """The pairings of ``round_number`` (byes have ``second=None``), in table order. Arena:
    everyone not withdrawn is paired as waiting (the first wave); later waves use
    :func:`pair_arena`. Knockout: ValueError while the previous round has a table without a
    result. ValueError for an entrant listed twice or a round below 1."""
    check_entrants(entrants)
    if round_number < 1:
        raise ValueError("rounds are numbered from 1")
    if fmt is Format.SWISS:
        return swiss.pair(entrants, results, round_number, withdrawn)
    if fmt is Format.KNOCKOUT:
        return knockout.pair(entrants, results, round_number, withdrawn)
    if fmt is Format.ROUND_ROBIN:
        return round_robin.pair(entrants, round_number, withdrawn)
    waiting = [e.player_id for e in entrants if e.player_id not in withdrawn]
    return arena.pair(waiting, entrants, results, round_number)


def pair_arena(
    waiting: Sequence[int],
    entrants: Sequence[Entrant],
    results: Sequence[Result],
    round_number: int,
) -> list[Pairing]:
    """Pairs the arena players now waiting (the caller leaves withdrawn players out) with
    players near their score, avoiding their last opponent; an odd one out keeps waiting."""
    return arena.pair(waiting, entrants, results, round_number)


def standings(
    fmt: Format,
    entrants: Sequence[Entrant],
    results: Sequence[Result],
    withdrawn: frozenset[int] = frozenset(),
) -> list[Standing]:
    """Everyone (withdrawn players too, flagged), best first."""
    check_entrants(entrants)
    if fmt is Format.SWISS:
        return scoring.swiss_standings(entrants, results, withdrawn)
    if fmt is Format.ROUND_ROBIN:
        return scoring.round_robin_standings(entrants, results, withdrawn)
    if fmt is Format.KNOCKOUT:
        return knockout.standings(entrants, results, withdrawn)
    return arena.standings(entrants, results, withdrawn)


def tiebreak_names(fmt: Format) -> tuple[str, ...]:
    """The names of :attr:`Standing.tiebreaks`, in order, for column headings."""
    if fmt is Format.SWISS:
        return scoring.SWISS_TIEBREAKS
    if fmt is Format.ROUND_ROBIN:
        return scoring.ROUND_ROBIN_TIEBREAKS
    if fmt is Format.ARENA:
        return arena.TIEBREAKS
    return ()


def knockout_bracket(
    entrants: Sequence[Entrant],
    results: Sequence[Result],
    withdrawn: frozenset[int] = frozenset(),
) -> list[list[tuple[int | None, int | None, int | None]]]:
    """A knockout's tables round by round as (first, second, who went on: None while not
    played or when nobody did); rounds not reached are empty lists. Empty slots are None."""
    check_entrants(entrants)
    return knockout.bracket_view(entrants, results, withdrawn)


def is_finished(
    fmt: Format,
    entrants: Sequence[Entrant],
    results: Sequence[Result],
    rounds: int,
    withdrawn: frozenset[int] = frozenset(),
) -> bool:
    """Knockout: one unbeaten player (or none) is left. Swiss and round robin: every round up
    to ``rounds`` has a result for every player not withdrawn, or fewer than two players are
    left after a complete round. Arena ends on its clock: only when fewer than two remain."""
    active = [e.player_id for e in entrants if e.player_id not in withdrawn]
    if fmt is Format.KNOCKOUT:
        return knockout.is_finished(entrants, results, withdrawn)
    if fmt is Format.ARENA:
        return len(active) < 2
    played: dict[int, set[int]] = {}
    for r in results:
        played.setdefault(r.round, set()).update(r.players())
    last = max(played, default=0)
    if last and all(p in played[last] for p in active) and len(active) < 2:
        return True
    if len(active) < 2 and not last:
        return True
    return rounds > 0 and all(
        all(p in played.get(n, ()) for p in active) for n in range(1, rounds + 1)
    )
