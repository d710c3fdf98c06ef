"""bench/ai.py's players: a level with changed settings (``LEVEL@name=value``)."""

from __future__ import annotations

import random

import pytest

from bench.ai import make_player
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
