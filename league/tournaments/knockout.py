"""Single-elimination (knockout) brackets.

The bracket has the next power of two of slots; seeds (rating, then sign-up order) are placed
in the standard order (1 v 16, 8 v 9, 4 v 13, 5 v 12, ... for 16), so the empty slots fill
the highest seeds' first matches: those seeds get byes. The bracket is fixed by the entrants;
after round 1 a slot holds the winner recorded for the two slots feeding it. A double forfeit
sends nobody on, so the next opponent gets a walk-over; a withdrawn player is never paired, so
their next opponent gets one too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from league.tournaments.model import Entrant, Pairing, Result, Standing, seeded

Slot = int | None


def bracket_size(players: int) -> int:
    size = 1
    while size < players:
        size *= 2
    return size


def rounds_needed(players: int) -> int:
    return max(0, bracket_size(players).bit_length() - 1)


def seed_order(size: int) -> list[int]:
    """The seed (1-based) in each slot of a bracket of ``size`` (a power of two), top to bottom:
    each seed s of the half-size order is followed by its first opponent, size + 1 - s."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


def first_round_slots(entrants: Sequence[Entrant]) -> list[Slot]:
    seeds = seeded(entrants)
    size = bracket_size(len(seeds))
    return [seeds[s - 1].player_id if s <= len(seeds) else None for s in seed_order(size)]


@dataclass(frozen=True)
class Bracket:
    """The slots of every round computed so far; ``complete`` is how many rounds have a
    recorded outcome for every table."""

    slots: tuple[tuple[Slot, ...], ...]
    complete: int


def _advancing(a: Slot, b: Slot, won: set[int]) -> Slot:
    if a is not None and a in won:
        return a
    if b is not None and b in won:
        return b
    return None


def build_bracket(
    entrants: Sequence[Entrant], results: Sequence[Result], withdrawn: frozenset[int]
) -> Bracket:
    """Follows the bracket round by round as far as the results go."""
    slots = [tuple(first_round_slots(entrants))]
    by_round: dict[int, list[Result]] = {}
    for result in results:
        by_round.setdefault(result.round, []).append(result)
    complete = 0
    while len(slots[-1]) > 1:
        round_number = len(slots)
        current = slots[-1]
        round_results = by_round.get(round_number, [])
        won = {r.winner for r in round_results if r.winner is not None}
        played = {p for r in round_results for p in r.players()}
        finished = True
        for i in range(0, len(current), 2):
            live = [p for p in current[i : i + 2] if p is not None]
            # A table is settled when one of its players has a result (a withdrawn player left
            # unpaired has none, and a pair of empty slots has no table at all).
            if any(p not in withdrawn for p in live) and not any(p in played for p in live):
                finished = False
                break
        if not finished:
            break
        complete = round_number
        slots.append(
            tuple(_advancing(current[i], current[i + 1], won) for i in range(0, len(current), 2))
        )
    return Bracket(slots=tuple(slots), complete=complete)


def pair(
    entrants: Sequence[Entrant],
    results: Sequence[Result],
    round_number: int,
    withdrawn: frozenset[int],
) -> list[Pairing]:
    bracket = build_bracket(entrants, results, withdrawn)
    if round_number < 1 or round_number > len(bracket.slots):
        raise ValueError(
            f"round {round_number} cannot be paired: {bracket.complete} round(s) are complete"
        )
    slots = bracket.slots[round_number - 1]
    pairings = []
    for i in range(0, len(slots), 2):
        if len(slots) == 1:
            break
        live = [p for p in slots[i : i + 2] if p is not None and p not in withdrawn]
        if not live:
            continue
        second = live[1] if len(live) == 2 else None
        pairings.append(Pairing(round_number, i // 2 + 1, live[0], second))
    return pairings


def live_players(bracket: Bracket, withdrawn: frozenset[int]) -> list[int]:
    last = bracket.slots[-1]
    return [p for p in last if p is not None and p not in withdrawn]


def is_finished(
    entrants: Sequence[Entrant], results: Sequence[Result], withdrawn: frozenset[int]
) -> bool:
    """One unbeaten player (or none, after a double forfeit in the final) is left."""
    if not entrants:
        return True
    # The last slots computed are those of the round in play (or the champion's): while two
    # players are in them, a match is still to be played.
    return len(live_players(build_bracket(entrants, results, withdrawn), withdrawn)) <= 1


def standings(
    entrants: Sequence[Entrant], results: Sequence[Result], withdrawn: frozenset[int]
) -> list[Standing]:
    """Ranked by the round reached (the champion above the finalist, the semi-final losers
    sharing third place...), players still in above those out in the same round."""
    bracket = build_bracket(entrants, results, withdrawn)
    reached: dict[int, int] = {}
    for round_index, slots in enumerate(bracket.slots):
        for p in slots:
            if p is not None:
                reached[p] = round_index + 1
    last = len(bracket.slots)
    wins = dict.fromkeys(reached, 0)
    losses = dict.fromkeys(reached, 0)
    byes = dict.fromkeys(reached, 0)
    for r in results:
        if r.second is None:
            byes[r.first] = byes.get(r.first, 0) + 1
            continue
        for p in r.players():
            if r.winner == p:
                wins[p] = wins.get(p, 0) + 1
            else:
                losses[p] = losses.get(p, 0) + 1
    order = seeded(entrants)

    def key(e: Entrant) -> tuple[int, int]:
        got = reached.get(e.player_id, 0)
        still_in = got == last and e.player_id not in withdrawn
        return (-got, 0 if still_in else 1)

    ranked = sorted(order, key=key)  # stable: seed order inside a tie
    out: list[Standing] = []
    for i, e in enumerate(ranked):
        rank = out[-1].rank if i and key(ranked[i - 1]) == key(e) else i + 1
        p = e.player_id
        out.append(
            Standing(
                player_id=p,
                rank=rank,
                score=float(max(0, reached.get(p, 1) - 1)),
                tiebreaks=(),
                wins=wins.get(p, 0),
                losses=losses.get(p, 0),
                byes=byes.get(p, 0),
                withdrawn=p in withdrawn,
            )
        )
    return out


def bracket_view(
    entrants: Sequence[Entrant], results: Sequence[Result], withdrawn: frozenset[int]
) -> list[list[tuple[Slot, Slot, Slot]]]:
    """Every round's tables as (first slot, second slot, who went on), rounds not reached yet
    as empty lists; for drawing the bracket."""
    bracket = build_bracket(entrants, results, withdrawn)
    total = rounds_needed(len(entrants))
    view: list[list[tuple[Slot, Slot, Slot]]] = []
    for r in range(total):
        if r >= len(bracket.slots) or len(bracket.slots[r]) < 2:
            view.append([])
            continue
        slots = bracket.slots[r]
        after = bracket.slots[r + 1] if r + 1 < len(bracket.slots) else None
        view.append(
            [
                (slots[i], slots[i + 1], after[i // 2] if after is not None else None)
                for i in range(0, len(slots), 2)
            ]
        )
    return view
