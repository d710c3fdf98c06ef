"""Round robins by the Berger tables."""

from __future__ import annotations

import itertools

import pytest

from league.tournaments import Format, Result, is_finished, pair_round, rounds_for, standings
from league.tournaments.round_robin import berger_round
from tests.league.tournaments.helpers import entrants, won_by


def test_berger_table_for_six() -> None:
    # FIDE Handbook C.05 Annex 1, the Berger table for 5 or 6 players.
    table = [berger_round(6, r) for r in range(1, 6)]
    assert table == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]


@pytest.mark.parametrize("players", range(2, 17))
def test_everyone_meets_everyone_once(players: int) -> None:
    field = entrants(players)
    rounds = rounds_for(Format.ROUND_ROBIN, players, None)
    met: list[frozenset[int]] = []
    byes: list[int] = []
    for number in range(1, rounds + 1):
        pairings = pair_round(Format.ROUND_ROBIN, field, [], number)
        seen = [p for x in pairings for p in (x.first, x.second) if p is not None]
        assert sorted(seen) == list(range(1, players + 1))
        met += [frozenset((x.first, x.second)) for x in pairings if x.second is not None]
        byes += [x.first for x in pairings if x.second is None]
    assert sorted(map(sorted, met)) == [
        list(p) for p in itertools.combinations(range(1, players + 1), 2)
    ]
    assert sorted(byes) == (list(range(1, players + 1)) if players % 2 else [])


def test_four_players_played_to_the_end() -> None:
    # Berger for 4: R1 1-4 2-3, R2 4-3 1-2, R3 2-4 3-1. Results: 1 beat 4, 2 beat 3; 4 beat 3,
    # 1 beat 2; 2 beat 4, 3 beat 1 (every game 0-0 points). Scores 1: 2, 2: 2, 3: 1, 4: 1.
    # Head-to-head (before Sonneborn-Berger) puts 1 above 2 and 4 above 3, though 3's
    # Sonneborn-Berger (beat 1: 2) is above 4's (beat 3: 1).
    field = entrants(4)
    winners = {1: [1, 2], 2: [4, 1], 3: [2, 3]}
    results: list[Result] = []
    for number in (1, 2, 3):
        pairings = pair_round(Format.ROUND_ROBIN, field, results, number)
        for pairing, winner in zip(pairings, winners[number], strict=True):
            assert winner in (pairing.first, pairing.second)
            results.append(won_by(pairing, winner))
        assert is_finished(Format.ROUND_ROBIN, field, results, 3) == (number == 3)
    table = standings(Format.ROUND_ROBIN, field, results)
    got = [(s.player_id, s.rank, s.score, s.tiebreaks) for s in table]
    assert got == [
        (1, 1, 2.0, (2.0, 1.0, 3.0, 0.0)),
        (2, 2, 2.0, (2.0, 0.0, 2.0, 0.0)),
        (4, 3, 1.0, (1.0, 1.0, 1.0, 0.0)),
        (3, 4, 1.0, (1.0, 0.0, 2.0, 0.0)),
    ]


def test_five_players_each_get_one_bye() -> None:
    field = entrants(5)
    assert rounds_for(Format.ROUND_ROBIN, 5, None) == 5
    results: list[Result] = []
    for number in range(1, 6):
        for pairing in pair_round(Format.ROUND_ROBIN, field, results, number):
            results.append(won_by(pairing, pairing.first))
    table = standings(Format.ROUND_ROBIN, field, results)
    assert [s.byes for s in table] == [1] * 5
    assert sum(s.score for s in table) == 10 + 5  # ten games and five byes
    assert is_finished(Format.ROUND_ROBIN, field, results, 5)


def test_withdrawn_player_s_opponents_get_byes() -> None:
    field = entrants(4)
    pairings = pair_round(Format.ROUND_ROBIN, field, [], 2, withdrawn=frozenset({3}))
    assert [(p.first, p.second) for p in pairings] == [(4, None), (1, 2)]
