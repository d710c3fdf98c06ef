"""Swiss events: pairings (byes, withdrawals, no repeats) and standings with the tiebreaks."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from league.tournaments import (
    Format,
    Pairing,
    Result,
    bye_result,
    is_finished,
    pair_round,
    rounds_for,
    standings,
    tiebreak_names,
)
from tests.league.tournaments.helpers import entrants, higher_seed_wins


def players_in(pairings: list[Pairing]) -> list[int]:
    return sorted(p for x in pairings for p in (x.first, x.second) if p is not None)


def test_round_one_top_half_against_bottom_half_and_bye_to_the_last() -> None:
    # The Dutch system's earlier text (FIDE Handbook C.04.1, F.4): in round one "the highest
    # player of S1 will play against the highest player of S2 and if the number of players is
    # odd the lowest ranked player will receive a bye".
    pairings = pair_round(Format.SWISS, entrants(7), [], 1)
    assert [(p.first, p.second) for p in pairings] == [(1, 4), (2, 5), (3, 6), (7, None)]
    assert [p.table for p in pairings] == [1, 2, 3, 4]


def test_round_two_pairs_equal_scores() -> None:
    field = entrants(8)
    results = [
        Result(1, 1, 5, 1),
        Result(1, 2, 6, 6),
        Result(1, 3, 7, 3),
        Result(1, 4, 8, 8),
    ]
    pairings = pair_round(Format.SWISS, field, results, 2)
    # One point: 1 3 6 8 (S1 = 1 3, S2 = 6 8); none: 2 4 5 7.
    assert [(p.first, p.second) for p in pairings] == [(1, 6), (3, 8), (2, 5), (4, 7)]


def test_the_bye_goes_to_the_lowest_ranked_player_without_one() -> None:
    field = entrants(5)
    round1 = pair_round(Format.SWISS, field, [], 1)
    assert round1[-1] == Pairing(1, 3, 5, None)
    results = higher_seed_wins(round1)  # 1, 2 and 5 (bye) on one point; 3, 4 on none
    round2 = pair_round(Format.SWISS, field, results, 2)
    byes = [p.first for p in round2 if p.second is None]
    assert byes == [4]  # the lowest ranked (score, then seed) without a bye
    results += higher_seed_wins(round2)
    round3 = pair_round(Format.SWISS, field, results, 3)
    assert [p.first for p in round3 if p.second is None] == [3]


def test_a_forfeit_win_rules_out_the_bye() -> None:
    # R1: 3 beat 1 by forfeit, 2 beat 4, 5 bye. R2: 2 beat 3, 1 beat 5, 4 bye. On one point
    # 1 3 4 5, ranked by seed: from the bottom 5 and 4 had byes, and 3 scored without playing
    # (C.2), so the bye goes to 1.
    field = entrants(5)
    results = [
        Result(1, 1, 3, 3, forfeit=True),
        Result(1, 2, 4, 2),
        bye_result(Pairing(1, 3, 5, None)),
        Result(2, 2, 3, 2),
        Result(2, 1, 5, 1),
        bye_result(Pairing(2, 3, 4, None)),
    ]
    round3 = pair_round(Format.SWISS, field, results, 3)
    assert [p.first for p in round3 if p.second is None] == [1]
    assert sorted((p.first, p.second) for p in round3 if p.second is not None) == [(2, 5), (3, 4)]


def test_withdrawn_players_are_never_paired_again() -> None:
    field = entrants(6)
    results = higher_seed_wins(pair_round(Format.SWISS, field, [], 1))
    round2 = pair_round(Format.SWISS, field, results, 2, withdrawn=frozenset({2}))
    assert players_in(round2) == [1, 3, 4, 5, 6]
    assert sum(1 for p in round2 if p.second is None) == 1


def test_rounds_default_to_log2() -> None:
    assert rounds_for(Format.SWISS, 8, None) == 3
    assert rounds_for(Format.SWISS, 9, None) == 4
    assert rounds_for(Format.SWISS, 1024, None) == 10
    assert rounds_for(Format.SWISS, 8, 5) == 5
    assert rounds_for(Format.SWISS, 1, None) == 0


# A 5-player, 3-round event worked by hand (the results are given, not paired here).
#   R1: 1 beat 3 5-2, 4 beat 2 5-3, 5 bye.
#   R2: 4 beat 5 5-4, 1 beat 2 5-1, 3 bye.
#   R3: 4 beat 1 5-3, 3 beat 5 5-0, 2 bye.
# Scores 4: 3, 1: 2, 3: 2, 2: 1, 5: 1. Buchholz (a bye counts the player's own score):
#   1: 3 (2) + 2 (1) + 4 (3) = 6     3: 1 (2) + bye (2) + 5 (1) = 5     4: 2 + 5 + 1 = 1+1+2 = 4
#   2: 4 (3) + 1 (2) + bye (1) = 6   5: bye (1) + 4 (3) + 3 (2) = 6
# Median Buchholz (the middle of three): 1: 2, 3: 2, 4: 1, 2: 2, 5: 2.
# Points difference: 1: +3 +4 -2 = 5; 2: -2 -4 = -6; 3: -3 +5 = 2; 4: +2 +1 +2 = 5; 5: -1 -5 = -6.
# 1 and 3 part on match wins (2 against 1); 2 and 5 are tied on everything and never met.
HAND_RESULTS = [
    Result(1, 1, 3, 1, 5, 2),
    Result(1, 4, 2, 4, 5, 3),
    bye_result(Pairing(1, 3, 5, None)),
    Result(2, 4, 5, 4, 5, 4),
    Result(2, 1, 2, 1, 5, 1),
    bye_result(Pairing(2, 3, 3, None)),
    Result(3, 4, 1, 4, 5, 3),
    Result(3, 3, 5, 3, 5, 0),
    bye_result(Pairing(3, 3, 2, None)),
]


def test_standings_worked_by_hand() -> None:
    table = standings(Format.SWISS, entrants(5), HAND_RESULTS)
    assert tiebreak_names(Format.SWISS) == (
        "match wins",
        "Buchholz",
        "median Buchholz",
        "points difference",
        "head-to-head",
    )
    got = [(s.player_id, s.rank, s.score, s.tiebreaks, s.wins, s.losses, s.byes) for s in table]
    assert got == [
        (4, 1, 3.0, (3.0, 4.0, 1.0, 5.0, 0.0), 3, 0, 0),
        (1, 2, 2.0, (2.0, 6.0, 2.0, 5.0, 0.0), 2, 1, 0),
        (3, 3, 2.0, (1.0, 5.0, 2.0, 2.0, 0.0), 1, 1, 1),
        (2, 4, 1.0, (0.0, 6.0, 2.0, -6.0, 0.0), 0, 2, 1),
        (5, 4, 1.0, (0.0, 6.0, 2.0, -6.0, 0.0), 0, 2, 1),
    ]


def test_head_to_head_breaks_the_last_tie() -> None:
    # Four players meet all the others, every game won 5-3. 2 beats 1 and 4 but loses to 3;
    # 1 beats 4 and 3; 4 beats 3. Scores: 2 and 1 on two, 4 and 3 on one. Inside each pair
    # match wins, Buchholz (all-play-all: the others' total), median Buchholz and points
    # difference (+2 / -2 per game) are equal, so head-to-head decides: 2 above 1 and 4 above
    # 3, against the seed order.
    games = [(1, 2, 2), (3, 4, 4), (1, 3, 1), (2, 4, 2), (1, 4, 1), (2, 3, 3)]
    results = [
        Result(n // 2 + 1, a, b, w, 5 if w == a else 3, 5 if w == b else 3)
        for n, (a, b, w) in enumerate(games)
    ]
    table = standings(Format.SWISS, entrants(4), results)
    assert [(s.player_id, s.rank) for s in table] == [(2, 1), (1, 2), (4, 3), (3, 4)]
    assert table[0].tiebreaks[:4] == table[1].tiebreaks[:4] == (2.0, 4.0, 1.0, 2.0)
    assert table[2].tiebreaks[:4] == table[3].tiebreaks[:4] == (1.0, 5.0, 2.0, -2.0)
    assert [s.tiebreaks[4] for s in table] == [1.0, 0.0, 1.0, 0.0]


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(min_value=2, max_value=24),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_random_events_never_repeat_a_pairing(players: int, seed: int) -> None:
    # While every player has met fewer than half of the field, a pairing without repeats
    # exists (Dirac), so the system must find one; byes are one per player at most.
    rng = random.Random(seed)
    field = entrants(players)
    rounds = max(1, (players - 1) // 2)
    results: list[Result] = []
    met: set[frozenset[int]] = set()
    byes: list[int] = []
    for number in range(1, rounds + 1):
        pairings = pair_round(Format.SWISS, field, results, number)
        assert players_in(pairings) == list(range(1, players + 1))
        assert [p.table for p in pairings] == list(range(1, len(pairings) + 1))
        for p in pairings:
            if p.second is None:
                byes.append(p.first)
                results.append(bye_result(p))
                continue
            pair = frozenset((p.first, p.second))
            assert pair not in met, f"round {number} repeats {sorted(pair)}"
            met.add(pair)
            winner = p.first if rng.random() < 0.5 else p.second
            results.append(Result(number, p.first, p.second, winner, rng.randint(0, 7), 7))
    assert len(byes) == len(set(byes))
    assert is_finished(Format.SWISS, field, results, rounds)
    table = standings(Format.SWISS, field, results)
    assert sorted(s.player_id for s in table) == list(range(1, players + 1))
    assert sum(s.score for s in table) == len(results)


def _repeat_free_exists(players: list[int], met: set[frozenset[int]]) -> bool:
    """Brute force: can ``players`` all be paired without a repeat?"""
    if not players:
        return True
    first, rest = players[0], players[1:]
    return any(
        frozenset((first, other)) not in met
        and _repeat_free_exists([p for p in rest if p != other], met)
        for other in rest
    )


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(min_value=2, max_value=11),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_long_events_repeat_only_when_unavoidable(players: int, seed: int) -> None:
    # Up to n - 1 rounds, where repeats can become unavoidable: whenever some player allowed a
    # bye (or nobody, in an even field) can be left out so that the rest pair without a repeat
    # (checked by brute force), the round has no repeat.
    rng = random.Random(seed)
    field = entrants(players)
    results: list[Result] = []
    met: set[frozenset[int]] = set()
    had_bye: set[int] = set()
    for number in range(1, players):
        everyone = list(range(1, players + 1))
        if players % 2:
            avoidable = any(
                _repeat_free_exists([p for p in everyone if p != b], met)
                for b in everyone
                if b not in had_bye
            )
        else:
            avoidable = _repeat_free_exists(everyone, met)
        pairings = pair_round(Format.SWISS, field, results, number)
        repeats = [p for p in pairings if frozenset((p.first, p.second)) in met]
        if avoidable:
            assert not repeats, f"round {number}: avoidable repeats {repeats}"
        for p in pairings:
            if p.second is None:
                had_bye.add(p.first)
                results.append(bye_result(p))
                continue
            met.add(frozenset((p.first, p.second)))
            winner = p.first if rng.random() < 0.5 else p.second
            results.append(Result(number, p.first, p.second, winner))


def test_pairing_depends_on_the_results_not_their_order() -> None:
    # Every process (and a restart) must pair a round the same way from the same results.
    rng = random.Random(7)
    field = entrants(30)
    results: list[Result] = []
    for number in range(1, 6):
        for p in pair_round(Format.SWISS, field, results, number):
            if p.second is None:
                results.append(bye_result(p))
            else:
                results.append(Result(number, p.first, p.second, rng.choice((p.first, p.second))))
    expected = pair_round(Format.SWISS, field, results, 6)
    for _ in range(5):
        shuffled = list(results)
        rng.shuffle(shuffled)
        assert pair_round(Format.SWISS, list(reversed(field)), shuffled, 6) == expected
