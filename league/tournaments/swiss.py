"""Swiss rounds: the event's results turned into what the Dutch pairing needs (scores, who met
whom, byes, floats), and its pairs turned back into :class:`Pairing` values."""

from __future__ import annotations

from collections.abc import Sequence

from league.tournaments import dutch
from league.tournaments.model import Entrant, Pairing, Result, seeded


def _floats(results: Sequence[Result], round_number: int) -> dict[int, dict[int, str]]:
    """{round: {player: DOWN or UP}} for the two rounds before ``round_number``. A higher
    ranked player who met a lower scored one floated down, the other up; a bye or a forfeit
    win (points without playing) is a downfloat (C.04.3 A.4)."""
    score: dict[int, int] = {}
    floats: dict[int, dict[int, str]] = {}
    for number in sorted({r.round for r in results if r.round < round_number}):
        this_round = [r for r in results if r.round == number]
        marks: dict[int, str] = {}
        for r in this_round:
            if r.second is None:
                marks[r.first] = dutch.DOWN
            elif r.forfeit:
                if r.winner is not None:
                    marks[r.winner] = dutch.DOWN
            else:
                a, b = score.get(r.first, 0), score.get(r.second, 0)
                if a != b:
                    high, low = (r.first, r.second) if a > b else (r.second, r.first)
                    marks[high] = dutch.DOWN
                    marks[low] = dutch.UP
        floats[number] = marks
        for r in this_round:
            if r.winner is not None:
                score[r.winner] = score.get(r.winner, 0) + 1
    return floats


def players_for_round(
    entrants: Sequence[Entrant],
    results: Sequence[Result],
    round_number: int,
    withdrawn: frozenset[int],
) -> list[dutch.Player]:
    earlier = [r for r in results if r.round < round_number]
    score: dict[int, int] = {}
    opponents: dict[int, set[int]] = {}
    no_bye: set[int] = set()
    had_bye: set[int] = set()
    for r in earlier:
        if r.winner is not None:
            score[r.winner] = score.get(r.winner, 0) + 1
        if r.second is None:
            no_bye.add(r.first)
            had_bye.add(r.first)
            continue
        opponents.setdefault(r.first, set()).add(r.second)
        opponents.setdefault(r.second, set()).add(r.first)
        if r.forfeit and r.winner is not None:
            no_bye.add(r.winner)  # C.2: a forfeit win already gave points without a game
    floats = _floats(earlier, round_number)
    last = floats.get(round_number - 1, {})
    before = floats.get(round_number - 2, {})
    return [
        dutch.Player(
            id=e.player_id,
            score=score.get(e.player_id, 0),
            pairing_number=number,
            opponents=frozenset(opponents.get(e.player_id, ())),
            may_get_bye=e.player_id not in no_bye,
            had_bye=e.player_id in had_bye,
            last_float=last.get(e.player_id),
            float_before=before.get(e.player_id),
        )
        for number, e in enumerate(seeded(entrants), start=1)
        if e.player_id not in withdrawn
    ]


def pair(
    entrants: Sequence[Entrant],
    results: Sequence[Result],
    round_number: int,
    withdrawn: frozenset[int],
) -> list[Pairing]:
    players = players_for_round(entrants, results, round_number, withdrawn)
    if not players:
        return []
    pairs, bye = dutch.pair(players)
    out = [Pairing(round_number, i + 1, a.id, b.id) for i, (a, b) in enumerate(pairs)]
    if bye is not None:
        out.append(Pairing(round_number, len(out) + 1, bye.id, None))
    return out
