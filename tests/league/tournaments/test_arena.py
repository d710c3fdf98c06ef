"""Arena scoring (streaks) and pairing of the players waiting."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from league.tournaments import Format, Result, is_finished, pair_arena, pair_round, standings
from tests.league.tournaments.helpers import entrants


def game(sequence: int, first: int, second: int, winner: int | None) -> Result:
    return Result(1, first, second, winner, sequence=sequence)


def test_streak_scoring() -> None:
    # Player 1: win 2, win 2, win on a streak of two 3, loss 0, win 2, draw 1 = 10; the draw
    # and the loss end streaks. Given out of order: the sequence decides.
    results = [
        game(6, 1, 3, None),
        game(1, 1, 2, 1),
        game(3, 1, 2, 1),
        game(2, 1, 3, 1),
        game(4, 1, 4, 4),
        game(5, 1, 2, 1),
    ]
    table = {s.player_id: s for s in standings(Format.ARENA, entrants(4), results)}
    assert table[1].score == 10.0
    assert table[1].wins == 4 and table[1].losses == 1
    assert table[4].score == 2.0
    assert table[3].score == 1.0  # the draw
    assert table[2].score == 0.0
    assert [s.player_id for s in standings(Format.ARENA, entrants(4), results)] == [1, 4, 3, 2]


def test_double_forfeit_scores_one_each() -> None:
    results = [Result(1, 1, 2, None, forfeit=True, sequence=1)]
    assert [s.score for s in standings(Format.ARENA, entrants(2), results)] == [1.0, 1.0]


def test_waiting_players_paired_by_score_not_their_last_opponent() -> None:
    field = entrants(6)
    # Scores: 5: 4 (two wins, the second not yet on a streak of two), 1: 2, 3: 2 (a win, then a
    # loss to 5), 2, 4 and 6: 0. 5 last played 3, 3 last played 5.
    results = [game(1, 5, 6, 5), game(2, 1, 2, 1), game(3, 3, 4, 3), game(4, 5, 3, 5)]
    waiting = [1, 2, 3, 4, 5, 6]
    pairings = pair_arena(waiting, field, results, 7)
    # Down the list 5 1 3 2 4 6 (score, then seed): 5-1, 3-2, 4-6.
    assert [(p.first, p.second) for p in pairings] == [(5, 1), (3, 2), (4, 6)]
    assert all(p.round == 7 for p in pairings)


def test_last_opponent_avoided_and_odd_player_waits() -> None:
    field = entrants(3)
    results = [game(1, 1, 2, 1)]
    pairings = pair_arena([1, 2, 3], field, results, 2)
    assert [(p.first, p.second) for p in pairings] == [(1, 3)]  # 2 waits
    # With only the last opponent waiting, they play again.
    assert [(p.first, p.second) for p in pair_arena([1, 2], field, results, 3)] == [(1, 2)]


def test_first_wave_pairs_everyone_not_withdrawn() -> None:
    pairings = pair_round(Format.ARENA, entrants(5), [], 1, withdrawn=frozenset({2}))
    assert [(p.first, p.second) for p in pairings] == [(1, 3), (4, 5)]
    assert not is_finished(Format.ARENA, entrants(5), [], 0)


def test_a_repeat_avoided_further_down_the_list() -> None:
    # All on zero points; 3 and 4 just played each other. Pairing straight down (1-2, 3-4)
    # would repeat; 1-3 and 2-4 avoid it.
    results = [game(1, 3, 4, None), game(2, 1, 5, None), game(3, 2, 6, None)]
    field = entrants(6)
    pairings = pair_arena([1, 2, 3, 4], field, results, 2)
    assert [(p.first, p.second) for p in pairings] == [(1, 3), (2, 4)]


def _free_of_repeats(players: list[int], avoid: set[frozenset[int]]) -> bool:
    if not players:
        return True
    first, rest = players[0], players[1:]
    return any(
        frozenset((first, other)) not in avoid
        and _free_of_repeats([p for p in rest if p != other], avoid)
        for other in rest
    )


@settings(max_examples=60, deadline=None)
@given(
    games=st.lists(st.tuples(st.integers(1, 8), st.integers(1, 8), st.integers(0, 2)), max_size=14),
    waiting=st.sets(st.integers(1, 8), max_size=8),
)
def test_no_repeat_in_a_row_when_avoidable(
    games: list[tuple[int, int, int]], waiting: set[int]
) -> None:
    results = [game(n, a, b, (a, b, None)[w]) for n, (a, b, w) in enumerate(games) if a != b]
    field = entrants(8)
    last: dict[int, int] = {}
    for r in results:
        assert r.second is not None
        last[r.first], last[r.second] = r.second, r.first
    avoid = {frozenset((p, q)) for p, q in last.items()}
    pool = sorted(waiting)
    pairings = pair_arena(pool, field, results, 1)
    paired = [p for x in pairings for p in (x.first, x.second)]
    assert len(paired) == len(set(paired)) == len(pool) - len(pool) % 2
    if len(pool) % 2:
        avoidable = any(_free_of_repeats([p for p in pool if p != w], avoid) for w in pool)
    else:
        avoidable = _free_of_repeats(pool, avoid)
    if avoidable:
        assert all(frozenset((x.first, x.second)) not in avoid for x in pairings)
