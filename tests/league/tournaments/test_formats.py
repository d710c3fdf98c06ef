"""What every format shares: round counts, finishing, input checks."""

from __future__ import annotations

import pytest

from league.tournaments import (
    Entrant,
    Format,
    Result,
    is_finished,
    pair_round,
    rounds_for,
    standings,
    tiebreak_names,
)
from tests.league.tournaments.helpers import entrants


def test_round_counts() -> None:
    assert [rounds_for(Format.KNOCKOUT, n, None) for n in (2, 3, 4, 5, 8, 9, 16)] == [
        1, 2, 2, 3, 3, 4, 4,
    ]  # fmt: skip
    assert [rounds_for(Format.ROUND_ROBIN, n, None) for n in (2, 3, 4, 5, 16)] == [1, 3, 3, 5, 15]
    assert rounds_for(Format.ARENA, 10, None) == 0
    assert all(rounds_for(f, 1, None) == 0 for f in Format)
    with pytest.raises(ValueError):
        rounds_for(Format.SWISS, 8, 0)


def test_swiss_finishes_when_every_round_has_every_result() -> None:
    field = entrants(4)
    results = [Result(1, 1, 3, 1), Result(1, 2, 4, 2)]
    assert is_finished(Format.SWISS, field, results, 1)
    assert not is_finished(Format.SWISS, field, results, 2)
    assert not is_finished(Format.SWISS, field, results[:1], 1)
    # A withdrawn player's missing result does not hold the event up.
    assert is_finished(Format.SWISS, field, results[:1], 1, withdrawn=frozenset({2, 4}))


def test_arena_ends_on_its_clock_only() -> None:
    field = entrants(3)
    assert not is_finished(Format.ARENA, field, [Result(1, 1, 2, 1)], 0)
    assert is_finished(Format.ARENA, field, [], 0, withdrawn=frozenset({1, 2}))


def test_bad_input_is_refused() -> None:
    twice = [Entrant(1, 1500.0, 1), Entrant(1, 1400.0, 2)]
    with pytest.raises(ValueError):
        pair_round(Format.SWISS, twice, [], 1)
    with pytest.raises(ValueError):
        standings(Format.SWISS, twice, [])
    with pytest.raises(ValueError):
        pair_round(Format.SWISS, entrants(4), [], 0)


def test_every_format_names_its_tiebreaks() -> None:
    for fmt in Format:
        table = standings(fmt, entrants(4), [Result(1, 1, 2, 1, 5, 2)])
        assert all(len(s.tiebreaks) == len(tiebreak_names(fmt)) for s in table)
