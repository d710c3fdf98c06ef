"""The Dutch pairing against the examples of its own rules, FIDE Handbook C.04.3 "FIDE (Dutch)
System" (version approved at the 87th FIDE Congress, Baku 2016; text at
https://handbook.fide.com/chapter/C0403Till2026), section D, and small brackets worked by hand
from sections B and C."""

from __future__ import annotations

import itertools

from league.tournaments import dutch
from league.tournaments.dutch import DOWN, Player, exchanges, transpositions


def player(number: int, score: int = 0, met: tuple[int, ...] = (), **kw: object) -> Player:
    return Player(number, score, number, frozenset(met), **kw)  # type: ignore[arg-type]


def bsns(found: list[tuple[Player, Player]]) -> tuple[int, ...]:
    return tuple(b.id for _, b in found)


def pairs_of(players: list[Player]) -> list[tuple[int, int]]:
    pairs, _ = dutch.pair(players)
    return [(a.id, b.id) for a, b in pairs]


def test_d1_eleven_player_homogeneous_bracket() -> None:
    # D.1: "in a 11-player homogeneous bracket, it is 6-7-8-9-10, 6-7-8-9-11, 6-7-8-10-11, ...,
    # 6-11-10-9-8, 7-6-8-9-10, ..., 11-10-9-8-7 (720 transpositions)". The third one printed is
    # a slip of the text: in lexicographic order (which the same sentence prescribes) and with
    # 720 in all, the third is 6-7-8-10-9.
    s1 = [player(b) for b in range(1, 6)]
    s2 = [player(b) for b in range(6, 12)]
    order = [bsns(pairs) for pairs, _ in transpositions(s1, s2)]
    assert len(order) == 720
    assert order[:3] == [(6, 7, 8, 9, 10), (6, 7, 8, 9, 11), (6, 7, 8, 10, 9)]
    last_with_6 = order.index((6, 11, 10, 9, 8))
    assert order[last_with_6 + 1] == (7, 6, 8, 9, 10)
    assert all(o[0] == 6 for o in order[: last_with_6 + 1])
    assert order[-1] == (11, 10, 9, 8, 7)
    assert order == sorted(order)


def test_d1_heterogeneous_bracket_with_two_mdps() -> None:
    # D.1: "if the bracket is heterogeneous with two MDPs, it is: 3-4, 3-5, 3-6, ..., 3-11, 4-3,
    # 4-5, ..., 11-10 (72 transpositions)".
    s1 = [player(1, 2), player(2, 2)]
    s2 = [player(b, 1) for b in range(3, 12)]
    order = [bsns(pairs) for pairs, _ in transpositions(s1, s2)]
    assert len(order) == 72
    assert order[:3] == [(3, 4), (3, 5), (3, 6)]
    assert order[7:10] == [(3, 11), (4, 3), (4, 5)]
    assert order[-1] == (11, 10)


def test_transpositions_skip_players_who_met() -> None:
    # C.1 inside D.1: with 1 and 4 having met, 4-5-6 and 4-6-5 are skipped; the first valid
    # transposition of S2 = 4 5 6 is 5-4-6.
    s1 = [player(1, met=(4,)), player(2), player(3)]
    s2 = [player(4, met=(1,)), player(5), player(6)]
    first, rest = next(transpositions(s1, s2))
    assert bsns(first) == (5, 4, 6)
    assert rest == []


def _position(
    order: list[tuple[tuple[int, ...], tuple[int, ...]]], out: set[int], into: set[int]
) -> int:
    return next(i for i, (o, n) in enumerate(order) if set(o) == out and set(n) == into)


def test_d2_exchange_order_in_an_eleven_player_bracket() -> None:
    order = list(exchanges(5, 6))  # S1 = 1..5, S2 = 6..11
    # a: exchanging one BSN comes before exchanging two.
    sizes = [len(o) for o, _ in order]
    assert sizes == sorted(sizes)
    # b: "exchanging 6 with 4 is better than exchanging 8 with 5; similarly exchanging 8+6 with
    # 4+3 is better than exchanging 9+8 with 5+4".
    assert _position(order, {4}, {6}) < _position(order, {5}, {8})
    assert _position(order, {4, 3}, {8, 6}) < _position(order, {5, 4}, {9, 8})
    # c: "moving 5 from S1 to S2 is better than moving 4; similarly, 5-2 is better than 4-3;
    # 5-4-1 is better than 5-3-2" (the sums moved being equal, as b compares them first).
    assert _position(order, {5}, {7}) < _position(order, {4}, {6})
    assert _position(order, {5, 2}, {6, 7}) < _position(order, {4, 3}, {6, 7})
    assert _position(order, {5, 4, 1}, {6, 7, 8}) < _position(order, {5, 3, 2}, {6, 7, 8})
    # d: "moving 6 from S2 to S1 is better than moving 7; similarly, 6-9 is better than 7-8;
    # 6-7-10 is better than 6-8-9".
    assert _position(order, {5}, {6}) < _position(order, {5}, {7})
    assert _position(order, {5, 4}, {6, 9}) < _position(order, {5, 4}, {7, 8})
    assert _position(order, {5, 4, 3}, {6, 7, 10}) < _position(order, {5, 4, 3}, {6, 8, 9})
    # The first exchange of all moves the lowest of S1 for the highest of S2.
    assert order[0] == ((5,), (6,))
    assert len(order) == sum(
        len(list(itertools.combinations(range(5), k)))
        * len(list(itertools.combinations(range(6), k)))
        for k in range(1, 6)
    )


def test_b3_top_half_against_bottom_half() -> None:
    # B.2/B.3: S1 = the top half, S2 the rest, paired in order.
    assert pairs_of([player(n) for n in range(1, 9)]) == [(1, 5), (2, 6), (3, 7), (4, 8)]


def test_b6_exchange_when_no_transposition_works() -> None:
    # 1 has met 3 and 4, so no order of S2 = 3 4 pairs S1 = 1 2; the first exchange (D.2: 2
    # for 3) makes S1 = 1 3, S2 = 2 4, paired 1-2 and 3-4.
    players = [player(1, met=(3, 4)), player(2), player(3, met=(1,)), player(4, met=(1,))]
    assert pairs_of(players) == [(1, 2), (3, 4)]


def test_c12_avoids_a_repeated_downfloat() -> None:
    # Bracket 1..5 on one point: two pairs and a downfloater. The first candidate (1-3, 2-4)
    # floats 5 down, who floated down last round (C.12); the next transposition (3-5) floats
    # 4 instead, a perfect candidate. 4 then meets the top of the bracket below.
    players = [player(n, 1) for n in range(1, 5)]
    players += [player(5, 1, last_float=DOWN), player(6), player(7), player(8)]
    assert pairs_of(players) == [(1, 3), (2, 5), (4, 6), (7, 8)]


def test_mdp_paired_first_and_remainder_homogeneous() -> None:
    # Bracket on 1 point: MDP 3 (2 points) and residents 1, 2, 4, 5, 6 in BSN order 3, 1, 2, 4,
    # 5, 6 (A.2: score first). S1 = the MDP, paired with the first resident; the remainder
    # 2 4 5 6 splits 2 4 | 5 6.
    players = [player(3, 2)] + [player(n, 1) for n in (1, 2, 4, 5, 6)] + [player(7), player(8)]
    assert pairs_of(players)[:3] == [(3, 1), (2, 5), (4, 6)]


def test_completion_refuses_a_downfloater_who_cannot_be_paired_below() -> None:
    # 1 2 3 on one point float one player down to 4, who has met 3: 3 may not float.
    players = [player(1, 1), player(2, 1), player(3, 1, met=(4,)), player(4, 0, met=(3,))]
    pairs = pairs_of(players)
    assert (3, 4) not in pairs and (4, 3) not in pairs
    assert sorted(p for pair in pairs for p in pair) == [1, 2, 3, 4]


def test_bye_to_the_lowest_ranked_player_allowed_one() -> None:
    players = [
        player(1),
        player(2),
        player(3),
        player(4, may_get_bye=False),
        player(5, may_get_bye=False),
    ]
    pairs, bye = dutch.pair(players)
    assert bye is not None and bye.id == 3
    assert sorted(p for a, b in pairs for p in (a.id, b.id)) == [1, 2, 4, 5]


def test_can_pair_all_decides_small_fields_exactly() -> None:
    # A triangle of games already played among 1, 2, 3 leaves 4 needing one of them, and then
    # the other two have met: no pairing of these four without a repeat.
    blocked = [player(1, met=(2, 3)), player(2, met=(1, 3)), player(3, met=(1, 2)), player(4)]
    assert not dutch.can_pair_all(blocked)
    assert dutch.can_pair_all([player(1, met=(2,)), player(2, met=(1,)), player(3), player(4)])


def test_c7_moves_down_a_player_the_next_bracket_can_pair() -> None:
    # Brackets: 1 2 3 on two points, 4-8 on one, 9 10 on none. 3 has met all of 4-8. Floating
    # 3 (the first candidate, 1-2) would leave 3 unpaired in the next bracket and float again;
    # C.7 prefers the candidate 1-3, floating 2, who meets the top of the next bracket.
    players = [player(1, 2), player(2, 2), player(3, 2, met=(4, 5, 6, 7, 8))]
    players += [player(n, 1, met=(3,)) for n in (4, 5, 6, 7, 8)]
    players += [player(9), player(10)]
    assert pairs_of(players) == [(1, 3), (2, 4), (5, 7), (6, 8), (9, 10)]
