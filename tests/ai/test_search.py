"""Search: the deadline is honoured (best-so-far answers), levels ordered in direction."""

from __future__ import annotations

import time

import pytest

from ai.arena import level_player, play_game
from ai.learned import evaluator
from ai.players import rank_plays
from ai.search import ROLLS, reply_value
from engine import VARIANTS, Dice, Position, get_variant, legal_plays
from tests.ai.test_players import sample_decisions

ALL = sorted(VARIANTS)


def test_rolls_cover_all_36() -> None:
    assert len(ROLLS) == 21
    assert sum(chance for _, chance in ROLLS) == pytest.approx(1.0)


def _slowest(variant: str, count: int) -> list[tuple[Position, Dice]]:
    """The decisions with the most legal plays in a sample (the search's worst cases)."""
    rules = get_variant(variant)
    found = sample_decisions(variant, 99, 40)
    found.sort(key=lambda d: -len(legal_plays(d[0], d[1], rules)))
    return found[:count]


@pytest.mark.parametrize("variant", [v for v in ALL if v != "classic"])
def test_an_expired_deadline_gives_the_0ply_ranking(variant: str) -> None:
    rules = get_variant(variant)
    for pos, dice in _slowest(variant, 2):
        past = time.monotonic() - 1.0
        expert = rank_plays(rules, pos, dice, level="expert", deadline=past)
        # The 0-ply ranking of the expert's own evaluation (learned where weights are shipped).
        plays = legal_plays(pos, dice, rules)
        eq, _ = evaluator(variant, learned=True).evaluate(rules, [p.after for p in plays], None)
        greedy = [plays[i] for i in sorted(range(len(plays)), key=lambda i: -eq[i])]
        assert [r.play for r in expert] == greedy
        assert reply_value(rules, expert[0].play.after, None, past) is None


@pytest.mark.parametrize("variant", [v for v in ALL if v != "classic"])
def test_the_deadline_holds_on_the_slowest_positions(variant: str) -> None:
    """A generous bound: the point is that a decision never runs on unbounded."""
    rules = get_variant(variant)
    for pos, dice in _slowest(variant, 2):
        start = time.monotonic()
        legal_plays(pos, dice, rules)
        listing = time.monotonic() - start
        start = time.monotonic()
        ranked = rank_plays(rules, pos, dice, level="expert", deadline=start + 0.2)
        took = time.monotonic() - start
        assert ranked
        # Past the deadline only the listing and one batch evaluation may finish.
        assert took < 0.2 + 3 * listing + 2.0


def test_search_changes_some_choices() -> None:
    """The 1-ply search is really consulted: on close decisions it sometimes overrules 0-ply."""
    rules = get_variant("pin")
    differ = 0
    for pos, dice in sample_decisions("pin", 4, 30):
        expert = rank_plays(rules, pos, dice, level="expert", deadline=time.monotonic() + 5)
        greedy = rank_plays(rules, pos, dice, level="strong")
        differ += expert[0].play != greedy[0].play
    assert differ > 0


@pytest.mark.parametrize(("upper", "lower"), [("strong", "beginner")])
def test_levels_ordered_in_direction(upper: str, lower: str) -> None:
    """Direction on a small sample (the figures come from bench/ai.py --levels)."""
    wins = 0
    games = 10
    for g in range(games):
        a, b = level_player(upper), level_player(lower)
        seats = (a, b) if g % 2 == 0 else (b, a)
        result = play_game("pin", seats, seed=500 + g)
        wins += result.winner == g % 2
    assert wins >= 6
