"""bench/ai.py's players (a level with changed settings, ``LEVEL@name=value``) and its paired
comparison of two players on the same games."""

from __future__ import annotations

import random

import pytest

from bench.ai import make_player, paired_difference, run_paired
from engine import get_variant
from tests.ai.test_players import sample_decisions


def test_tweaked_level_plays_with_its_settings() -> None:
    """``expert`` without search and without the learned evaluation is the greedy baseline;
    with them it is not (on these decisions)."""
    rules = get_variant("blocking")
    greedy = make_player("greedy")
    plain = make_player("expert@search=0,learned=false")
    searched = make_player("expert@search=8,margin=1.0")
    differ = 0
    for pos, dice in sample_decisions("blocking", 5, 25):
        rng = random.Random(0)
        assert plain(rules, pos, dice, rng) == greedy(rules, pos, dice, rng)
        differ += searched(rules, pos, dice, rng) != greedy(rules, pos, dice, rng)
    assert differ > 0


@pytest.mark.parametrize(
    "spec", ["expert@nosuch=1", "expert@search=many", "expert@search", "wizard@search=1"]
)
def test_bad_tweaks_are_refused(spec: str) -> None:
    with pytest.raises(SystemExit):
        make_player(spec)


def test_paired_difference_is_taken_game_by_game() -> None:
    """Games only one side played are left out; the interval is the t-style one of the
    per-game differences (0, -1, +1, 0: mean 0, sample deviation sqrt(2/3))."""
    first = {1: 1.0, 2: 0.0, 3: 1.0, 4: 0.5}
    second = {1: 1.0, 2: 1.0, 3: 0.0, 4: 0.5, 5: 1.0}
    mean, half, games, differing = paired_difference(first, second)
    assert (mean, games, differing) == (0.0, 4, 2)
    assert half == pytest.approx(1.96 * (2 / 3) ** 0.5 / 2)
    mean, half, games, differing = paired_difference({1: 1.0, 2: 1.0}, {1: 0.0, 2: 0.5})
    assert (mean, half, games, differing) == (0.75, pytest.approx(1.96 * 0.125**0.5 / 2**0.5), 2, 2)


def test_paired_match_pairs_the_same_seeded_games() -> None:
    """A player against himself on the same games differs nowhere; two players' difference
    is the mean of their per-game scores' differences, seed by seed."""
    same = run_paired(None, "blocking", "greedy", "greedy", "random", 4, 11)
    assert (same["difference"], same["differing"], same["games"]) == (0.0, 0, 4)
    assert sorted(same["first"]["scores"]) == [11, 12, 13, 14]
    assert set(same["first"]["scores"].values()) <= {0.0, 0.5, 1.0}
    other = run_paired(None, "blocking", "random", "greedy", "random", 4, 11)
    assert other["second"]["scores"] == same["first"]["scores"]
    first, second = other["first"]["scores"], other["second"]["scores"]
    assert other["difference"] == pytest.approx(sum(first[k] - second[k] for k in first) / 4)
    assert other["differing"] == sum(first[k] != second[k] for k in first)
