"""Knockout brackets: seeding, byes, walk-overs and standings."""

from __future__ import annotations

import pytest

from league.tournaments import (
    Entrant,
    Format,
    Pairing,
    Result,
    bye_result,
    is_finished,
    knockout_bracket,
    pair_round,
    rounds_for,
    standings,
)
from league.tournaments.knockout import seed_order
from tests.league.tournaments.helpers import entrants, won_by


def pairs(pairings: list[Pairing]) -> list[tuple[int, int | None]]:
    return [(p.first, p.second) for p in pairings]


def test_standard_bracket_order() -> None:
    assert seed_order(2) == [1, 2]
    assert seed_order(4) == [1, 4, 2, 3]
    assert seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert seed_order(16)[:4] == [1, 16, 8, 9]
    assert sorted(seed_order(32)) == list(range(1, 33))


def test_seeds_by_rating_then_sign_up_order() -> None:
    field = [Entrant(10, 1500.0, 2), Entrant(11, 1700.0, 3), Entrant(12, 1500.0, 1)]
    # Seeds: 11 (1700), 12 (1500, signed up first), 10. Bracket of 4: 1 v bye, 2 v 3.
    assert pairs(pair_round(Format.KNOCKOUT, field, [], 1)) == [(11, None), (12, 10)]


def test_five_players_played_to_the_end() -> None:
    field = entrants(5)
    assert rounds_for(Format.KNOCKOUT, 5, None) == 3
    round1 = pair_round(Format.KNOCKOUT, field, [], 1)
    # Bracket of 8 (1 v 8, 4 v 5, 2 v 7, 3 v 6): seeds 6-8 are empty, so 1, 2, 3 have byes.
    assert pairs(round1) == [(1, None), (4, 5), (2, None), (3, None)]
    assert [p.table for p in round1] == [1, 2, 3, 4]
    results = [bye_result(round1[0]), won_by(round1[1], 5, (3, 5))]
    results += [bye_result(round1[2]), bye_result(round1[3])]
    assert not is_finished(Format.KNOCKOUT, field, results, 3)
    round2 = pair_round(Format.KNOCKOUT, field, results, 2)
    assert pairs(round2) == [(1, 5), (2, 3)]
    results += [won_by(round2[0], 1, (5, 1)), won_by(round2[1], 3, (4, 5))]
    round3 = pair_round(Format.KNOCKOUT, field, results, 3)
    assert pairs(round3) == [(1, 3)]
    assert not is_finished(Format.KNOCKOUT, field, results, 3)
    results.append(won_by(round3[0], 3, (2, 5)))
    assert is_finished(Format.KNOCKOUT, field, results, 3)
    table = standings(Format.KNOCKOUT, field, results)
    # Champion 3, finalist 1, semi-final losers 2 and 5 share third (seed order), 4 out first.
    got = [(s.player_id, s.rank, s.score, s.wins, s.losses, s.byes) for s in table]
    assert got == [
        (3, 1, 3.0, 2, 0, 1),
        (1, 2, 2.0, 1, 1, 1),
        (2, 3, 1.0, 0, 1, 1),
        (5, 3, 1.0, 1, 1, 0),
        (4, 5, 0.0, 0, 1, 0),
    ]
    with pytest.raises(ValueError):
        pair_round(Format.KNOCKOUT, field, results, 5)


def test_double_forfeit_sends_nobody_on() -> None:
    field = entrants(8)
    round1 = pair_round(Format.KNOCKOUT, field, [], 1)
    assert pairs(round1) == [(1, 8), (4, 5), (2, 7), (3, 6)]
    results = [Result(1, 1, 8, None, forfeit=True)]  # double forfeit
    results += [won_by(p, p.first) for p in round1[1:]]
    round2 = pair_round(Format.KNOCKOUT, field, results, 2)
    # 4 (the winner of 4 v 5) gets a walk-over: nobody came out of 1 v 8.
    assert pairs(round2) == [(4, None), (2, 3)]
    results += [bye_result(round2[0]), won_by(round2[1], 3)]
    assert pairs(pair_round(Format.KNOCKOUT, field, results, 3)) == [(4, 3)]
    table = standings(Format.KNOCKOUT, field, results)
    assert {s.player_id for s in table if s.rank == 1} == {3, 4}  # both still in
    # 2 lost in round 2; 1 and 8 (double forfeit), 5, 7 and 6 went out in round 1.
    assert [(s.player_id, s.rank) for s in table][2:] == [
        (2, 3),
        (1, 4),
        (5, 4),
        (6, 4),
        (7, 4),
        (8, 4),
    ]


def test_final_double_forfeit_finishes_without_a_champion() -> None:
    field = entrants(2)
    results = [Result(1, 1, 2, None, forfeit=True)]
    assert is_finished(Format.KNOCKOUT, field, results, 1)
    assert [s.rank for s in standings(Format.KNOCKOUT, field, results)] == [1, 1]


def test_withdrawn_player_gives_a_walk_over() -> None:
    field = entrants(4)
    round1 = pair_round(Format.KNOCKOUT, field, [], 1)
    assert pairs(round1) == [(1, 4), (2, 3)]
    results = [won_by(round1[0], 1), won_by(round1[1], 2)]
    round2 = pair_round(Format.KNOCKOUT, field, results, 2, withdrawn=frozenset({2}))
    assert pairs(round2) == [(1, None)]
    assert is_finished(Format.KNOCKOUT, field, results, 2, withdrawn=frozenset({2}))
    table = standings(Format.KNOCKOUT, field, results, withdrawn=frozenset({2}))
    assert table[0].player_id == 1 and table[0].rank == 1
    assert table[1].player_id == 2 and table[1].withdrawn


def test_a_round_cannot_be_paired_before_the_last_is_complete() -> None:
    field = entrants(4)
    round1 = pair_round(Format.KNOCKOUT, field, [], 1)
    with pytest.raises(ValueError):
        pair_round(Format.KNOCKOUT, field, [won_by(round1[0], 1)], 2)


def test_bracket_view_for_drawing() -> None:
    field = entrants(5)
    assert knockout_bracket(field, []) == [
        [(1, None, None), (4, 5, None), (2, None, None), (3, None, None)],
        [],
        [],
    ]
    round1 = pair_round(Format.KNOCKOUT, field, [], 1)
    results = [bye_result(p) if p.second is None else won_by(p, 5) for p in round1]
    assert knockout_bracket(field, results) == [
        [(1, None, 1), (4, 5, 5), (2, None, 2), (3, None, 3)],
        [(1, 5, None), (2, 3, None)],
        [],
    ]
