"""Edmonds' maximum matching against brute force."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from league.tournaments.matching import greedy_start, maximum_matching


def neighbours_of(n: int, edges: set[tuple[int, int]]) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        out[a].append(b)
        out[b].append(a)
    return out


def size_and_check(n: int, edges: set[tuple[int, int]], mate: list[int]) -> int:
    for v, m in enumerate(mate):
        if m != -1:
            assert mate[m] == v
            assert (min(v, m), max(v, m)) in edges
    return sum(1 for v, m in enumerate(mate) if m > v)


def brute_force(n: int, edges: set[tuple[int, int]]) -> int:
    best = 0
    for k in range(n // 2, 0, -1):
        for chosen in itertools.combinations(sorted(edges), k):
            ends = [v for e in chosen for v in e]
            if len(set(ends)) == len(ends):
                return k
    return best


def test_augments_through_a_blossom() -> None:
    # A triangle 0-1-2 with a pendant on each corner: the greedy start takes 0-1 and 2-3 and
    # leaves 4 and 5; only a path through the odd cycle pairs everyone.
    edges = {(0, 1), (1, 2), (0, 2), (2, 3), (0, 4), (1, 5)}
    neighbours = neighbours_of(6, edges)
    start = greedy_start(neighbours)
    assert size_and_check(6, edges, start) == 2
    assert size_and_check(6, edges, maximum_matching(neighbours, start)) == 3


@settings(max_examples=100, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=8),
    data=st.data(),
)
def test_maximum_like_brute_force(n: int, data: st.DataObject) -> None:
    possible = list(itertools.combinations(range(n), 2))
    edges = set(data.draw(st.lists(st.sampled_from(possible), unique=True)) if possible else [])
    neighbours = neighbours_of(n, edges)
    expected = brute_force(n, edges)
    assert size_and_check(n, edges, maximum_matching(neighbours)) == expected
    assert (
        size_and_check(n, edges, maximum_matching(neighbours, greedy_start(neighbours))) == expected
    )
